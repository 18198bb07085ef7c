// The modmul study (seed 002): each thread multiplies its element by a fixed multiplier 16 times
// in a chain, so the time is the multiplier's, not the memory's. One kernel per (form, modulus).
// Every form computes the same value a * b^16 mod q: b arrives in the form's representation
// (Montgomery: b * 2^32 mod q; Shoup: b and b_aux = floor(b * 2^32 / q)), and lazy chains reduce
// once at the end.
#include "small/modmul.cuh"

namespace zkntt {
namespace small {
namespace chain {
constexpr int LENGTH = 16;
}  // namespace chain
}  // namespace small
}  // namespace zkntt

// Launch: 1-D, one element per thread, grid * block >= n (the blog's 256 threads per block).
// In/out: out[i] = a[i] * b[i]^16 mod q, canonical; b_aux only for the Shoup forms (else null).
#define ZKNTT_CHAIN(NAME, QV, EXPR, FINAL)                                                        \
    extern "C" __global__ void modmul_chain16_##NAME(const uint32_t* a, const uint32_t* b,      \
                                                     const uint32_t* b_aux, uint32_t* out,      \
                                                     uint64_t n, uint32_t q) {                  \
        using namespace zkntt::small;                                                           \
        [[maybe_unused]] constexpr uint32_t Q = QV;                                             \
        uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;                           \
        if (i >= n) return;                                                                     \
        uint32_t x = a[i];                                                                      \
        const uint32_t y = b[i];                                                                \
        [[maybe_unused]] const uint32_t y_aux = b_aux != nullptr ? b_aux[i] : 0;                \
        (void)q;                                                                                \
        _Pragma("unroll") for (int k = 0; k < chain::LENGTH; k++) x = EXPR;                     \
        out[i] = FINAL;                                                                         \
    }

#define ZKNTT_CHAINS(BITS, QV)                                                                    \
    ZKNTT_CHAIN(dynamic_q##BITS, QV, mul_dynamic(x, y, q), x)                                   \
    ZKNTT_CHAIN(const_mod_q##BITS, QV, mul_const_mod<Q>(x, y), x)                               \
    ZKNTT_CHAIN(barrett_q##BITS, QV, mul_barrett<Q>(x, y), x)                                   \
    ZKNTT_CHAIN(shoup_q##BITS, QV, mul_shoup<Q>(x, y, y_aux), x)                                \
    ZKNTT_CHAIN(montgomery_q##BITS, QV, mul_mont<Q>(x, y), x)                                   \
    ZKNTT_CHAIN(shoup_lazy_q##BITS, QV, mul_shoup_lazy<Q>(x, y, y_aux), reduce_once(x, Q))      \
    ZKNTT_CHAIN(montgomery_lazy_q##BITS, QV, mul_mont_lazy<Q>(x, y), reduce_once(x, Q))

// The blog's moduli.
ZKNTT_CHAINS(16, 65521u)
ZKNTT_CHAINS(20, 1048573u)
ZKNTT_CHAINS(24, 16769023u)
ZKNTT_CHAINS(28, 268369921u)
