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

// Montgomery product a * b * R^-1 mod p, CIOS (coarsely integrated operand scanning).
template <class P>
__device__ __forceinline__ mont<P> mul(const mont<P>& a, const mont<P>& b) {
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

template <class P>
__device__ __forceinline__ mont<P> sqr(const mont<P>& a) {
    return mul<P>(a, a);
}

}  // namespace zkntt
