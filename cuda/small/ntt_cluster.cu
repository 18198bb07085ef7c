// The cluster kernel: one transform of N = C x 4096 (C = 2..16, so 2^13..2^16) in one launch,
// on a thread-block cluster of C blocks (sm_90) that exchange through distributed shared memory
// instead of global memory and a second launch (the panel kernel's two passes).
//
// NR (`kernel_nr`): x[4096 n1 + n2] (n1 < C, n2 < 4096); X[k1 + C k2] =
//   sum_n2 w_4096^(n2 k2) w_N^(n2 k1) sum_n1 x[4096 n1 + n2] w_C^(n1 k1).
// Block `me` (cluster rank) of transform u:
//   1. loads its segment x[4096 me + n2] into `seg`; cluster barrier;
//   2. takes the 4096 / C columns n2 = me 4096 / C + tid + 256 i (i < 16 / C), each column's C
//      values from the C blocks' `seg` (register r = i C + n1), runs the C-point DIF in
//      registers (the tile's layers and twiddle table; bit-reversed out), multiplies entry k1 by
//      w_N^(n2 k1) (`finish` with the 2-D tables) and stores it into block k1's `col[n2]`;
//      cluster barrier;
//   3. runs the WSX tile (wsx_tile.cuh) on `col` (row k1 = me), its output left in the DIF's
//      order: X[me + C k2] lies at rev_N(me + C k2) = rev_C(me) 4096 + rev(k2), so slot g =
//      rev(k2) is word g of segment rev_C(me), stored whole (with the inverse's scale).
// Every remote access lies between the two barriers, so no block exits while another reads it.
//
// NN (p.order 0) and RN (p.order 2), `kernel_split`: the transposed split, x[n1 + C n2] ->
// X[k1 + 4096 k2] (see there): block n1's whole input is read from global memory (RN: one
// segment, bit-reversed; NN: words at stride C), so one exchange, after the tile, and each block
// stores C runs of 4096 / C words. (NN on `kernel_nr`'s dataflow stores X[me + C k2] at stride
// C, single words, and measured 1-4 us slower at 2^14..2^16: benches/NOTES.md.)
#include "cluster.cuh"
#include "small/wsx_tile.cuh"
#include "shared_memory.cuh"

namespace zkntt {
namespace small {
namespace cluster {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
using zkntt::cluster::arrive;
using zkntt::cluster::barrier;
using zkntt::cluster::barrier_own_shared;
using zkntt::cluster::load_remote;
using zkntt::cluster::rank;
using zkntt::cluster::remote;
using zkntt::cluster::store_remote;
using zkntt::cluster::wait;
#endif

// Mirrored by `ClusterParams` in crates/zkntt-small/src/ntt/cluster.rs. ntt: the transforms
// (log_n 13..16, input at data, the 4096-entry DIF table), the 2-D tables w_N^i and w_N^(4096 i)
// in post_lo / post_hi, the inverse's scale. out: where the outputs go (may be ntt.data).
struct ClusterParams {
    NttParams ntt;
    uint32_t* out;
};

// What both kernels take from the launch: this thread, the cluster's size and rank, transform
// u = blockIdx.x / C's input and output, and the step-2 2-D twiddle's parameters (no scale).
struct Setup {
    uint32_t tid, log_c, me;
    const uint32_t* data;
    uint32_t* out;
    NttParams columns;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __device__ __forceinline__ explicit Setup(const ClusterParams& cp)
        : tid(threadIdx.x), log_c(cp.ntt.log_n - TILE_LOG), me(rank()), columns(cp.ntt) {
        const uint64_t first = (uint64_t)(blockIdx.x >> log_c) << cp.ntt.log_n;
        data = cp.ntt.data + first;
        out = cp.out + first;
        columns.has_scale = 0;
        columns.post_log_rows = TILE_LOG;
    }
#endif
};

// seg: this block's segment, then the tile's exchange buffer; col: the columns' entries k1 = me
// (TILE words each, declared by the entry point so that every instantiation shares them).
template <class F, class Form>
__device__ __forceinline__ void kernel_nr(const ClusterParams& cp, uint32_t* seg, uint32_t* col) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using W = typename Form::W;
    const NttParams& p = cp.ntt;
    const Form f(p);
    const Setup st(cp);
    const uint32_t tid = st.tid, log_c = st.log_c, me = st.me;
    const uint32_t* data = st.data;
    uint32_t* out = st.out;
    // Row me's outputs stay in the DIF's order, which is where they go.
    const auto c = wsx::Consts<W>::template make<true>(p.twiddles, TILE_LOG, false);
    const NttParams& columns = st.columns;
    NttParams rows = p;  // the scale, no 2-D twiddle
    rows.post_lo = nullptr;

