// Thread-block clusters (sm_90+): the block's rank, the cluster barrier and distributed shared
// memory (a block's shared memory addressed from another block of its cluster). Shared by the
// big-field cluster kernel (cuda/ntt/cluster.cu) and the small-word one (cuda/small/ntt_cluster.cu).
#pragma once
#include <cstdint>

// Whether the functions below exist: sm_90+, and the CPU emulator (crates/zkntt-kernels/emu).
#if defined(ZKNTT_EMU) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900)
#define ZKNTT_HAS_CLUSTERS 1
#else
#define ZKNTT_HAS_CLUSTERS 0
#endif

namespace zkntt {
namespace cluster {

#if defined(ZKNTT_EMU)
inline uint32_t rank() { return zkntt_emu::cluster_rank(); }
inline void barrier() {
    zkntt_emu::cluster_arrive();
    zkntt_emu::cluster_wait();
}
inline void barrier_own_shared() {
    zkntt_emu::cluster_arrive();
    zkntt_emu::cluster_wait();
}
inline void arrive() { zkntt_emu::cluster_arrive(); }
inline void wait() { zkntt_emu::cluster_wait(); }
inline void arrive_started() { zkntt_emu::cluster_arrive(); }
inline void wait_started() { zkntt_emu::cluster_wait(); }
inline uint32_t remote(uint32_t local, uint32_t block) { return zkntt_emu::cluster_remote(local, block); }
inline uint32_t load_remote(uint32_t addr) { return zkntt_emu::cluster_load(addr); }
inline uint4 load_remote4(uint32_t addr) {
    return make_uint4(zkntt_emu::cluster_load(addr), zkntt_emu::cluster_load(addr + 4),
                      zkntt_emu::cluster_load(addr + 8), zkntt_emu::cluster_load(addr + 12));
}
inline void store_remote(uint32_t addr, uint32_t v) { zkntt_emu::cluster_store(addr, v); }
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ uint32_t rank() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// Every thread of every block of the cluster; orders shared (local and remote) and global memory.
__device__ __forceinline__ void barrier() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// A cluster barrier that publishes only each block's writes to its own shared memory: after it,
// every block may read them remotely. It orders nothing else (global memory, a block's writes to
// another's shared memory), and its release is a CTA-scope fence where `barrier`'s compiles to a
// GPU-scope one (MEMBAR.ALL.GPU, where the rows kernels' warps waited: benches/NOTES.md).
__device__ __forceinline__ void barrier_own_shared() {
    asm volatile(
        "fence.release.sync_restrict::shared::cta.cluster;\n\t"
        "barrier.cluster.arrive.relaxed.aligned;\n\t"
        "barrier.cluster.wait.aligned;\n\t"
        "fence.acquire.sync_restrict::shared::cluster.cluster;" ::: "memory");
}
// The two halves of `barrier`, apart: what a thread did to memory before `arrive` is seen by every
// thread of the cluster after its `wait`.
__device__ __forceinline__ void arrive() {
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void wait() {
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// The two halves of a barrier that orders nothing: every block of the cluster has started once
// `wait_started` returns (a block's shared memory may be addressed from another only then).
__device__ __forceinline__ void arrive_started() {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void wait_started() {
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}
// The shared::cluster address of shared-memory address `local` in block `block` of the cluster.
__device__ __forceinline__ uint32_t remote(uint32_t local, uint32_t block) {
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local), "r"(block));
    return r;
}
__device__ __forceinline__ uint32_t load_remote(uint32_t addr) {
    uint32_t v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}
// 16 bytes at a 16-byte aligned `addr`.
__device__ __forceinline__ uint4 load_remote4(uint32_t addr) {
    uint4 v;
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}
__device__ __forceinline__ void store_remote(uint32_t addr, uint32_t v) {
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
#endif

}  // namespace cluster
}  // namespace zkntt
