// NN's rows pass with the transpose in its store: the 2-D path's second pass (N = N1 x N2, the
// N1-point columns already done and twiddled) in one launch, where the tile kernel's rows stay
// where they lie and a transpose pass puts X in natural order. Row k1 of a matrix (N2 = 2^log_n,
// log_n 9..12) transforms into X[k1 + N1 k2]: a row's outputs lie N1 words apart, so a store is
// contiguous only across rows. A store of runs shorter than a sector at a power-of-two stride
// costs eight times the L2 writes of a coalesced one (benches/NOTES.md, thirty-first session), so
// the rows are stored in groups: a cluster of C = 8 blocks runs 8 tiles of consecutive rows (T =
// 2^(12 - log_n) rows a tile, G = 8 T rows a group), each block its tile's WSX layers into its
// own shared memory in natural order; after a cluster barrier block `me` takes the group's k2 in
// [me N2 / 8, (me + 1) N2 / 8) and stores, for each, the G rows' entries as one run of G words
// (whole sectors): a warp store is 32 / G runs at consecutive k2, as the panel columns pass
// stores.
// The exchange is staged: block `me` first copies its share from the tiles' blocks (distributed
// shared memory) into `stage`, then the stores read `stage`. Rows of 2^12 (T = 1) copy 16-byte
// groups of the holder's slots into a row-major stage (one remote load moves four words); rows
// of 2^9..2^11 copy word by word into G + 1 words a k2 (odd pitch: 32 banks both ways), each
// warp load one block's 128-byte run of one row. Lanes reading their store order straight from
// the holders (8 blocks a warp load, from T = 2 several lanes on one bank) measured 1.4-2x
// slower (benches/NOTES.md, forty-eighth session).
#include "cluster.cuh"
#include "launch_dependent.cuh"
#include "small/wsx_tile.cuh"
#include "shared_memory.cuh"

namespace zkntt {
namespace small {
namespace nn_rows {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
using zkntt::cluster::arrive;
using zkntt::cluster::barrier_own_shared;
using zkntt::cluster::load_remote;
using zkntt::cluster::load_remote4;
using zkntt::cluster::rank;
using zkntt::cluster::remote;
using zkntt::cluster::wait;
#endif

// Mirrored by `NnRowsParams` in crates/zkntt-small/src/ntt/nn_rows.rs. ntt: the rows (ntt.batch
// rows of 2^ntt.log_n words at ntt.data, no 2-D twiddle, the inverse's scale); out: X, row k1 of
// matrix m's entry k2 at out[m N + k1 + N1 k2]; log_cols: log2 N1, the rows of a matrix (>= 3
// + log2 T, so that a group lies in one matrix).
struct NnRowsParams {
    NttParams ntt;
    uint32_t* out;
    uint32_t log_cols;
    uint32_t pad;
};

constexpr uint32_t LOG_C = 3;  // blocks a cluster, tiles a group

// LOG_T: log2 of the rows a tile (log_n = 12 - LOG_T). stage: TILE + 512 words.
template <class F, class Form, uint32_t LOG_T>
__device__ __forceinline__ void kernel(const NnRowsParams& q, uint32_t* buf, uint32_t* stage) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using W = typename Form::W;
    constexpr uint32_t LOG_ROW = TILE_LOG - LOG_T;
    constexpr uint32_t LOG_G = LOG_C + LOG_T;  // rows a group
    constexpr uint32_t LOG_STEP = 8 - LOG_G;   // k2 between a thread's registers
    static_assert(LOG_G <= 8, "a group's rows within one register's 256 words");
    const NttParams& p = q.ntt;
    const Form f(p);
    const uint32_t tid = threadIdx.x, me = rank();
    // Natural order out: tile position t 2^LOG_ROW + k2 holds row t's output k2, at slot(...).
    const auto c = wsx::Consts<W>::template make<true>(p.twiddles, LOG_ROW, true);
    const uint64_t groups = p.batch >> LOG_G;
    const uint32_t log1 = q.log_cols;
    // The store: word u = tid + 256 i of this block's share is row R = u mod G of the group at
    // k2 = k2_0 + u / G (k2_0 = me N2 / 8): row R is row R mod T of block R / T's tile.
    const uint32_t R = tid & ((1u << LOG_G) - 1);
    const uint32_t k2_l = tid >> LOG_G;  // k2 - k2_0 of register 0
    const uint64_t mask1 = (1ull << log1) - 1;
    // The copy: word v = tid + 256 i of the share is row v >> LOG_K's entry k2_0 + (v mod
    // 2^LOG_K), held by block i / 2: tile position sv0 (i even) or sv1 (i odd) there (slot is
    // linear over XOR; the parts occupy disjoint bits), stage word st_t + a constant of i.
    constexpr uint32_t LOG_K = LOG_ROW - LOG_C;  // k2 a block stores
    constexpr uint32_t GP = (1u << LOG_G) + 1;   // stage's words a k2
    auto pos_v = [&](uint32_t v9) {
        return ((v9 >> LOG_K) << LOG_ROW) | (me << LOG_K) | (v9 & ((1u << LOG_K) - 1));
    };
    const uint32_t buf_at = (uint32_t)__cvta_generic_to_shared(buf);
    const uint32_t sv0 = wsx::slot(pos_v(tid)), sv1 = wsx::slot(pos_v(tid | 256));
    const uint32_t st_t = (tid & ((1u << LOG_K) - 1)) * GP + (tid >> LOG_K);
    // Rows of 2^12 (T = 1) copy 16-byte groups: a tile's slots 4a..4a+3 are one aligned group
    // holding k2 = 4a + (b ^ x) at b, x = slot(4a) mod 4 (slot(4a + b) = slot(4a) ^ b). Quad
    // j of thread tid is row (tid >> 7) + 2 j's k2 = K0 + 4 (tid mod 128), stored as it lies into
    // row-major `stage` (RP words a row, RP = 4 mod 32); the reads undo the XOR. Read i's k2 =
    // K0 + k2_l + 32 i has x = slot(32 i) mod 4 (K0's bits lie above 8), a constant of i, so a
    // thread's reads take one of four offsets `rd` and an immediate.
    constexpr uint32_t RP = (1u << LOG_K) + 4;
    const uint32_t q_at = buf_at + 4 * (wsx::slot((me << LOG_K) | ((tid & 127) << 2)) & ~3u);
    const uint32_t q_st = (tid >> 7) * RP + ((tid & 127) << 2);
    uint32_t rd[4];
#pragma unroll
    for (uint32_t x = 0; x < 4; x++) rd[x] = R * RP + (k2_l & ~3u) + ((k2_l & 3) ^ x);

