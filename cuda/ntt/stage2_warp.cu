// The seed's stage2: the middle stage of the plan (Q-point NTTs on the groups (a, *, b), times
// w_N^(P*b*k), written to group (b, *, a)) with one warp per tile pair and every element in
// registers: no shared memory, no __syncthreads. Same input, output and twiddles as middle.cu.
// CPU twin, lane by lane: zkntt_core::self_sort::stage2_warp; shapes: zkntt_core::plan::WarpShape.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"
#include "ntt/warp_exchange.cuh"

namespace zkntt {
namespace ntt {

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
                swap_register_lane_bit<EL, uint32_t, 1>(s, i, lbit, up);
            }
        }
        // The layer's butterflies between registers r and r1 = r + 2^rb, twiddle w_Q^(pos*Q/2^(j+1))
        // with pos = s mod 2^j (1 in layer 0), two twiddles at a time: both reads in flight before
        // the products (all EL/2 at once spills at EL = 8).
#pragma unroll
        for (uint32_t u = 0; u < EL / 2; u += 2) {
            uint32_t rr[2];
            F w[2];
#pragma unroll
            for (uint32_t v = 0; v < 2 && u + v < EL / 2; v++) {
                // The (u+v)-th register with bit rb clear.
                const uint32_t k = u + v;
                rr[v] = ((k >> rb) << (rb + 1)) | (k & ((1u << rb) - 1));
                if (j > 0)
                    w[v] = load_global<F>((uint64_t)tw, (s[rr[v]] & ((1u << j) - 1)) << (LOG_Q - 1 - j));
            }
#pragma unroll
            for (uint32_t v = 0; v < 2 && u + v < EL / 2; v++) {
                const uint32_t r = rr[v], r1 = r | (1u << rb);
#pragma unroll
                for (uint32_t q = 0; q < PAIRS; q++) {
                    const F t = j == 0 ? x[q][r1] : L::mul(x[q][r1], w[v]);
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
        // Two elements at a time, their twiddle reads in flight together.
#pragma unroll
        for (uint32_t r = 0; r < EL; r += 2) {
            const F w0 = load_global<F>(p.mid_twiddles, b[q] * s[r]);
            const F w1 = load_global<F>(p.mid_twiddles, b[q] * s[r + 1]);
            const F y0 = L::canonical(L::mul(x[q][r], w0)), y1 = L::canonical(L::mul(x[q][r + 1], w1));
            store_global<F>(base, (b[q] * R + (uint64_t)s[r] * P + a[q]) * p.elem_stride, y0);
            store_global<F>(base, (b[q] * R + (uint64_t)s[r + 1] * P + a[q]) * p.elem_stride, y1);
        }
    }
}

// The shape per Q (zkntt_core::plan::WarpShape::for_q): LOG_EL = 1, 2, 3, 2, 3, 2 and tile pairs
// per warp 2, 1, 1, 1, 1, 1 for log Q = 1..6. 8 elements per lane make tiles of 4 x 4 groups at
// Q = 8 (wider global requests) at the price of some spills at 128 registers; two pairs of 2
// elements keep 4 loads per lane in flight.
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

// Launch: grid (ceil(pairs / (4 * pairs per warp)), batch) with pairs = (P/T)(P/T + 1)/2, 128 threads, no shared
// memory. In/out: in place, group (a,*,b) -> (b,*,a).
#define ZKNTT_STAGE2_WARP(FIELD)                                                               \
    extern "C" __global__ void __launch_bounds__(128, 4) ntt_stage2_warp_##FIELD(                 \
        const zkntt::ntt::NttStageParams p) {                                                      \
        zkntt::ntt::stage2_warp_dispatch<zkntt::FIELD>(p);                                         \
    }

ZKNTT_STAGE2_WARP(bn254_fr)
ZKNTT_STAGE2_WARP(bls12_381_fr)
