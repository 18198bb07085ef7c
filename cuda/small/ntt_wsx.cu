// The WSX NTT kernel (seed 000): tiles of 4096 elements from global memory through the WSX layers
// (wsx_tile.cuh) and back. No global memory inside the transform. A block loops over tiles (grid
// stride), so per-block setup is paid once per block.
#include "launch_dependent.cuh"
#include "small/wsx_tile.cuh"
#include "shared_memory.cuh"

namespace zkntt {
namespace small {
namespace wsx {

// RN's input at 2^10..2^12 (RUN = 2^(log_n - 8)): register r = h RUN + l (tile position
// g = tid | r << 8) takes word out_pos(g) = h 2^log_n + rev8(tid) RUN + rev(l), so a thread
// reads 16 / RUN runs of RUN contiguous words, in 16-byte loads (`base` 16-byte aligned), where
// word by word each warp load touched 32 sectors for one word in each.
template <uint32_t RUN>
__device__ __forceinline__ void load_rn_runs(const uint32_t* base, uint32_t tid, uint32_t (&v)[PER_THREAD]) {
    constexpr uint32_t LB = RUN == 16 ? 4 : RUN == 8 ? 3 : 2;
    static_assert(RUN == 1u << LB, "RUN is 4, 8 or 16");
    const uint32_t* src = base + (__brev(tid) >> 24) * RUN;
#pragma unroll
    for (uint32_t h = 0; h < PER_THREAD / RUN; h++) {
        uint32_t x[RUN];
        read_run<RUN>(src + h * (RUN << 8), true, x);
#pragma unroll
        for (uint32_t l = 0; l < RUN; l++) v[h * RUN + l] = x[rev_bits<LB>(l)];
    }
}

// EXCHANGE: the M2 -> M3 half exchange (the kernel). Otherwise layers 3..0 shuffle every
// register and compute half butterflies in both lanes (the ablation: the first design's layers).
// RN (small_ntt_wsx_rn_*, p.order 2): tile position g is the input's word out_pos(g) (each
// transform's input bit-reversed); the layers and the store are NN's. A symbol of its own, so the
// other orders' code and registers are as without it.
template <class F, class Form, bool EXCHANGE, bool RN = false>
__device__ __forceinline__ void kernel(const NttParams& p) {
    ZKNTT_STATIC_SHARED(uint32_t, smem, [TILE]);
    const Form f(p);
    const uint32_t tid = threadIdx.x;
    const uint32_t log_n = p.log_n;
    const uint64_t total = p.batch << log_n;
    const uint64_t tiles = (total + TILE - 1) >> TILE_LOG;
    // NR (p.order 1): the tile stays in the DIF's order, stored as it lies.
    const auto c = Consts<typename Form::W>::template make<EXCHANGE>(p.twiddles, log_n, p.order != 1);

    const uint32_t low = (1u << log_n) - 1;
    // No 2-D twiddle and no scale: the output is only brought to canonical form.
    const bool plain = p.post_lo == nullptr && !p.has_scale;
    // RN from 2^10: a thread's input is runs of 16-byte words (`load_rn_runs`).
    const bool runs = RN && log_n >= 10 && (reinterpret_cast<uintptr_t>(p.data) & 15) == 0;

    // The 2-D path's NR and NN rows follow the columns pass as its dependent launch.
    if (p.dependent) wait_for_previous_grid();
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        uint32_t* base = p.data + (tile << TILE_LOG);
        const bool full = ((tile + 1) << TILE_LOG) <= total;
        const uint32_t valid = full ? TILE : (uint32_t)(total - (tile << TILE_LOG));
        uint32_t v[PER_THREAD];
        if (runs && full) {
            if (log_n == 12) {
                load_rn_runs<16>(base, tid, v);
            } else if (log_n == 11) {
                load_rn_runs<8>(base, tid, v);
            } else {
                load_rn_runs<4>(base, tid, v);
            }
        } else if (RN) {
            // Word out_pos(g) into register r, word by word (a partial tile, an unaligned
            // buffer, or log_n < 10). Per tile: hoisted out of the loop, the 16 addresses would
            // spill.
            uint32_t m = log_n > 8 ? tid : c.m2;
            asm volatile("" : "+r"(m));
            const uint32_t rstep = log_n > 8 ? 8 : 4;
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t g = m | r << rstep;
                v[r] = (full || g < valid) ? base[out_pos(g, log_n)] : 0;
            }
        } else if (log_n > 8) {
            // M1: each warp reads 128 contiguous bytes per register.
            const uint32_t* src = base + tid;
            if (full) {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = src[r << 8];
            } else {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = (tid | r << 8) < valid ? src[r << 8] : 0;
            }
        } else {
            // Straight into M2: each half-warp reads 64 contiguous bytes.
            const uint32_t* src = base + c.m2;
            if (full) {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = src[r << 4];
            } else {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = (c.m2 | r << 4) < valid ? src[r << 4] : 0;
            }
        }
        if (tile + gridDim.x >= tiles) allow_dependent_launch();  // this block's reads are done
        layers<F, Form, EXCHANGE, false, true>(f, c, v, smem, 1, log_n);

