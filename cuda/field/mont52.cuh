// A Montgomery product on the FP64 pipe (issue 18): five 52-bit limbs, partial products from pairs
// of DFMAs (Emmart, Zheng and Weems, ARITH 2018), column sums and the reduction in 64-bit
// integers; R' = 2^260. The same steps as the CPU twin zkntt_core::fp64 (bit for bit). Data keeps
// ark's form (R = 2^256): a multiplier stored pre-scaled by R'/R = 16 gives ark's product.
#pragma once
#include <cstdint>

#include "mont.cuh"

namespace zkntt {
namespace fp64 {

constexpr int LIMBS = 5;
constexpr uint64_t MASK = (1ull << 52) - 1;
constexpr double BIAS_HI = 20282409603651670423947251286016.0;  // 2^104
constexpr double BIAS_LO = 6755399441055744.0;                  // 3 * 2^51
constexpr double TWO52 = 4503599627370496.0;                    // 2^52
// dfma_product_folded's addends C1 = 2^104 + 2^52 (not 2^104: as a 32-bit immediate it would take
// the DFMA's one constant slot, and p's limbs would be moved into registers at every use) and
// C2 = C1 + 2^52; the constants its raw patterns carry: bits(C1) per hi, bits(2^52) per lo.
constexpr double FOLD_HI = BIAS_HI + TWO52;
constexpr double FOLD_LO = BIAS_HI + 2 * TWO52;
constexpr uint64_t HI_BITS = 0x4670000000000001ull;
constexpr uint64_t LO_BITS = 0x4330000000000000ull;

struct limbs52 {
    uint64_t l[LIMBS];
};

// An integer below 2^52 as a double: its bits OR'd into 2^52's mantissa, minus 2^52 (exact).
__device__ __forceinline__ double to_double(uint64_t x) {
    return __longlong_as_double((long long)(__double_as_longlong(TWO52) | x)) - TWO52;
}

// x*y = hi*2^52 + lo exactly for integers x, y < 2^52: hi in [0, 2^52], lo in [-2^51, 2^51].
__device__ __forceinline__ void dfma_product(double x, double y, int64_t& hi, int64_t& lo) {
    const double s = __fma_rn(x, y, BIAS_HI);
    hi = __double_as_longlong(s) - __double_as_longlong(BIAS_HI);
    const double t = BIAS_LO - (s - BIAS_HI);
    lo = __double_as_longlong(__fma_rn(x, y, t)) - __double_as_longlong(BIAS_LO);
}

// x*y = hi*2^52 + lo for integers x, y < 2^52 as raw patterns: hi_bits - HI_BITS = floor(x*y/2^52),
// lo_bits - LO_BITS = x*y mod 2^52. The hi rounds toward zero, so lo + 2^52 lies in [2^52, 2^53)
// where doubles are the integers: one subtraction per pair (exactness: zkntt_core::fp64).
__device__ __forceinline__ void dfma_product_folded(double x, double y, uint64_t& hi, uint64_t& lo) {
    const double s = __fma_rz(x, y, FOLD_HI);
    hi = __double_as_longlong(s);
    lo = __double_as_longlong(__fma_rn(x, y, FOLD_LO - s));
}

// The pairs (i, j) of a 5 x 5 product with i + j = c.
__host__ __device__ constexpr uint64_t pairs_at(int c) {
    return c < 0 || c > 2 * LIMBS - 2 ? 0 : c < LIMBS ? c + 1 : 2 * LIMBS - 1 - c;
}

static_assert(pairs_at(0) + pairs_at(1) + pairs_at(2) + pairs_at(3) + pairs_at(4) + pairs_at(5) + pairs_at(6) +
                      pairs_at(7) + pairs_at(8) + pairs_at(9) ==
                  LIMBS * LIMBS,
              "every pair in one column");

// Column c of mul_folded starts at minus the offsets of the patterns it will receive (a*b and m*p
// put pairs in the same places), mod 2^64. No m sees them: column k's his are all in before m_k,
// and the lo still to come has an offset that is a multiple of 2^52.
__host__ __device__ constexpr uint64_t folded_start(int c) {
    return 0 - 2 * (pairs_at(c) * LO_BITS + pairs_at(c - 1) * HI_BITS);
}

// Eight 32-bit words (ark's limbs) as five 52-bit limbs, and back. to52<P, SHIFT> regroups the
// value times 2^SHIFT, not reduced (the words' bits moved up by SHIFT).
template <class P, int SHIFT = 0>
__device__ __forceinline__ limbs52 to52(const mont<P>& a) {
    static_assert(SHIFT >= 0 && SHIFT <= 4, "below 2^256 times 2^SHIFT: under 2^260, five limbs");
    limbs52 r;
    const uint64_t w0 = a.l[0] | (uint64_t)a.l[1] << 32, w1 = a.l[2] | (uint64_t)a.l[3] << 32;
    const uint64_t w2 = a.l[4] | (uint64_t)a.l[5] << 32, w3 = a.l[6] | (uint64_t)a.l[7] << 32;
    r.l[0] = (w0 << SHIFT) & MASK;
    r.l[1] = (w0 >> (52 - SHIFT) | w1 << (12 + SHIFT)) & MASK;
    r.l[2] = (w1 >> (40 - SHIFT) | w2 << (24 + SHIFT)) & MASK;
    r.l[3] = (w2 >> (28 - SHIFT) | w3 << (36 + SHIFT)) & MASK;
    r.l[4] = w3 >> (16 - SHIFT);
    return r;
}

template <class P>
__device__ __forceinline__ mont<P> from52(const limbs52& x) {
    const uint64_t w0 = x.l[0] | x.l[1] << 52, w1 = x.l[1] >> 12 | x.l[2] << 40;
    const uint64_t w2 = x.l[2] >> 24 | x.l[3] << 28, w3 = x.l[3] >> 36 | x.l[4] << 16;
    mont<P> r;
    r.l[0] = (uint32_t)w0, r.l[1] = (uint32_t)(w0 >> 32), r.l[2] = (uint32_t)w1, r.l[3] = (uint32_t)(w1 >> 32);
    r.l[4] = (uint32_t)w2, r.l[5] = (uint32_t)(w2 >> 32), r.l[6] = (uint32_t)w3, r.l[7] = (uint32_t)(w3 >> 32);
    return r;
}

// The field's constants in 52-bit limbs (folded at compile time from P).
template <class P>
struct consts52 {
    __device__ __forceinline__ static uint64_t word(int i) { return P::modulus(2 * i) | (uint64_t)P::modulus(2 * i + 1) << 32; }
    __device__ __forceinline__ static uint64_t p(int k) {
        switch (k) {
            case 0: return word(0) & MASK;
            case 1: return (word(0) >> 52 | word(1) << 12) & MASK;
            case 2: return (word(1) >> 40 | word(2) << 24) & MASK;
            case 3: return (word(2) >> 28 | word(3) << 36) & MASK;
            default: return word(3) >> 16;
        }
    }
    // -p^-1 mod 2^52 (Newton's iteration on p's low word; folded by the compiler).
    __device__ __forceinline__ static uint64_t ninv() {
        const uint64_t p0 = word(0);
        uint64_t inv = 1;
#pragma unroll
        for (int i = 0; i < 6; i++) inv *= 2 - p0 * inv;
        return (0 - inv) & MASK;
    }
};

// a*b*2^-260 mod p in [0, 2p) for a, b in [0, 2p): 25 DFMA pairs for a*b, 25 for m*p.
template <class P>
__device__ __forceinline__ limbs52 mul(const limbs52& a, const limbs52& b) {
    double af[LIMBS], bf[LIMBS];
#pragma unroll
    for (int i = 0; i < LIMBS; i++) af[i] = to_double(a.l[i]), bf[i] = to_double(b.l[i]);
    int64_t col[2 * LIMBS];
#pragma unroll
    for (int k = 0; k < 2 * LIMBS; k++) col[k] = 0;
#pragma unroll
    for (int i = 0; i < LIMBS; i++)
#pragma unroll
        for (int j = 0; j < LIMBS; j++) {
            int64_t hi, lo;
            dfma_product(af[i], bf[j], hi, lo);
            col[i + j] += lo;
            col[i + j + 1] += hi;
        }
#pragma unroll
    for (int k = 0; k < LIMBS; k++) {
        const uint64_t m = ((uint64_t)col[k] * consts52<P>::ninv()) & MASK;
        const double mf = to_double(m);
#pragma unroll
        for (int j = 0; j < LIMBS; j++) {
            int64_t hi, lo;
            dfma_product(mf, (double)consts52<P>::p(j), hi, lo);
            col[k + j] += lo;
            col[k + j + 1] += hi;
        }
        col[k + 1] += col[k] >> 52;
    }
    limbs52 r;
    int64_t carry = 0;
#pragma unroll
    for (int k = 0; k < LIMBS; k++) {
        const int64_t v = col[LIMBS + k] + carry;
        r.l[k] = (uint64_t)v & MASK;
        carry = v >> 52;
    }
    return r;
}

// mul with dfma_product_folded's pairs (1 DADD each, not 2) and columns starting at folded_start:
// the same result bit for bit (twin: zkntt_core::fp64::Mont52::mul_folded). Unsigned columns.
template <class P>
__device__ __forceinline__ limbs52 mul_folded(const limbs52& a, const limbs52& b) {
    double af[LIMBS], bf[LIMBS];
#pragma unroll
    for (int i = 0; i < LIMBS; i++) af[i] = to_double(a.l[i]), bf[i] = to_double(b.l[i]);
    uint64_t col[2 * LIMBS];
#pragma unroll
    for (int k = 0; k < 2 * LIMBS; k++) col[k] = folded_start(k);
#pragma unroll
    for (int i = 0; i < LIMBS; i++)
#pragma unroll
        for (int j = 0; j < LIMBS; j++) {
            uint64_t hi, lo;
            dfma_product_folded(af[i], bf[j], hi, lo);
            col[i + j] += lo;
            col[i + j + 1] += hi;
        }
#pragma unroll
    for (int k = 0; k < LIMBS; k++) {
        const uint64_t m = (col[k] * consts52<P>::ninv()) & MASK;
        const double mf = to_double(m);
#pragma unroll
        for (int j = 0; j < LIMBS; j++) {
            uint64_t hi, lo;
            dfma_product_folded(mf, (double)consts52<P>::p(j), hi, lo);
            col[k + j] += lo;
            col[k + j + 1] += hi;
        }
        col[k + 1] += col[k] >> 52;
    }
    limbs52 r;
    uint64_t carry = 0;
#pragma unroll
    for (int k = 0; k < LIMBS; k++) {
        const uint64_t v = col[LIMBS + k] + carry;
        r.l[k] = v & MASK;
        carry = v >> 52;
    }
    return r;
}

// x mod p for x in [0, 2p).
template <class P>
__device__ __forceinline__ limbs52 canonical(const limbs52& x) {
    limbs52 d;
    int64_t borrow = 0;
#pragma unroll
    for (int k = 0; k < LIMBS; k++) {
        const int64_t v = (int64_t)x.l[k] - (int64_t)consts52<P>::p(k) + borrow;
        d.l[k] = (uint64_t)v & MASK;
        borrow = v >> 52;
    }
    return borrow < 0 ? x : d;
}

// ark's Montgomery product a·w·2^-256 mod p on the FP64 pipe (the NTT's hybrid butterflies: one
// product of each independent pair here, the other on the integer pipe). a and w in lazy<P>'s
// range: the result is below (a·16w)/2^260 + p, under 2p while a·w < 2^256·p/16, which holds for
// a, w < 2p where p < 2^254 (BN254 Fr's lazy range) and for a, w < p where p < 2^255 (BLS12-381
// Fr, canonical). Out in lazy<P>'s range: [0, 2p), or canonical where lazy<P> is off.
// Twin: zkntt_core::fp64::Mont52::mul_ark.
template <class P>
__device__ __forceinline__ mont<P> mul_ark(const mont<P>& a, const mont<P>& w) {
    // 16w (R'/R = 16) as the multiplier: a·16w·2^-260 = a·w·2^-256, no pre-scaled table.
    limbs52 r = mul_folded<P>(to52<P>(a), to52<P, 4>(w));
    if constexpr (!lazy<P>::enabled) r = canonical<P>(r);
    return from52<P>(r);
}

}  // namespace fp64
}  // namespace zkntt
