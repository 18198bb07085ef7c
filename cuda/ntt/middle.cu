// The middle stage of the plan: Q-point NTTs on the groups (a, *, b) = {a*R + m*P + b : m},
// times w_N^(P*b*k), written to group (b, *, a). A block owns a pair of T x T tiles of groups,
// (a in I, b in J) and (a in J, b in I), so every write lands on data the block itself read:
// in place, and the transposition needs no second buffer.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"

namespace zkntt {
namespace ntt {

// Elements per thread whose global accesses are issued together in the load and store loops.
constexpr uint32_t BATCH = 4;

// The block's pair of T x T tiles of groups: selector 0 holds (a, b) with a in tile ti and b in
// tile tj, selector 1 the mirror. Every index below is < N <= 2^32 (zkntt_core::plan::MAX_LOG_P,
// MAX_LOG_Q) and its fields (a << log_r, m << log_p, b on the way in; b << log_r, k << log_p, a on
// the way out) are disjoint bits: 32-bit shifts and ORs, no 64-bit products; the exponent b*k
// < P*Q is a 32-bit product.
struct TilePair {
    uint32_t log_t, log_q, log_p, log_r;
    uint32_t ti_t, tj_t;  // ti * T, tj * T
    __device__ __forceinline__ uint32_t a_of(uint32_t sel, uint32_t aa) const { return (sel ? tj_t : ti_t) | aa; }
    __device__ __forceinline__ uint32_t b_of(uint32_t sel, uint32_t bb) const { return (sel ? ti_t : tj_t) | bb; }
};
__device__ __forceinline__ TilePair tile_pair(const NttStageParams& p, uint32_t ti, uint32_t tj) {
    return {p.log_cols, p.log_q, p.log_p, p.log_p + p.log_q, ti << p.log_cols, tj << p.log_cols};
}

// Input element e of the block (consecutive threads take consecutive b): group (a, b) entry m,
// read from a*R + m*P + b into slot g*Q + rev(m), g = sel*T*T + aa*T + bb.
struct GroupIn {
    uint32_t slot;
    uint32_t index;
};
__device__ __forceinline__ GroupIn group_in(const TilePair& t, uint32_t e) {
    const uint32_t T = 1u << t.log_t;
    const uint32_t bb = e & (T - 1), aa = (e >> t.log_t) & (T - 1);
    const uint32_t m = (e >> (2 * t.log_t)) & ((1u << t.log_q) - 1), sel = e >> (2 * t.log_t + t.log_q);
    const uint32_t g = (e & (T * T - 1)) | (sel << (2 * t.log_t));
    return {(g << t.log_q) | bit_reverse(m, t.log_q), (t.a_of(sel, aa) << t.log_r) | (m << t.log_p) | t.b_of(sel, bb)};
}

// Output element e of the block: group (a, b) entry k, stored to (b, k, a) (consecutive threads
// take consecutive a) times w_N^(P*b*k) = w_(N/P)^(b*k), b*k < P*Q = N/P: one table read.
struct GroupOut {
    uint32_t slot;      // in shared memory
    uint32_t index;     // in the transform
    uint32_t exponent;  // of mid_twiddles
};
__device__ __forceinline__ GroupOut group_out(const TilePair& t, uint32_t e) {
    const uint32_t T = 1u << t.log_t;
    const uint32_t aa = e & (T - 1), bb = (e >> t.log_t) & (T - 1);
    const uint32_t k = (e >> (2 * t.log_t)) & ((1u << t.log_q) - 1), sel = e >> (2 * t.log_t + t.log_q);
    const uint32_t a = t.a_of(sel, aa), b = t.b_of(sel, bb);
    const uint32_t g = (sel << (2 * t.log_t)) | (aa << t.log_t) | bb;
    return {(g << t.log_q) | k, (b << t.log_r) | (k << t.log_p) | a, b * k};
}

// Stores the block's groups. B elements per thread per round: BATCH in wide blocks; narrow blocks
// have one round of 2 per thread whose twiddles `pre` (nullptr otherwise) were read before the
// butterflies.
template <class F, uint32_t B, class SM>
__device__ __forceinline__ void store_groups(const NttStageParams& p, const SM& sm, const TilePair& t,
                                             uint32_t E, const F* pre) {
    using L = lazy<typename F::params>;
    const uint64_t base = p.data + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
    for (uint32_t e0 = threadIdx.x; e0 < E; e0 += B * blockDim.x) {
        F x[B], w[B];
        uint32_t idx[B];
#pragma unroll
        for (uint32_t u = 0; u < B; u++) {
            const GroupOut o = group_out(t, min(e0 + u * blockDim.x, E - 1));
            x[u] = sm.get(o.slot);
            w[u] = pre ? pre[u] : load_global<F>(p.mid_twiddles, o.exponent);
            idx[u] = o.index;
        }
#pragma unroll
        for (uint32_t u = 0; u < B; u++) {
            x[u] = L::canonical(L::mul(x[u], w[u]));
            if (e0 + u * blockDim.x < E) store_global<F>(base, (uint64_t)idx[u] * p.elem_stride, x[u]);
        }
    }
}

// The elements in SmemQuads. NARROW_BLOCK (flag NARROW): a radix-2 butterfly per thread, the
// sub-NTT twiddles staged after the elements by layer (LayerTwiddles), the output twiddles read
// before the butterflies.
template <class F, bool NARROW_BLOCK>
__device__ __forceinline__ void middle_stage(const NttStageParams& p) {
    ZKNTT_DYNAMIC_SHARED(uint32_t, smem_words);
    const uint32_t log_q = p.log_q, log_t = p.log_cols;
    const uint32_t Q = 1u << log_q, T = 1u << log_t;
    const uint32_t tiles = 1u << (p.log_p - log_t);
    const uint32_t ti = blockIdx.x / tiles, tj = blockIdx.x % tiles;
    if (ti > tj) return;  // the pair (tj, ti) is done by block (ti, tj)
    const TilePair tp = tile_pair(p, ti, tj);
    wait_for_previous_grid();
    const uint32_t pairs = ti == tj ? 1 : 2;
    const uint32_t TT = T * T;
    const uint32_t E = pairs * TT * Q;
    const uint64_t base = p.data + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
    // The layout of a full tile pair (2 T^2 Q slots) whether or not this block is diagonal.
    const SmemQuads<F> sm{reinterpret_cast<uint4*>(smem_words), SmemQuads<F>::plane(2 * TT * Q)};
    // Narrow blocks' sub-NTT twiddles, after the elements.
    const SmemQuads<F> layer_tw{sm.base + SmemQuads<F>::QUADS * sm.stride, SmemQuads<F>::plane(Q)};
    // Narrow blocks: this thread's two output twiddles, read now (off the chain of products).
    F w_out[2];
    LayerTwiddles<F> staged_twiddles;
    if (NARROW_BLOCK) {
        // A thread's share of the layer twiddles (Q/2 <= threads), read with its data and staged
        // after the elements.
        staged_twiddles.load(p.sub_twiddles, log_q);
#pragma unroll
        for (uint32_t u = 0; u < 2; u++)
            w_out[u] = load_global<F>(p.mid_twiddles,
                                      group_out(tp, min(threadIdx.x + u * blockDim.x, E - 1)).exponent);
    }

    // Load (group_in): consecutive threads take consecutive b. BATCH elements per thread per round
    // with their global reads in flight together; past the end a thread re-reads element E-1 and
    // skips the store (as in the column stage).
    for (uint32_t e0 = threadIdx.x; e0 < E; e0 += BATCH * blockDim.x) {
        F x[BATCH];
        uint32_t slot[BATCH];
#pragma unroll
        for (uint32_t u = 0; u < BATCH; u++) {
            const GroupIn g = group_in(tp, min(e0 + u * blockDim.x, E - 1));
            x[u] = load_global<F>(base, (uint64_t)g.index * p.elem_stride);
            slot[u] = g.slot;
        }
#pragma unroll
        for (uint32_t u = 0; u < BATCH; u++)
            if (e0 + u * blockDim.x < E) sm.set(slot[u], x[u]);
    }
    if constexpr (NARROW_BLOCK) {
        staged_twiddles.stage(layer_tw, log_q);
        __syncthreads();
        dit_narrow<F>(sm, log_q, pairs * TT, layer_tw);
    } else {
        __syncthreads();
        dit_in_shared<F>(sm, log_q, pairs * TT, reinterpret_cast<const F*>(p.sub_twiddles));
    }
    allow_dependent_launch();

    if (NARROW_BLOCK) store_groups<F, 2>(p, sm, tp, E, w_out);
    else store_groups<F, BATCH>(p, sm, tp, E, nullptr);
}

// Every middle block on a runtime stride: a constant-stride copy for the wide 2^9 tile pairs
// stalled on instruction fetch and measured slower (benches/NOTES.md, issue 17).
template <class F>
__device__ __forceinline__ void middle_entry(const NttStageParams& p) {
    if (p.flags & NARROW) middle_stage<F, true>(p);
    else middle_stage<F, false>(p);
}

}  // namespace ntt
}  // namespace zkntt

// Launch: grid ((P/T)^2, batch), 128 threads or, with NARROW, T*T*Q (a radix-2 butterfly per
// thread); dynamic shared memory 32 * plane(2*T*T*Q) bytes (the host gives
// 32 * padded_slots(2*T*T*Q)), or with NARROW 32 * (plane(2*T*T*Q) + plane(Q)) (SmemQuads: the
// elements, the layer twiddles); blocks below the diagonal exit at once. In/out: in place, group
// (a,*,b) -> (b,*,a).
#define ZKNTT_MIDDLE(FIELD)                                                                  \
    extern "C" __global__ void __launch_bounds__(128, 4) ntt_middle_##FIELD(                    \
        const zkntt::ntt::NttStageParams p) {                                                      \
        zkntt::ntt::middle_entry<zkntt::FIELD>(p);                                                 \
    }

ZKNTT_MIDDLE(bn254_fr)
ZKNTT_MIDDLE(bls12_381_fr)