        // Read back in M1 order, which is also the coalesced store order.
        uint32_t* dst = base + tid;
        if (plain) {
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t x = *m1_at(smem, c.s_m1, 1, r);
                if (full || (tid | r << 8) < valid) dst[r << 8] = Form::LAZY ? reduce_once(x, F::Q) : x;
            }
        } else {
            const uint64_t first_transform = (tile << TILE_LOG) >> log_n;
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t g = tid | r << 8;
                const uint32_t x = *m1_at(smem, c.s_m1, 1, r);
                if (full || g < valid) dst[r << 8] = finish<F>(f, p, x, first_transform + (g >> log_n), g & low);
            }
        }
        __syncthreads();
    }
}


// Rows of 2^(12 + LOG_C) (2^13, 2^14: the 2-D path's rows above 2^24), NR out, one row a block of
// 256 threads, where the cluster kernel spreads a row over C blocks that exchange through
// distributed shared memory. The same split in one block: thread tid takes the columns n2 = tid +
// 256 i (register r = i' C + n1 of a chunk of 16 holds x[4096 n1 + n2], i = chunk 16 / C + i',
// each load a warp's 128 contiguous bytes), runs the C-point DIF on the register bits below
// LOG_C, and writes entry k1 = rev(n1) times w_N^(n2 k1) to its own M1 slot of tile k1 in
// `stash` (C tiles of shared memory). Each tile k1 then runs the WSX layers from those slots
// (the thread's own: no barrier) with its stash as the exchange buffer and is stored in the DIF's
// order at rev_C(k1) 4096, since X[k1 + C k2] lies at rev_N(k1 + C k2) = rev_C(k1) 4096 +
// rev(k2). In place: a row's reads all precede its stores, and a row is one block's.
// p: log_n = 12 + LOG_C, the 4096-entry DIF table, post_lo / post_hi the 2-D tables of N =
// 2^log_n (post_log_rows 12), the scale of the whole transform.
template <class F, class Form, uint32_t LOG_C>
__device__ __forceinline__ void kernel_wide(const NttParams& p, uint32_t* stash) {
    constexpr uint32_t C = 1u << LOG_C;
    constexpr uint32_t IS = PER_THREAD / C;  // columns a chunk of 16 registers holds
    const Form f(p);
    const uint32_t tid = threadIdx.x;
    // The rows' outputs stay in the DIF's order, which is where they go.
    const auto c = Consts<typename Form::W>::template make<true>(p.twiddles, TILE_LOG, false);
    const WideParams w(p);  // columns: w_N^(n2 k1)

    // The 2-D path's rows follow the columns pass as its dependent launch.
    if (p.dependent) wait_for_previous_grid();
    for (uint64_t row = blockIdx.x; row < p.batch; row += gridDim.x) {
        uint32_t* base = p.data + (row << (TILE_LOG + LOG_C));
#pragma unroll
        for (uint32_t chunk = 0; chunk < C; chunk++) {
            uint32_t y[PER_THREAD];
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t i = chunk * IS + r / C;
                y[r] = base[((r % C) << TILE_LOG) + tid + (i << 8)];
            }
            column_dif<F>(f, p, y, LOG_C);
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t i = chunk * IS + r / C;
                const uint32_t k1 = rev_bits<LOG_C>(r % C);
                const uint32_t x = k1 == 0 ? finish<F>(f, w.canonical, y[r], 0, 0)
                                           : finish<F>(f, w.columns, y[r], tid + (i << 8), k1);
                *m1_at(stash + (k1 << TILE_LOG), c.s_m1, 1, i) = x;
            }
        }
        if (row + gridDim.x >= p.batch) allow_dependent_launch();  // this block's reads are done