    if (q.ntt.dependent) wait_for_previous_grid();
    bool first = true;
    for (uint64_t grp = blockIdx.x >> LOG_C; grp < groups; grp += gridDim.x >> LOG_C) {
        const uint64_t row0 = grp << LOG_G;
        // This block's tile, M1 (each warp load 128 contiguous bytes).
        const uint32_t* src = p.data + ((row0 + (me << LOG_T)) << LOG_ROW) + tid;
        uint32_t v[PER_THREAD];
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = src[r << 8];
        if (!first) wait();  // every block has read this block's previous tile
        first = false;
        wsx::layers<F, Form, true>(f, c, v, buf, 1, LOG_ROW);
        barrier_own_shared();  // every tile of the group is in its block's shared memory
        uint32_t y[PER_THREAD];
        if constexpr (LOG_T == 0) {
            uint4 z[4];
#pragma unroll
            for (uint32_t j = 0; j < 4; j++) z[j] = load_remote4(remote(q_at, (tid >> 7) + 2 * j));
            arrive();  // this block's remote reads are done
#pragma unroll
            for (uint32_t j = 0; j < 4; j++) *reinterpret_cast<uint4*>(stage + q_st + 2 * j * RP) = z[j];
            __syncthreads();
#pragma unroll
            for (uint32_t i = 0; i < PER_THREAD; i++) y[i] = stage[rd[wsx::slot(i << 5) & 3] + (i << 5)];
        } else {
#pragma unroll
            for (uint32_t i = 0; i < PER_THREAD; i++) y[i] = load_remote(remote(buf_at + 4 * ((i & 1) ? sv1 : sv0), i >> 1));
            arrive();  // this block's remote reads are done
#pragma unroll
            for (uint32_t i = 0; i < PER_THREAD; i++) {
                const uint32_t v_i = i << 8;
                stage[st_t + (v_i & ((1u << LOG_K) - 1)) * GP + (v_i >> LOG_K)] = y[i];
            }
            __syncthreads();
#pragma unroll
            for (uint32_t i = 0; i < PER_THREAD; i++) y[i] = stage[(k2_l + (i << LOG_STEP)) * GP + R];
        }
        const uint64_t row = row0 + R;
        const uint64_t k2 = (uint64_t)(me << LOG_K) + k2_l;  // register 0's
        uint32_t* dst = q.out + ((row >> log1) << (log1 + LOG_ROW)) + (row & mask1) + (k2 << log1);
#pragma unroll
        for (uint32_t i = 0; i < PER_THREAD; i++) {
            dst[(uint64_t)i << (LOG_STEP + log1)] = finish<F>(f, p, y[i], 0, 0);  // the scale
        }
    }
    if (!first) wait();  // no block exits while another reads its shared memory
#endif
}

// NN's rows of 2^13/2^14 (BabyBear 2^25/2^26: rows of W = 2^LOG_W tiles, as ntt_wsx.cu's
// kernel_wide runs them, one row a block), with the same store across the rows: block `me` of a
// cluster runs row 8 grp + me's column phase and W tiles' WSX layers into `stash` in natural order
// (tile k1 holds X[k1 + W k2] at slot(k2)), and after the cluster barrier stores the group's K in
// [me N2 / 8, (me + 1) N2 / 8) in chunks of 256 K (2048 words) through `stage`: thread tid copies
// K = K0 + 256 j + tid of the 8 rows (register i: row i, held by block i; a warp load 32
// consecutive K, on 32 banks since the tiles lie TP = 4096 + 32 / W words apart), then stores 4 K
// x 8 rows a warp store, runs of 32 bytes. smem: W TP + 256 (8 + 1) words.
template <class F, class Form, uint32_t LOG_W>
__device__ __forceinline__ void kernel_wide(const NnRowsParams& q, uint32_t* smem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr uint32_t W = 1u << LOG_W;
    constexpr uint32_t IS = PER_THREAD / W;         // columns a chunk of 16 registers holds
    constexpr uint32_t LOG_ROW = TILE_LOG + LOG_W;  // a row's words
    constexpr uint32_t TP = TILE + 32 / W;          // stash words a tile
    constexpr uint32_t GP = (1u << LOG_C) + 1;      // stage words a K
    constexpr uint32_t CHUNKS = 1u << (LOG_ROW - LOG_C - 8);
    static_assert(PER_THREAD >= (1u << LOG_C), "a chunk's 8 rows in one thread's registers");
    uint32_t* const stash = smem;
    uint32_t* const stage = smem + W * TP;
    const NttParams& p = q.ntt;
    const Form f(p);
    const uint32_t tid = threadIdx.x, me = rank();
    const auto c = wsx::Consts<typename Form::W>::template make<true>(p.twiddles, TILE_LOG, true);
    const wsx::WideParams w(p);  // columns: w_N2^(n2 k1)
    const uint64_t groups = p.batch >> LOG_C;
    const uint32_t log1 = q.log_cols;
    const uint64_t mask1 = (1ull << log1) - 1;
    const uint32_t K0 = me << (LOG_ROW - LOG_C);
    // The copy: K = K0 + 256 j + tid lies in tile K mod W at slot(K >> LOG_W); the parts of
    // K >> LOG_W (tid's, j's, me's) occupy disjoint bits, and slot is linear over XOR.
    const uint32_t stash_at = (uint32_t)__cvta_generic_to_shared(stash);
    const uint32_t tile_t = (tid & (W - 1)) * TP;
    const uint32_t s_t = wsx::slot(tid >> LOG_W) ^ wsx::slot(K0 >> LOG_W);
    // The store: register i of thread tid is row R = tid mod 8 of the group, K = K0 + 256 j + k_l
    // + 32 i.
    const uint32_t R = tid & ((1u << LOG_C) - 1), k_l = tid >> LOG_C;

    if (p.dependent) wait_for_previous_grid();
    bool first = true;
    for (uint64_t grp = blockIdx.x >> LOG_C; grp < groups; grp += gridDim.x >> LOG_C) {
        const uint32_t* base = p.data + (((grp << LOG_C) + me) << LOG_ROW);
#pragma unroll
        for (uint32_t chunk = 0; chunk < W; chunk++) {
            uint32_t y[PER_THREAD];
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t i = chunk * IS + r / W;
                y[r] = base[((r % W) << TILE_LOG) + tid + (i << 8)];
            }
            if (chunk == 0 && !first) wait();  // every block has read this block's previous stash
            wsx::column_dif<F>(f, p, y, LOG_W);
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t i = chunk * IS + r / W;
                const uint32_t k1 = rev_bits<LOG_W>(r % W);
                const uint32_t x = k1 == 0 ? finish<F>(f, w.canonical, y[r], 0, 0)
                                           : finish<F>(f, w.columns, y[r], tid + (i << 8), k1);
                *wsx::m1_at(stash + k1 * TP, c.s_m1, 1, i) = x;
            }
        }
        first = false;
#pragma unroll 1
        for (uint32_t k1 = 0; k1 < W; k1++) {
            uint32_t* tile = stash + k1 * TP;
            uint32_t v[PER_THREAD];
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = *wsx::m1_at(tile, c.s_m1, 1, r);
            wsx::layers<F, Form, true, false, true>(f, c, v, tile, 1, TILE_LOG);
        }
        barrier_own_shared();  // every row of the group is in its block's shared memory
        const uint64_t row = (grp << LOG_C) + R;
        uint32_t* const dst0 = q.out + ((row >> log1) << (log1 + LOG_ROW)) + (row & mask1);
#pragma unroll
        for (uint32_t j = 0; j < CHUNKS; j++) {
            const uint32_t at = stash_at + 4 * (tile_t + (s_t ^ wsx::slot((j << 8) >> LOG_W)));
            uint32_t y[1u << LOG_C];
#pragma unroll
            for (uint32_t i = 0; i < (1u << LOG_C); i++) y[i] = load_remote(remote(at, i));
            if (j == CHUNKS - 1) arrive();  // this block's remote reads are done
#pragma unroll
            for (uint32_t i = 0; i < (1u << LOG_C); i++) stage[tid * GP + i] = y[i];
            __syncthreads();
#pragma unroll
            for (uint32_t i = 0; i < (1u << LOG_C); i++) y[i] = stage[(k_l + 32 * i) * GP + R];
            uint32_t* dst = dst0 + ((uint64_t)(K0 + (j << 8) + k_l) << log1);
#pragma unroll
            for (uint32_t i = 0; i < (1u << LOG_C); i++) {
                dst[(uint64_t)(32 * i) << log1] = finish<F>(f, w.rows, y[i], 0, 0);  // the scale
            }
            if (j + 1 < CHUNKS) __syncthreads();  // the stage's next chunk
        }
    }
    if (!first) wait();  // no block exits while another reads its shared memory
#endif
}

}  // namespace nn_rows
}  // namespace small
}  // namespace zkntt

