// The WSX NTT kernel (seed 000): tiles of 4096 elements from global memory through the WSX layers
// (wsx_tile.cuh) and back. No global memory inside the transform. A block loops over tiles (grid
// stride), so per-block setup is paid once per block.
#include "launch_dependent.cuh"
#include "small/wsx_tile.cuh"

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
    __shared__ uint32_t smem[TILE];
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
        layers<F, Form, EXCHANGE>(f, c, v, smem, 1, log_n);

        // Read back in M1 order, which is also the coalesced store order.
        uint32_t* dst = base + tid;
        if (plain) {
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t x = smem[c.s_m1 ^ slot(r << 8)];
                if (full || (tid | r << 8) < valid) dst[r << 8] = Form::LAZY ? reduce_once(x, F::Q) : x;
            }
        } else {
            const uint64_t first_transform = (tile << TILE_LOG) >> log_n;
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t g = tid | r << 8;
                const uint32_t x = smem[c.s_m1 ^ slot(r << 8)];
                if (full || g < valid) dst[r << 8] = finish<F>(f, p, x, first_transform + (g >> log_n), g & low);
            }
        }
        __syncthreads();
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
