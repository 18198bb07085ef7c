// The seed's stage2: the middle stage of the plan (Q-point NTTs on the groups (a, *, b), times
// w_N^(P*b*k), written to group (b, *, a)) with one warp per tile pair and every element in
// registers (at Q = 8 three of a lane's eight wait in its own static shared-memory slots over the
// peak: ZKNTT_S2W_STASH), no __syncthreads. Same input, output and twiddles as middle.cu.
// CPU twin, lane by lane: zkntt_core::self_sort::stage2_warp; shapes: zkntt_core::plan::WarpShape.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"
#include "ntt/warp_exchange.cuh"

namespace zkntt {
namespace ntt {

// ptxas study of the launch's registers (benches/ptxas/stage2_study.cu, README.md there): the
// symbols run at ZKNTT_STAGE2_WARP_MIN_BLOCKS blocks of 128 an SM (5: 96 registers) with
// SEQUENCED, SKIP_ONE and BATCH 1, the launched shape (BN254, Q = 8) with no spill and no shared
// memory (the warp-only design); STASH 3 and UPPER_FIRST reach 6 blocks (80 registers) without
// spill but park values in shared memory, so they are off. Each knob's 0 (BATCH 2) is the code
// before the study. ZKNTT_S2W_SEQUENCED: where
// a lane holds a whole group (Q = EL, one tile pair a warp: log Q = 2, 3), its DIT depth first in
// the order of fewest live values (dit_local, then the last layer pair by pair, each pair stored at
// once); 0: every read first, layer by layer, then every store.
#ifndef ZKNTT_S2W_SEQUENCED
#define ZKNTT_S2W_SEQUENCED 1
#endif
// ZKNTT_S2W_SKIP_ONE: no product by a sub-twiddle known at compile time to be w^0 = 1 (sub_twiddles[0]
// is 1: pos = 0 in the layers of a lane's own registers, before any lane bit is swapped in). The
// factor left out is exactly 1 and the unmultiplied value is in the product's range ([0, 2p) lazy,
// [0, p) strict), so every stored value is the same; 0: every layer from 1 multiplies.
#ifndef ZKNTT_S2W_SKIP_ONE
#define ZKNTT_S2W_SKIP_ONE 1
#endif
// ZKNTT_S2W_BATCH: the layer-order path's twiddle reads in flight together before their products
// (the layers' sub-twiddles and the output's mid twiddles): 2, or 1 (each read just before its
// product, fewer values live).
#ifndef ZKNTT_S2W_BATCH
#define ZKNTT_S2W_BATCH 1
#endif
// ZKNTT_S2W_SLOTS_COMPUTED: a lane bit's swap moves the slot indices without shuffles: the partner's
// slot in register r is the lane's own with slot bit LOG_EL + lbit flipped (that bit is lane bit
// lbit, swapped once), so the indices stay expressions of the lane and the register that ptxas
// may recompute instead of holding; 0: shuffled like the elements.
#ifndef ZKNTT_S2W_SLOTS_COMPUTED
#define ZKNTT_S2W_SLOTS_COMPUTED 0
#endif
// ZKNTT_S2W_STASH (with ZKNTT_S2W_SEQUENCED, log Q >= 3): values of the last layer's last pairs wait
// in static shared memory (32 B a thread an element, 128 threads: plan::THREADS) from when their
// half is done until their butterfly, out of registers over the other half and the first outputs'
// products (whose live values set the peak). The first STASH of registers EL/2 - 1, EL - 1,
// EL/2 - 2, EL - 2 (the last pair, then the one before); 0: none (no shared memory).
#ifndef ZKNTT_S2W_STASH
#define ZKNTT_S2W_STASH 0
#endif
// ZKNTT_S2W_UPPER_FIRST (with ZKNTT_S2W_SEQUENCED): dit_local runs a range's upper half first and
// its products by the joining layer's twiddles at once, then the lower half, then the sums and
// differences: the products run beside the upper half's values only; 0: lower half first.
#ifndef ZKNTT_S2W_UPPER_FIRST
#define ZKNTT_S2W_UPPER_FIRST 0
#endif

template <uint32_t BITS>
__host__ __device__ constexpr uint32_t rev_const(uint32_t x) {
    uint32_t r = 0;
    for (uint32_t i = 0; i < BITS; i++) r |= ((x >> i) & 1) << (BITS - 1 - i);
    return r;
}

// One lane's group of Q = 2^LOG_Q elements in registers, register r = slot r (entry rev(r)) on
// input, entry r on output: stage2_warp's layers and stores for LOG_L = 0 (no lane bit swapped in),
// in another order with the same products, sums and index maps. The DIT runs depth first: registers
// [LO, LO + 2^LOG_N) as two halves, then the layer joining them, each element read just before
// its first butterfly and each twiddle just before its product, so that one half's values and one
// product's operands are live at a time.
template <class F, uint32_t LOG_Q, uint32_t LO, uint32_t LOG_N, class In>
__device__ __forceinline__ void dit_local(F (&x)[1u << LOG_Q], const In& in, const F* tw) {
    using L = lazy<typename F::params>;
    if constexpr (LOG_N == 0) {
        x[LO] = in(rev_const<LOG_Q>(LO));
    } else if constexpr (ZKNTT_S2W_UPPER_FIRST) {
        constexpr uint32_t j = LOG_N - 1, H = 1u << j;
        dit_local<F, LOG_Q, LO + H, LOG_N - 1>(x, in, tw);
        F t[H];
#pragma unroll
        for (uint32_t i = 0; i < H; i++)
            t[i] = j == 0 || (ZKNTT_S2W_SKIP_ONE && i == 0)
                       ? x[LO + H + i]
                       : L::mul(x[LO + H + i], load_global<F>((uint64_t)tw, i << (LOG_Q - 1 - j)));
        dit_local<F, LOG_Q, LO, LOG_N - 1>(x, in, tw);
#pragma unroll
        for (uint32_t i = 0; i < H; i++) {
            const F x0 = x[LO + i];
            x[LO + i] = L::add(x0, t[i]);
            x[LO + H + i] = L::sub(x0, t[i]);
        }
    } else {
        dit_local<F, LOG_Q, LO, LOG_N - 1>(x, in, tw);
        dit_local<F, LOG_Q, LO + (1u << (LOG_N - 1)), LOG_N - 1>(x, in, tw);
        // Layer j = LOG_N - 1 between registers r = LO + i and r1 = r + 2^j: pos = slot r mod 2^j = i,
        // twiddle w_Q^(i * Q / 2^(j+1)), 1 in layer 0 (as stage2_warp).
        constexpr uint32_t j = LOG_N - 1, H = 1u << j;
#pragma unroll
        for (uint32_t i = 0; i < H; i++) {
            const uint32_t r = LO + i, r1 = r + H;
            const F t = j == 0 || (ZKNTT_S2W_SKIP_ONE && i == 0)
                            ? x[r1]
                            : L::mul(x[r1], load_global<F>((uint64_t)tw, i << (LOG_Q - 1 - j)));
            const F x0 = x[r];
            x[r] = L::add(x0, t);
            x[r1] = L::sub(x0, t);
        }
    }
}

// PAIRS tile pairs per warp, each 2*T*T groups of Q = 2^LOG_Q elements, 2^LOG_EL of them per lane,
// 2^LOG_L lanes per group. Lane bits, low to high: lane in group, bb, aa, sel (tile (I, J) or
// (J, I)). The pairs' loads are all in flight together and share the layers' twiddle reads.
template <class F, uint32_t LOG_Q, uint32_t LOG_EL, uint32_t PAIRS>
__device__ __forceinline__ void stage2_warp(const NttStageParams& p) {
    using L = lazy<typename F::params>;  // lazy range inside, canonical in global memory
    constexpr uint32_t EL = 1u << LOG_EL, LOG_L = LOG_Q - LOG_EL, LOG_T = (4 - LOG_L) / 2;
    constexpr uint32_t T = 1u << LOG_T;
    static_assert(LOG_L + 2 * LOG_T + 1 == 5, "a tile pair fills the warp");
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t li = lane & ((1u << LOG_L) - 1);
    const uint32_t bb = (lane >> LOG_L) & (T - 1), aa = (lane >> (LOG_L + LOG_T)) & (T - 1);
    const uint32_t sel = lane >> (LOG_L + 2 * LOG_T);
    const uint32_t log_p = p.log_p, P = 1u << log_p;
    const uint64_t R = (uint64_t)P << LOG_Q;
    const uint64_t nt = P >> LOG_T, total = nt * (nt + 1) / 2;
    const uint64_t first = ((uint64_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)) * PAIRS;
    if (first >= total) return;  // the whole warp: past the last tile pair
    // Tile pair `id` of the triangle ti <= tj (zkntt_core::plan::tile_pair). A pair past the end
    // (the grid's last warp) repeats the first and stores nothing.
    uint64_t ti[PAIRS], tj[PAIRS];
    bool on[PAIRS];
#pragma unroll
    for (uint32_t q = 0; q < PAIRS; q++) {
        on[q] = first + q < total;
        const uint64_t id = on[q] ? first + q : first;
        uint64_t j = (uint64_t)((sqrtf(8.0f * (float)id + 1.0f) - 1.0f) * 0.5f);
        while ((j + 1) * (j + 2) / 2 <= id) j++;
        while (j * (j + 1) / 2 > id) j--;
        tj[q] = j;
        ti[q] = id - j * (j + 1) / 2;
    }
    wait_for_previous_grid();
    const uint64_t base = p.data + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
    uint64_t a[PAIRS], b[PAIRS];
#pragma unroll
    for (uint32_t q = 0; q < PAIRS; q++) {
        a[q] = (sel ? tj[q] : ti[q]) * T + aa;
        b[q] = (sel ? ti[q] : tj[q]) * T + bb;
    }

#if ZKNTT_S2W_SEQUENCED
    if constexpr (LOG_L == 0 && PAIRS == 1) {
        // The lane's group: reads (a, m, b) for entry m, writes (b, k, a) for entry k, as below.
        const F* tw = reinterpret_cast<const F*>(p.sub_twiddles);
        // a, b < P <= 2^32 (one word each); whether the lane stores, known before its reads.
        const uint32_t a0 = (uint32_t)a[0], b0 = (uint32_t)b[0];
        const bool stores = on[0] && !(sel && ti[0] == tj[0]);
        const auto in = [&](uint32_t m) {
            return load_global<F>(base, ((uint64_t)a0 * R + (uint64_t)m * P + b0) * p.elem_stride);
        };
        F x[EL];
        constexpr uint32_t STASH = LOG_Q >= 3 ? ZKNTT_S2W_STASH : 0;
        static_assert(STASH <= 4, "the last two pairs at most");
        // Register of stash slot e.
        const auto stashed = [](uint32_t e) { return (e & 1 ? EL : EL / 2) - 1 - e / 2; };
#if ZKNTT_S2W_STASH
        // [element][16-byte part][thread]: a warp's 16-byte accesses on consecutive banks.
        ZKNTT_STATIC_SHARED(uint4, stash, [ZKNTT_S2W_STASH][F::N / 4][128]);
        const uint32_t me = threadIdx.x;
        const auto put = [&](uint32_t e, const F& v) {
#pragma unroll
            for (int h = 0; h < F::N / 4; h++)
                stash[e][h][me] = make_uint4(v.l[4 * h], v.l[4 * h + 1], v.l[4 * h + 2], v.l[4 * h + 3]);
        };
        const auto get = [&](uint32_t e) {
            F v;
#pragma unroll
            for (int h = 0; h < F::N / 4; h++) {
                const uint4 q = stash[e][h][me];
                v.l[4 * h] = q.x, v.l[4 * h + 1] = q.y, v.l[4 * h + 2] = q.z, v.l[4 * h + 3] = q.w;
            }
            return v;
        };
#endif
        // Both halves of the last layer (every read), then the warp's reads are done.
        dit_local<F, LOG_Q, 0, LOG_Q - 1>(x, in, tw);
#if ZKNTT_S2W_STASH
        if constexpr (STASH > 0) {
#pragma unroll
            for (uint32_t e = 0; e < STASH; e += 2) put(e, x[stashed(e)]);
        }
#endif
        dit_local<F, LOG_Q, EL / 2, LOG_Q - 1>(x, in, tw);
#if ZKNTT_S2W_STASH
        if constexpr (STASH > 1) {
#pragma unroll
            for (uint32_t e = 1; e < STASH; e += 2) put(e, x[stashed(e)]);
        }
#endif
        allow_dependent_launch();
        __syncwarp();
        if (!stores) return;
        // The last layer j = LOG_Q - 1, each pair (i, i + EL/2) stored as soon as it is known: entry
        // k to (b, k, a) times w_N^(P*b*k).
        using L = lazy<typename F::params>;
#pragma unroll
        for (uint32_t i = 0; i < EL / 2; i++) {
            const uint32_t r1 = i + EL / 2;
#if ZKNTT_S2W_STASH
            if constexpr (STASH > 0) {
#pragma unroll
                for (uint32_t e = 0; e < STASH; e++)
                    if (stashed(e) % (EL / 2) == i) x[stashed(e)] = get(e);
            }
#endif
            const F t = LOG_Q == 1 || (ZKNTT_S2W_SKIP_ONE && i == 0)
                            ? x[r1]
                            : L::mul(x[r1], load_global<F>((uint64_t)tw, i));
            const F x0 = x[i];
            x[i] = L::add(x0, t);
            x[r1] = L::sub(x0, t);
#pragma unroll
            for (uint32_t k = i; k < EL; k += EL / 2) {
                const F y = L::canonical(L::mul(x[k], load_global<F>(p.mid_twiddles, (uint64_t)b0 * k)));
                store_global<F>(base, ((uint64_t)b0 * R + (uint64_t)k * P + a0) * p.elem_stride, y);
            }
        }
    } else
#endif
    {
        // Register r of lane-in-group li holds slot s = r + EL*li of the group's bit-reversed input:
        // entry m = rev(s). For one r, lanes of consecutive bb read consecutive addresses.
        F x[PAIRS][EL];
        uint32_t s[EL];
#pragma unroll
        for (uint32_t r = 0; r < EL; r++) {
            s[r] = r | (li << LOG_EL);
            const uint64_t m = bit_reverse(s[r], LOG_Q);
#pragma unroll
            for (uint32_t q = 0; q < PAIRS; q++)
                x[q][r] = load_global<F>(base, (a[q] * R + m * P + b[q]) * p.elem_stride);
        }
        allow_dependent_launch();

        // DIT layers j = 0..LOG_Q-1 on slot bit j, each between two registers of a lane. Slot bits in
        // blocks of LOG_EL: before block c > 0, its bits (in lane bits) swap with register bits.
        const F* tw = reinterpret_cast<const F*>(p.sub_twiddles);
#pragma unroll
        for (uint32_t j = 0; j < LOG_Q; j++) {
            const uint32_t block = j / LOG_EL, rb = j % LOG_EL;
            if (block > 0 && rb == 0) {
#pragma unroll
                for (uint32_t i = 0; i < LOG_EL && j + i < LOG_Q; i++) {
                    const uint32_t lbit = (block - 1) * LOG_EL + i;
                    const bool up = (li >> lbit) & 1;
#pragma unroll
                    for (uint32_t q = 0; q < PAIRS; q++) swap_register_lane_bit<EL, F, F::N>(x[q], i, lbit, up);
#if ZKNTT_S2W_SLOTS_COMPUTED
#pragma unroll
                    for (uint32_t r = 0; r < EL; r++) {
                        if (r >> i & 1) continue;
                        const uint32_t r1 = r | (1u << i), flip = 1u << (LOG_EL + lbit);
                        if (up) s[r] = s[r1] ^ flip;
                        else s[r1] = s[r] ^ flip;
                    }
#else
                    swap_register_lane_bit<EL, uint32_t, 1>(s, i, lbit, up);
#endif
                }
            }
            // The layer's butterflies between registers r and r1 = r + 2^rb, twiddle w_Q^(pos*Q/2^(j+1))
            // with pos = s mod 2^j (1 in layer 0), two twiddles at a time: both reads in flight before
            // the products (all EL/2 at once spills at EL = 8).
#pragma unroll
            for (uint32_t u = 0; u < EL / 2; u += ZKNTT_S2W_BATCH) {
                uint32_t rr[ZKNTT_S2W_BATCH];
                F w[ZKNTT_S2W_BATCH];
#pragma unroll
                for (uint32_t v = 0; v < ZKNTT_S2W_BATCH && u + v < EL / 2; v++) {
                    // The (u+v)-th register with bit rb clear.
                    const uint32_t k = u + v;
                    rr[v] = ((k >> rb) << (rb + 1)) | (k & ((1u << rb) - 1));
                    if (j > 0 && !(ZKNTT_S2W_SKIP_ONE && block == 0 && (rr[v] & ((1u << j) - 1)) == 0))
                        w[v] = load_global<F>((uint64_t)tw, (s[rr[v]] & ((1u << j) - 1)) << (LOG_Q - 1 - j));
                }
#pragma unroll
                for (uint32_t v = 0; v < ZKNTT_S2W_BATCH && u + v < EL / 2; v++) {
                    const uint32_t r = rr[v], r1 = r | (1u << rb);
                    // pos known 0 (a block-0 layer, register r's slot bits below j are r's): w = 1.
                    const bool one = j == 0 || (ZKNTT_S2W_SKIP_ONE && block == 0 && (r & ((1u << j) - 1)) == 0);
#pragma unroll
                    for (uint32_t q = 0; q < PAIRS; q++) {
                        const F t = one ? x[q][r1] : L::mul(x[q][r1], w[v]);
                        const F x0 = x[q][r];
                        x[q][r] = L::add(x0, t);
                        x[q][r1] = L::sub(x0, t);
                    }
                }
            }
        }
        // Every lane's reads are done before any lane writes (the writes land on other lanes' reads).
        __syncwarp();

        // Register r now holds entry k = s[r] of its group: to (b, k, a), times w_N^(P*b*k) =
        // w_(N/P)^(b*k), one table read. For one r, lanes of consecutive aa write consecutive
        // addresses. A diagonal tile's lanes of sel 1 hold sel 0's groups again: they store nothing.
#pragma unroll
        for (uint32_t q = 0; q < PAIRS; q++) {
            if (!on[q] || (sel && ti[q] == tj[q])) continue;
            // Two elements at a time, their twiddle reads in flight together (ZKNTT_S2W_BATCH 1: one).
#if ZKNTT_S2W_BATCH == 1
#pragma unroll
            for (uint32_t r = 0; r < EL; r++) {
                const F y = L::canonical(L::mul(x[q][r], load_global<F>(p.mid_twiddles, b[q] * s[r])));
                store_global<F>(base, (b[q] * R + (uint64_t)s[r] * P + a[q]) * p.elem_stride, y);
            }
#else
#pragma unroll
            for (uint32_t r = 0; r < EL; r += 2) {
                const F w0 = load_global<F>(p.mid_twiddles, b[q] * s[r]);
                const F w1 = load_global<F>(p.mid_twiddles, b[q] * s[r + 1]);
                const F y0 = L::canonical(L::mul(x[q][r], w0)), y1 = L::canonical(L::mul(x[q][r + 1], w1));
                store_global<F>(base, (b[q] * R + (uint64_t)s[r] * P + a[q]) * p.elem_stride, y0);
                store_global<F>(base, (b[q] * R + (uint64_t)s[r + 1] * P + a[q]) * p.elem_stride, y1);
            }
#endif
        }
    }
}

// The shape per Q (zkntt_core::plan::WarpShape::for_q): LOG_EL = 1, 2, 3, 2, 3, 2 and tile pairs
// per warp 2, 1, 1, 1, 1, 1 for log Q = 1..6. 8 elements per lane make tiles of 4 x 4 groups at
// Q = 8 (wider global requests); at 80 registers only the sequenced Q <= 8 shapes run without
// spills (log Q = 5 spills ~0.5 KiB a thread, 4 and 6 a few words: benches/ptxas/README.md); two
// pairs of 2 elements keep 4 loads per lane in flight.
template <class F>
__device__ __forceinline__ void stage2_warp_dispatch(const NttStageParams& p) {
    switch (p.log_q) {
        case 1: stage2_warp<F, 1, 1, 2>(p); break;
        case 2: stage2_warp<F, 2, 2, 1>(p); break;
        case 3: stage2_warp<F, 3, 3, 1>(p); break;
        case 4: stage2_warp<F, 4, 2, 1>(p); break;
        case 5: stage2_warp<F, 5, 3, 1>(p); break;
        case 6: stage2_warp<F, 6, 2, 1>(p); break;
        default: __trap();  // the plan never launches it beyond STAGE2_WARP_MAX_LOG_Q
    }
}

}  // namespace ntt
}  // namespace zkntt

