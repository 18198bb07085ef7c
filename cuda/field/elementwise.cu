// Element-wise field kernels: the arithmetic of mont.cuh exposed for testing and benchmarking.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"

namespace zkntt {
namespace elementwise {

template <class F, class Op>
__device__ __forceinline__ void binary(const F* a, const F* b, F* out, uint64_t n, Op op) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        op(F::load(a + i), F::load(b + i)).store(out + i);
    }
}

template <class F>
__device__ __forceinline__ void scale(const F* a, const F& s, F* out, uint64_t n) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        zkntt::mul(F::load(a + i), s).store(out + i);
    }
}

}  // namespace elementwise
}  // namespace zkntt

// Launch: 1-D grid-stride, any grid and block size. In/out: natural order, n elements each;
// out may alias a or b. field_scale: out[i] = a[i] * s, the scalar s passed by value.
#define ZKNTT_ELEMENTWISE(FIELD)                                                                   \
    extern "C" __global__ void field_add_##FIELD(const zkntt::FIELD* a, const zkntt::FIELD* b,     \
                                                 zkntt::FIELD* out, uint64_t n) {                  \
        zkntt::elementwise::binary(a, b, out, n, [](const zkntt::FIELD& x, const zkntt::FIELD& y) { \
            return zkntt::add(x, y);                                                               \
        });                                                                                        \
    }                                                                                              \
    extern "C" __global__ void field_sub_##FIELD(const zkntt::FIELD* a, const zkntt::FIELD* b,     \
                                                 zkntt::FIELD* out, uint64_t n) {                  \
        zkntt::elementwise::binary(a, b, out, n, [](const zkntt::FIELD& x, const zkntt::FIELD& y) { \
            return zkntt::sub(x, y);                                                               \
        });                                                                                        \
    }                                                                                              \
    extern "C" __global__ void field_mul_##FIELD(const zkntt::FIELD* a, const zkntt::FIELD* b,     \
                                                 zkntt::FIELD* out, uint64_t n) {                  \
        zkntt::elementwise::binary(a, b, out, n, [](const zkntt::FIELD& x, const zkntt::FIELD& y) { \
            return zkntt::mul(x, y);                                                               \
        });                                                                                        \
    }                                                                                              \
    extern "C" __global__ void field_sqr_##FIELD(const zkntt::FIELD* a, zkntt::FIELD* out,         \
                                                 uint64_t n) {                                     \
        zkntt::elementwise::binary(a, a, out, n, [](const zkntt::FIELD& x, const zkntt::FIELD&) {   \
            return zkntt::sqr(x);                                                                  \
        });                                                                                        \
    }                                                                                              \
    extern "C" __global__ void field_scale_##FIELD(const zkntt::FIELD* a, const zkntt::FIELD s,    \
                                                   zkntt::FIELD* out, uint64_t n) {                \
        zkntt::elementwise::scale(a, s, out, n);                                                   \
    }

ZKNTT_ELEMENTWISE(bn254_fr)
ZKNTT_ELEMENTWISE(bls12_381_fr)