// Launch (sm_90+ only): 256 threads per block, clusters of 8 blocks (1-D), the grid a multiple
// of 8 (grid-stride over groups; the host launches a cluster a group); static shared memory 34
// KiB. p.ntt.log_n 9..12, p.ntt.batch a multiple of the group's 2^(15 - log_n) rows, p.log_cols
// >= 15 - log_n, p.ntt.post_lo null, p.out not p.ntt.data; p.ntt.dependent: launched as a
// programmatic dependent of the columns pass.
#define ZKNTT_SMALL_NN_ROWS(FIELD, FORM, NAME)                                                        \
    extern "C" __global__ void __launch_bounds__(256, 4)                                            \
        small_ntt_nn_rows_##NAME(const zkntt::small::nn_rows::NnRowsParams p) {                      \
        using F = zkntt::small::FIELD;                                                               \
        using Form = zkntt::small::FORM<F>;                                                          \
        /* uint4: 16-byte aligned, for the quads' copies */                                       \
        ZKNTT_STATIC_SHARED(uint4, buf4, [zkntt::small::TILE / 4]);                                  \
        ZKNTT_STATIC_SHARED(uint4, stage4, [(zkntt::small::TILE + 512) / 4]);                        \
        uint32_t* const buf = reinterpret_cast<uint32_t*>(buf4);                                     \
        uint32_t* const stage = reinterpret_cast<uint32_t*>(stage4);                                 \
        switch (p.ntt.log_n) {                                                                       \
            case 12: zkntt::small::nn_rows::kernel<F, Form, 0>(p, buf, stage); break;                \
            case 11: zkntt::small::nn_rows::kernel<F, Form, 1>(p, buf, stage); break;                \
            case 10: zkntt::small::nn_rows::kernel<F, Form, 2>(p, buf, stage); break;                \
            default: zkntt::small::nn_rows::kernel<F, Form, 3>(p, buf, stage); break;                \
        }                                                                                            \
    }

