// The column stage (the first and last launches of the plan, and whole transforms up to 2^8):
// P-point NTTs down the columns of the P x R matrix (R = N/P), in shared memory, in place.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"

namespace zkntt {
namespace ntt {

// Elements per thread whose global accesses are issued together: 4 in the load loops, 2 in the
// store loops with their twiddle reads (4 there spills at 128 registers).
constexpr uint32_t LOAD_BATCH = 4;
constexpr uint32_t STORE_BATCH = 2;

// The smallest transform whose narrow launches fold their stage twiddle into the layers (measured
// on an H200: 1-3.5% faster at 2^16/2^17, level or slower at 2^12..2^15; benches/NOTES.md).
constexpr uint32_t FOLD_MIN_LOG = 16;

// x[u] *= the stage twiddle of exponent e[u]: from mid_twiddles (MID_TWIDDLES: w_M^e in one read),
// the full table of w_N (OMEGA_FULL: one read) or the split one (two reads and a product).
template <class F, uint32_t B, bool HYBRID>
__device__ __forceinline__ void mul_twiddles(F (&x)[B], const NttStageParams& p, const uint64_t (&e)[B]) {
    if (p.flags & MID_TWIDDLES) mul_table<F, B, HYBRID>(x, p.mid_twiddles, e);
    else if (p.flags & OMEGA_FULL) mul_table<F, B, HYBRID>(x, p.omega.lo, e);
    else mul_lookups<F, B, HYBRID>(x, p.omega, p.lo_bits, e);
}

// Row i of column c: (c >> log_r) * M + i * R + (c & (R-1)), R = 2^log_r; i * R + c where M = N.
template <bool ORDERED>
__device__ __forceinline__ uint64_t element_index(uint64_t c, uint32_t i, uint32_t log_r, uint32_t log_m) {
    if (!ORDERED) return ((uint64_t)i << log_r) + c;
    return ((c >> log_r) << log_m) + ((uint64_t)i << log_r) + (c & ((1ull << log_r) - 1));
}

// A column launch's block: columns of S = 2^log_s entries inside sub-transforms of M = 2^log_m
// contiguous elements: column c, row i is (c >> log_r) * M + i * R + (c & (R-1)), R = M / S (the
// whole transform, M = N, in natural order; rows or segments in the bit-reversed orderings'
// launches). The block holds E = S * cols elements from column c0 on.
struct ColumnBlock {
    uint32_t log_m, log_s, log_cols, log_r, S, cols, E, tw_shift;
    uint64_t R, c0, base;
    bool rows_fast, in_rev, out_rev;
};

// Block element e is column t (of the block), row i: consecutive threads take consecutive
// columns, or consecutive rows where those are contiguous (R = 1).
struct ColumnElement {
    uint32_t t, i;
};
__device__ __forceinline__ ColumnElement column_element(const ColumnBlock& b, uint32_t e) {
    return {b.rows_fast ? e >> b.log_s : e & (b.cols - 1), b.rows_fast ? e & (b.S - 1) : e >> b.log_cols};
}

// Block element e of a load round: as on the way out, except that TRANSPOSE (SCRATCH_IN: row i
// of column c at c*S + i, each column's entries contiguous) takes consecutive rows of a column.
template <bool TRANSPOSE>
__device__ __forceinline__ ColumnElement load_element(const ColumnBlock& b, uint32_t e) {
    if (TRANSPOSE) return {e >> b.log_s, e & (b.S - 1)};
    return column_element(b, e);
}

// What a narrow column launch may ask for, as a compile-time choice, so that the code a launch runs
// is one contiguous path: a lone warp per multiprocessor (2^12: 64 blocks of 32 threads) fetches
// every instruction once, and a jump over the untaken coset and scale products' code (tens of KB)
// costs a cold instruction fetch, ~0.4 us each (ncu source counters, benches/NOTES.md, issue 17).
// ANY: every flag and block shape. PLAIN: no stage twiddles, no scale (PRE_SCALE, POST_SCALE,
// POST_CONST). TABLE: stage twiddles from one table (OMEGA_FULL or MID_TWIDDLES), no scale. PLAIN
// and TABLE blocks are full: two elements a thread, one butterfly each (the narrow geometry's
// blocks; not a block with more threads than pairs: the one-block transforms below 2^6, or a
// one-block NR/RN of 2^6/2^7 on the wide geometry's 128 threads), so their loads and layers need
// no test either. Cold (caches flushed, as ncu runs a kernel) the copy laid out last pays for the
// distance from the entry: Any, the cosets' (benches/NOTES.md).
enum class Asks { Any, Plain, Table };

// The Asks a launch fits (the narrow symbols' dispatch); `full`: E == 2 * blockDim.x.
__device__ __forceinline__ Asks asks_of(uint32_t flags, bool full) {
    if (!full || (flags & (PRE_SCALE | POST_SCALE | POST_CONST | LDE))) return Asks::Any;
    if (!(flags & (TWIDDLE_IN | TWIDDLE_OUT))) return Asks::Plain;
    return (flags & (OMEGA_FULL | MID_TWIDDLES)) ? Asks::Table : Asks::Any;
}

// The stage twiddles' single table (Asks::Table).
__device__ __forceinline__ uint64_t single_table(const NttStageParams& p) {
    return (p.flags & MID_TWIDDLES) ? p.mid_twiddles : p.omega.lo;
}

// Load row i of column t into slot t*S + rev(entry) (t*S + entry with dif_slots): row i holds
// entry i, or rev(i) with IN_BITREV. B elements per thread per round, their global loads all in
// flight before the first shared-memory store (one memory latency per round, not per element): 4
// in wide blocks, 2 in narrow ones (E/2 threads: exactly their two, no products on clamped copies,
// except in blocks with more threads than pairs, such as the one-block transforms below 2^6). Past the end a
// thread re-reads element E-1 and skips the store, so nothing but the stores needs a branch.
// ONE_ROUND (narrow blocks: E <= B * blockDim.x): the round without its loop.
// fold_in: the stage twiddle is folded into the layers (LayerTwiddles::load_folded), so not applied
// here; dif_slots: entry j to slot j, for a DIF (dif_narrow) instead of a DIT.
template <class F, bool ORDERED, uint32_t B, bool HYBRID, bool TRANSPOSE = false, bool ONE_ROUND = false,
          Asks ASKS = Asks::Any, class SM>
__device__ __forceinline__ void load_columns(const NttStageParams& p, const ColumnBlock& k, const SM& sm,
                                             bool fold_in = false, bool dif_slots = false) {
    for (uint32_t e0 = threadIdx.x; e0 < k.E; e0 += B * blockDim.x) {
        F x[B];
        uint64_t idx[B];
        uint32_t slot[B];
#pragma unroll
        for (uint32_t u = 0; u < B; u++) {
            const ColumnElement o = load_element<TRANSPOSE>(k, min(e0 + u * blockDim.x, k.E - 1));
            idx[u] = TRANSPOSE ? ((k.c0 + o.t) << k.log_s) + o.i
                               : element_index<ORDERED>(k.c0 + o.t, o.i, k.log_r, k.log_m);
            x[u] = load_global<F>(k.base, idx[u] * p.elem_stride);
            slot[u] = (o.t << k.log_s) + ((k.in_rev || dif_slots) ? o.i : bit_reverse(o.i, k.log_s));
        }
        if (ASKS == Asks::Any && (p.flags & PRE_SCALE)) {
            // The exponent is the input's index: its position, reversed in a bit-reversed input.
            if (k.in_rev) {
#pragma unroll
                for (uint32_t u = 0; u < B; u++) idx[u] = bit_reverse64(idx[u], p.log_n);
            }
            mul_lookups<F, B, HYBRID>(x, p.pre, p.lo_bits, idx);
        }
        if (ORDERED && ASKS != Asks::Plain && k.in_rev && (p.flags & TWIDDLE_IN) && !fold_in) {
            // Row i of column c is entry j = rev(i): times w_M^(j * c). Reuses idx (registers).
#pragma unroll
            for (uint32_t u = 0; u < B; u++)
                idx[u] = ((uint64_t)bit_reverse(slot[u] & (k.S - 1), k.log_s) *
                          ((k.c0 + (slot[u] >> k.log_s)) & (k.R - 1)))
                         << k.tw_shift;
            if (ASKS == Asks::Table) mul_table<F, B>(x, single_table(p), idx);
            else mul_twiddles<F, B, HYBRID>(x, p, idx);
        }
        // Full blocks (Plain, Table) have no clamped copy, so their stores need no test (with one,
        // the compiler sinks the second read below the first store: two global latencies).
#pragma unroll
        for (uint32_t u = 0; u < B; u++)
            if (ASKS != Asks::Any || e0 + u * blockDim.x < k.E) sm.set(slot[u], x[u]);
        if (ONE_ROUND) break;
    }
}

// On the way out row i of column t takes entry k = i, or rev(i) with OUT_BITREV.
__device__ __forceinline__ uint32_t out_entry(const ColumnBlock& b, const ColumnElement& o) {
    return b.out_rev ? bit_reverse(o.i, b.log_s) : o.i;
}

// The stage-twiddle exponent of entry k of block column t on the way out (TWIDDLE_OUT):
// w_M^(c' k), c' = c mod R.
template <bool ORDERED>
__device__ __forceinline__ uint64_t out_exponent(const ColumnBlock& b, uint32_t t, uint32_t k) {
    return ORDERED ? (((b.c0 + t) & (b.R - 1)) * k) << b.tw_shift : (b.c0 + t) * k;
}

// The middle of a fused coset LDE launch (LDE): entry k of column t (natural order, after the
// inverse's layers) times post(e) = g^e / N (g^e where the inverse's 1/N rode on its mid table), in place, each thread its own slots, two in flight.
// Natural order: e is the index j the entry belongs at. ORDERED (an inverse NR's last launch
// fused with a coset RN's first): the inverse would store entry k at row rev(k), whose index j
// the coset forward reads as coefficient rev_N(j), so e = rev_N(j). Ends with a barrier.
template <class F, bool ORDERED, class SM>
__device__ __forceinline__ void lde_scale(const NttStageParams& p, const ColumnBlock& b, const SM& sm) {
    for (uint32_t e0 = threadIdx.x; e0 < b.E; e0 += 2 * blockDim.x) {
        F x[2];
        uint64_t j[2];
        uint32_t slot[2];
#pragma unroll
        for (uint32_t u = 0; u < 2; u++) {
            slot[u] = min(e0 + u * blockDim.x, b.E - 1);
            x[u] = sm.get(slot[u]);
            const uint32_t t = slot[u] >> b.log_s, k = slot[u] & (b.S - 1);
            j[u] = ORDERED ? bit_reverse64(element_index<true>(b.c0 + t, bit_reverse(k, b.log_s), b.log_r, b.log_m),
                                           p.log_n)
                           : element_index<false>(b.c0 + t, k, b.log_r, b.log_m);
        }
        mul_lookups<F, 2>(x, p.post, p.lo_bits, j);
#pragma unroll
        for (uint32_t u = 0; u < 2; u++)
            if (e0 + u * blockDim.x < b.E) sm.set(slot[u], x[u]);
    }
    __syncthreads();
}

// ORDERED: the general index map and the bit-reversal flags (the bit-reversed orderings'
// launches); without it the map of natural order (M = N) and no IN/OUT_BITREV or TWIDDLE_IN,
// which keeps the natural-order kernel's registers (the general map spills 16-40 bytes).
// The elements in SmemQuads. NARROW_BLOCK (flag NARROW): at most two elements per thread, one load
// and one store round; the sub-NTT twiddles staged after the elements by layer (LayerTwiddles),
// and the output's stage twiddles (one table read each) read before the butterflies, off the
// thread's chain, or from 2^FOLD_MIN_LOG folded into the layers' twiddles (fold_in, fold_out).
// IN_REV (ordered launches only): an RN launch (IN_BITREV, maybe TWIDDLE_IN), else an NR one
// (OUT_BITREV); one kernel symbol each, so neither's index arithmetic or registers are the other's.
// HYBRID (wide blocks only; the `_hybrid` symbols, flag FP64_HYBRID on the host): one product of
// each independent pair on the FP64 pipe (dit_in_shared, mul_lookups, mul_table).
// LDE (the `_lde` symbol, flag LDE; `_lde_ordered` with ORDERED: an inverse NR's last launch and a
// coset RN's first, on the same segments): a coset LDE's inverse last column launch and
// its forward first one on the same columns in one pass: the inverse sub-NTT (DIT, sub_twiddles),
// lde_scale (post: g^j / N, or g^j), the forward sub-NTT as a DIF (its twiddles at pre.lo: natural order in,
// so no reordering between the two; entry k is then read from slot rev(k)), TWIDDLE_OUT.
// TRANSPOSE (natural order, flag SCRATCH_IN: a two-pass transform's second launch): row i of
// column c read at c*S + i of p.data (the scratch), not at i*R + c.
// STRIDE (wide blocks of 2^WIDE_LOG elements): the shared-memory quad stride as a constant, so a
// slot's second quad is an immediate offset from its first; 0: plane(E) at run time.
// ASKS (narrow blocks, not LDE): the flags the launch may carry (Asks, `column_narrow`).
template <class F, bool ORDERED, bool NARROW_BLOCK, bool IN_REV = false, bool HYBRID = false, bool LDE = false,
          bool TRANSPOSE = false, uint32_t STRIDE = 0, Asks ASKS = Asks::Any>
__device__ __forceinline__ void column_stage(const NttStageParams& p) {
    static_assert(ASKS == Asks::Any || (NARROW_BLOCK && !LDE), "narrow blocks of a plain transform only");
    wait_for_previous_grid();
    // The next launch may start now (TRIGGER_START) or once this block's layers are done.
    const bool trigger_start = p.flags & TRIGGER_START;
    if (trigger_start) allow_dependent_launch();
    ZKNTT_DYNAMIC_SHARED(uint32_t, smem_words);
    using L = lazy<typename F::params>;  // lazy range inside, canonical in global memory
    ColumnBlock blk;
    blk.log_m = ORDERED ? p.log_m : p.log_n;
    blk.log_s = p.log_p;
    blk.log_cols = p.log_cols;
    blk.log_r = blk.log_m - blk.log_s;
    blk.S = 1u << blk.log_s;
    blk.cols = 1u << blk.log_cols;
    blk.E = blk.S << blk.log_cols;
    blk.R = 1ull << blk.log_r;
    // w_M^e = w_N^(e N/M), or mid_twiddles[e] where that table is w_M's (MID_TWIDDLES).
    blk.tw_shift = (ORDERED && (p.flags & MID_TWIDDLES)) ? 0 : p.log_n - blk.log_m;
    blk.c0 = p.col_base + ((uint64_t)blockIdx.x << blk.log_cols);
    blk.base = p.data + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
    blk.rows_fast = ORDERED && blk.log_r == 0;
    // An ordered LDE launch loads as its inverse NR half and stores as its coset RN half.
    blk.in_rev = ORDERED && IN_REV && !LDE;
    blk.out_rev = ORDERED && !IN_REV && !LDE;
    const uint32_t E = blk.E;
    const SmemQuads<F, STRIDE> sm{reinterpret_cast<uint4*>(smem_words), STRIDE != 0 ? STRIDE : SmemQuads<F>::plane(E)};
    // Narrow blocks' sub-NTT twiddles, after the elements.
    const SmemQuads<F> layer_tw{reinterpret_cast<uint4*>(smem_words) + SmemQuads<F>::QUADS * SmemQuads<F>::plane(E),
                                SmemQuads<F>::plane(blk.S)};
    const F* tw = reinterpret_cast<const F*>(p.sub_twiddles);
    // Narrow single-table blocks of one column: the stage twiddle folded into the layers' twiddles
    // (LayerTwiddles::load_folded), so no product for it: TWIDDLE_IN on an RN launch (DIT), or
    // TWIDDLE_OUT on a natural or NR one (DIF, natural in, entry k from slot rev(k)). Not where
    // the table carries the inverse's 1/N (MID_SCALED, OMEGA_SCALED): each element must take it once;
    // nor below 2^FOLD_MIN_LOG, where a thread's chain, not the product count, sets the time.
    const bool foldable = NARROW_BLOCK && ASKS == Asks::Table && !LDE && blk.log_cols == 0 &&
                          p.log_n >= FOLD_MIN_LOG && !(p.flags & (MID_SCALED | OMEGA_SCALED));
    const bool fold_in = foldable && ORDERED && IN_REV && (p.flags & (TWIDDLE_IN | TWIDDLE_OUT)) == TWIDDLE_IN;
    const bool fold_out = foldable && !IN_REV && !TRANSPOSE && (p.flags & (TWIDDLE_IN | TWIDDLE_OUT)) == TWIDDLE_OUT;
    // Narrow blocks: the output twiddles of this thread's two elements (single-table reads).
    const bool prefetch = NARROW_BLOCK && ASKS != Asks::Plain && !fold_out && (p.flags & TWIDDLE_OUT) &&
                          (ASKS == Asks::Table || (p.flags & (MID_TWIDDLES | OMEGA_FULL)));
    F w_out[STORE_BATCH];
    if (prefetch) {
        const uint64_t table = single_table(p);
#pragma unroll
        for (uint32_t u = 0; u < STORE_BATCH; u++) {
            const ColumnElement o = column_element(blk, min(threadIdx.x + u * blockDim.x, E - 1));
            w_out[u] = load_global<F>(table, out_exponent<ORDERED>(blk, o.t, out_entry(blk, o)));
        }
    }
    if constexpr (NARROW_BLOCK) {
        // A thread's share of the layer twiddles (S/2 <= threads) is read with its data, so both
        // reads are in flight together, then staged.
        LayerTwiddles<F> t;
        if (fold_in || fold_out) {
            const uint64_t c = ORDERED ? (blk.c0 & (blk.R - 1)) : blk.c0;
            t.load_folded(single_table(p), blk.log_s, c, blk.log_r, blk.tw_shift);
        } else {
            t.load(p.sub_twiddles, blk.log_s);
        }
        load_columns<F, ORDERED, 2, false, TRANSPOSE, true, ASKS>(p, blk, sm, fold_in, fold_out);
        t.stage(layer_tw, blk.log_s);
        __syncthreads();
        if (fold_out) dif_narrow<F>(sm, blk.log_s, blk.cols, layer_tw, true);
        else dit_narrow<F, ASKS != Asks::Any>(sm, blk.log_s, blk.cols, layer_tw, fold_in);
    } else {
        load_columns<F, ORDERED, LOAD_BATCH, HYBRID, TRANSPOSE>(p, blk, sm);
        __syncthreads();
        if (blk.log_s > 0) dit_in_shared<F, HYBRID>(sm, blk.log_s, blk.cols, tw);
    }
    if constexpr (LDE) {
        lde_scale<F, ORDERED>(p, blk, sm);
        if constexpr (NARROW_BLOCK) {
            // The inverse's layer twiddles are read (dit_narrow ended with a barrier): the
            // forward's take their place.
            LayerTwiddles<F> t;
            t.load(p.pre.lo, blk.log_s);
            t.stage(layer_tw, blk.log_s);
            __syncthreads();
            dif_narrow<F>(sm, blk.log_s, blk.cols, layer_tw);
        } else {
            dif_in_shared<F>(sm, blk.log_s, blk.cols, reinterpret_cast<const F*>(p.pre.lo));
        }
    }
    if (!trigger_start) allow_dependent_launch();

    F post_const;
    if (ASKS == Asks::Any && (p.flags & POST_CONST)) post_const = load_global<F>(p.post_const, 0);
    // Entry k of column t to row k, or to row rev(k) with OUT_BITREV: each thread takes a row and
    // the entry that goes there. STORE_BATCH elements per thread per round (their twiddle reads in
    // flight together); the same clamping as the loads.
    for (uint32_t e0 = threadIdx.x; e0 < E; e0 += STORE_BATCH * blockDim.x) {
        F x[STORE_BATCH];
        uint64_t idx[STORE_BATCH], ck[STORE_BATCH];
#pragma unroll
        for (uint32_t u = 0; u < STORE_BATCH; u++) {
            const ColumnElement o = column_element(blk, min(e0 + u * blockDim.x, E - 1));
            const uint32_t k = out_entry(blk, o);
            idx[u] = element_index<ORDERED>(blk.c0 + o.t, o.i, blk.log_r, blk.log_m);
            ck[u] = out_exponent<ORDERED>(blk, o.t, k);
            // After a DIF (the LDE's, or a folded TWIDDLE_OUT's), entry k is in slot rev(k).
            x[u] = sm.get((o.t << blk.log_s) + ((LDE || fold_out) ? bit_reverse(k, blk.log_s) : k));
        }
        if (prefetch) {
            // Narrow blocks have one store round: this thread's two elements, read above.
#pragma unroll
            for (uint32_t u = 0; u < STORE_BATCH; u++) x[u] = L::mul(x[u], w_out[u]);
        } else if (ASKS == Asks::Any && (p.flags & TWIDDLE_OUT)) {
            mul_twiddles<F, STORE_BATCH, HYBRID>(x, p, ck);
        }
        if (ASKS == Asks::Any && (p.flags & POST_SCALE)) {
            // The exponent is the output's index: its position, reversed in a bit-reversed output.
            if (blk.out_rev) {
#pragma unroll
                for (uint32_t u = 0; u < STORE_BATCH; u++) ck[u] = bit_reverse64(idx[u], p.log_n);  // ck is free
                mul_lookups<F, STORE_BATCH, HYBRID>(x, p.post, p.lo_bits, ck);
            } else {
                mul_lookups<F, STORE_BATCH, HYBRID>(x, p.post, p.lo_bits, idx);
            }
        }
#pragma unroll
        for (uint32_t u = 0; u < STORE_BATCH; u++) {
            if (ASKS == Asks::Any && (p.flags & POST_CONST)) x[u] = L::mul(x[u], post_const);
            x[u] = L::canonical(x[u]);
        }
        // Where the stores go: a natural-order launch's p.out (the data, in place, or a two-pass
        // transform's scratch; same layout), read from the parameters here so that no register
        // holds it through the butterflies; the ordered and LDE launches' in place.
        const uint64_t out =
            (ORDERED || LDE) ? blk.base : p.out + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
#pragma unroll
        for (uint32_t u = 0; u < STORE_BATCH; u++)
            if (e0 + u * blockDim.x < E) store_global<F>(out, idx[u] * p.elem_stride, x[u]);
        if (NARROW_BLOCK) break;  // E <= 2 * blockDim.x: one round
    }
}

// Wide blocks of 2^WIDE_LOG elements (plan::COLUMN_ELEMENTS_LOG: every column launch from 2^18
// on) have their stride as a constant; the others a runtime one.
constexpr uint32_t WIDE_LOG = 10;

// A wide column symbol's body: 2^WIDE_LOG blocks on a constant stride, or others on a runtime one.
template <class F, bool ORDERED, bool IN_REV = false, bool HYBRID = false, bool LDE = false, bool TRANSPOSE = false>
__device__ __forceinline__ void column_wide(const NttStageParams& p) {
    if (p.log_p + p.log_cols == WIDE_LOG) {
        constexpr uint32_t stride = SmemQuads<F>::plane(1u << WIDE_LOG);
        column_stage<F, ORDERED, false, IN_REV, HYBRID, LDE, TRANSPOSE, stride>(p);
    } else {
        column_stage<F, ORDERED, false, IN_REV, HYBRID, LDE, TRANSPOSE>(p);
    }
}

// A narrow column symbol's body: the launch's flags pick a compact copy (Asks) where they fit, so a
// plain or single-table launch runs no branch over the coset and scale code.
template <class F, bool ORDERED, bool IN_REV = false, bool TRANSPOSE = false>
__device__ __forceinline__ void column_narrow(const NttStageParams& p) {
    // The cosets' Any copy marked unlikely, so that nvcc lays it out last (cuobjdump).
    const Asks asks = asks_of(p.flags, (1u << (p.log_p + p.log_cols)) == 2 * blockDim.x);
    if (__builtin_expect(asks == Asks::Any, 0)) column_stage<F, ORDERED, true, IN_REV, false, false, TRANSPOSE>(p);
    else if (asks == Asks::Plain) column_stage<F, ORDERED, true, IN_REV, false, false, TRANSPOSE, 0, Asks::Plain>(p);
    else column_stage<F, ORDERED, true, IN_REV, false, false, TRANSPOSE, 0, Asks::Table>(p);
}

}  // namespace ntt
}  // namespace zkntt

