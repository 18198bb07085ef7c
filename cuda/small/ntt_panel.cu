// The panel kernel: one pass of the 2-D decomposition (N = N1 x N2 above one tile) with the
// transposes folded into its loads and stores, so a 2-D transform is two passes over memory, not
// five (transpose, tiles, transpose, tiles, transpose).
//
// A block of 256 x min(T, 4) threads stages a panel of T tiles (T x 4096 words) in shared memory,
// loading it in the order that is contiguous in global memory (consecutive transforms when the
// transforms are columns, consecutive elements when they are rows), runs the WSX layers
// (wsx_tile.cuh) on its tiles side by side, one per 256 threads (T = 8: two groups of 4, one after
// the other), and stores it in the order contiguous at the destination, applying the 2-D twiddle
// and scale on the way out (the RN kernel with columns in: the twiddle on the way in). Tile j of the panel is column j of `panel[slot(p) * stride]`, stride
// T + 1 (odd) for T > 1. The host chooses T (1, 2, 4 or 8) so that a panel holds at least 8
// transforms where the size allows (16 in a columns pass over columns of 2^11 in 2^22 words or
// more): a column load or store then moves a 32-byte sector (two) a row.
// The second pass is a programmatic dependent launch of the first on sm_90+.
//
// Bit-reversed output (the NR kernel): transform u's output e goes to position rev(e) of the
// output layout (the low log_n bits reversed). With the transforms fastest at the destination
// (columns out) the tile stays natural and the store permutes whole rows (a thread's word k goes
// to row rev(e + k de) = rev(e) + rev(k), so the same 32-byte runs as in natural order); with the
// elements fastest (rows out) the tile's output exchange leaves it in the DIF's order and the
// store is the natural one. The 2-D path's NR is these two: columns out (rows permuted), then
// rows in and rows out, contiguous both ways.
//
// Bit-reversed input (the RN kernel): transform u's element e is read from position rev(e) of the
// input layout, and the store is natural. Columns in: the mirror of NR's column store (a thread's
// word k from row rev(e) + rev(k), the same 32-byte runs); rows in (`load_rn_rows`): contiguous
// reads, the reversal in the shared-memory write.
// Rows in, its 2-D twiddle w^(n2 k) takes n2 = rev(t) for transform t mod 2^post_log_rows: the
// 2-D path's RN first pass runs the rows of the input as it lies, row t holding column rev(t) of
// the matrix (chained along the row from 2^10, `Leave::Rows`; below, products over the row's
// reversed bits, `Leave::Bits`). Columns in (the second pass where the rows ran untwiddled on
// the tile kernel or, above 2^24, on its wide variant), element e of transform t takes
// w^((t mod 2^post_log_rows) e) on the load (`load_rn_twiddled`).
#include "launch_dependent.cuh"
#include "small/wsx_tile.cuh"
#include "shared_memory.cuh"