#pragma unroll 1
        for (uint32_t k1 = 0; k1 < C; k1++) {
            uint32_t* tile = stash + (k1 << TILE_LOG);
            uint32_t v[PER_THREAD];
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = *m1_at(tile, c.s_m1, 1, r);
            layers<F, Form, true, false, true>(f, c, v, tile, 1, TILE_LOG);
            uint32_t* dst = base + (bitrev(k1, LOG_C) << TILE_LOG) + tid;
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) dst[r << 8] = finish<F>(f, w.rows, *m1_at(tile, c.s_m1, 1, r), 0, 0);
        }
        __syncthreads();  // the next row's stash
    }
}


// RN's rows of 2^(12 + LOG_C) (the 2-D path's first pass above 2^24: input bit-reversed, natural
// order out, untwiddled), one row a block of 256 threads: the cluster kernel's transposed split
// (`kernel_split`) in one block. x[n1 + C n2] lies at rev_N(n1 + C n2) = rev_C(n1) 4096 +
// rev(n2), so segment rev_C(n1) is the RN input of the 4096-point transform Y_n1 of x[n1 + C n2]:
// each is loaded as the one-tile RN kernel loads (16-byte runs where aligned) and runs the WSX
// layers into tile n1 of `stash`, natural order. Then thread tid takes k1 = tid + 256 i
// (register r = i' C + n1 of a chunk of 16 holds Y_n1[k1], i = chunk 16 / C + i'), times
// w_N^(n1 k1), runs the C-point DIF and stores X[k1 + 4096 rev_C(n1)] (a warp's lanes on
// consecutive k1). In place: a row's reads all precede its stores.
template <class F, class Form, uint32_t LOG_C>
__device__ __forceinline__ void kernel_wide_rn(const NttParams& p, uint32_t* stash) {
    constexpr uint32_t C = 1u << LOG_C;
    constexpr uint32_t IS = PER_THREAD / C;
    const Form f(p);
    const uint32_t tid = threadIdx.x;
    const auto c = Consts<typename Form::W>::template make<true>(p.twiddles, TILE_LOG, true);
    const WideParams w(p);  // columns: w_N^(n1 k1)
    const bool runs = (reinterpret_cast<uintptr_t>(p.data) & 15) == 0;

    if (p.dependent) wait_for_previous_grid();
    for (uint64_t row = blockIdx.x; row < p.batch; row += gridDim.x) {
        uint32_t* base = p.data + (row << (TILE_LOG + LOG_C));
#pragma unroll 1
        for (uint32_t n1 = 0; n1 < C; n1++) {
            const uint32_t* seg = base + (bitrev(n1, LOG_C) << TILE_LOG);
            uint32_t v[PER_THREAD];
            if (runs) {
                load_rn_runs<16>(seg, tid, v);
            } else {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = seg[out_pos(tid | r << 8, TILE_LOG)];
            }
            layers<F, Form, true, false, true>(f, c, v, stash + (n1 << TILE_LOG), 1, TILE_LOG);  // Y_n1[k1] at slot(k1)
        }
        if (row + gridDim.x >= p.batch) allow_dependent_launch();  // this block's reads are done
#pragma unroll
        for (uint32_t chunk = 0; chunk < C; chunk++) {
            uint32_t y[PER_THREAD];
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t k1 = tid + ((chunk * IS + r / C) << 8), n1 = r % C;
                const uint32_t x = stash[(n1 << TILE_LOG) + slot(k1)];
                y[r] = n1 == 0 ? finish<F>(f, w.canonical, x, 0, 0) : finish<F>(f, w.columns, x, k1, n1);
            }
            column_dif<F>(f, p, y, LOG_C);
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t k1 = tid + ((chunk * IS + r / C) << 8);
                base[k1 + (rev_bits<LOG_C>(r % C) << TILE_LOG)] = finish<F>(f, w.rows, y[r], 0, 0);
            }
        }
        __syncthreads();  // the next row's first tile writes stash, which this row's threads read
    }
}

}  // namespace wsx
}  // namespace small
}  // namespace zkntt

