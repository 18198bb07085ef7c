// Bench-only bridge: sppark's BN254 NTT on a device buffer we own, timed with CUDA events on
// sppark's own stream. Our code; sppark's headers (crates.io `sppark`, Apache-2.0).

// sppark selects its field per translation unit. Its NTT classes are not templates, so their
// inline members (the twiddle tables behind NTTParameters::all among them) would have the same
// symbols in both fields' objects and the linker would keep one field's: per-field names.
#define FEATURE_BN254
#define NTT zkntt_bn254_NTT
#define NTTParameters zkntt_bn254_NTTParameters
#define CT_launcher zkntt_bn254_CT_launcher
#define GS_launcher zkntt_bn254_GS_launcher

#include <cuda.h>

#include <ff/alt_bn128.hpp>
#include <ntt/ntt.cuh>

#include "event_timing.cuh"

#include <algorithm>
#include <vector>

// order: 0 NN, 1 NR, 2 RN. Runs `reps` transforms on d_inout (device memory, Montgomery form)
// after one warm-up and writes each one's milliseconds to ms[0..reps] and the host's milliseconds
// to queue it to host_ms[0..reps]. Returns cudaError_t.
extern "C" int zkntt_sppark_bn254_ntt(void* d_inout, uint32_t lg_n, int order, int inverse, int coset,
                                      float* ms, float* host_ms, int reps) {
    const gpu_t& gpu = select_gpu(0);
    stream_t& stream = gpu;
    const NTT::InputOutputOrder o = order == 0   ? NTT::InputOutputOrder::NN
                                    : order == 1 ? NTT::InputOutputOrder::NR
                                                 : NTT::InputOutputOrder::RN;
    const NTT::Direction d = inverse ? NTT::Direction::inverse : NTT::Direction::forward;
    const NTT::Type t = coset ? NTT::Type::coset : NTT::Type::standard;
    fr_t* p = static_cast<fr_t*>(d_inout);
    try {
        NTT::Base_dev_ptr(stream, p, lg_n, o, d, t);  // warm-up (twiddle setup, module load)
        time_runs(stream, ms, host_ms, reps, [&] { NTT::Base_dev_ptr(stream, p, lg_n, o, d, t); });
        return (int)cudaGetLastError();
    } catch (const cuda_error& e) {
        return (int)e.code();
    }
}