// Launch: grid (N / S / cols, batch) (or fewer blocks from column p.col_base on), 128 threads or,
// on the `_narrow` symbols (flag NARROW), half the block's elements (at most 256: the launch
// bounds; 128 registers as at 128 x 4); dynamic shared memory 32 * plane(S * cols) bytes (the
// host gives 32 * padded_slots(S * cols)), or on the `_narrow` symbols 32 * (plane(S * cols) +
// plane(S)) (SmemQuads: the elements, the layer twiddles). In place; row i of column c of transform b is
// data[b*batch_stride + index(c, i)*elem_stride] (index above; natural order: i*R + c with
// R = N / S). The natural-order symbols (not `_lde`) store to p.out (the data, or a two-pass
// transform's scratch: same layout); `ntt_column_t_*` (SCRATCH_IN) loads transposed, row i of
// column c at c*S + i. The `_hybrid` symbols: wide blocks only. The `_lde` symbols: natural
// order, the launch of the inverse's last column stage (shared memory, threads, grid). Narrow and
// wide blocks are separate symbols so that each path has its own register allocation.
#define ZKNTT_COLUMN_SYMBOL(NAME, FIELD, ...)                                                          \
    extern "C" __global__ void __launch_bounds__(256, 2) NAME##_##FIELD(const zkntt::ntt::NttStageParams p) { \
        __VA_ARGS__(p);                                                                                   \
    }