namespace zkntt {
namespace small {
namespace panel {

constexpr uint32_t GROUP_TILES = 4;  // tiles side by side at most: 1024 threads
static_assert(GROUP_TILES * THREADS <= 1024, "a block of GROUP_TILES tiles");
// Words each thread moves per panel: 16 for T up to 4, 32 for two groups.
template <uint32_t GROUPS>
constexpr uint32_t LOADS = GROUPS * TILE / THREADS;
constexpr uint32_t ROUND = 8;   // panel reads in flight per thread in a store (64 registers)
template <uint32_t GROUPS>
constexpr uint32_t LOG_LOADS = GROUPS == 1 ? 4 : 5;
static_assert(1u << LOG_LOADS<1> == LOADS<1> && 1u << LOG_LOADS<2> == LOADS<2>, "LOADS are 2^LOG_LOADS");

// Mirrored by `PanelParams` in crates/zkntt-small/src/ntt/panel.rs. Transform u (of ntt.batch)
// has elements e < 2^ntt.log_n; its element e is word
//   (u >> log_g) << log_m | (u mod 2^log_g) << t | e << e_shift
// of the input (in_t, in_e) and of the output (out_t, out_e): u >> log_g picks the matrix of
// 2^log_m words, u mod 2^log_g the row or column in it.
struct PanelParams {
    NttParams ntt;  // ntt.data: input; twiddles, post tables and scale as for the tile kernel
    uint32_t* out;  // may equal ntt.data (in place)
    uint32_t log_m;
    uint32_t log_g;
    uint32_t in_t, in_e;
    uint32_t out_t, out_e;
    uint32_t dependent;  // 1: launched as a programmatic dependent of the previous kernel
    uint32_t tiles;      // T: 1, 2, 4 (blockDim 256 T) or 8 (blockDim 1024, two groups)
    // `Walk::ks` of the input's and the output's walk, from the host: uniform (the layout, log_n
    // and T decide them), so no thread need compute them.
    uint32_t ks_in[5], ks_out[5];
};

// Where a thread's k-th word of a panel lies (k < LOADS), in global and shared memory. The panel's
// words are numbered i = tid + k * blockDim, split into (transform offset uo, element e): with
// the transforms fastest (layout t = 0, columns) uo = i mod tp and e = i / tp, so a thread keeps
// one transform and its element steps by blockDim / tp; with the elements fastest (t = log_n,
// e_shift = 0, rows) uo = i / N and e = i mod N, and the panel is one run of contiguous words.
// Both are a per-thread pointer plus k times a constant in global memory and, by the swizzle's
// linearity (slot(a | b) = slot(a) ^ slot(b)), a per-thread slot XOR a part that depends on k
// alone in shared memory: with k unrolled, an address is one or two instructions.
// A panel lies inside one matrix (tp <= 2^log_g), which the host guarantees.
struct Walk {
    uint32_t* ptr;   // global word of k = 0
    uint32_t step;   // global words per k
    uint32_t s0;     // slot of k = 0's tile position
    uint32_t j;      // transforms fastest: this thread's tile in the panel (0 for rows)
    uint32_t uo, e;  // k = 0's transform offset and element
    uint32_t de;     // transforms fastest: element step per k
    uint32_t limit;  // rows: words i = tid + k * blockDim of the panel that exist are i < limit
    bool fast;
    // Bit b of k moves the panel word by h = 2^(sh + b) (sh: log_n - LOG_LOADS with the
    // transforms fastest, log2 blockDim otherwise): ks[b] = slot(h mod 4096), from the host
    // (`PanelParams::ks_in`, `ks_out`).
    uint32_t ks[5];
};

// rev (transforms fastest only): the thread's rows are rev(e + k de) = rev(e) + rev(k), so ptr
// is row rev(e)'s and word k's offset rev(k) * step (NR's `store`, RN's `load`).
template <uint32_t GROUPS>
__device__ __forceinline__ Walk walk(const PanelParams& pp, uint32_t* data, bool fast, uint32_t t,
                                     uint32_t e_shift, uint32_t tid, uint64_t u0, uint32_t log_n,
                                     uint32_t log_tp, uint32_t avail, const uint32_t (&ks)[5], bool rev = false) {
    const uint64_t matrix = (u0 >> pp.log_g) << pp.log_m;
    const uint64_t row0 = u0 & ((1ull << pp.log_g) - 1);
    Walk w;
    w.fast = fast;
    if (fast) {
        w.uo = tid & ((1u << log_tp) - 1);
        w.e = tid >> log_tp;
        w.de = blockDim.x >> log_tp;
        w.ptr = data + (matrix + row0 + w.uo + ((uint64_t)(rev ? bitrev(w.e, log_n) : w.e) << e_shift));
        w.step = (rev ? 1u : w.de) << e_shift;
        const uint32_t log_tpt = TILE_LOG - log_n;
        w.s0 = wsx::slot(((w.uo & ((1u << log_tpt) - 1)) << log_n) | w.e);
        w.j = w.uo >> log_tpt;
        w.limit = w.uo < avail ? ~0u : 0u;  // one transform per thread: all or nothing
    } else {
        w.uo = tid >> log_n;
        w.e = tid & ((1u << log_n) - 1);
        w.de = 0;
        w.ptr = data + ((matrix + (row0 << t)) + tid);
        w.step = blockDim.x;
        w.s0 = wsx::slot(tid & (TILE - 1));
        w.j = 0;
        w.limit = avail << log_n;
    }
#pragma unroll
    for (uint32_t b = 0; b < LOG_LOADS<GROUPS>; b++) w.ks[b] = ks[b];
    return w;
}

// Whether word k exists (the last panel may be short).
__device__ __forceinline__ bool exists(const Walk& w, uint32_t k) {
    return w.fast ? w.limit != 0 : threadIdx.x + k * blockDim.x < w.limit;
}

// (transform offset, element) of word k.
__device__ __forceinline__ void at(const Walk& w, uint32_t k, uint32_t log_n, uint32_t& uo, uint32_t& e) {
    if (w.fast) {
        uo = w.uo;
        e = w.e + k * w.de;
    } else {
        const uint32_t i = threadIdx.x + k * blockDim.x;
        uo = i >> log_n;
        e = i & ((1u << log_n) - 1);
    }
}

// Shared-memory word of word k: tile uo / (4096 / N), tile position (uo mod (4096 / N)) * N + e.
// Transforms fastest: k moves the element's top 4 bits (5 with two groups: de = N / LOADS), the
// tile stays. Elements fastest: k moves i = tid + k * blockDim, whose low 12 bits are the tile
// position and the rest the tile. The k part depends on k, log_n and blockDim only (uniform), and
// is disjoint from the thread's bits, so its slot XORs onto s0; slot being linear, it is the XOR
// of the slots of k's bits (`Walk::ks`), one or two instructions for an unrolled k where
// the slot of a shift by a run-time amount took about eight.
template <bool FAST, uint32_t GROUPS>
__device__ __forceinline__ uint32_t smem_at(const Walk& w, uint32_t k, uint32_t stride) {
    uint32_t x = w.s0;
#pragma unroll
    for (uint32_t b = 0; b < LOG_LOADS<GROUPS>; b++) {
        if (k >> b & 1u) x ^= w.ks[b];
    }
    return FAST ? x * stride + w.j : x * stride + (k * blockDim.x >> TILE_LOG);
}

// What a store does to the word it reads from the panel, by what the launch asks.
enum class Leave { Plain, Scale, Chain, Rows, Bits, Any };

// Store: word k of the thread's walk, read from the panel, transformed, written; ROUND panel
// reads in flight, then their products and stores, so that no store waits on its own read alone.
// REV_T (Any): the 2-D twiddle's transform index reversed (the RN kernel).
// FAST: the transforms-fastest walk (columns out, the 2-D path's both passes in natural order): a
// thread's 16 (32) words are one transform, at elements e + k de (REV: at rows rev(e) + rev(k)).
// Otherwise the elements-fastest walk (rows out): Plain, Scale, Rows, Bits or Any.
// Chain (2-D twiddles, FAST): their twiddles w^(n2 (e + k de)) are A S^k with A = w^(n2 e)
// (times the scale) and S = w^(n2 de), so two table lookups a thread and a running Montgomery
// product replace two table reads and two products a word. Rows (the RN kernel's rows out, one
// tile, rows of 2^10 and more): word k is element tid + 256 (k mod C) of row k / C, C =
// 2^(log_n - 8), so each row's C words chain the same way, A = w^(n2 tid), S = w^(256 n2),
// n2 = rev(row). Bits (the RN kernel's rows out, rows of 2^9 and fewer; LOG_C = log2 C, C = 2
// at 2^9, else 1): word k = h + C m is element e_h = e + 256 h of row row0 + m 2^s (s = 8 -
// log_n below 2^8), and m's bits are disjoint from row0's, so n2 = rev(row0) + the sum over
// m's bits j of 2^(sh + 3 - LOG_C - j): the twiddle is A_h = w^(rev(row0) e_h) times B_j =
// w^(e_h 2^(sh + 3 - LOG_C - j)) over those bits, B_j = B_(j+1)^2. Two lookups for each h, not
// two for each word. Any: every layout and parameter, word by word.
template <class F, class Form, Leave L, bool FAST, bool REV, uint32_t GROUPS, bool REV_T = false,
          uint32_t LOG_C = 0>
__device__ __forceinline__ void store(const Form& f, const NttParams& p, const Walk& out,
                                      const uint32_t* panel, uint32_t stride, uint32_t log_n,
                                      uint64_t u0, uint32_t post_n2) {
    constexpr uint32_t Q = F::Q;
    static_assert(FAST || (L != Leave::Chain && !REV), "Chain and REV walk the transforms");
    static_assert(!FAST || L == Leave::Plain || L == Leave::Scale || L == Leave::Chain, "Rows, Bits, Any walk the elements");
    static_assert((L != Leave::Rows && L != Leave::Bits) || GROUPS == 1, "Rows, Bits: one tile of 256 threads");
    if (FAST && out.limit == 0) return;  // this thread's transform is past the batch
    TwiddleChain<Q> chain;
    if constexpr (L == Leave::Chain) {
        chain = {post_mont<F, Form>(f, p, post_n2 * out.e, true), post_mont<F, Form>(f, p, post_n2 * out.de, false)};
    }
    // Bits: hi[h][m >> 2] lo[h][m & 3] is word (h, m)'s twiddle (Montgomery forms); lo[h][0] (1)
    // and, at LOG_C = 1, hi[h][2..3] are never read.
    uint32_t lo[1u << LOG_C][4], hi[1u << LOG_C][4];
    if constexpr (L == Leave::Bits) {
        uint32_t uo, e;
        at(out, 0, log_n, uo, e);
        const uint32_t log_rows = p.post_log_rows;
        const uint32_t n2_0 = bitrev((uint32_t)((u0 + uo) & ((1ull << log_rows) - 1)), log_rows);
        // m's top bit (3 - LOG_C) is row bit s + 3 - LOG_C, so n2 bit sh after the reversal.
        const uint32_t sh = log_rows - (log_n < 8 ? 8 - log_n : 0) - (4 - LOG_C);
#pragma unroll
        for (uint32_t h = 0; h < (1u << LOG_C); h++) {
            const uint32_t eh = e + (h << 8);
            uint32_t b[4];  // b[j]: m's bit j, w^(eh 2^(sh + 3 - LOG_C - j)); one lookup, then squares
            b[3 - LOG_C] = post_mont<F, Form>(f, p, eh << sh, false);
#pragma unroll
            for (int j = 2 - (int)LOG_C; j >= 0; j--) b[j] = mul_mont<Q>(b[j + 1], b[j + 1]);
            lo[h][1] = b[0];
            lo[h][2] = b[1];
            lo[h][3] = mul_mont<Q>(b[0], b[1]);
            hi[h][0] = post_mont<F, Form>(f, p, n2_0 * eh, true);
            hi[h][1] = mul_mont<Q>(hi[h][0], b[2]);
            if constexpr (LOG_C == 0) {
                hi[h][2] = mul_mont<Q>(hi[h][0], b[3]);
                hi[h][3] = mul_mont<Q>(hi[h][1], b[3]);
            }
        }
    }
    typename Form::W scale{};
    if constexpr (L == Leave::Scale) scale = Form::scalar(p);
    uint32_t* dst = out.ptr;
#pragma unroll
    for (uint32_t k0 = 0; k0 < LOADS<GROUPS>; k0 += ROUND) {
        uint32_t y[ROUND];
#pragma unroll
        for (uint32_t k = 0; k < ROUND; k++) y[k] = panel[smem_at<FAST, GROUPS>(out, k0 + k, stride)];
#pragma unroll
        for (uint32_t k = 0; k < ROUND; k++) {
            uint32_t z = y[k];
            if constexpr (L == Leave::Plain) {
                if (Form::LAZY) z = reduce_once(z, Q);
            } else if constexpr (L == Leave::Scale) {
                z = f.mul(z, scale);
                if (Form::LAZY) z = reduce_once(z, Q);
            } else if constexpr (L == Leave::Chain) {
                z = chain.apply(z);
            } else if constexpr (L == Leave::Rows) {
                if (((k0 + k) & ((1u << (log_n - 8)) - 1)) == 0) {  // a row's first word: e = tid
                    uint32_t uo, e;
                    at(out, k0 + k, log_n, uo, e);
                    const uint32_t row = (uint32_t)((u0 + uo) & ((1ull << p.post_log_rows) - 1));
                    const uint32_t n2r = bitrev(row, p.post_log_rows);
                    chain = {post_mont<F, Form>(f, p, n2r * e, true), post_mont<F, Form>(f, p, n2r * THREADS, false)};
                }
                z = chain.apply(z);
            } else if constexpr (L == Leave::Bits) {
                const uint32_t h = (k0 + k) & ((1u << LOG_C) - 1), m = (k0 + k) >> LOG_C;
                z = mul_mont<Q>(z, m & 3 ? mul_mont<Q>(hi[h][m >> 2], lo[h][m & 3]) : hi[h][m >> 2]);
            } else {
                uint32_t uo, e;
                at(out, k0 + k, log_n, uo, e);
                const uint64_t t = REV_T ? bitrev((uint32_t)((u0 + uo) & ((1ull << p.post_log_rows) - 1)), p.post_log_rows)
                                         : u0 + uo;
                z = finish<F>(f, p, z, t, e);
            }
            if (FAST && REV) {
                dst[rev_bits<LOG_LOADS<GROUPS>>(k0 + k) * out.step] = z;
            } else if (FAST) {
                *dst = z;
                dst += out.step;
            } else if (exists(out, k0 + k)) {
                out.ptr[(k0 + k) * out.step] = z;
            }
        }
    }
}

// Load: ROUND loads in flight, then their shared-memory stores, each word through `op` on the
// way (the identity but for `load_rn_twiddled`); words past the batch are 0.
// REV (the RN kernel, columns): the walk is `walk(.., rev)`'s, word k at row rev(e) + rev(k).
template <bool FAST, bool REV, uint32_t GROUPS, class Op>
__device__ __forceinline__ void load(const Walk& in, uint32_t* panel, uint32_t stride, Op op) {
    static_assert(FAST || !REV, "RN rows load with load_rn_rows");
    constexpr uint32_t ROUND = 16;  // 16 loads in flight: nothing else holds registers yet
    const uint32_t* src = in.ptr;
#pragma unroll
    for (uint32_t k0 = 0; k0 < LOADS<GROUPS>; k0 += ROUND) {
        uint32_t x[ROUND];
#pragma unroll
        for (uint32_t k = 0; k < ROUND; k++) {
            if (REV) {
                x[k] = exists(in, k0 + k) ? in.ptr[rev_bits<LOG_LOADS<GROUPS>>(k0 + k) * in.step] : 0;
            } else {
                x[k] = exists(in, k0 + k) ? *src : 0;
            }
            src += in.step;
        }
#pragma unroll
        for (uint32_t k = 0; k < ROUND; k++) panel[smem_at<FAST, GROUPS>(in, k0 + k, stride)] = op(x[k]);
    }
}

template <bool FAST, bool REV, uint32_t GROUPS>
__device__ __forceinline__ void load(const Walk& in, uint32_t* panel, uint32_t stride) {
    load<FAST, REV, GROUPS>(in, panel, stride, [](uint32_t x) { return x; });
}

// The RN kernel's columns load with the 2-D twiddle (the 2-D path's second pass where its rows
// ran untwiddled on the tile kernel or its wide variant): the thread's transform u (column k1 = u mod
// 2^post_log_rows) has elements e + k de at rows rev(e) + rev(k), and element n2 takes
// w^(k1 n2): a chain from w^(k1 e) by w^(k1 de), applied between the reads and the panel's
// writes. Here these products cost less than in the tile kernel's stores
// (benches/NOTES.md). The store then only scales.
template <class F, class Form, uint32_t GROUPS>
__device__ __forceinline__ void load_rn_twiddled(const Form& f, const NttParams& p, const Walk& in,
                                                 uint32_t* panel, uint32_t stride, uint64_t u0) {
    const uint32_t k1 = (uint32_t)((u0 + in.uo) & ((1ull << p.post_log_rows) - 1));
    TwiddleChain<F::Q> chain = {post_mont<F, Form>(f, p, k1 * in.e, false),
                                post_mont<F, Form>(f, p, k1 * in.de, false)};
    load<true, true, GROUPS>(in, panel, stride, [&](uint32_t x) { return chain.apply(x); });
}

// The RN kernel's rows load (one tile, 256 threads, rows of 2^log_n >= 2^6): the reads stay
// contiguous and the reversal moves into the shared-memory write. Thread tid reads runs of RUN
// contiguous words, run tid + 256 kk (a warp's runs back to back), and writes panel word i (row
// i >> log_n, element e) to tile position pos(i) = (row << log_n) | rev(e). pos and slot are
// linear over XOR, so the slot is the thread's part XOR a part uniform across the block. RUN is
// the least that keeps the write conflict-free (a warp's lanes at tile bits <= 8): 1 up to
// 2^9, 4 (one 16-byte load) at 2^10/2^11, 8 at 2^12 (benches/NOTES.md, "The RN rows pass's
// loads, worked out"). `vec`: the input is 16-byte aligned, else the runs are read word by word.
template <uint32_t RUN>
__device__ __forceinline__ void load_rn_rows(const Walk& in, uint32_t* panel, uint32_t log_n, bool vec) {
    constexpr uint32_t RUNS = LOADS<1> / RUN;
    const uint32_t tid = threadIdx.x;
    const uint32_t mask = (1u << log_n) - 1, sh = 32 - log_n;
    // The low log_n bits reversed (bits from log_n up leave __brev(i) below bit 32 - log_n).
    auto pos = [&](uint32_t i) { return (i & ~mask) | (__brev(i) >> sh); };
    const uint32_t* src = in.ptr + tid * (RUN - 1);  // in.ptr is the rows' word tid
    uint32_t x[LOADS<1>];
#pragma unroll
    for (uint32_t kk = 0; kk < RUNS; kk++) {
        const uint32_t* run = src + kk * THREADS * RUN;
        if ((tid + kk * THREADS) * RUN >= in.limit) {  // runs lie inside rows: all or nothing
#pragma unroll
            for (uint32_t j = 0; j < RUN; j++) x[kk * RUN + j] = 0;
        } else {
            read_run<RUN>(run, vec, x + kk * RUN);
        }
    }
    const uint32_t s_t = wsx::slot(pos(tid * RUN));
#pragma unroll
    for (uint32_t kk = 0; kk < RUNS; kk++) {
#pragma unroll
        for (uint32_t j = 0; j < RUN; j++) panel[s_t ^ wsx::slot(pos(kk * THREADS * RUN + j))] = x[kk * RUN + j];
    }
}

// NN's rows in (one group): a thread's 16 words of its tile in M1 (tile position tid mod 256 +
// 256 r, tile j = tid / 256 the panel's words j 4096..) lie at stride 256 from one word, so they
// load straight into registers, as the tile kernel's do, with no trip through the panel's shared
// memory and its addresses (benches/NOTES.md, fifty-seventh session). Whole panels only (the 2-D
// path's always are); a short one is staged.
__device__ __forceinline__ void load_rows_m1(const Walk& in, uint32_t (&v)[PER_THREAD]) {
    const uint32_t tid = threadIdx.x;
    // in.ptr is the panel's word tid; this thread's register 0 is word (tid / 256) 4096 + tid mod 256.
    const uint32_t* src = in.ptr + (tid / THREADS) * (TILE - THREADS);
#pragma unroll
    for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = src[r << 8];
}

// NR: the bit-reversed-output kernel (small_ntt_panel_nr_*; ntt.order is 1). A symbol of its own,
// so the natural-order kernel's registers are allocated as before (its stores are fewer). RN: the
// bit-reversed-input kernel (small_ntt_panel_rn_*; ntt.order is 2), natural out.
template <class F, class Form, uint32_t GROUPS, bool NR, bool RN>
__device__ __forceinline__ void kernel(const PanelParams& pp) {
    ZKNTT_DYNAMIC_SHARED(uint32_t, panel);
    const NttParams& p = pp.ntt;
    const Form f(p);
    const uint32_t log_n = p.log_n;
    const uint64_t count = p.batch;
    // pp.tiles; two groups are 2 x 4 tiles on 1024 threads (their own symbol, `_g2`), so there the
    // stride is a constant and the tile's slot offsets fold into its accesses.
    const uint32_t tiles = GROUPS == 2 ? 2 * GROUP_TILES : blockDim.x / THREADS;
    const uint32_t stride = tiles == 1 ? 1 : tiles + 1;
    const uint32_t log_tp = TILE_LOG + (31 - __clz(tiles)) - log_n;  // transforms per panel
    const uint64_t panels = (count + (1u << log_tp) - 1) >> log_tp;
    const bool out_fast = pp.out_t == 0;
    const bool in_fast = pp.in_t == 0;
    // NR with rows out: the tile's exchange leaves the DIF's order (see the top).
    const auto c = wsx::Consts<typename Form::W>::template make<true>(p.twiddles, log_n, !NR || out_fast);
    // What the store does, decided once (uniform). NR: 2-D twiddles only with columns out.
    // RN rows out: the 2-D twiddles chained along each row from 2^10 (`Leave::Rows`), below as
    // products over the reversed row bits (`Leave::Bits`).
    // Bits needs 2^post_log_rows >= the panel's 4096 / 2^log_n rows (the 2-D path's always are).
    const bool bits = log_n + p.post_log_rows >= TILE_LOG;
    // RN with columns in: the 2-D twiddles go on the loads (`load_rn_twiddled`), not the store.
    const bool load_twiddled = RN && in_fast && p.post_lo != nullptr;
    const Leave leave = !NR && !out_fast ? (RN && p.post_lo != nullptr ? (log_n >= 10 ? Leave::Rows
                                                                          : bits       ? Leave::Bits
                                                                                       : Leave::Any)
                                                                       : Leave::Any)
                        : p.post_lo == nullptr || load_twiddled ? (p.has_scale ? Leave::Scale : Leave::Plain)
                                                                : Leave::Chain;
    uint32_t* col = panel + threadIdx.x / THREADS;  // this thread's tile
    const bool vec = (reinterpret_cast<uintptr_t>(p.data) & 15) == 0;  // RN rows: 16-byte loads

    // Twiddles and slots above are set up before the previous kernel's writes are waited for.
    if (pp.dependent) wait_for_previous_grid();
    for (uint64_t pi = blockIdx.x; pi < panels; pi += gridDim.x) {
        const uint64_t u0 = pi << log_tp;
        // Transforms of this panel that exist (the last panel may be short).
        const uint32_t avail = (uint32_t)min(count - u0, (uint64_t)1 << log_tp);
        // Recomputed per panel: hoisting the index maps out of the loop would spill.
        uint32_t tid = threadIdx.x;
        asm volatile("" : "+r"(tid));
        const Walk in = walk<GROUPS>(pp, p.data, in_fast, pp.in_t, pp.in_e, tid, u0, log_n, log_tp, avail, pp.ks_in, RN && in_fast);
        // NN's rows in (the 2-D path's second pass below 2^22), a whole panel: straight into M1.
        const bool rows_m1 = !NR && !RN && GROUPS == 1 && !in_fast && log_n > 8 && avail == 1u << log_tp;
        uint32_t v[PER_THREAD];
        if (rows_m1) {
            load_rows_m1(in, v);
        } else if (in_fast) {
            if constexpr (RN) {
                if (load_twiddled) {
                    load_rn_twiddled<F, Form, GROUPS>(f, p, in, panel, stride, u0);
                } else {
                    load<true, true, GROUPS>(in, panel, stride);
                }
            } else {
                load<true, false, GROUPS>(in, panel, stride);
            }
        } else if constexpr (RN && GROUPS == 1) {
            if (log_n <= 9) {
                load_rn_rows<1>(in, panel, log_n, vec);
            } else if (log_n < TILE_LOG) {
                load_rn_rows<4>(in, panel, log_n, vec);
            } else {
                load_rn_rows<8>(in, panel, log_n, vec);
            }
        } else {
            load<false, false, GROUPS>(in, panel, stride);
        }
        if (pi + gridDim.x >= panels) allow_dependent_launch();  // this block's reads are done
        if (!rows_m1) __syncthreads();  // registers loaded alone need no barrier: no tile is read

#pragma unroll 1
        for (uint32_t g = 0; g < GROUPS; g++) {
            // Group g's tiles: the g-th blockDim / 256 columns; the other group's stay untouched.
            uint32_t* tile = col + g * (blockDim.x / THREADS);
            if (rows_m1) {
                // v holds M1 already; the previous panel's store is behind the loop's last barrier.
            } else if (log_n > 8) {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) {
                    v[r] = GROUPS == 2 ? *wsx::m1_at(tile, c.s_m1, stride, r) : tile[(c.s_m1 ^ wsx::slot(r << 8)) * stride];
                }
            } else {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = tile[(c.s_m2 ^ wsx::slot(r << 4)) * stride];
                wsx::tile_barrier();  // the output exchange overwrites slots other threads read
            }
            // A tile's threads touch only its own column of the panel from the load's barrier
            // to the store's: the layers sync per tile.
            wsx::layers<F, Form, true, true, GROUPS == 2>(f, c, v, tile, stride, log_n);
        }
        __syncthreads();  // the store reads every tile

        // Store, with the 2-D twiddle and scale of output element e of transform u.
        const Walk out = walk<GROUPS>(pp, pp.out, out_fast, pp.out_t, pp.out_e, tid, u0, log_n, log_tp, avail, pp.ks_out, NR && out_fast);
        uint32_t n2 = (uint32_t)((u0 + out.uo) & ((1ull << p.post_log_rows) - 1));
        if (RN) n2 = bitrev(n2, p.post_log_rows);
#define ZKNTT_PANEL_STORE(L, FAST, REV) store<F, Form, Leave::L, FAST, REV, GROUPS, RN>(f, p, out, panel, stride, log_n, u0, n2)
        if (NR && out_fast) {
            switch (leave) {
                case Leave::Plain: ZKNTT_PANEL_STORE(Plain, true, true); break;
                case Leave::Scale: ZKNTT_PANEL_STORE(Scale, true, true); break;
                default: ZKNTT_PANEL_STORE(Chain, true, true); break;
            }
        } else if (NR) {
            // Rows out: the panel in the DIF's order is stored as it lies.
            switch (leave) {
                case Leave::Plain: ZKNTT_PANEL_STORE(Plain, false, false); break;
                default: ZKNTT_PANEL_STORE(Scale, false, false); break;
            }
        } else if (RN && GROUPS == 1 && leave == Leave::Rows) {
            store<F, Form, Leave::Rows, false, false, 1>(f, p, out, panel, stride, log_n, u0, n2);
        } else if (RN && GROUPS == 1 && leave == Leave::Bits) {
            if (log_n > 8) {
                store<F, Form, Leave::Bits, false, false, 1, false, 1>(f, p, out, panel, stride, log_n, u0, n2);
            } else {
                store<F, Form, Leave::Bits, false, false, 1, false, 0>(f, p, out, panel, stride, log_n, u0, n2);
            }
        } else {
            switch (leave) {
                case Leave::Plain: ZKNTT_PANEL_STORE(Plain, true, false); break;
                case Leave::Scale: ZKNTT_PANEL_STORE(Scale, true, false); break;
                case Leave::Chain: ZKNTT_PANEL_STORE(Chain, true, false); break;
                default: ZKNTT_PANEL_STORE(Any, false, false); break;
            }
        }
#undef ZKNTT_PANEL_STORE
        __syncthreads();  // the next panel's load overwrites the panel
    }
}

}  // namespace panel
}  // namespace small
}  // namespace zkntt

