// Generated from the ark-ff type by zkntt-core (FieldDesc::cuda_params_header).
// Do not edit: `make fixtures` regenerates it; a zkntt-core test checks it is current.
#pragma once
#include <cstdint>
#include "mont.cuh"

namespace zkntt {

struct bls12_381_fr_params {
    static constexpr int LIMBS = 8;
    static constexpr int MODULUS_BITS = 255;
    static constexpr uint32_t M0 = 0xffffffffu;
    static constexpr int TWO_ADICITY = 32;
    // Limb i of a constant (little-endian); functions because nvcc does not allow
    // static constexpr arrays in device code. Folded to immediates in unrolled loops.
    __host__ __device__ static constexpr uint32_t modulus(int i) { constexpr uint32_t v[LIMBS] = {0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u, 0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u}; return v[i]; }
    __host__ __device__ static constexpr uint32_t one(int i) { constexpr uint32_t v[LIMBS] = {0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau, 0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u}; return v[i]; }
    __host__ __device__ static constexpr uint32_t r2(int i) { constexpr uint32_t v[LIMBS] = {0xf3f29c6du, 0xc999e990u, 0x87925c23u, 0x2b6cedcbu, 0x7254398fu, 0x05d31496u, 0x9f59ff11u, 0x0748d9d9u}; return v[i]; }
    __host__ __device__ static constexpr uint32_t two_adic_root(int i) { constexpr uint32_t v[LIMBS] = {0x5f0e466au, 0xb9b58d8cu, 0x1819d7ecu, 0x5b1b4c80u, 0x52a31e64u, 0x0af53ae3u, 0x19e9b27bu, 0x5bf3addau}; return v[i]; }
    __host__ __device__ static constexpr uint32_t generator(int i) { constexpr uint32_t v[LIMBS] = {0xfffffff1u, 0x0000000eu, 0x00189c0fu, 0x17e363d3u, 0x6f8457b0u, 0xff9c5787u, 0x8fc5a8c4u, 0x35133220u}; return v[i]; }
};

using bls12_381_fr = mont<bls12_381_fr_params>;

}  // namespace zkntt