// Launch: 256 threads per block (required), any grid (grid-stride over 4096-element tiles; a
// tile of batch << log_n elements). small_ntt_wsx_*: p.order 0, natural in and out, or 1 (NR),
// bit-reversed out (then without 2-D twiddles); small_ntt_wsx_rn_*: p.order 2 (RN), bit-reversed
// in, natural out. In place, log_n in 0..12.
#define ZKNTT_SMALL_WSX(FIELD, FORM, NAME)                                                            \
    extern "C" __global__ void __launch_bounds__(256, 4)                                            \
        small_ntt_wsx_##NAME(const zkntt::small::NttParams p) {                                      \
        zkntt::small::wsx::kernel<zkntt::small::FIELD, zkntt::small::FORM<zkntt::small::FIELD>, true>(p); \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(256, 4)                                            \
        small_ntt_wsx_rn_##NAME(const zkntt::small::NttParams p) {                                   \
        zkntt::small::wsx::kernel<zkntt::small::FIELD, zkntt::small::FORM<zkntt::small::FIELD>, true, true>(p); \
    }

ZKNTT_SMALL_WSX(FieldQ28, FormDynamic, q28_dynamic)
ZKNTT_SMALL_WSX(FieldQ28, FormConstMod, q28_const_mod)
ZKNTT_SMALL_WSX(FieldQ28, FormBarrett, q28_barrett)
ZKNTT_SMALL_WSX(FieldQ28, FormShoup, q28_shoup)
ZKNTT_SMALL_WSX(FieldQ28, FormShoupLazy, q28_shoup_lazy)
ZKNTT_SMALL_WSX(FieldQ28, FormMont, q28_montgomery)
ZKNTT_SMALL_WSX(FieldQ28, FormMontLazy, q28_montgomery_lazy)
ZKNTT_SMALL_WSX(FieldBabyBear, FormDynamic, babybear_dynamic)
ZKNTT_SMALL_WSX(FieldBabyBear, FormConstMod, babybear_const_mod)
ZKNTT_SMALL_WSX(FieldBabyBear, FormBarrett, babybear_barrett)
ZKNTT_SMALL_WSX(FieldBabyBear, FormShoup, babybear_shoup)
ZKNTT_SMALL_WSX(FieldBabyBear, FormShoupLazy, babybear_shoup_lazy)
ZKNTT_SMALL_WSX(FieldBabyBear, FormMont, babybear_montgomery)
ZKNTT_SMALL_WSX(FieldBabyBear, FormMontLazy, babybear_montgomery_lazy)
ZKNTT_SMALL_WSX(FieldKoalaBear, FormDynamic, koalabear_dynamic)
ZKNTT_SMALL_WSX(FieldKoalaBear, FormConstMod, koalabear_const_mod)
ZKNTT_SMALL_WSX(FieldKoalaBear, FormBarrett, koalabear_barrett)
ZKNTT_SMALL_WSX(FieldKoalaBear, FormShoup, koalabear_shoup)
ZKNTT_SMALL_WSX(FieldKoalaBear, FormShoupLazy, koalabear_shoup_lazy)
ZKNTT_SMALL_WSX(FieldKoalaBear, FormMont, koalabear_montgomery)
ZKNTT_SMALL_WSX(FieldKoalaBear, FormMontLazy, koalabear_montgomery_lazy)

