// Bench-only bridge: sppark's BabyBear NTT on a device buffer we own, timed with CUDA events on
// sppark's own stream. Our code; sppark's headers (crates.io `sppark`, Apache-2.0).

// sppark selects its field per translation unit. Its NTT classes are not templates, so their
// inline members (the twiddle tables behind NTTParameters::all among them) would have the same
// symbols in both fields' objects and the linker would keep one field's: per-field names.
#define FEATURE_BABY_BEAR
#define NTT zkntt_babybear_NTT
#define NTTParameters zkntt_babybear_NTTParameters
#define CT_launcher zkntt_babybear_CT_launcher
#define GS_launcher zkntt_babybear_GS_launcher

#include <cuda.h>

#include <ff/baby_bear.hpp>
#include <ntt/ntt.cuh>

#include "event_timing.cuh"

// order: 0 NN, 1 NR, 2 RN. Runs `reps` forward transforms of 2^lg_n 32-bit words on d_inout
// (device memory; sppark holds BabyBear in Montgomery form, which changes no timing) after one
// warm-up and writes each one's milliseconds to ms[0..reps]. Returns cudaError_t.
extern "C" int zkntt_sppark_babybear_ntt(void* d_inout, uint32_t lg_n, int order, float* ms, int reps) {
    const gpu_t& gpu = select_gpu(0);
    stream_t& stream = gpu;
    const NTT::InputOutputOrder o = order == 0   ? NTT::InputOutputOrder::NN
                                    : order == 1 ? NTT::InputOutputOrder::NR
                                                 : NTT::InputOutputOrder::RN;
    fr_t* p = static_cast<fr_t*>(d_inout);
    try {
        // Warm-up: twiddle setup and module load.
        NTT::Base_dev_ptr(stream, p, lg_n, o, NTT::Direction::forward, NTT::Type::standard);
        time_runs(stream, ms, nullptr, reps, [&] {
            NTT::Base_dev_ptr(stream, p, lg_n, o, NTT::Direction::forward, NTT::Type::standard);
        });
        return (int)cudaGetLastError();
    } catch (const cuda_error& e) {
        return (int)e.code();
    }
}