    // 1. Segment me, coalesced.
    {
        uint32_t v[PER_THREAD];
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = data[(me << TILE_LOG) | tid | r << 8];
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) seg[tid | r << 8] = v[r];
    }
    // The global reads (in place: other blocks write these words in step 3) are ordered before
    // the writes by the next barrier, which every block's reads here precede.
    barrier_own_shared();

    // 2. Columns: register r = i C + n1 holds x[4096 n1 + n2], n2 = n2_0 + 256 i.
    const uint32_t seg_at = (uint32_t)__cvta_generic_to_shared(seg);
    const uint32_t col_at = (uint32_t)__cvta_generic_to_shared(col);
    const uint32_t n2_0 = (me << (TILE_LOG - log_c)) + tid;
    const uint32_t n1_mask = (1u << log_c) - 1;
    auto n2_of = [&](uint32_t r) { return n2_0 + ((r >> log_c) << 8); };
    uint32_t y[PER_THREAD];
#pragma unroll
    for (uint32_t r = 0; r < PER_THREAD; r++) y[r] = load_remote(remote(seg_at + 4 * n2_of(r), r & n1_mask));
    wsx::column_dif<F>(f, p, y, log_c);
    // Register r now holds entry k1 = rev(n1) of its column: times w_N^(n2 k1), to block k1.
#pragma unroll
    for (uint32_t r = 0; r < PER_THREAD; r++) {
        const uint32_t n2 = n2_of(r);
        const uint32_t k1 = bitrev(r & n1_mask, log_c);
        store_remote(remote(col_at + 4 * n2, k1), finish<F>(f, columns, y[r], n2, k1));
    }
    barrier();

    // 3. The 4096-point row k1 = me: in M1 order from `col`, out in `seg` in the DIF's order.
    uint32_t v[PER_THREAD];
#pragma unroll
    for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = col[tid | r << 8];
    wsx::layers<F, Form, true>(f, c, v, seg, 1, TILE_LOG);
    uint32_t* dst = out + (bitrev(me, log_c) << TILE_LOG) + tid;
#pragma unroll
    for (uint32_t r = 0; r < PER_THREAD; r++) {
        const uint32_t x = seg[c.s_m1 ^ wsx::slot(r << 8)];
        dst[r << 8] = finish<F>(f, rows, x, 0, 0);  // rows: no 2-D twiddle
    }
#endif
}

// NN and RN: the transposed split, so that no exchange precedes the tile and every global store
// is a whole run. x[n1 + C n2] (n1 < C, n2 < 4096), X[k1 + 4096 k2] (k1 < 4096, k2 < C):
//   X[k1 + 4096 k2] = sum_n1 w_C^(n1 k2) w_N^(n1 k1) sum_n2 x[n1 + C n2] w_4096^(n2 k1).
// Block `me`:
//   1. RN (input bit-reversed): x[me + C n2] lies at rev_N(me + C n2) = rev_C(me) 4096 + rev(n2),
//      so segment rev_C(me) is block me's whole input, bit-reversed: read in runs of 8 words,
//      word w to tile position rev(w) of `col` (the panels' RN rows load at 2^12,
//      conflict-free). NN: x[me + C n2] read at stride C straight into the tile's M1 registers
//      (n2 = tid + 256 r): from C = 8 each load takes its own 32-byte sector for one word of
//      it, and each block reads every line of the transform, where an exchange through
//      distributed shared memory would add a cluster barrier to the path;
//   2. runs the WSX tile (the 4096-point transform of x[me + C n2]), natural order out in
//      `seg`; cluster barrier;
//   3. takes k1 = me 4096 / C + tid + 256 i, register r = i C + n1 holding block n1's output k1
//      (remote loads, one 128-byte run a warp) times w_N^(n1 k1), runs the C-point DIF in
//      registers and stores X[k1 + 4096 rev(n1)] with the inverse's scale (a warp's lanes on
//      consecutive k1); the last barrier's wait keeps `seg` alive until every block has read it.
template <class F, class Form, bool NN>
__device__ __forceinline__ void kernel_split(const ClusterParams& cp, uint32_t* seg, uint32_t* col) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using W = typename Form::W;
    const NttParams& p = cp.ntt;
    const Form f(p);
    const Setup st(cp);
    const uint32_t tid = st.tid, log_c = st.log_c, me = st.me;
    const uint32_t n1_mask = (1u << log_c) - 1;
    const uint32_t* data = st.data;
    uint32_t* out = st.out;
    const auto c = wsx::Consts<W>::template make<true>(p.twiddles, TILE_LOG, true);
    const NttParams& columns = st.columns;
    NttParams rows = p;  // the scale only: the 2-D tables are the columns'
    rows.post_lo = nullptr;
    rows.post_hi = nullptr;