// Launch: grid (ceil(pairs / (4 * pairs per warp)), batch) with pairs = (P/T)(P/T + 1)/2, 128 threads
// (plan::THREADS; a stash's slots, where one is asked for, are sized for 128), no shared memory
// (a stash is static: 12 KiB a block). In/out: in place, group (a,*,b) -> (b,*,a).
// ZKNTT_STAGE2_WARP_MIN_BLOCKS blocks of 128 an SM, 5 by default: at most 96 registers (65536 / 640
// = 102, allocated by 8), 20 warps an SM instead of 16 (4: 128 registers); 6 (80 registers, 24
// warps) spills the launched shape without the stash.
#ifndef ZKNTT_STAGE2_WARP_MIN_BLOCKS
#define ZKNTT_STAGE2_WARP_MIN_BLOCKS 5
#endif
#define ZKNTT_STAGE2_WARP(FIELD)                                                               \
    extern "C" __global__ void __launch_bounds__(128, ZKNTT_STAGE2_WARP_MIN_BLOCKS) ntt_stage2_warp_##FIELD( \
        const zkntt::ntt::NttStageParams p) {                                                      \
        zkntt::ntt::stage2_warp_dispatch<zkntt::FIELD>(p);                                         \
    }

// A study TU (benches/ptxas/) defines ZKNTT_NO_KERNEL_SYMBOLS and instantiates its own kernels.
#ifndef ZKNTT_NO_KERNEL_SYMBOLS
ZKNTT_STAGE2_WARP(bn254_fr)
ZKNTT_STAGE2_WARP(bls12_381_fr)
#endif