// Launch: 256 x T threads per block for T (p.tiles) in {1, 2, 4} on NAME, 1024 threads for T = 8 on
// NAME_g2 (two groups of 4, a symbol of their own so that neither path's registers and schedule
// move the other's: benches/NOTES.md, fifty-sixth session); 4096 x (T == 1 ? 1 : T + 1) words of
// dynamic shared memory; any grid (grid stride over panels of T x 4096 / 2^log_n transforms).
// log_n in 4..12; each layout either columns (t = 0) or rows (t = log_n, e_shift = 0); a panel's
// transforms inside one matrix (T x 4096 / 2^log_n <= 2^log_g). The NR kernel: 2-D twiddles only
// where the output is columns. The RN kernel: input element e at rev(e); with rows in, its 2-D
// twiddle takes n2 = rev(t mod 2^post_log_rows) on the store; with columns in, element e of
// transform t takes w^((t mod 2^post_log_rows) e) on the load.
#define ZKNTT_SMALL_PANEL_KERNEL(FIELD, FORM, NAME, NR, RN)                                          \
    extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
        NAME(const zkntt::small::panel::PanelParams p) {                                            \
        using F = zkntt::small::FIELD;                                                               \
        zkntt::small::panel::kernel<F, zkntt::small::FORM<F>, 1, NR, RN>(p);                        \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
        NAME##_g2(const zkntt::small::panel::PanelParams p) {                                       \
        using F = zkntt::small::FIELD;                                                               \
        zkntt::small::panel::kernel<F, zkntt::small::FORM<F>, 2, NR, RN>(p);                        \
    }