// Launch: 256 threads per block, C x 16 KiB of dynamic shared memory (C = 2^(p.log_n - 12)), any
// grid (grid-stride over rows); p.log_n 13 or 14, p.batch rows. small_ntt_wsx_wide_*: p.order 1
// (NR); small_ntt_wsx_wide_rn_*: p.order 2 (RN, natural out), a symbol of its own so NR's
// registers stay as they are. In place. BabyBear only: the one field with transforms above 2^24.
#define ZKNTT_SMALL_WSX_WIDE(FIELD, FORM, NAME)                                                       \
    extern "C" __global__ void __launch_bounds__(256, 4)                                            \
        small_ntt_wsx_wide_##NAME(const zkntt::small::NttParams p) {                                 \
        using F = zkntt::small::FIELD;                                                               \
        ZKNTT_DYNAMIC_SHARED(uint32_t, stash);                                                       \
        if (p.log_n == 13) {                                                                         \
            zkntt::small::wsx::kernel_wide<F, zkntt::small::FORM<F>, 1>(p, stash);                   \
        } else {                                                                                     \
            zkntt::small::wsx::kernel_wide<F, zkntt::small::FORM<F>, 2>(p, stash);                   \
        }                                                                                            \
    }                                                                                                \
    extern "C" __global__ void __launch_bounds__(256, 4)                                            \
        small_ntt_wsx_wide_rn_##NAME(const zkntt::small::NttParams p) {                              \
        using F = zkntt::small::FIELD;                                                               \
        ZKNTT_DYNAMIC_SHARED(uint32_t, stash);                                                       \
        if (p.log_n == 13) {                                                                         \
            zkntt::small::wsx::kernel_wide_rn<F, zkntt::small::FORM<F>, 1>(p, stash);                \
        } else {                                                                                     \
            zkntt::small::wsx::kernel_wide_rn<F, zkntt::small::FORM<F>, 2>(p, stash);                \
        }                                                                                            \
    }

ZKNTT_SMALL_WSX_WIDE(FieldBabyBear, FormDynamic, babybear_dynamic)
ZKNTT_SMALL_WSX_WIDE(FieldBabyBear, FormConstMod, babybear_const_mod)
ZKNTT_SMALL_WSX_WIDE(FieldBabyBear, FormBarrett, babybear_barrett)
ZKNTT_SMALL_WSX_WIDE(FieldBabyBear, FormShoup, babybear_shoup)
ZKNTT_SMALL_WSX_WIDE(FieldBabyBear, FormShoupLazy, babybear_shoup_lazy)
ZKNTT_SMALL_WSX_WIDE(FieldBabyBear, FormMont, babybear_montgomery)
ZKNTT_SMALL_WSX_WIDE(FieldBabyBear, FormMontLazy, babybear_montgomery_lazy)

// The ablation: the first design's shuffle layers (every register shuffled, half butterflies in
// both lanes) in the same kernel otherwise, for the Montgomery lazy form only. Same launch, order.
#define ZKNTT_SMALL_WSX_HALF(FIELD, FORM, NAME)                                                        \
    extern "C" __global__ void __launch_bounds__(256, 4)                                             \
        small_ntt_wsx_half_##NAME(const zkntt::small::NttParams p) {                                  \
        zkntt::small::wsx::kernel<zkntt::small::FIELD, zkntt::small::FORM<zkntt::small::FIELD>, false>(p); \
    }

ZKNTT_SMALL_WSX_HALF(FieldQ28, FormMontLazy, q28_montgomery_lazy)
ZKNTT_SMALL_WSX_HALF(FieldBabyBear, FormMontLazy, babybear_montgomery_lazy)
ZKNTT_SMALL_WSX_HALF(FieldKoalaBear, FormMontLazy, koalabear_montgomery_lazy)