ZKNTT_SMALL_NN_ROWS(FieldQ28, FormDynamic, q28_dynamic)
ZKNTT_SMALL_NN_ROWS(FieldQ28, FormConstMod, q28_const_mod)
ZKNTT_SMALL_NN_ROWS(FieldQ28, FormBarrett, q28_barrett)
ZKNTT_SMALL_NN_ROWS(FieldQ28, FormShoup, q28_shoup)
ZKNTT_SMALL_NN_ROWS(FieldQ28, FormShoupLazy, q28_shoup_lazy)
ZKNTT_SMALL_NN_ROWS(FieldQ28, FormMont, q28_montgomery)
ZKNTT_SMALL_NN_ROWS(FieldQ28, FormMontLazy, q28_montgomery_lazy)
ZKNTT_SMALL_NN_ROWS(FieldBabyBear, FormDynamic, babybear_dynamic)
ZKNTT_SMALL_NN_ROWS(FieldBabyBear, FormConstMod, babybear_const_mod)
ZKNTT_SMALL_NN_ROWS(FieldBabyBear, FormBarrett, babybear_barrett)
ZKNTT_SMALL_NN_ROWS(FieldBabyBear, FormShoup, babybear_shoup)
ZKNTT_SMALL_NN_ROWS(FieldBabyBear, FormShoupLazy, babybear_shoup_lazy)
ZKNTT_SMALL_NN_ROWS(FieldBabyBear, FormMont, babybear_montgomery)
ZKNTT_SMALL_NN_ROWS(FieldBabyBear, FormMontLazy, babybear_montgomery_lazy)
ZKNTT_SMALL_NN_ROWS(FieldKoalaBear, FormDynamic, koalabear_dynamic)
ZKNTT_SMALL_NN_ROWS(FieldKoalaBear, FormConstMod, koalabear_const_mod)
ZKNTT_SMALL_NN_ROWS(FieldKoalaBear, FormBarrett, koalabear_barrett)
ZKNTT_SMALL_NN_ROWS(FieldKoalaBear, FormShoup, koalabear_shoup)
ZKNTT_SMALL_NN_ROWS(FieldKoalaBear, FormShoupLazy, koalabear_shoup_lazy)
ZKNTT_SMALL_NN_ROWS(FieldKoalaBear, FormMont, koalabear_montgomery)
ZKNTT_SMALL_NN_ROWS(FieldKoalaBear, FormMontLazy, koalabear_montgomery_lazy)

