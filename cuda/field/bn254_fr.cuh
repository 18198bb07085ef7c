// Generated from the ark-ff type by zkntt-core (FieldDesc::cuda_params_header).
// Do not edit: `make fixtures` regenerates it; a zkntt-core test checks it is current.
#pragma once
#include <cstdint>
#include "mont.cuh"

namespace zkntt {

struct bn254_fr_params {
    static constexpr int LIMBS = 8;
    static constexpr int MODULUS_BITS = 254;
    static constexpr uint32_t M0 = 0xefffffffu;
    static constexpr int TWO_ADICITY = 28;
    // Limb i of a constant (little-endian); functions because nvcc does not allow
    // static constexpr arrays in device code. Folded to immediates in unrolled loops.
    __host__ __device__ static constexpr uint32_t modulus(int i) { constexpr uint32_t v[LIMBS] = {0xf0000001u, 0x43e1f593u, 0x79b97091u, 0x2833e848u, 0x8181585du, 0xb85045b6u, 0xe131a029u, 0x30644e72u}; return v[i]; }
    __host__ __device__ static constexpr uint32_t one(int i) { constexpr uint32_t v[LIMBS] = {0x4ffffffbu, 0xac96341cu, 0x9f60cd29u, 0x36fc7695u, 0x7879462eu, 0x666ea36fu, 0x9a07df2fu, 0x0e0a77c1u}; return v[i]; }
    __host__ __device__ static constexpr uint32_t r2(int i) { constexpr uint32_t v[LIMBS] = {0xae216da7u, 0x1bb8e645u, 0xe35c59e3u, 0x53fe3ab1u, 0x53bb8085u, 0x8c49833du, 0x7f4e44a5u, 0x0216d0b1u}; return v[i]; }
    __host__ __device__ static constexpr uint32_t two_adic_root(int i) { constexpr uint32_t v[LIMBS] = {0x80d13d9cu, 0x636e7355u, 0x2445ffd6u, 0xa22bf374u, 0x1eb203d8u, 0x56452ac0u, 0x2963f9e7u, 0x1860ef94u}; return v[i]; }
    __host__ __device__ static constexpr uint32_t generator(int i) { constexpr uint32_t v[LIMBS] = {0x9fffffe6u, 0x1b0d0ef9u, 0xa32a913fu, 0xeaba68a3u, 0xd8dd0689u, 0x47d8eb76u, 0x20f5bbc3u, 0x15d00855u}; return v[i]; }
};

using bn254_fr = mont<bn254_fr_params>;

}  // namespace zkntt
