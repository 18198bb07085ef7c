// Shared memory declared through macros, so that the CPU emulator (crates/zkntt-kernels/emu,
// ZKNTT_EMU) can give each block its own: its cuda_emu.h defines both first.
#pragma once

// The block's dynamic shared memory as `name`, an array of T.
#ifndef ZKNTT_DYNAMIC_SHARED
#define ZKNTT_DYNAMIC_SHARED(T, name) extern __shared__ __align__(16) T name[]
#endif
// A statically sized shared array: ZKNTT_STATIC_SHARED(uint32_t, t, [32][33]).
#ifndef ZKNTT_STATIC_SHARED
#define ZKNTT_STATIC_SHARED(T, name, dims) __shared__ T name dims
#endif