// NN's rows of 2^13/2^14 (BabyBear, as the wide tile kernel): the same launch as above with
// p.ntt.log_n 13 or 14, p.ntt.post_lo / post_hi the 2-D tables of the row (post_log_rows 12), a
// group 8 rows, p.log_cols >= 3, and dynamic shared memory 4 (W (4096 + 32 / W) + 2304) bytes
// (W = 2^(log_n - 12)).
#define ZKNTT_SMALL_NN_ROWS_WIDE(FIELD, FORM, NAME)                                                   \
    extern "C" __global__ void __launch_bounds__(256, 4)                                            \
        small_ntt_nn_rows_wide_##NAME(const zkntt::small::nn_rows::NnRowsParams p) {                 \
        using F = zkntt::small::FIELD;                                                               \
        using Form = zkntt::small::FORM<F>;                                                          \
        ZKNTT_DYNAMIC_SHARED(uint32_t, smem);                                                        \
        if (p.ntt.log_n == 13) {                                                                     \
            zkntt::small::nn_rows::kernel_wide<F, Form, 1>(p, smem);                                 \
        } else {                                                                                     \
            zkntt::small::nn_rows::kernel_wide<F, Form, 2>(p, smem);                                 \
        }                                                                                            \
    }

ZKNTT_SMALL_NN_ROWS_WIDE(FieldBabyBear, FormDynamic, babybear_dynamic)
ZKNTT_SMALL_NN_ROWS_WIDE(FieldBabyBear, FormConstMod, babybear_const_mod)
ZKNTT_SMALL_NN_ROWS_WIDE(FieldBabyBear, FormBarrett, babybear_barrett)
ZKNTT_SMALL_NN_ROWS_WIDE(FieldBabyBear, FormShoup, babybear_shoup)
ZKNTT_SMALL_NN_ROWS_WIDE(FieldBabyBear, FormShoupLazy, babybear_shoup_lazy)
ZKNTT_SMALL_NN_ROWS_WIDE(FieldBabyBear, FormMont, babybear_montgomery)
ZKNTT_SMALL_NN_ROWS_WIDE(FieldBabyBear, FormMontLazy, babybear_montgomery_lazy)
