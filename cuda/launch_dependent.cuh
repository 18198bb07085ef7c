// Programmatic dependent launch (sm_90+), shared by the big-field NTT kernels (cuda/ntt) and the
// small-word panel and tile kernels (cuda/small/ntt_panel.cu, ntt_wsx.cu). A kernel calls `wait_for_previous_grid`
// before its first global memory access: it returns once the previous kernel of the stream has
// finished and its writes are visible. `allow_dependent_launch`, called once a block's global
// reads are done (column launches with TRIGGER_START: right after the wait), lets the next
// kernel be launched (its blocks scheduled) once every block of this one has called it or
// exited. Without the launch attribute (the host sets it on sm_90+ for dependent launches)
// both do nothing, as under the CPU emulator, which runs one launch after the other.
#pragma once

namespace zkntt {

__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(ZKNTT_EMU)
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(ZKNTT_EMU)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace zkntt
