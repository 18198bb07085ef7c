// The panel kernel: one pass of the 2-D decomposition (N = N1 x N2 above one tile) with the
// transposes folded into its loads and stores, so a 2-D transform is two passes over memory, not
// five (transpose, tiles, transpose, tiles, transpose).
//
// A block of 256 x T threads stages a panel of T tiles (T x 4096 words) in shared memory, loading
// it in the order that is contiguous in global memory (consecutive transforms when the transforms
// are columns, consecutive elements when they are rows), runs the WSX layers (wsx_tile.cuh) on
// its T tiles side by side, one per 256 threads, and stores it in the order contiguous at the
// destination, applying the 2-D twiddle and scale on the way out. Tile j of the panel is column j
// of `panel[slot(p) * stride]`, stride T + 1 (odd) for T > 1. T (1, 2 or 4, from blockDim) is
// chosen by the host so that a panel holds at least 4 transforms: a column load or store then
// moves 16 contiguous bytes or more. The second pass is a programmatic dependent launch of the
// first on sm_90+.
#include "launch_dependent.cuh"
#include "small/wsx_tile.cuh"

namespace zkntt {
namespace small {
namespace panel {

constexpr uint32_t MAX_TILES = 4;  // 1024 threads, 80 KiB
static_assert(MAX_TILES * THREADS <= 1024, "a block of MAX_TILES tiles");
constexpr uint32_t LOADS = TILE / THREADS;  // words each thread moves per panel, any T
constexpr uint32_t ROUND = 8;               // loads in flight per thread (64 registers)

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
    uint32_t pad;
};

__device__ __forceinline__ uint64_t word(uint64_t u, uint32_t e, uint32_t log_m, uint32_t log_g,
                                         uint32_t t_shift, uint32_t e_shift) {
    const uint64_t g = u & ((1ull << log_g) - 1);
    return ((u >> log_g) << log_m) | (g << t_shift) | ((uint64_t)e << e_shift);
}

// Panel word i (0 .. 2^words_log) as (transform offset, element): transforms fastest when the
// transforms are the contiguous direction in memory (shift 0), elements fastest otherwise.
struct Split {
    uint32_t uo, e;
};
__device__ __forceinline__ Split split(uint32_t i, bool transforms_fastest, uint32_t log_tp,
                                       uint32_t log_n) {
    if (transforms_fastest) return {i & ((1u << log_tp) - 1), i >> log_tp};
    return {i >> log_n, i & ((1u << log_n) - 1)};
}

// Shared-memory word of (transform offset, element): tile uo / (4096 / N), tile position
// (uo mod (4096 / N)) * N + e.
__device__ __forceinline__ uint32_t panel_word(Split s, uint32_t log_n, uint32_t stride) {
    const uint32_t log_tpt = TILE_LOG - log_n;
    const uint32_t g = (s.uo & ((1u << log_tpt) - 1)) << log_n | s.e;
    return wsx::slot(g) * stride + (s.uo >> log_tpt);
}

template <class F, class Form>
__device__ __forceinline__ void kernel(const PanelParams& pp) {
    extern __shared__ uint32_t panel[];
    const NttParams& p = pp.ntt;
    const Form f(p);
    const uint32_t log_n = p.log_n;
    const uint64_t count = p.batch;
    const uint32_t tiles = blockDim.x / THREADS;
    const uint32_t stride = tiles == 1 ? 1 : tiles + 1;
    const uint32_t log_tp = TILE_LOG + (31 - __clz(tiles)) - log_n;  // transforms per panel
    const uint64_t panels = (count + (1u << log_tp) - 1) >> log_tp;
    const auto c = wsx::Consts<typename Form::W>::template make<true>(p.twiddles, log_n);
    const bool out_fast = pp.out_t == 0;
    const bool plain = p.post_lo == nullptr && !p.has_scale;
    const bool in_fast = pp.in_t == 0;
    uint32_t* col = panel + threadIdx.x / THREADS;  // this thread's tile

    // Twiddles and slots above are set up before the previous kernel's writes are waited for.
    if (pp.dependent) wait_for_previous_grid();
    for (uint64_t pi = blockIdx.x; pi < panels; pi += gridDim.x) {
        const uint64_t u0 = pi << log_tp;
        // Recomputed per panel: hoisting the 32 index maps out of the loop would spill.
        uint32_t tid = threadIdx.x;
        asm volatile("" : "+r"(tid));
        // Load: ROUND loads in flight, then their shared-memory stores.
#pragma unroll
        for (uint32_t k0 = 0; k0 < LOADS; k0 += ROUND) {
            uint32_t x[ROUND];
#pragma unroll
            for (uint32_t k = 0; k < ROUND; k++) {
                const Split s = split(tid + (k0 + k) * blockDim.x, in_fast, log_tp, log_n);
                const uint64_t u = u0 + s.uo;
                x[k] = u < count ? p.data[word(u, s.e, pp.log_m, pp.log_g, pp.in_t, pp.in_e)] : 0;
            }
#pragma unroll
            for (uint32_t k = 0; k < ROUND; k++) {
                const Split s = split(tid + (k0 + k) * blockDim.x, in_fast, log_tp, log_n);
                panel[panel_word(s, log_n, stride)] = x[k];
            }
        }
        if (pi + gridDim.x >= panels) allow_dependent_launch();  // this block's reads are done
        __syncthreads();

        uint32_t v[PER_THREAD];
        if (log_n > 8) {
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = col[(c.s_m1 ^ wsx::slot(r << 8)) * stride];
        } else {
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = col[(c.s_m2 ^ wsx::slot(r << 4)) * stride];
            __syncthreads();  // the output exchange overwrites slots other threads read
        }
        wsx::layers<F, Form, true>(f, c, v, col, stride, log_n);

        // Store, with the 2-D twiddle and scale of output element e of transform u.
#pragma unroll 4
        for (uint32_t k = 0; k < LOADS; k++) {
            const Split s = split(tid + k * blockDim.x, out_fast, log_tp, log_n);
            const uint64_t u = u0 + s.uo;
            const uint32_t y = panel[panel_word(s, log_n, stride)];
            if (u < count) {
                pp.out[word(u, s.e, pp.log_m, pp.log_g, pp.out_t, pp.out_e)] =
                    plain ? (Form::LAZY ? reduce_once(y, F::Q) : y) : finish<F>(f, p, y, u, s.e);
            }
        }
        __syncthreads();  // the next panel's load overwrites the panel
    }
}

}  // namespace panel
}  // namespace small
}  // namespace zkntt

// Launch: 256 x T threads per block, T in {1, 2, 4}; 4096 x (T == 1 ? 1 : T + 1) words of
// dynamic shared memory; any grid (grid stride over panels of T x 4096 / 2^log_n transforms).
// log_n in 1..12.
#define ZKNTT_SMALL_PANEL(FIELD, FORM, NAME)                                                          \
    extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
        small_ntt_panel_##NAME(const zkntt::small::panel::PanelParams p) {                          \
        zkntt::small::panel::kernel<zkntt::small::FIELD, zkntt::small::FORM<zkntt::small::FIELD>>(p); \
    }

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
