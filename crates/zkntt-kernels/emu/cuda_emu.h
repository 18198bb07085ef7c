// The CUDA that the kernels use, for a C++ compiler: included ahead of the kernel
// sources (`-include`) when they are built for the CPU emulator (ZKNTT_EMU=1, README.md here).
// A block's threads are fibers on one OS thread (runtime.cpp); barriers, warp shuffles and the
// cluster's distributed shared memory are calls into the runtime.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#define ZKNTT_EMU 1
// The kernels' sm_90 paths (clusters, programmatic launches): the emulated device is an H100.
#define __CUDA_ARCH__ 900

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __builtin_assume(x) ((void)0)

struct uint4 {
    uint32_t x, y, z, w;
};
struct uint2 {
    uint32_t x, y;
};
struct alignas(8) float2 {
    float x, y;
};
inline uint4 make_uint4(uint32_t x, uint32_t y, uint32_t z, uint32_t w) { return uint4{x, y, z, w}; }
inline uint2 make_uint2(uint32_t x, uint32_t y) { return uint2{x, y}; }
inline float2 make_float2(float x, float y) { return float2{x, y}; }

namespace zkntt_emu {

struct dim3 {
    uint32_t x = 1, y = 1, z = 1;
};

// The running thread's coordinates and its block's dynamic shared memory.
const dim3& thread_idx();
const dim3& block_idx();
const dim3& block_dim();
const dim3& grid_dim();
void* dynamic_shared();
// A static shared array of the running block, one per `key` (a static of the declaring site).
void* static_shared(const void* key, size_t bytes);
// `bar.sync id, count`: the first `count` threads to arrive at barrier `id` pass together.
void named_barrier(uint32_t id, uint32_t count);
// Where `p` (in the running block's shared memory) sits in it.
uint32_t shared_offset(const void* p);

void sync_threads();
void sync_warp(uint32_t mask);
uint32_t shfl_xor(uint32_t mask, uint32_t v, uint32_t lane_mask, int width);
// A warp-wide exchange: the running lane gives `n` (at most 8) words and gets every lane's,
// lane l's at all[l n ..]; all 32 lanes must take part, as in an mma.
void warp_gather(const uint32_t* mine, uint32_t n, uint32_t* all);
[[noreturn]] void trap();

// Clusters: the block's rank, the barrier's halves and the other blocks' shared memory.
uint32_t cluster_rank();
void cluster_arrive();
void cluster_wait();
uint32_t cluster_remote(uint32_t local, uint32_t block);
uint32_t cluster_load(uint32_t addr);
void cluster_store(uint32_t addr, uint32_t v);

}  // namespace zkntt_emu

#define threadIdx (::zkntt_emu::thread_idx())
#define blockIdx (::zkntt_emu::block_idx())
#define blockDim (::zkntt_emu::block_dim())
#define gridDim (::zkntt_emu::grid_dim())
#define warpSize 32

// The block's shared memory (cuda/shared_memory.cuh has the CUDA forms).
#define ZKNTT_DYNAMIC_SHARED(T, name) T* const name = static_cast<T*>(::zkntt_emu::dynamic_shared())
#define ZKNTT_STATIC_SHARED(T, name, dims)                                                         \
    static const char name##_emu_key = 0;                                                          \
    T(&name) dims = *static_cast<T(*) dims>(::zkntt_emu::static_shared(&name##_emu_key, sizeof(T dims)))

inline void __syncthreads() { zkntt_emu::sync_threads(); }
inline void __syncwarp(uint32_t mask = 0xffffffffu) { zkntt_emu::sync_warp(mask); }
namespace zkntt_emu {
// A 4-byte value through a 32-bit exchange.
template <class T, class X>
inline T through_word(T v, X exchange) {
    static_assert(sizeof(T) == 4, "32-bit shuffles");
    uint32_t w;
    __builtin_memcpy(&w, &v, 4);
    w = exchange(w);
    __builtin_memcpy(&v, &w, 4);
    return v;
}
}  // namespace zkntt_emu
template <class T>
inline T __shfl_xor_sync(uint32_t mask, T v, uint32_t lane_mask, int width = 32) {
    return zkntt_emu::through_word(v, [&](uint32_t w) { return zkntt_emu::shfl_xor(mask, w, lane_mask, width); });
}
inline void __trap() { zkntt_emu::trap(); }
template <class T>
inline T __ldg(const T* p) {
    return *p;
}
inline size_t __cvta_generic_to_shared(const void* p) { return zkntt_emu::shared_offset(p); }

inline uint32_t __brev(uint32_t x) {
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned long long __brevll(unsigned long long x) {
    return (unsigned long long)__brev((uint32_t)x) << 32 | __brev((uint32_t)(x >> 32));
}
inline int __clz(uint32_t x) { return x == 0 ? 32 : __builtin_clz(x); }
inline uint32_t __umulhi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
inline long long __double_as_longlong(double d) {
    long long r;
    __builtin_memcpy(&r, &d, 8);
    return r;
}
inline double __longlong_as_double(long long v) {
    double r;
    __builtin_memcpy(&r, &v, 8);
    return r;
}
inline float __int_as_float(int v) {
    float r;
    __builtin_memcpy(&r, &v, 4);
    return r;
}
// Byte n of the result is byte (s >> 4n) & 7 of the eight bytes x (0..3), y (4..7).
inline uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s) {
    const uint64_t v = (uint64_t)y << 32 | x;
    uint32_t r = 0;
    for (int n = 0; n < 4; n++) r |= (uint32_t)(v >> (8 * ((s >> (4 * n)) & 7)) & 0xff) << (8 * n);
    return r;
}
// sin(pi x) and cos(pi x), exact at the multiples of 1/2 as CUDA's: x reduced modulo 2 (exactly)
// to a quadrant and a remainder in [-1/4, 1/4], that in double.
inline void sincospif(float x, float* s, float* c) {
    const double r = std::fmod((double)x, 2.0), q = std::nearbyint(2.0 * r), f = r - q / 2;
    const double pi = 3.14159265358979323846, sf = std::sin(pi * f), cf = std::cos(pi * f);
    switch (((int)q % 4 + 4) % 4) {
    case 0: *s = (float)sf, *c = (float)cf; break;
    case 1: *s = (float)cf, *c = (float)-sf; break;
    case 2: *s = (float)-sf, *c = (float)-cf; break;
    default: *s = (float)-cf, *c = (float)sf; break;
    }
}
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
double __fma_rz(double a, double b, double c);

// CUDA's integer min/max take mixed operands.
template <class A, class B>
inline std::common_type_t<A, B> min(A a, B b) {
    return a < b ? a : b;
}
template <class A, class B>
inline std::common_type_t<A, B> max(A a, B b) {
    return a < b ? b : a;
}

namespace zkntt_emu {
// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` with d as both C and D: d += A B over the
// warp, each lane holding its fragments as the PTX ISA lays them out (lane l = 4 g + q: A rows g,
// g + 8 at columns 2q, 2q + 1, then 2q + 8, 2q + 9; B rows 2q, 2q + 1, 2q + 8, 2q + 9 at column
// g; d rows g, g + 8 at columns 2q, 2q + 1; the lower index in the lower 16 bits). The products
// are exact and summed in double, then added to d and rounded to fp32 once: the tensor cores'
// accumulation order and rounding are not specified, and tests bound the error, not the bits.
void mma_m16n8k16_f16_f32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]);
}  // namespace zkntt_emu