#define ZKNTT_COLUMN(FIELD)                                                                                           \
    ZKNTT_COLUMN_SYMBOL(ntt_column, FIELD, zkntt::ntt::column_wide<zkntt::FIELD, false>)                              \
    ZKNTT_COLUMN_SYMBOL(ntt_column_t, FIELD, zkntt::ntt::column_wide<zkntt::FIELD, false, false, false, false, true>) \
    ZKNTT_COLUMN_SYMBOL(ntt_column_nr, FIELD, zkntt::ntt::column_wide<zkntt::FIELD, true, false>)                     \
    ZKNTT_COLUMN_SYMBOL(ntt_column_rn, FIELD, zkntt::ntt::column_wide<zkntt::FIELD, true, true>)                      \
    ZKNTT_COLUMN_SYMBOL(ntt_column_lde, FIELD, zkntt::ntt::column_wide<zkntt::FIELD, false, false, false, true>)      \
    ZKNTT_COLUMN_SYMBOL(ntt_column_lde_ordered, FIELD, zkntt::ntt::column_wide<zkntt::FIELD, true, false, false, true>) \
    ZKNTT_COLUMN_SYMBOL(ntt_column_hybrid, FIELD, zkntt::ntt::column_wide<zkntt::FIELD, false, false, true>)          \
    ZKNTT_COLUMN_SYMBOL(ntt_column_nr_hybrid, FIELD, zkntt::ntt::column_wide<zkntt::FIELD, true, false, true>)        \
    ZKNTT_COLUMN_SYMBOL(ntt_column_rn_hybrid, FIELD, zkntt::ntt::column_wide<zkntt::FIELD, true, true, true>)         \
    ZKNTT_COLUMN_SYMBOL(ntt_column_narrow, FIELD, zkntt::ntt::column_narrow<zkntt::FIELD, false>)                     \
    ZKNTT_COLUMN_SYMBOL(ntt_column_t_narrow, FIELD, zkntt::ntt::column_narrow<zkntt::FIELD, false, false, true>)      \
    ZKNTT_COLUMN_SYMBOL(ntt_column_nr_narrow, FIELD, zkntt::ntt::column_narrow<zkntt::FIELD, true, false>)            \
    ZKNTT_COLUMN_SYMBOL(ntt_column_rn_narrow, FIELD, zkntt::ntt::column_narrow<zkntt::FIELD, true, true>)             \
    ZKNTT_COLUMN_SYMBOL(ntt_column_lde_narrow, FIELD, zkntt::ntt::column_stage<zkntt::FIELD, false, true, false, false, true>) \
    ZKNTT_COLUMN_SYMBOL(ntt_column_lde_ordered_narrow, FIELD,                                                         \
                        zkntt::ntt::column_stage<zkntt::FIELD, true, true, false, false, true>)

ZKNTT_COLUMN(bn254_fr)
ZKNTT_COLUMN(bls12_381_fr)
