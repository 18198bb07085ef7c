// The WSX tile (seed 000): the layers of one 4096-element tile held by 256 threads x 16 registers,
// shared by the tile kernel (ntt_wsx.cu: tiles from and to global memory) and the panel kernel
// (ntt_panel.cu: tiles from and to a panel of shared memory, for the 2-D decomposition).
//
// Butterflies inside a warp by __shfl_xor_sync with the lane mask as the butterfly stride,
// butterflies inside a thread in registers, shared memory only to move data between warps.
// The tile index g has 12 bits; which of them a register, lane or warp index selects changes as
// the layers go:
//   M1: g = tid | r << 8                      registers hold bits 8..11 (layers 11..8)
//   M2: g = (lane & 15) | r << 4 | (lane >> 4) << 8 | warp << 9
//                                             registers hold bits 4..7 (layers 7..4)
//   M3: g = r | (lane & 15) << 4 | (lane >> 4) << 8 | warp << 9
//                                             registers hold bits 0..3 (layers 3..0)
// M1 -> M2 goes through shared memory. M2 -> M3 is the warp-shuffle part: before layer b (3..0)
// lane bit b and register bit b swap places, each lane sending half its registers to lane ^ 2^b
// (8 shuffles), and layer b then runs as full butterflies in registers: half the shuffles and
// multiplications of shuffling every register and computing a half butterfly in both lanes
// (kept as the ablation small_ntt_wsx_half_*). Then the output exchange writes each value to its
// bit-reversed slot, so that shared memory holds the tile in natural order.
// Transforms smaller than the tile (log_n < 12) occupy the tile's low log_n bits and run only the
// layers below log_n.
//
// The tile's shared memory is `buf[slot(p) * stride]` for tile position p: stride 1 is a tile of
// its own, an odd stride > 1 one column of a panel of interleaved tiles (an odd stride is a
// bijection on banks, so the swizzle below stays conflict-free). The tile's threads are the 256
// of threadIdx.x / 256: a block of 256 x T threads runs T tiles side by side.
#pragma once
#include "small/ntt.cuh"

