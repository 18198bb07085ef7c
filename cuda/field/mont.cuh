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

// Operand lists of the 8-limb asm blocks: constraint C on words 0..7 of array v.
#define ZKNTT_W8(C, v) C(v[0]), C(v[1]), C(v[2]), C(v[3]), C(v[4]), C(v[5]), C(v[6]), C(v[7])
#define ZKNTT_OUT(v) "=r"(v)
#define ZKNTT_INOUT(v) "+r"(v)
#define ZKNTT_IN(v) "r"(v)

// Limb i of K * p, K = 1 or 2 (2p < 2^256 for the fields here).
template <class P, int K>
__host__ __device__ constexpr uint32_t kp_limb(int i) {
    static_assert(K == 1 || K == 2, "p or 2p");
    return K == 1 ? P::modulus(i) : (P::modulus(i) << 1) | (i > 0 ? P::modulus(i - 1) >> 31 : 0u);
}

// 8 limbs: carry chains in PTX, shorter than the int64 C++ forms below, which need a shift per
// limb to extract the borrow.
// t = t < Kp ? t : t - Kp, for t < 2Kp.
template <class P, int K = 1>
__device__ __forceinline__ void reduce_once8(uint32_t* t) {
#ifdef ZKNTT_EMU
    uint32_t r[8];
    int64_t b = 0;
    for (int i = 0; i < 8; i++) {
        const int64_t d = (int64_t)t[i] - (int64_t)kp_limb<P, K>(i) + b;
        r[i] = (uint32_t)d;
        b = d >> 32;
    }
    const uint32_t borrow = (uint32_t)b;
#else
    uint32_t r[8], borrow;
    asm("sub.cc.u32  %0, %9, %17;\n\t"
        "subc.cc.u32 %1, %10, %18;\n\t"
        "subc.cc.u32 %2, %11, %19;\n\t"
        "subc.cc.u32 %3, %12, %20;\n\t"
        "subc.cc.u32 %4, %13, %21;\n\t"
        "subc.cc.u32 %5, %14, %22;\n\t"
        "subc.cc.u32 %6, %15, %23;\n\t"
        "subc.cc.u32 %7, %16, %24;\n\t"
        "subc.u32    %8, 0, 0;"
        : ZKNTT_W8(ZKNTT_OUT, r), "=r"(borrow)
        : ZKNTT_W8(ZKNTT_IN, t),
          "n"(kp_limb<P, K>(0)), "n"(kp_limb<P, K>(1)), "n"(kp_limb<P, K>(2)), "n"(kp_limb<P, K>(3)),
          "n"(kp_limb<P, K>(4)), "n"(kp_limb<P, K>(5)), "n"(kp_limb<P, K>(6)), "n"(kp_limb<P, K>(7)));
#endif
#pragma unroll
    for (int i = 0; i < 8; i++) t[i] = borrow ? t[i] : r[i];
}

