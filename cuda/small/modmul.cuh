// 32-bit modular multiplication in interchangeable forms, templated on the modulus (seed 002).
// Every form has a bit-identical CPU twin in crates/zkntt-small/src/modmul.rs.
//
//   dynamic      (a*b) % q, q a run-time value: nvcc emits a 64-bit remainder routine
//   const_mod    (a*b) % Q, Q a template constant: nvcc emits a magic-number multiply (the blog's
//                "Barrett (compiler)")
//   barrett      explicit Barrett: mu = floor(2^(2k) / Q), k = bit length of Q
//   shoup        w' = floor(w * 2^32 / Q) precomputed per fixed multiplier w (twiddles)
//   montgomery   REDC with R = 2^32; the multiplier is held in Montgomery form (w * R mod Q), so
//                mont(a, wR) = a*w mod Q and data needs no conversion
// Lazy variants skip the final subtraction: shoup_lazy and mont_lazy return a value in [0, 2Q)
// congruent to a*w, for any a < 2^32 (w < Q).
#pragma once
#include <cstdint>

namespace zkntt {
namespace small {

__host__ __device__ constexpr uint32_t bit_length(uint64_t x) {
    return x == 0 ? 0 : 1 + bit_length(x >> 1);
}

// q^-1 mod 2^32 by Newton's iteration (q odd): each step doubles the correct low bits.
__host__ __device__ constexpr uint32_t inv_mod_2_32(uint32_t q) {
    uint32_t x = q;  // correct to 3 bits for odd q
    for (int i = 0; i < 5; i++) x *= 2u - q * x;
    return x;
}

// Constants of an odd modulus Q < 2^31, derived at compile time.
template <uint32_t Q>
struct Modulus {
    static_assert(Q % 2 == 1 && Q < (1u << 31), "odd modulus below 2^31");
    static constexpr uint32_t q = Q;
    static constexpr uint32_t k = bit_length(Q);
    // floor(2^(2k) / Q) < 2^(k+1) <= 2^32 (2k <= 62).
    static constexpr uint64_t mu = (1ull << (2 * k)) / Q;
    static_assert(mu < (1ull << 32), "Barrett constant fits 32 bits");
    static constexpr uint32_t qinv = inv_mod_2_32(Q);  // q^-1 mod 2^32
};

// ---- reductions of sums, branch-free (unsigned min picks the in-range candidate) ----

// x in [0, 2m) -> [0, m), for 2m <= 2^32.
__device__ __forceinline__ uint32_t reduce_once(uint32_t x, uint32_t m) { return min(x, x - m); }

__device__ __forceinline__ uint32_t add_mod(uint32_t a, uint32_t b, uint32_t q) {
    return reduce_once(a + b, q);
}
__device__ __forceinline__ uint32_t sub_mod(uint32_t a, uint32_t b, uint32_t q) {
    uint32_t d = a - b;
    return min(d, d + q);
}

// ---- the forms ----

__device__ __forceinline__ uint32_t mul_dynamic(uint32_t a, uint32_t b, uint32_t q) {
    return (uint32_t)(((uint64_t)a * b) % q);
}

template <uint32_t Q>
__device__ __forceinline__ uint32_t mul_const_mod(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)a * b) % Q);
}

// Explicit Barrett for a*b < Q^2 (a, b < Q): t = ((x >> (k-1)) * mu) >> (k+1) underestimates
// floor(x / Q) by at most 2, so x - t*Q < 3Q; computed in 64 bits (3Q can pass 2^32).
template <uint32_t Q>
__device__ __forceinline__ uint32_t mul_barrett(uint32_t a, uint32_t b) {
    using M = Modulus<Q>;
    uint64_t x = (uint64_t)a * b;
    // Both factors fit 32 bits (x < 2^(2k), k <= 31), so this is one 32x32->64 multiply.
    uint64_t t = ((uint64_t)(uint32_t)(x >> (M::k - 1)) * (uint32_t)M::mu) >> (M::k + 1);
    uint64_t r = x - (uint64_t)(uint32_t)t * Q;
    r = r >= 2ull * Q ? r - 2ull * Q : r;
    return (uint32_t)(r >= Q ? r - Q : r);
}

// a * w mod Q in [0, 2Q) for any a < 2^32, w < Q, w_shoup = floor(w * 2^32 / Q).
template <uint32_t Q>
__device__ __forceinline__ uint32_t mul_shoup_lazy(uint32_t a, uint32_t w, uint32_t w_shoup) {
    uint32_t qhat = __umulhi(a, w_shoup);
    return a * w - qhat * Q;  // exact in 32 bits: the true value is below 2Q < 2^32
}
template <uint32_t Q>
__device__ __forceinline__ uint32_t mul_shoup(uint32_t a, uint32_t w, uint32_t w_shoup) {
    return reduce_once(mul_shoup_lazy<Q>(a, w, w_shoup), Q);
}

// Montgomery REDC, R = 2^32, signed variant: m = lo(ab) * q^-1, so lo(ab) = lo(mQ) and
// (ab - mQ) / R = hi(ab) - hi(mQ), in (-Q, Q) when a*b < Q*R. Returns a*b*R^-1 mod Q + Q, in
// (0, 2Q): the lazy result. Valid for any a < 2^32 when b < Q.
template <uint32_t Q>
__device__ __forceinline__ uint32_t mul_mont_lazy(uint32_t a, uint32_t b) {
    uint64_t ab = (uint64_t)a * b;
    uint32_t m = (uint32_t)ab * Modulus<Q>::qinv;
    uint32_t mq_hi = __umulhi(m, Q);
    return (uint32_t)(ab >> 32) - mq_hi + Q;
}
template <uint32_t Q>
__device__ __forceinline__ uint32_t mul_mont(uint32_t a, uint32_t b) {
    uint64_t ab = (uint64_t)a * b;
    uint32_t m = (uint32_t)ab * Modulus<Q>::qinv;
    uint32_t d = (uint32_t)(ab >> 32) - __umulhi(m, Q);
    return min(d, d + Q);
}

}  // namespace small
}  // namespace zkntt