namespace zkntt {
namespace small {
namespace wsx {

// Shared-memory slot of tile position p: bits 5..8 flip bits 0..4 (an XOR swizzle chosen by
// exhaustive search over such maps) so that every access of the kernel hits 32 distinct banks:
// M1 rows, the M2 read, and the bit-reversed output write of every log_n. Linear over XOR
// (slot(a ^ b) = slot(a) ^ slot(b)), so an address is a per-thread part XOR a constant per register.
__host__ __device__ constexpr uint32_t slot(uint32_t p) {
    return p ^ ((p >> 5 & 1u) * 3u) ^ ((p >> 6 & 1u) * 5u) ^ ((p >> 7 & 1u) * 9u) ^ ((p >> 8 & 1u) * 17u);
}

// Natural-order position of DIF output slot g: the low log_n bits reversed.
__device__ __forceinline__ uint32_t out_pos(uint32_t g, uint32_t log_n) {
    const uint32_t low = (1u << log_n) - 1;
    return (g & ~low) | bitrev(g & low, log_n);
}

// slot() changes only bits 0..4 of a position (checked below for every position of a tile).
__host__ __device__ constexpr bool slot_keeps_bits_above_4() {
    for (uint32_t p = 0; p < (1u << TILE_LOG); p++) {
        if ((slot(p) ^ p) >= 32u) return false;
    }
    return true;
}
static_assert(slot_keeps_bits_above_4() && slot(1u << 8) == (1u << 8 | 17u), "the M1 split below");

// Register r's slot in M1, s_m1 ^ slot(r << 8) (s_m1 = slot(tid), tid < 256): s_m1 < 256 and
// slot(r << 8) = (r << 8) ^ 17 (r & 1), so it is (s_m1 ^ 17 (r & 1)) + (r << 8), one of two bases
// plus a constant a register, which the compiler folds into the access (no XOR an access).
__device__ __forceinline__ uint32_t* m1_at(uint32_t* buf, uint32_t s_m1, uint32_t stride, uint32_t r) {
    return buf + (s_m1 ^ (r & 1 ? 17u : 0u)) * stride + (r << 8) * stride;
}

// What every tile of a launch shares: twiddle pointers and this thread's slots.
template <class W>
struct Consts {
    const W* tw;
    const W* tw_m1;  // M1 layer b: entries (1 << b) + tid + k * 256
    const W* tw_m2;  // M2 layer b: entries (1 << b) + (lane & 15) + k * 16
    uint32_t m2;     // this thread's M2 position for r = 0
    uint32_t s_m1, s_m2, s_out;
    uint32_t b_out[4];
    // The output exchange of a whole tile in natural order: register r's slot is then
    // (s_out ^ 17 (r >> 3 & 1)) + (rev4(r) << 8) (s_out < 256), as in M1.
    bool out_split;
    // Output slots: register r holds tile index t_out | sum of reg_bit[k] over the bits k of r;
    // out_pos and slot are linear, so its slot is s_out ^ (XOR of b_out[k] over those bits).
    // natural: the output exchange leaves the tile in natural order (out_pos); otherwise in the
    // DIF's bit-reversed order (slot g holds output rev(g)), which is also conflict-free.
    template <bool EXCHANGE>
    __device__ static Consts make(const void* twiddles, uint32_t log_n, bool natural = true) {
        const uint32_t tid = threadIdx.x % THREADS, lane = tid & 31, warp = tid >> 5;
        Consts c;
        c.tw = static_cast<const W*>(twiddles);
        c.tw_m1 = c.tw + tid;
        c.tw_m2 = c.tw + (lane & 15);
        c.m2 = (lane & 15) | (lane >> 4) << 8 | warp << 9;
        c.s_m1 = slot(tid);
        c.s_m2 = slot(c.m2);
        const uint32_t t_out = EXCHANGE ? ((lane & 15) << 4 | (lane >> 4) << 8 | warp << 9) : c.m2;
        const uint32_t log_out = natural ? log_n : 0;  // out_pos over no bits: the identity
        c.s_out = slot(out_pos(t_out, log_out));
#pragma unroll
        for (uint32_t k = 0; k < 4; k++) c.b_out[k] = slot(out_pos(1u << (EXCHANGE ? k : k + 4), log_out));
        c.out_split = EXCHANGE && log_out == TILE_LOG;
        return c;
    }
};

// Four layers inside each thread's registers: register bit rb is tile bit rb + LO (layers
// LO + 3 .. LO). `tw` is this thread's table entry for register 0 (its tile bits below LO); the
// layer of stride 2^b reads entries (1 << b) + (lo mod 2^rb) << LO: 2^rb distinct twiddles.
template <class F, class Form, uint32_t LO>
__device__ __forceinline__ void register_layers(const Form& f, uint32_t (&v)[PER_THREAD],
                                                const typename Form::W* tw, uint32_t log_n) {
    using W = typename Form::W;
#pragma unroll
    for (int rb = 3; rb >= 0; rb--) {
        const uint32_t b = rb + LO;
        if (b >= log_n) continue;
        W w[8];  // the first 2^rb used
#pragma unroll
        for (uint32_t k = 0; k < 8; k++) {
            if (k < (1u << rb)) w[k] = Form::load(tw, (1u << b) + (k << LO));
        }
#pragma unroll
        for (uint32_t lo = 0; lo < PER_THREAD; lo++) {
            if (lo & (1u << rb)) continue;
            dif_butterfly<F>(f, v[lo], v[lo | (1u << rb)], w[lo & ((1u << rb) - 1)]);
        }
    }
}

// The tile's 256 threads alone (named barrier 1 + threadIdx.x / 256), so that in a block of
// several tiles side by side (the panel kernel) no tile waits at its layers' barriers for the
// others. sm_90 only: with the id in a register ptxas counts 16 barriers a block, which on sm_86
// and sm_89 would cap every panel launch at one block a multiprocessor (sm_80/sm_90 hold four);
// elsewhere it is the block's barrier. The id is read from %tid.x at each barrier so no register
// holds it (the panel symbols sit at their 64-register cap and spill a few bytes as it is).
__device__ __forceinline__ void tile_barrier() {
#if defined(ZKNTT_EMU)
    zkntt_emu::named_barrier(1u + threadIdx.x / THREADS, THREADS);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint32_t t;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t));
    asm volatile("bar.sync %0, %1;" ::"r"(1u + t / THREADS), "r"(THREADS) : "memory");
#else
    __syncthreads();
#endif
}

// FOLD: the M1 stores and a natural-order output exchange address slots as two bases plus
// constants (`m1_at`), which fold into the accesses' offsets where the stride is a constant.
// Taken by the tile kernel and the wide NN-rows kernel, where it measured faster; the NN-rows
// kernel and the panel (whose one-group launches share the symbol with its two groups) measured
// slower with it, the cluster kernel level (benches/NOTES.md, fifty-fifth session).
// The layers of one tile. In: v in M1 (log_n > 8) or M2 (log_n <= 8). Out, after a barrier
// (the block's, or with TILE_BARRIER the tile's own): buf[slot(g) * stride] holds output g in
// natural order (or output rev(g), as Consts::make was asked), every slot written. The caller
// must not let another thread still read `buf` when this starts (the M1 -> M2 exchange and the
// output exchange write it); with TILE_BARRIER all 256 threads of the tile call this, and no
// thread outside the tile touches `buf` until the caller's next block barrier.
template <class F, class Form, bool EXCHANGE, bool TILE_BARRIER = false, bool FOLD = false>
__device__ __forceinline__ void layers(const Form& f, const Consts<typename Form::W>& c,
                                       uint32_t (&v)[PER_THREAD], uint32_t* buf, uint32_t stride,
                                       uint32_t log_n) {
    const auto sync = [] {
        if constexpr (TILE_BARRIER) {
            tile_barrier();
        } else {
            __syncthreads();
        }
    };
    const uint32_t S = stride;
    using W = typename Form::W;
    const uint32_t lane = threadIdx.x & 31;
    if (log_n > 8) {
        // Layers 11..8 in registers; twiddle offset tid + (lo mod 2^rb) * 256.
        register_layers<F, Form, 8>(f, v, c.tw_m1, log_n);
        // M1 -> M2 through shared memory.
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) {
            if constexpr (FOLD) {
                *m1_at(buf, c.s_m1, S, r) = v[r];
            } else {
                buf[(c.s_m1 ^ slot(r << 8)) * S] = v[r];
            }
        }
        sync();
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = buf[(c.s_m2 ^ slot(r << 4)) * S];
        sync();
    }