// (a + b) mod Kp for a, b < Kp. K = 2 only for 8 limbs with 4p < 2^256 (see `lazy`).
template <class P, int K = 1>
__device__ __forceinline__ mont<P> add(const mont<P>& a, const mont<P>& b) {
    constexpr int N = P::LIMBS;
    if constexpr (N == 8) {
        // a + b < 2Kp <= 2^256: no carry out of the top limb.
        static_assert(K == 1 ? P::modulus(7) < 0x80000000u : P::modulus(7) < 0x40000000u, "2Kp <= 2^256");
        mont<P> r;
#ifdef ZKNTT_EMU
        uint64_t c = 0;
        for (int i = 0; i < 8; i++) {
            c += (uint64_t)a.l[i] + b.l[i];
            r.l[i] = (uint32_t)c;
            c >>= 32;
        }
#else
        asm("add.cc.u32  %0, %8, %16;\n\t"
            "addc.cc.u32 %1, %9, %17;\n\t"
            "addc.cc.u32 %2, %10, %18;\n\t"
            "addc.cc.u32 %3, %11, %19;\n\t"
            "addc.cc.u32 %4, %12, %20;\n\t"
            "addc.cc.u32 %5, %13, %21;\n\t"
            "addc.cc.u32 %6, %14, %22;\n\t"
            "addc.u32    %7, %15, %23;"
            : ZKNTT_W8(ZKNTT_OUT, r.l)
            : ZKNTT_W8(ZKNTT_IN, a.l), ZKNTT_W8(ZKNTT_IN, b.l));
#endif
        reduce_once8<P, K>(r.l);
        return r;
    } else {
        static_assert(K == 1, "lazy forms are 8-limb only");
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
}

// (a - b) mod Kp for a, b < Kp.
template <class P, int K = 1>
__device__ __forceinline__ mont<P> sub(const mont<P>& a, const mont<P>& b) {
    constexpr int N = P::LIMBS;
    mont<P> r;
    if constexpr (N == 8) {
        // a - b, then Kp added back under the borrow mask.
#ifdef ZKNTT_EMU
        int64_t borrow = 0;
        for (int i = 0; i < 8; i++) {
            const int64_t d = (int64_t)a.l[i] - (int64_t)b.l[i] + borrow;
            r.l[i] = (uint32_t)d;
            borrow = d >> 32;
        }
        const uint32_t mask = (uint32_t)borrow;
        uint64_t c = 0;
        for (int i = 0; i < 8; i++) {
            c += (uint64_t)r.l[i] + (kp_limb<P, K>(i) & mask);
            r.l[i] = (uint32_t)c;
            c >>= 32;
        }
#else
        uint32_t t[8], mask;
        asm("sub.cc.u32  %0, %9, %17;\n\t"
            "subc.cc.u32 %1, %10, %18;\n\t"
            "subc.cc.u32 %2, %11, %19;\n\t"
            "subc.cc.u32 %3, %12, %20;\n\t"
            "subc.cc.u32 %4, %13, %21;\n\t"
            "subc.cc.u32 %5, %14, %22;\n\t"
            "subc.cc.u32 %6, %15, %23;\n\t"
            "subc.cc.u32 %7, %16, %24;\n\t"
            "subc.u32    %8, 0, 0;"
            : ZKNTT_W8(ZKNTT_OUT, t), "=r"(mask)
            : ZKNTT_W8(ZKNTT_IN, a.l), ZKNTT_W8(ZKNTT_IN, b.l));
        asm("add.cc.u32  %0, %8, %16;\n\t"
            "addc.cc.u32 %1, %9, %17;\n\t"
            "addc.cc.u32 %2, %10, %18;\n\t"
            "addc.cc.u32 %3, %11, %19;\n\t"
            "addc.cc.u32 %4, %12, %20;\n\t"
            "addc.cc.u32 %5, %13, %21;\n\t"
            "addc.cc.u32 %6, %14, %22;\n\t"
            "addc.u32    %7, %15, %23;"
            : ZKNTT_W8(ZKNTT_OUT, r.l)
            : ZKNTT_W8(ZKNTT_IN, t),
              "r"(kp_limb<P, K>(0) & mask), "r"(kp_limb<P, K>(1) & mask), "r"(kp_limb<P, K>(2) & mask),
              "r"(kp_limb<P, K>(3) & mask), "r"(kp_limb<P, K>(4) & mask), "r"(kp_limb<P, K>(5) & mask),
              "r"(kp_limb<P, K>(6) & mask), "r"(kp_limb<P, K>(7) & mask));
#endif
        return r;
    } else {
        static_assert(K == 1, "lazy forms are 8-limb only");
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

// 8-limb Montgomery product on two accumulators whose word pairs stay aligned.
//
// The running value is T = X + 2^32 * Y: X holds words 0..7 of T, Y words 1..8, so the products of
// the even limbs a[0], a[2], .. by a word land on X's pairs (0,1), (2,3), .. and those of the odd
// limbs a[1], a[3], .. on Y's pairs: every lo/hi pair of a product is one IMAD.WIDE.U32(.X) onto an
// aligned register pair, with no moves between rows. After row i (T += a*b_i; T += m*p, which
// clears word 0), T / 2^32 is (Y + X[1]) + 2^32 * (X[2..7] as words 0..5): the new X is the old
// Y with the old X[1] added to its word 0, the new Y is the old X moved down by one *pair*. That
// move is folded into the next row's product chain (the accumulate operand is two words up from the
// destination), so the arrays simply swap roles from row to row.
//
// Bounds: T < 2p before a row and a*b_i + m*p < 2^33 p; for p < 2^255, T < 2^288 fits in X and Y
// at every step, so no chain carries out of word 8 (Y[7]) and the result is < 2p before the
// final conditional subtraction.

// Row 0: X = a_even * y, Y = a_odd * y.
#define ZKNTT_ROW_FIRST(X, Y, a, y)                                                                \
    asm("mul.lo.u32 %0, %16, %24;\n\t"                                                             \
        "mul.hi.u32 %1, %16, %24;\n\t"                                                             \
        "mul.lo.u32 %2, %18, %24;\n\t"                                                             \
        "mul.hi.u32 %3, %18, %24;\n\t"                                                             \
        "mul.lo.u32 %4, %20, %24;\n\t"                                                             \
        "mul.hi.u32 %5, %20, %24;\n\t"                                                             \
        "mul.lo.u32 %6, %22, %24;\n\t"                                                             \
        "mul.hi.u32 %7, %22, %24;\n\t"                                                             \
        "mul.lo.u32 %8, %17, %24;\n\t"                                                             \
        "mul.hi.u32 %9, %17, %24;\n\t"                                                             \
        "mul.lo.u32 %10, %19, %24;\n\t"                                                            \
        "mul.hi.u32 %11, %19, %24;\n\t"                                                            \
        "mul.lo.u32 %12, %21, %24;\n\t"                                                            \
        "mul.hi.u32 %13, %21, %24;\n\t"                                                            \
        "mul.lo.u32 %14, %23, %24;\n\t"                                                            \
        "mul.hi.u32 %15, %23, %24;"                                                                \
        : ZKNTT_W8(ZKNTT_OUT, X), ZKNTT_W8(ZKNTT_OUT, Y)                                           \
        : ZKNTT_W8(ZKNTT_IN, a), "r"(y))

// Rows 1..7, the a*b_i half, with the shift of the previous row: X (the old Y) gets the old
// X[1] (here Y[1]) at word 0 and a_even * y; Y (the old X) moves down one pair while taking
// a_odd * y; X's carry out of word 7 lands in Y[7] (word 8).
#define ZKNTT_ROW_SHIFT_MAD(X, Y, a, y)                                                            \
    asm("add.cc.u32      %0, %0, %9;\n\t"                                                          \
        "madc.lo.cc.u32  %8, %17, %24, %10;\n\t"                                                   \
        "madc.hi.cc.u32  %9, %17, %24, %11;\n\t"                                                   \
        "madc.lo.cc.u32  %10, %19, %24, %12;\n\t"                                                  \
        "madc.hi.cc.u32  %11, %19, %24, %13;\n\t"                                                  \
        "madc.lo.cc.u32  %12, %21, %24, %14;\n\t"                                                  \
        "madc.hi.cc.u32  %13, %21, %24, %15;\n\t"                                                  \
        "madc.lo.cc.u32  %14, %23, %24, 0;\n\t"                                                    \
        "madc.hi.cc.u32  %15, %23, %24, 0;\n\t"                                                    \
        "madc.lo.cc.u32  %0, %16, %24, %0;\n\t"                                                    \
        "madc.hi.cc.u32  %1, %16, %24, %1;\n\t"                                                    \
        "madc.lo.cc.u32  %2, %18, %24, %2;\n\t"                                                    \
        "madc.hi.cc.u32  %3, %18, %24, %3;\n\t"                                                    \
        "madc.lo.cc.u32  %4, %20, %24, %4;\n\t"                                                    \
        "madc.hi.cc.u32  %5, %20, %24, %5;\n\t"                                                    \
        "madc.lo.cc.u32  %6, %22, %24, %6;\n\t"                                                    \
        "madc.hi.cc.u32  %7, %22, %24, %7;\n\t"                                                    \
        "addc.u32        %15, %15, 0;"                                                             \
        : ZKNTT_W8(ZKNTT_INOUT, X), ZKNTT_W8(ZKNTT_INOUT, Y)                                       \
        : ZKNTT_W8(ZKNTT_IN, a), "r"(y))

// Every row, the m*p half (modulus limbs as immediates): Y += p_odd * m, X += p_even * m, X's carry
// into Y[7]. Afterwards X[0] == 0.
#define ZKNTT_ROW_REDUCE(P, X, Y, m)                                                               \
    asm("mad.lo.cc.u32   %8, %16, %17, %8;\n\t"                                                    \
        "madc.hi.cc.u32  %9, %16, %17, %9;\n\t"                                                    \
        "madc.lo.cc.u32  %10, %16, %19, %10;\n\t"                                                  \
        "madc.hi.cc.u32  %11, %16, %19, %11;\n\t"                                                  \
        "madc.lo.cc.u32  %12, %16, %21, %12;\n\t"                                                  \
        "madc.hi.cc.u32  %13, %16, %21, %13;\n\t"                                                  \
        "madc.lo.cc.u32  %14, %16, %23, %14;\n\t"                                                  \
        "madc.hi.cc.u32  %15, %16, %23, %15;\n\t"                                                  \
        "madc.lo.cc.u32  %0, %16, %18, %0;\n\t"                                                    \
        "madc.hi.cc.u32  %1, %16, %18, %1;\n\t"                                                    \
        "madc.lo.cc.u32  %2, %16, %20, %2;\n\t"                                                    \
        "madc.hi.cc.u32  %3, %16, %20, %3;\n\t"                                                    \
        "madc.lo.cc.u32  %4, %16, %22, %4;\n\t"                                                    \
        "madc.hi.cc.u32  %5, %16, %22, %5;\n\t"                                                    \
        "madc.lo.cc.u32  %6, %16, %24, %6;\n\t"                                                    \
        "madc.hi.cc.u32  %7, %16, %24, %7;\n\t"                                                    \
        "addc.u32        %15, %15, 0;"                                                             \
        : ZKNTT_W8(ZKNTT_INOUT, X), ZKNTT_W8(ZKNTT_INOUT, Y)                                       \
        : "r"(m), "n"(P::modulus(1)), "n"(P::modulus(0)), "n"(P::modulus(3)), "n"(P::modulus(2)),  \
          "n"(P::modulus(5)), "n"(P::modulus(4)), "n"(P::modulus(7)), "n"(P::modulus(6)))

// REDUCE = false (lazy form, 4p < 2^256 only): inputs below 2p, the result below 2p without the
// final subtraction. The running T stays below 3p + 1 and T + a*b_i + m*p below 3p * 2^32 + 3p <
// 2^288; the result (a*b + M*p) / R < 4p^2 / R + p < 2p.
template <class P, bool REDUCE = true>
__device__ __forceinline__ mont<P> mul_pairs8(const mont<P>& a, const mont<P>& b) {
    static_assert(P::LIMBS == 8, "8-limb fields");
    static_assert(P::modulus(7) < 0x80000000u, "p < 2^255 keeps T below 2^288");
    static_assert(REDUCE || P::modulus(7) < 0x40000000u, "the lazy form needs 4p < 2^256");
#ifdef ZKNTT_EMU
    // The same integer, (a*b + M*p) / R with M < R the one that clears the low words, by CIOS.
    uint32_t t[10] = {};
    for (int i = 0; i < 8; i++) {
        uint64_t c = 0;
        for (int j = 0; j < 8; j++) {
            c += (uint64_t)a.l[j] * b.l[i] + t[j];
            t[j] = (uint32_t)c;
            c >>= 32;
        }
        c += t[8];
        t[8] = (uint32_t)c;
        t[9] = (uint32_t)(c >> 32);
        const uint32_t m = t[0] * P::M0;
        c = ((uint64_t)m * P::modulus(0) + t[0]) >> 32;
        for (int j = 1; j < 8; j++) {
            c += (uint64_t)m * P::modulus(j) + t[j];
            t[j - 1] = (uint32_t)c;
            c >>= 32;
        }
        c += t[8];
        t[7] = (uint32_t)c;
        t[8] = t[9] + (uint32_t)(c >> 32);
        // The asm keeps T in 8 + 8 words and drops a carry past them: within the bounds above
        // no row's T reaches 2^256 after its shift; an input out of range traps here.
        if (t[8] != 0) __trap();
    }
#else
    uint32_t u[8], v[8];
    ZKNTT_ROW_FIRST(u, v, a.l, b.l[0]);
    ZKNTT_ROW_REDUCE(P, u, v, u[0] * P::M0);
#pragma unroll
    for (int i = 1; i < 8; i += 2) {
        // Odd rows: X = v, Y = u; even rows: back.
        ZKNTT_ROW_SHIFT_MAD(v, u, a.l, b.l[i]);
        ZKNTT_ROW_REDUCE(P, v, u, v[0] * P::M0);
        if (i + 1 < 8) {
            ZKNTT_ROW_SHIFT_MAD(u, v, a.l, b.l[i + 1]);
            ZKNTT_ROW_REDUCE(P, u, v, u[0] * P::M0);
        }
    }
    // After row 7 (odd) T = v + 2^32 u with v[0] == 0: the result T / 2^32 = u + (v >> 32).
    uint32_t t[8];
    asm("add.cc.u32  %0, %8, %17;\n\t"
        "addc.cc.u32 %1, %9, %18;\n\t"
        "addc.cc.u32 %2, %10, %19;\n\t"
        "addc.cc.u32 %3, %11, %20;\n\t"
        "addc.cc.u32 %4, %12, %21;\n\t"
        "addc.cc.u32 %5, %13, %22;\n\t"
        "addc.cc.u32 %6, %14, %23;\n\t"
        "addc.u32    %7, %15, 0;"
        : ZKNTT_W8(ZKNTT_OUT, t)
        : ZKNTT_W8(ZKNTT_IN, u), ZKNTT_W8(ZKNTT_IN, v));
#endif
    if constexpr (REDUCE) reduce_once8<P>(t);
    mont<P> r;
#pragma unroll
    for (int i = 0; i < 8; i++) r.l[i] = t[i];
    return r;
}
#undef ZKNTT_ROW_FIRST
#undef ZKNTT_ROW_SHIFT_MAD
#undef ZKNTT_ROW_REDUCE

template <class P>
__device__ __forceinline__ mont<P> mul(const mont<P>& a, const mont<P>& b) {
    if constexpr (P::LIMBS == 8) {
        return mul_pairs8<P>(a, b);
    } else {
        return mul_cios<P>(a, b);
    }
}

template <class P>
__device__ __forceinline__ mont<P> sqr(const mont<P>& a) {
    return mul<P>(a, a);
}

// Lazy reduction inside a transform: where 4p < 2^256 (BN254 Fr; not BLS12-381 Fr), values may
// sit anywhere in [0, 2p): products skip their final subtraction and sums and differences reduce
// modulo 2p at the same cost as modulo p. `canonical` brings a value back to [0, p) before it
// leaves for global memory. Elsewhere these are the strict forms.
template <class P>
struct lazy {
    static constexpr bool enabled = P::LIMBS == 8 && P::modulus(7) < 0x40000000u;
    static constexpr int K = enabled ? 2 : 1;
    __device__ __forceinline__ static mont<P> mul(const mont<P>& a, const mont<P>& b) {
        if constexpr (enabled) {
            return mul_pairs8<P, false>(a, b);
        } else {
            return zkntt::mul<P>(a, b);
        }
    }
    __device__ __forceinline__ static mont<P> add(const mont<P>& a, const mont<P>& b) {
        return zkntt::add<P, K>(a, b);
    }
    __device__ __forceinline__ static mont<P> sub(const mont<P>& a, const mont<P>& b) {
        return zkntt::sub<P, K>(a, b);
    }
    __device__ __forceinline__ static mont<P> canonical(mont<P> a) {
        if constexpr (enabled) reduce_once8<P>(a.l);
        return a;
    }
};

}  // namespace zkntt
