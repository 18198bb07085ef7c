// The product microbenchmark (issue 18): every thread multiplies its element by `step` `iters`
// times in a dependent chain, with today's integer Montgomery product (lazy range), with an FP64
// product (cuda/field/mont52.cuh, mul or mul_folded; `step` pre-scaled by 16 on the host), or both
// at once on two elements (the hybrids: one chain per pipe, interleaved). Results canonical, ark's
// form. Beside them, the raw DFMA and IMAD.WIDE.U32 rates the products are weighed against.
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

// FOLDED: fp64::mul_folded (one DADD per pair, offsets in the columns' start) instead of fp64::mul.
template <class F, bool FOLDED>
__device__ __forceinline__ void fp64(F* x, const F* step16, uint64_t n, uint32_t iters) {
    using P = typename F::params;
    const fp64::limbs52 s = fp64::to52<P>(F::load(step16));
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        fp64::limbs52 v = fp64::to52<P>(F::load(x + i));
        for (uint32_t k = 0; k < iters; k++) v = FOLDED ? fp64::mul_folded<P>(v, s) : fp64::mul<P>(v, s);
        fp64::from52<P>(fp64::canonical<P>(v)).store(x + i);
    }
}

// Elements i (integer chain) and i + n/2 (FP64 chain, FOLDED as in fp64) per thread; n even.
template <class F, bool FOLDED>
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
            u = FOLDED ? fp64::mul_folded<P>(u, s16) : fp64::mul<P>(u, s16);
        }
        L::canonical(v).store(x + i);
        fp64::from52<P>(fp64::canonical<P>(u)).store(x + half + i);
    }
}

}  // namespace chain
}  // namespace zkntt

// Launch: 1-D grid-stride, any grid and block size; x holds n elements, step and step16 one each
// (step16 = step * 16, for the FP64 chains).
#define ZKNTT_CHAIN(FIELD)                                                                                  \
    extern "C" __global__ void field_chain_int_##FIELD(zkntt::FIELD* x, const zkntt::FIELD* step,           \
                                                       const zkntt::FIELD*, uint64_t n, uint32_t iters) {   \
        zkntt::chain::integer(x, step, n, iters);                                                           \
    }                                                                                                       \
    extern "C" __global__ void field_chain_fp64_##FIELD(zkntt::FIELD* x, const zkntt::FIELD*,               \
                                                        const zkntt::FIELD* step16, uint64_t n,             \
                                                        uint32_t iters) {                                   \
        zkntt::chain::fp64<zkntt::FIELD, false>(x, step16, n, iters);                                       \
    }                                                                                                       \
    extern "C" __global__ void field_chain_fp64_folded_##FIELD(zkntt::FIELD* x, const zkntt::FIELD*,        \
                                                               const zkntt::FIELD* step16, uint64_t n,      \
                                                               uint32_t iters) {                            \
        zkntt::chain::fp64<zkntt::FIELD, true>(x, step16, n, iters);                                        \
    }                                                                                                       \
    extern "C" __global__ void field_chain_hybrid_##FIELD(zkntt::FIELD* x, const zkntt::FIELD* step,        \
                                                          const zkntt::FIELD* step16, uint64_t n,           \
                                                          uint32_t iters) {                                 \
        zkntt::chain::hybrid<zkntt::FIELD, false>(x, step, step16, n, iters);                               \
    }                                                                                                       \
    extern "C" __global__ void field_chain_hybrid_folded_##FIELD(zkntt::FIELD* x, const zkntt::FIELD* step, \
                                                                 const zkntt::FIELD* step16, uint64_t n,    \
                                                                 uint32_t iters) {                          \
        zkntt::chain::hybrid<zkntt::FIELD, true>(x, step, step16, n, iters);                                \
    }

ZKNTT_CHAIN(bn254_fr)
ZKNTT_CHAIN(bls12_381_fr)

namespace zkntt {
namespace pipe {

// Independent chains per thread (the pipe, not a chain's latency, bounds the loop) and operations
// of each chain per round.
constexpr int CHAINS = 8;
constexpr int UNROLL = 16;

// a * b, 32 x 32 -> 64 bits, as PTX's mul.wide.u32: ptxas then folds the add that follows into one
// IMAD.WIDE.U32 (C's (uint64_t)a * b reaches it as a 64-bit multiply that leaves an IADD3 beside).
__device__ __forceinline__ uint64_t mul_wide(uint32_t a, uint32_t b) {
#ifdef ZKNTT_EMU
    return (uint64_t)a * b;
#else
    uint64_t d;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(d) : "r"(a), "r"(b));
    return d;
#endif
}

}  // namespace pipe
}  // namespace zkntt

// Launch: 1-D, any grid and block; out holds one word per thread. Each thread runs rounds x
// UNROLL x CHAINS DFMAs (acc = acc * x + y) and writes its chains' sum, so none can be dropped.
extern "C" __global__ void pipe_rate_dfma(uint64_t* out, double x, double y, uint32_t rounds) {
    using namespace zkntt::pipe;
    const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    double acc[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) acc[c] = (double)(t + c);
    for (uint32_t r = 0; r < rounds; r++)
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
#pragma unroll
            for (int c = 0; c < CHAINS; c++) acc[c] = __fma_rn(acc[c], x, y);
    double sum = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; c++) sum += acc[c];
    out[t] = __double_as_longlong(sum);
}

// Launch: as pipe_rate_dfma. Each thread runs rounds x UNROLL x CHAINS 32 x 32 -> 64-bit
// multiply-adds (acc = hi32(acc) * m + acc: one IMAD.WIDE.U32) and writes its chains' sum.
extern "C" __global__ void pipe_rate_imad_wide(uint64_t* out, uint32_t m, uint32_t rounds) {
    using namespace zkntt::pipe;
    const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t acc[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) acc[c] = t * CHAINS + c;
    for (uint32_t r = 0; r < rounds; r++)
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
#pragma unroll
            for (int c = 0; c < CHAINS; c++) acc[c] = mul_wide((uint32_t)(acc[c] >> 32), m) + acc[c];
    uint64_t sum = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; c++) sum += acc[c];
    out[t] = sum;
}
