// Multi-word Montgomery arithmetic on 32-bit limbs, templated on a field's parameter struct
// (generated per field from the ark-ff type: see bn254_fr.cuh). R = 2^(32 * LIMBS).
//
// Storage is canonical Montgomery form, byte-identical to ark-ff's Fp: little-endian limbs.
// Products accumulate in 64 bits; the compiler maps them to IMAD.WIDE with carries.
#pragma once
#include <cstdint>

namespace zkntt {

template <class P>
struct alignas(16) mont {
    using params = P;
    static constexpr int N = P::LIMBS;
    static_assert(N % 4 == 0, "elements are moved as 16-byte vectors");
    uint32_t l[N];

    __device__ __forceinline__ static mont zero() {
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = 0;
        return r;
    }
    __device__ __forceinline__ static mont one() {
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = P::one(i);
        return r;
    }
    __device__ __forceinline__ static mont load(const mont* p) {
        mont r;
        const uint4* v = reinterpret_cast<const uint4*>(p);
#pragma unroll
        for (int i = 0; i < N / 4; i++) {
            uint4 x = v[i];
            r.l[4 * i] = x.x;
            r.l[4 * i + 1] = x.y;
            r.l[4 * i + 2] = x.z;
            r.l[4 * i + 3] = x.w;
        }
        return r;
    }
    __device__ __forceinline__ void store(mont* p) const {
        uint4* v = reinterpret_cast<uint4*>(p);
#pragma unroll
        for (int i = 0; i < N / 4; i++) v[i] = make_uint4(l[4 * i], l[4 * i + 1], l[4 * i + 2], l[4 * i + 3]);
    }
    __device__ __forceinline__ bool operator==(const mont& o) const {
        uint32_t d = 0;
#pragma unroll
        for (int i = 0; i < N; i++) d |= l[i] ^ o.l[i];
        return d == 0;
    }
};

// r = t - p if t >= p (t given with an extra top word `hi`), else t. Branch-free.
template <class P>
__device__ __forceinline__ mont<P> reduce_once(const uint32_t* t, uint32_t hi) {
    constexpr int N = P::LIMBS;
    mont<P> r;
    int64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        int64_t d = (int64_t)t[i] - (int64_t)P::modulus(i) + borrow;
        r.l[i] = (uint32_t)d;
        borrow = d >> 32;  // 0 or -1
    }
    // t - p is negative iff the borrow out exceeds the top word.
    bool keep_t = (int64_t)hi + borrow < 0;
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = keep_t ? t[i] : r.l[i];
    return r;
}

template <class P>
__device__ __forceinline__ mont<P> add(const mont<P>& a, const mont<P>& b) {
    constexpr int N = P::LIMBS;
    uint32_t t[N];
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        c += (uint64_t)a.l[i] + b.l[i];
        t[i] = (uint32_t)c;
        c >>= 32;
    }
    return reduce_once<P>(t, (uint32_t)c);
}

template <class P>
__device__ __forceinline__ mont<P> sub(const mont<P>& a, const mont<P>& b) {
    constexpr int N = P::LIMBS;
    mont<P> r;
    int64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        int64_t d = (int64_t)a.l[i] - (int64_t)b.l[i] + borrow;
        r.l[i] = (uint32_t)d;
        borrow = d >> 32;
    }
    // Negative: add p back (mask is all ones iff there was a borrow).
    uint32_t mask = (uint32_t)borrow;
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        c += (uint64_t)r.l[i] + (P::modulus(i) & mask);
        r.l[i] = (uint32_t)c;
        c >>= 32;
    }
    return r;
}

template <class P>
__device__ __forceinline__ mont<P> neg(const mont<P>& a) {
    return sub<P>(mont<P>::zero(), a);
}

// Montgomery product a * b * R^-1 mod p, CIOS (coarsely integrated operand scanning), portable
// C++ with 64-bit accumulators: the reference form, and the one for fields other than 8 limbs.
template <class P>
__device__ __forceinline__ mont<P> mul_cios(const mont<P>& a, const mont<P>& b) {
    constexpr int N = P::LIMBS;
    uint32_t t[N + 2];
#pragma unroll
    for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint64_t c = 0;
#pragma unroll
        for (int j = 0; j < N; j++) {
            c += (uint64_t)a.l[j] * b.l[i] + t[j];
            t[j] = (uint32_t)c;
            c >>= 32;
        }
        c += t[N];
        t[N] = (uint32_t)c;
        t[N + 1] = (uint32_t)(c >> 32);

        uint32_t m = t[0] * P::M0;
        c = ((uint64_t)m * P::modulus(0) + t[0]) >> 32;
#pragma unroll
        for (int j = 1; j < N; j++) {
            c += (uint64_t)m * P::modulus(j) + t[j];
            t[j - 1] = (uint32_t)c;
            c >>= 32;
        }
        c += t[N];
        t[N - 1] = (uint32_t)c;
        t[N] = t[N + 1] + (uint32_t)(c >> 32);
    }
    return reduce_once<P>(t, t[N]);
}

