// In-place bit-reversal permutation, for the NR and RN orderings (NN needs none).
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"

namespace zkntt {
namespace ntt {

template <class F>
__device__ __forceinline__ void bit_reverse_permute(const NttStageParams& p) {
    wait_for_previous_grid();
    allow_dependent_launch();
    const uint64_t n = 1ull << p.log_n;
    F* base = reinterpret_cast<F*>(p.data) + (uint64_t)blockIdx.y * p.batch_stride;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t j = bit_reverse64(i, p.log_n);
        if (i < j) {
            const F x = F::load(base + i * p.elem_stride);
            const F y = F::load(base + j * p.elem_stride);
            y.store(base + i * p.elem_stride);
            x.store(base + j * p.elem_stride);
        }
    }
}

}  // namespace ntt
}  // namespace zkntt

// Launch: 1-D grid-stride over 2^log_n entries, grid.y = batch. In/out: in place, entry i <-> rev(i).
#define ZKNTT_BIT_REVERSE(FIELD)                                                                   \
    extern "C" __global__ void ntt_bit_reverse_##FIELD(const zkntt::ntt::NttStageParams p) {       \
        zkntt::ntt::bit_reverse_permute<zkntt::FIELD>(p);                                          \
    }

ZKNTT_BIT_REVERSE(bn254_fr)
ZKNTT_BIT_REVERSE(bls12_381_fr)