// small_ntt_panel_{NAME} (natural order in and out), small_ntt_panel_nr_{NAME} (bit-reversed out)
// and small_ntt_panel_rn_{NAME} (bit-reversed in), each with its two-group symbol ({...}_g2).
#define ZKNTT_SMALL_PANEL(FIELD, FORM, NAME)                                                          \
    ZKNTT_SMALL_PANEL_KERNEL(FIELD, FORM, small_ntt_panel_##NAME, false, false)                      \
    ZKNTT_SMALL_PANEL_KERNEL(FIELD, FORM, small_ntt_panel_nr_##NAME, true, false)                    \
    ZKNTT_SMALL_PANEL_KERNEL(FIELD, FORM, small_ntt_panel_rn_##NAME, false, true)

ZKNTT_SMALL_PANEL(FieldQ28, FormDynamic, q28_dynamic)
ZKNTT_SMALL_PANEL(FieldQ28, FormConstMod, q28_const_mod)
ZKNTT_SMALL_PANEL(FieldQ28, FormBarrett, q28_barrett)
ZKNTT_SMALL_PANEL(FieldQ28, FormShoup, q28_shoup)
ZKNTT_SMALL_PANEL(FieldQ28, FormShoupLazy, q28_shoup_lazy)
ZKNTT_SMALL_PANEL(FieldQ28, FormMont, q28_montgomery)
ZKNTT_SMALL_PANEL(FieldQ28, FormMontLazy, q28_montgomery_lazy)
ZKNTT_SMALL_PANEL(FieldBabyBear, FormDynamic, babybear_dynamic)
ZKNTT_SMALL_PANEL(FieldBabyBear, FormConstMod, babybear_const_mod)
ZKNTT_SMALL_PANEL(FieldBabyBear, FormBarrett, babybear_barrett)
ZKNTT_SMALL_PANEL(FieldBabyBear, FormShoup, babybear_shoup)
ZKNTT_SMALL_PANEL(FieldBabyBear, FormShoupLazy, babybear_shoup_lazy)
ZKNTT_SMALL_PANEL(FieldBabyBear, FormMont, babybear_montgomery)
ZKNTT_SMALL_PANEL(FieldBabyBear, FormMontLazy, babybear_montgomery_lazy)
ZKNTT_SMALL_PANEL(FieldKoalaBear, FormDynamic, koalabear_dynamic)
ZKNTT_SMALL_PANEL(FieldKoalaBear, FormConstMod, koalabear_const_mod)
ZKNTT_SMALL_PANEL(FieldKoalaBear, FormBarrett, koalabear_barrett)
ZKNTT_SMALL_PANEL(FieldKoalaBear, FormShoup, koalabear_shoup)
ZKNTT_SMALL_PANEL(FieldKoalaBear, FormShoupLazy, koalabear_shoup_lazy)
ZKNTT_SMALL_PANEL(FieldKoalaBear, FormMont, koalabear_montgomery)
ZKNTT_SMALL_PANEL(FieldKoalaBear, FormMontLazy, koalabear_montgomery_lazy)
