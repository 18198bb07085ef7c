// The quad tile: the DIF layers of one 4096-word tile in shared memory, run by 1024 threads two
// layers at a time (a radix-4 group of four words per thread and round, then a barrier). For
// single transforms, where one block's dependent chain is the time: the WSX tile (wsx_tile.cuh)
// gives each of its 256 threads 16 words through twelve layers, which a batch hides behind other
// blocks and a lone tile does not (ncu: 6.8-9.9 cycles per issued instruction at two warps per
// scheduler); here each thread takes 4 words and 32 warps share the SM.
//
// The layers are those of the WSX tile, butterfly for butterfly (the same table entries, the
// twiddle-1 butterfly at layer 0 only), so every intermediate value is the same: the CPU twin of
// the arithmetic is `twin::wsx` (and `twin::cluster` for its use in the cluster kernel).
#pragma once
#include "small/wsx_tile.cuh"

namespace zkntt {
namespace small {
namespace quad {

constexpr uint32_t THREADS = 1024;
static_assert(THREADS * 4 == TILE, "a radix-4 group per thread and round");

// Shared-memory word of tile position p: a word of padding every 32, so the strided accesses
// of the small-stride rounds and of the column gathers spread over the banks.
__device__ __forceinline__ uint32_t pad(uint32_t p) { return p + (p >> 5); }
constexpr uint32_t PADDED = TILE + TILE / 32;  // words of a padded tile

// Table entry i, from the copy in shared memory.
template <class Form>
__device__ __forceinline__ typename Form::W tw(const typename Form::W* table, uint32_t i) {
    __builtin_assume(__isShared(table));
    return table[i];
}

// DIF over the 4096 >> log_n transforms of 2^log_n words (log_n 1..12) held at buf[pad(p)] in
// natural order; afterwards position p holds entry rev(p mod 2^log_n) of its transform. `table`:
// the 4096-entry DIF table, in shared memory. Called by all 1024 threads after a barrier that
// makes `buf` and `table` visible; ends with a barrier.
template <class F, class Form>
__device__ __forceinline__ void layers(const Form& f, uint32_t* buf, const typename Form::W* table,
                                       uint32_t log_n) {
    using W = typename Form::W;
    const uint32_t i = threadIdx.x;
    int b = (int)log_n - 1;
    // Layers b (stride 2h) and b - 1 (stride h) on positions p0 + {0, h, 2h, 3h}.
    for (; b >= 1; b -= 2) {
        const uint32_t h = 1u << (b - 1);
        const uint32_t pos = i & (h - 1);
        const uint32_t p0 = ((i >> (b - 1)) << (b + 1)) + pos;
        uint32_t x0 = buf[pad(p0)], x1 = buf[pad(p0 + h)], x2 = buf[pad(p0 + 2 * h)], x3 = buf[pad(p0 + 3 * h)];
        const W wa = tw<Form>(table, (1u << b) | pos);
        const W wb = tw<Form>(table, (1u << b) | (pos + h));
        dif_butterfly<F>(f, x0, x2, wa);
        dif_butterfly<F>(f, x1, x3, wb);
        if (b == 1) {
            dif_butterfly_unit<F, Form>(x0, x1);
            dif_butterfly_unit<F, Form>(x2, x3);
        } else {
            const W wc = tw<Form>(table, (1u << (b - 1)) | pos);
            dif_butterfly<F>(f, x0, x1, wc);
            dif_butterfly<F>(f, x2, x3, wc);
        }
        buf[pad(p0)] = x0;
        buf[pad(p0 + h)] = x1;
        buf[pad(p0 + 2 * h)] = x2;
        buf[pad(p0 + 3 * h)] = x3;
        __syncthreads();
    }
    if (b == 0) {
        // An odd layer count ends with layer 0 alone: two neighbour pairs per thread.
#pragma unroll
        for (uint32_t k = 0; k < 2; k++) {
            const uint32_t p0 = 2 * (i + k * THREADS);
            uint32_t x0 = buf[pad(p0)], x1 = buf[pad(p0 + 1)];
            dif_butterfly_unit<F, Form>(x0, x1);
            buf[pad(p0)] = x0;
            buf[pad(p0 + 1)] = x1;
        }
        __syncthreads();
    }
}

// Stages the DIF table (4096 entries) in shared memory: four coalesced loads per thread.
template <class Form>
__device__ __forceinline__ void stage_table(typename Form::W* table, const void* twiddles) {
    typename Form::W t[4];
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) t[k] = Form::load(twiddles, threadIdx.x + k * THREADS);
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) table[threadIdx.x + k * THREADS] = t[k];
}

// Dynamic shared memory of a kernel with `tiles` padded tiles and the table.
template <class Form>
constexpr uint32_t smem_bytes(uint32_t tiles) {
    return tiles * PADDED * 4 + TILE * (uint32_t)sizeof(typename Form::W);
}

}  // namespace quad
}  // namespace small
}  // namespace zkntt
