// The product microbenchmark (issue 18): every thread multiplies its element by `step` `iters`
// times in a dependent chain, with today's integer Montgomery product (lazy range), with the FP64
// product (cuda/field/mont52.cuh; `step` pre-scaled by 16 on the host), or both at once on two
// elements (the hybrid: one chain per pipe, interleaved). Results canonical, ark's form.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "field/mont52.cuh"

namespace zkntt {
namespace chain {

template <class F>
__device__ __forceinline__ void integer(F* x, const F* step, uint64_t n, uint32_t iters) {
    using L = lazy<typename F::params>;
    const F s = F::load(step);
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        F v = F::load(x + i);
        for (uint32_t k = 0; k < iters; k++) v = L::mul(v, s);
        L::canonical(v).store(x + i);
    }
}

template <class F>
__device__ __forceinline__ void fp64(F* x, const F* step16, uint64_t n, uint32_t iters) {
    using P = typename F::params;
    const fp64::limbs52 s = fp64::to52<P>(F::load(step16));
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        fp64::limbs52 v = fp64::to52<P>(F::load(x + i));
        for (uint32_t k = 0; k < iters; k++) v = fp64::mul<P>(v, s);
        fp64::from52<P>(fp64::canonical<P>(v)).store(x + i);
    }
}

// Elements i (integer chain) and i + n/2 (FP64 chain) per thread; n even.
template <class F>
__device__ __forceinline__ void hybrid(F* x, const F* step, const F* step16, uint64_t n, uint32_t iters) {
    using P = typename F::params;
    using L = lazy<P>;
    const F s = F::load(step);
    const fp64::limbs52 s16 = fp64::to52<P>(F::load(step16));
    const uint64_t half = n / 2;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < half; i += (uint64_t)gridDim.x * blockDim.x) {
        F v = F::load(x + i);
        fp64::limbs52 u = fp64::to52<P>(F::load(x + half + i));
        for (uint32_t k = 0; k < iters; k++) {
            v = L::mul(v, s);
            u = fp64::mul<P>(u, s16);
        }
        L::canonical(v).store(x + i);
        fp64::from52<P>(fp64::canonical<P>(u)).store(x + half + i);
    }
}

}  // namespace chain
}  // namespace zkntt

// Launch: 1-D grid-stride, any grid and block size; x holds n elements, step one (the hybrid:
// step and step*16).
#define ZKNTT_CHAIN(FIELD)                                                                             \
    extern "C" __global__ void field_chain_int_##FIELD(zkntt::FIELD* x, const zkntt::FIELD* step,       \
                                                       const zkntt::FIELD*, uint64_t n, uint32_t iters) { \
        zkntt::chain::integer(x, step, n, iters);                                                      \
    }                                                                                                  \
    extern "C" __global__ void field_chain_fp64_##FIELD(zkntt::FIELD* x, const zkntt::FIELD*,           \
                                                        const zkntt::FIELD* step16, uint64_t n,        \
                                                        uint32_t iters) {                              \
        zkntt::chain::fp64(x, step16, n, iters);                                                       \
    }                                                                                                  \
    extern "C" __global__ void field_chain_hybrid_##FIELD(zkntt::FIELD* x, const zkntt::FIELD* step,    \
                                                          const zkntt::FIELD* step16, uint64_t n,      \
                                                          uint32_t iters) {                            \
        zkntt::chain::hybrid(x, step, step16, n, iters);                                               \
    }

ZKNTT_CHAIN(bn254_fr)
ZKNTT_CHAIN(bls12_381_fr)