    // 1. Block me's input x[me + C n2], then 2. the tile's M1 registers (register r: n2 = tid + 256 r).
    uint32_t v[PER_THREAD];
    if constexpr (NN) {
        // At stride C straight into the registers, every load in flight.
        const uint32_t* src = data + me + (tid << log_c);
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = src[r << (8 + log_c)];
    } else {
        // Segment rev_C(me): thread tid reads runs tid and tid + 256 of 8 words; word w goes to
        // tile position rev(w) of `col` (linear over XOR, as the slot), so col[slot(n2)] holds
        // x[me + C n2].
        constexpr uint32_t RUN = 8;
        const uint32_t* src = data + (bitrev(me, log_c) << TILE_LOG) + tid * RUN;
        const bool vec = (reinterpret_cast<uintptr_t>(p.data) & 15) == 0;
#pragma unroll
        for (uint32_t kk = 0; kk < PER_THREAD / RUN; kk++) read_run<RUN>(src + kk * THREADS * RUN, vec, v + kk * RUN);
        auto pos = [](uint32_t w) { return wsx::slot(bitrev(w, TILE_LOG)); };
        const uint32_t s_t = pos(tid * RUN);
#pragma unroll
        for (uint32_t kk = 0; kk < PER_THREAD / RUN; kk++) {
#pragma unroll
            for (uint32_t j = 0; j < RUN; j++) col[s_t ^ pos(kk * THREADS * RUN + j)] = v[kk * RUN + j];
        }
        __syncthreads();
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = col[c.s_m1 ^ wsx::slot(r << 8)];
    }
    // 2. The 4096-point transform of x[me + C n2].
    wsx::layers<F, Form, true>(f, c, v, seg, 1, TILE_LOG);  // output k1 at seg[slot(k1)]
    // In place, block n1's global reads must precede the other blocks' writes of those words,
    // which this barrier does not order: every word a block writes depends on every block's
    // `seg`, which depends on all of that block's reads, and PTX's No Thin Air axiom forbids a
    // read returning a write that depends on it.
    barrier_own_shared();

    // 3. The C-point columns k1 of this block's output run.
    const uint32_t seg_at = (uint32_t)__cvta_generic_to_shared(seg);
    const uint32_t k1_0 = (me << (TILE_LOG - log_c)) + tid;
    auto k1_of = [&](uint32_t r) { return k1_0 + ((r >> log_c) << 8); };
    uint32_t y[PER_THREAD];
#pragma unroll
    for (uint32_t r = 0; r < PER_THREAD; r++) {
        y[r] = load_remote(remote(seg_at + 4 * wsx::slot(k1_of(r)), r & n1_mask));
    }
    arrive();  // this block's remote reads are done
#pragma unroll
    for (uint32_t r = 0; r < PER_THREAD; r++) y[r] = finish<F>(f, columns, y[r], k1_of(r), r & n1_mask);
    wsx::column_dif<F>(f, p, y, log_c);
#pragma unroll
    for (uint32_t r = 0; r < PER_THREAD; r++) {
        const uint32_t k = k1_of(r) + (bitrev(r & n1_mask, log_c) << TILE_LOG);
        out[k] = finish<F>(f, rows, y[r], 0, 0);  // the scale
    }
    wait();
#endif
}

}  // namespace cluster
}  // namespace small
}  // namespace zkntt