// t[k+o..k+o+7] += x[j] * y for j = o, o+2, o+4, o+6 (o = 0: EVEN, 1: ODD), each product's low word
// at t[k+j] and high word at t[k+j+1], in one carry chain; EVEN's carry lands in t[k+8], ODD ends at
// t[k+8]. C is the constraint of the x operands (register or immediate). Low and high halves of one product sit next to each other in the chain, which
// ptxas turns into one IMAD.WIDE.U32.X per product.
#define ZKNTT_MAD_CHAIN_EVEN(C, t, k, x0, x2, x4, x6, y)                                                 \
    asm("mad.lo.cc.u32  %0, %13, %9,  %0;\n\t"                                                   \
        "madc.hi.cc.u32 %1, %13, %9,  %1;\n\t"                                                   \
        "madc.lo.cc.u32 %2, %13, %10, %2;\n\t"                                                   \
        "madc.hi.cc.u32 %3, %13, %10, %3;\n\t"                                                   \
        "madc.lo.cc.u32 %4, %13, %11, %4;\n\t"                                                   \
        "madc.hi.cc.u32 %5, %13, %11, %5;\n\t"                                                   \
        "madc.lo.cc.u32 %6, %13, %12, %6;\n\t"                                                   \
        "madc.hi.cc.u32 %7, %13, %12, %7;\n\t"                                                   \
        "addc.u32       %8, %8, 0;"                                                                \
        : "+r"(t[k]), "+r"(t[k + 1]), "+r"(t[k + 2]), "+r"(t[k + 3]), "+r"(t[k + 4]),             \
          "+r"(t[k + 5]), "+r"(t[k + 6]), "+r"(t[k + 7]), "+r"(t[k + 8])                         \
        : C(x0), C(x2), C(x4), C(x6), "r"(y))
#define ZKNTT_MAD_CHAIN_ODD(C, t, k, x1, x3, x5, x7, y)                                                  \
    asm("mad.lo.cc.u32  %0, %12, %8,  %0;\n\t"                                                   \
        "madc.hi.cc.u32 %1, %12, %8,  %1;\n\t"                                                   \
        "madc.lo.cc.u32 %2, %12, %9,  %2;\n\t"                                                   \
        "madc.hi.cc.u32 %3, %12, %9,  %3;\n\t"                                                   \
        "madc.lo.cc.u32 %4, %12, %10, %4;\n\t"                                                   \
        "madc.hi.cc.u32 %5, %12, %10, %5;\n\t"                                                   \
        "madc.lo.cc.u32 %6, %12, %11, %6;\n\t"                                                   \
        "madc.hi.u32    %7, %12, %11, %7;"                                                         \
        : "+r"(t[k + 1]), "+r"(t[k + 2]), "+r"(t[k + 3]), "+r"(t[k + 4]), "+r"(t[k + 5]),         \
          "+r"(t[k + 6]), "+r"(t[k + 7]), "+r"(t[k + 8])                                         \
        : C(x1), C(x3), C(x5), C(x7), "r"(y))

#define ZKNTT_REG(x) "r"(x)
#define ZKNTT_IMM(x) "n"(x)

// 8-limb CIOS with even/odd carry chains: each row adds a*b_i, then m*p, as two chains each
// (even-indexed limbs at words 0..7, odd-indexed at 1..8) into one 9-word accumulator, then shifts
// one word out. 9 words suffice: for canonical inputs and p < 0.5 * 2^256 (BN254 Fr, BLS12-381 Fr)
// t + a*b_i + m*p < 2^288 at every step, so no chain carries out of word 8.
template <class P>
__device__ __forceinline__ mont<P> mul_evenodd8(const mont<P>& a, const mont<P>& b) {
    static_assert(P::LIMBS == 8, "8-limb fields");
    static_assert(P::modulus(7) < 0x80000000u, "p < 2^255 keeps the accumulator in 9 words");
    // Row i works on words i..i+8 of a 17-word array instead of shifting a 9-word one: the
    // words below i are spent (zero), and no register moves are needed between rows.
    uint32_t t[17];
#pragma unroll
    for (int i = 0; i < 17; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        ZKNTT_MAD_CHAIN_EVEN(ZKNTT_REG, t, i, a.l[0], a.l[2], a.l[4], a.l[6], b.l[i]);
        ZKNTT_MAD_CHAIN_ODD(ZKNTT_REG, t, i, a.l[1], a.l[3], a.l[5], a.l[7], b.l[i]);
        const uint32_t m = t[i] * P::M0;
        // The modulus as immediates ("n"): no register or move per use.
        ZKNTT_MAD_CHAIN_EVEN(ZKNTT_IMM, t, i, P::modulus(0), P::modulus(2), P::modulus(4), P::modulus(6), m);
        ZKNTT_MAD_CHAIN_ODD(ZKNTT_IMM, t, i, P::modulus(1), P::modulus(3), P::modulus(5), P::modulus(7), m);
    }
    return reduce_once<P>(t + 8, 0);
}
#undef ZKNTT_MAD_CHAIN_EVEN
#undef ZKNTT_MAD_CHAIN_ODD
#undef ZKNTT_REG
#undef ZKNTT_IMM

template <class P>
__device__ __forceinline__ mont<P> mul(const mont<P>& a, const mont<P>& b) {
    if constexpr (P::LIMBS == 8) {
        return mul_evenodd8<P>(a, b);
    } else {
        return mul_cios<P>(a, b);
    }
}

template <class P>
__device__ __forceinline__ mont<P> sqr(const mont<P>& a) {
    return mul<P>(a, a);
}

}  // namespace zkntt
