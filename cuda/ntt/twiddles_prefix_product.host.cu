// Host-side shim (compiled into a static library, not the fatbin): twiddle tables built on the
// GPU with CUB, on the caller's stream (cudarc's, in the same primary context).
//   out = [c, x, x, ..., x]   cub::DeviceCopy::Batched of two constant ranges
//   out = prefix product      cub::DeviceScan::InclusiveScan with Montgomery multiplication
// giving out[i] = c * x^i (c = 1 for plain powers). Every function returns the cudaError_t; zkntt_host_last_error() says
// which call failed, where.
#include <cub/device/device_copy.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdio>
#include <cstring>

#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"

namespace {

thread_local char last_error[512] = "no error";

// Like sppark's CUDA_OK: the expression and file:line travel with the error code.
#define ZKNTT_CUDA_OK(expr)                                                                      \
    do {                                                                                         \
        cudaError_t err_ = (expr);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            snprintf(last_error, sizeof last_error, "%s failed at %s:%d: %s", #expr, __FILE__,    \
                     __LINE__, cudaGetErrorString(err_));                                        \
            return err_;                                                                         \
        }                                                                                        \
    } while (0)

template <class F>
struct MontMul {
    __device__ __forceinline__ F operator()(const F& a, const F& b) const { return zkntt::mul(a, b); }
};

template <class F>
struct RangeSource {  // range 0: the one element c; range 1: x repeated
    F first, x;
    __host__ __device__ thrust::constant_iterator<F> operator()(uint32_t i) const {
        return thrust::make_constant_iterator(i == 0 ? first : x);
    }
};

template <class F>
struct RangeDest {
    F* out;
    __host__ __device__ F* operator()(uint32_t i) const { return out + (i == 0 ? 0 : 1); }
};

struct RangeSize {
    uint64_t n;
    __host__ __device__ uint64_t operator()(uint32_t i) const { return i == 0 ? 1 : n - 1; }
};

template <class F>
cudaError_t powers(F* out, const F& first, const F& x, uint64_t n, cudaStream_t stream) {
    if (n == 0) return cudaSuccess;
    thrust::counting_iterator<uint32_t> iota(0);
    auto sources = thrust::make_transform_iterator(iota, RangeSource<F>{first, x});
    auto dests = thrust::make_transform_iterator(iota, RangeDest<F>{out});
    auto sizes = thrust::make_transform_iterator(iota, RangeSize{n});

    size_t copy_bytes = 0, scan_bytes = 0;
    ZKNTT_CUDA_OK(cub::DeviceCopy::Batched(nullptr, copy_bytes, sources, dests, sizes, 2, stream));
    ZKNTT_CUDA_OK(cub::DeviceScan::InclusiveScan(nullptr, scan_bytes, out, out, MontMul<F>{}, n, stream));
    void* temp = nullptr;
    const size_t bytes = copy_bytes > scan_bytes ? copy_bytes : scan_bytes;
    ZKNTT_CUDA_OK(cudaMallocAsync(&temp, bytes, stream));
    cudaError_t err = cub::DeviceCopy::Batched(temp, copy_bytes, sources, dests, sizes, 2, stream);
    if (err == cudaSuccess) err = cub::DeviceScan::InclusiveScan(temp, scan_bytes, out, out, MontMul<F>{}, n, stream);
    if (err == cudaSuccess) err = cudaGetLastError();
    const cudaError_t freed = cudaFreeAsync(temp, stream);
    ZKNTT_CUDA_OK(err);
    ZKNTT_CUDA_OK(freed);
    return cudaSuccess;
}

// An element from the caller's memory: ark-ff's elements are 8-byte aligned, F is 16-byte
// aligned, so it is copied rather than dereferenced as an F (the CPU emulator's run of this path
// faulted on an aligned vector load).
template <class F>
F element(const void* p) {
    F v;
    memcpy(&v, p, sizeof(F));
    return v;
}

}  // namespace

// out[i] = c * x^i for i < n (device pointer out, c and x in host memory, Montgomery form), on
// `stream`.
#define ZKNTT_POWERS(FIELD)                                                                       \
    extern "C" int zkntt_powers_##FIELD(void* out, const void* c_host, const void* x_host, uint64_t n, \
                                        void* stream) {                                          \
        return (int)powers<zkntt::FIELD>(static_cast<zkntt::FIELD*>(out),                        \
                                         element<zkntt::FIELD>(c_host),                          \
                                         element<zkntt::FIELD>(x_host), n,                       \
                                         static_cast<cudaStream_t>(stream));                     \
    }

ZKNTT_POWERS(bn254_fr)
ZKNTT_POWERS(bls12_381_fr)

// The failing call of the last error on this thread, with file:line.
extern "C" const char* zkntt_host_last_error() { return last_error; }