// Launch (sm_90+ only): 256 threads per block, clusters of C = 2^(log_n - 12) blocks (1-D), one
// cluster per transform (grid = batch x C); static shared memory 32 KiB. p.order 0: natural
// order in and out; 1 (NR): out bit-reversed; 2 (RN): in bit-reversed. In place (NR: every
// block's global reads precede a cluster barrier that every block's global writes follow; NN and
// RN: every write depends on every read of the transform, see `kernel_split`).
#define ZKNTT_SMALL_CLUSTER(FIELD, FORM, NAME)                                                        \
    extern "C" __global__ void __launch_bounds__(256)                                               \
        small_ntt_cluster_##NAME(const zkntt::small::cluster::ClusterParams p) {                    \
        using F = zkntt::small::FIELD;                                                               \
        ZKNTT_STATIC_SHARED(uint32_t, seg, [zkntt::small::TILE]);                                    \
        ZKNTT_STATIC_SHARED(uint32_t, col, [zkntt::small::TILE]);                                    \
        if (p.ntt.order == 2) {                                                                      \
            zkntt::small::cluster::kernel_split<F, zkntt::small::FORM<F>, false>(p, seg, col);      \
        } else if (p.ntt.order == 0) {                                                               \
            zkntt::small::cluster::kernel_split<F, zkntt::small::FORM<F>, true>(p, seg, col);       \
        } else {                                                                                     \
            zkntt::small::cluster::kernel_nr<F, zkntt::small::FORM<F>>(p, seg, col);                \
        }                                                                                            \
    }

ZKNTT_SMALL_CLUSTER(FieldQ28, FormDynamic, q28_dynamic)
ZKNTT_SMALL_CLUSTER(FieldQ28, FormConstMod, q28_const_mod)
ZKNTT_SMALL_CLUSTER(FieldQ28, FormBarrett, q28_barrett)
ZKNTT_SMALL_CLUSTER(FieldQ28, FormShoup, q28_shoup)
ZKNTT_SMALL_CLUSTER(FieldQ28, FormShoupLazy, q28_shoup_lazy)
ZKNTT_SMALL_CLUSTER(FieldQ28, FormMont, q28_montgomery)
ZKNTT_SMALL_CLUSTER(FieldQ28, FormMontLazy, q28_montgomery_lazy)
ZKNTT_SMALL_CLUSTER(FieldBabyBear, FormDynamic, babybear_dynamic)
ZKNTT_SMALL_CLUSTER(FieldBabyBear, FormConstMod, babybear_const_mod)
ZKNTT_SMALL_CLUSTER(FieldBabyBear, FormBarrett, babybear_barrett)
ZKNTT_SMALL_CLUSTER(FieldBabyBear, FormShoup, babybear_shoup)
ZKNTT_SMALL_CLUSTER(FieldBabyBear, FormShoupLazy, babybear_shoup_lazy)
ZKNTT_SMALL_CLUSTER(FieldBabyBear, FormMont, babybear_montgomery)
ZKNTT_SMALL_CLUSTER(FieldBabyBear, FormMontLazy, babybear_montgomery_lazy)
ZKNTT_SMALL_CLUSTER(FieldKoalaBear, FormDynamic, koalabear_dynamic)
ZKNTT_SMALL_CLUSTER(FieldKoalaBear, FormConstMod, koalabear_const_mod)
ZKNTT_SMALL_CLUSTER(FieldKoalaBear, FormBarrett, koalabear_barrett)
ZKNTT_SMALL_CLUSTER(FieldKoalaBear, FormShoup, koalabear_shoup)
ZKNTT_SMALL_CLUSTER(FieldKoalaBear, FormShoupLazy, koalabear_shoup_lazy)
ZKNTT_SMALL_CLUSTER(FieldKoalaBear, FormMont, koalabear_montgomery)
ZKNTT_SMALL_CLUSTER(FieldKoalaBear, FormMontLazy, koalabear_montgomery_lazy)