    // Layers 7..4 in registers; twiddle offset (lane & 15) + (lo mod 2^rb) * 16.
    register_layers<F, Form, 4>(f, v, c.tw_m2, log_n);

    // Layers 3..0 across lanes. Twiddle offset g mod 2^b: lane bits below b, which stay in
    // place (layer 0's twiddle is 1). Loaded first so the loads overlap the exchanges.
    W w_x[4];
#pragma unroll
    for (uint32_t b = 1; b < 4; b++) w_x[b] = Form::load(c.tw, (1u << b) + (lane & ((1u << b) - 1)));
#pragma unroll
    for (int b = 3; b >= 0; b--) {
        const uint32_t mask = 1u << b;
        const bool upper = lane & mask;
        if constexpr (EXCHANGE) {
            // Lane bit b <-> register bit b: the lower lane sends v[r | mask] and receives
            // its partner's v[r] there; the upper lane sends v[r] and receives into v[r].
            // Done for every layer (also those at or above log_n) so the layout is M3.
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                if (r & mask) continue;
                const uint32_t send = upper ? v[r] : v[r | mask];
                const uint32_t got = __shfl_xor_sync(0xffffffffu, send, mask);
                if (upper) {
                    v[r] = got;
                } else {
                    v[r | mask] = got;
                }
            }
            if ((uint32_t)b >= log_n) continue;
            if (b == 0) {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r += 2) dif_butterfly_unit<F, Form>(v[r], v[r + 1]);
            } else {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) {
                    if (r & mask) continue;
                    dif_butterfly<F>(f, v[r], v[r | mask], w_x[b]);
                }
            }
        } else {
            if ((uint32_t)b >= log_n) continue;
            // One twiddle per lane; the lower lane multiplies by entry mask + 0 = w^0 = 1.
            const W w = Form::load(c.tw, mask + (upper ? lane & (mask - 1) : 0));
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                uint32_t other = __shfl_xor_sync(0xffffffffu, v[r], mask);
                v[r] = dif_half_butterfly<F>(f, v[r], other, upper, w);
            }
        }
    }

    // Output exchange: the value of tile index g goes to slot(out_pos(g)).
    if (FOLD && c.out_split) {
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) *m1_at(buf, c.s_out, S, rev_bits<4>(r)) = v[r];
    } else {
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) {
            uint32_t s = c.s_out;
#pragma unroll
            for (uint32_t k = 0; k < 4; k++) {
                if (r & (1u << k)) s ^= c.b_out[k];
            }
            buf[s * S] = v[r];
        }
    }
    sync();
}

// The C-point DIF on register bits below log_c (register r = i C + n1 holds entry n1 of its
// column; the cluster kernel's and ntt_wsx.cu's wide rows): layer b pairs r and r | 2^b with
// twiddle entry 2^b + (r mod 2^b) (w_(2^(b+1))^(n1 mod 2^b)); layer 0's twiddle is 1. Out:
// register r holds entry rev(n1) of its column.
template <class F, class Form>
__device__ __forceinline__ void column_dif(const Form& f, const NttParams& p, uint32_t (&y)[PER_THREAD],
                                           uint32_t log_c) {
    using W = typename Form::W;
#pragma unroll
    for (int b = 3; b >= 0; b--) {
        if ((uint32_t)b >= log_c) continue;
        const uint32_t h = 1u << b;
        if (b == 0) {
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r += 2) dif_butterfly_unit<F, Form>(y[r], y[r + 1]);
            continue;
        }
        W w[8];  // the first h used
#pragma unroll
        for (uint32_t k = 0; k < 8; k++) {
            if (k < h) w[k] = Form::load(p.twiddles, h + k);
        }
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) {
            if (r & h) continue;
            dif_butterfly<F>(f, y[r], y[r | h], w[r & (h - 1)]);
        }
    }
}

// The wide rows' three parameter sets (ntt_wsx.cu's wide kernels, ntt_nn_rows.cu's wide rows):
// `columns` the 2-D twiddle w_N^(j k1) on the C-point columns (no scale), `canonical` its k1 = 0
// or n1 = 0 case (w^0: the canonical form only), `rows` the scale without the 2-D twiddle.
struct WideParams {
    NttParams columns, canonical, rows;
    __device__ __forceinline__ explicit WideParams(const NttParams& p) : columns(p), canonical(p), rows(p) {
        columns.has_scale = 0;
        columns.post_log_rows = TILE_LOG;
        canonical = columns;
        canonical.post_lo = nullptr;
        rows.post_lo = nullptr;
    }
};

}  // namespace wsx
}  // namespace small
}  // namespace zkntt
