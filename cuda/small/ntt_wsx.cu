// The WSX NTT (seed 000): butterflies inside a warp by __shfl_xor_sync with the lane mask as the
// butterfly stride, butterflies inside a thread in registers, shared memory only to move data
// between warps. No global memory inside the transform.
//
// A block holds a 4096-element tile: 256 threads x 16 registers. The tile index g has 12 bits;
// which of them a register, lane or warp index selects changes as the layers go:
//   M1: g = tid | r << 8                      registers hold bits 8..11 (layers 11..8)
//   M2: g = (lane & 15) | r << 4 | (lane >> 4) << 8 | warp << 9
//                                             registers hold bits 4..7 (layers 7..4)
//   M3: g = r | (lane & 15) << 4 | (lane >> 4) << 8 | warp << 9
//                                             registers hold bits 0..3 (layers 3..0)
// M1 -> M2 goes through shared memory. M2 -> M3 is the warp-shuffle part: before layer b (3..0)
// lane bit b and register bit b swap places, each lane sending half its registers to lane ^ 2^b
// (8 shuffles), and layer b then runs as full butterflies in registers: half the shuffles and
// multiplications of shuffling every register and computing a half butterfly in both lanes
// (kept as the ablation small_ntt_wsx_half_*). Then the output exchange writes each value to its
// bit-reversed slot and reads back in M1 order, which is also the coalesced store order.
// Transforms smaller than the tile (log_n < 12) occupy the tile's low log_n bits and run only the
// layers below log_n.
#include "small/ntt.cuh"

namespace zkntt {
namespace small {
namespace wsx {

// Shared-memory slot of tile position p: bits 5..8 flip bits 0..4 (an XOR swizzle chosen by
// exhaustive search over such maps) so that every access of the kernel hits 32 distinct banks:
// M1 rows, the M2 read, and the bit-reversed output write of every log_n. Linear over XOR
// (slot(a ^ b) = slot(a) ^ slot(b)), so an address is a per-thread part XOR a constant per register.
__host__ __device__ constexpr uint32_t slot(uint32_t p) {
    return p ^ ((p >> 5 & 1u) * 3u) ^ ((p >> 6 & 1u) * 5u) ^ ((p >> 7 & 1u) * 9u) ^ ((p >> 8 & 1u) * 17u);
}

// Natural-order position of DIF output slot g: the low log_n bits reversed.
__device__ __forceinline__ uint32_t out_pos(uint32_t g, uint32_t log_n) {
    const uint32_t low = (1u << log_n) - 1;
    return (g & ~low) | bitrev(g & low, log_n);
}

// EXCHANGE: the M2 -> M3 half exchange (the kernel). Otherwise layers 3..0 shuffle every
// register and compute half butterflies in both lanes (the ablation: the first design's layers).
template <class F, class Form, bool EXCHANGE>
__device__ __forceinline__ void kernel(const NttParams& p) {
    using W = typename Form::W;
    __shared__ uint32_t smem[TILE];
    const Form f(p);
    const uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const uint32_t log_n = p.log_n;
    const uint64_t total = p.batch << log_n;
    const uint64_t tiles = (total + TILE - 1) >> TILE_LOG;

    // Everything below but the data is the same for every tile.
    const W* tw = static_cast<const W*>(p.twiddles);
    const W* tw_m1 = tw + tid;          // M1 layer b: entries (1 << b) + tid + k * 256
    const W* tw_m2 = tw + (lane & 15);  // M2 layer b: entries (1 << b) + (lane & 15) + k * 16
    const uint32_t m2 = (lane & 15) | (lane >> 4) << 8 | warp << 9;
    const uint32_t s_m1 = slot(tid), s_m2 = slot(m2);
    // Output slots: register r holds tile index t_out | sum of reg_bit[k] over the bits k of r;
    // out_pos and slot are linear, so its slot is s_out ^ (XOR of b_out[k] over those bits).
    const uint32_t t_out = EXCHANGE ? ((lane & 15) << 4 | (lane >> 4) << 8 | warp << 9) : m2;
    const uint32_t s_out = slot(out_pos(t_out, log_n));
    uint32_t b_out[4];
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) b_out[k] = slot(out_pos(1u << (EXCHANGE ? k : k + 4), log_n));
    const uint32_t low = (1u << log_n) - 1;
    // No 2-D twiddle and no scale: the output is only brought to canonical form.
    const bool plain = p.post_lo == nullptr && !p.has_scale;

    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        uint32_t* base = p.data + (tile << TILE_LOG);
        const bool full = ((tile + 1) << TILE_LOG) <= total;
        const uint32_t valid = full ? TILE : (uint32_t)(total - (tile << TILE_LOG));
        uint32_t v[PER_THREAD];

        if (log_n > 8) {
            const uint32_t* src = base + tid;
            if (full) {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = src[r << 8];
            } else {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = (tid | r << 8) < valid ? src[r << 8] : 0;
            }
            // Layers 11..8 in registers: register bit rb is tile bit rb + 8. The twiddle offset
            // is g mod 2^b = tid + (lo mod 2^rb) * 256: 2^rb distinct twiddles per layer.
#pragma unroll
            for (int rb = 3; rb >= 0; rb--) {
                const uint32_t b = rb + 8;
                if (b >= log_n) continue;
                W w[8];  // the first 2^rb used
#pragma unroll
                for (uint32_t k = 0; k < 8; k++) {
                    if (k < (1u << rb)) w[k] = Form::load(tw_m1, (1u << b) + (k << 8));
                }
#pragma unroll
                for (uint32_t lo = 0; lo < PER_THREAD; lo++) {
                    if (lo & (1u << rb)) continue;
                    dif_butterfly<F>(f, v[lo], v[lo | (1u << rb)], w[lo & ((1u << rb) - 1)]);
                }
            }
            // M1 -> M2 through shared memory.
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) smem[s_m1 ^ slot(r << 8)] = v[r];
            __syncthreads();
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = smem[s_m2 ^ slot(r << 4)];
            __syncthreads();
        } else {
            // Load straight into M2: each half-warp reads 64 contiguous bytes.
            const uint32_t* src = base + m2;
            if (full) {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = src[r << 4];
            } else {
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = (m2 | r << 4) < valid ? src[r << 4] : 0;
            }
        }

        // Layers 7..4 in registers: register bit rb is tile bit rb + 4; offset (lane & 15) +
        // (lo mod 2^rb) * 16.
#pragma unroll
        for (int rb = 3; rb >= 0; rb--) {
            const uint32_t b = rb + 4;
            if (b >= log_n) continue;
            W w[8];  // the first 2^rb used
#pragma unroll
            for (uint32_t k = 0; k < 8; k++) {
                if (k < (1u << rb)) w[k] = Form::load(tw_m2, (1u << b) + (k << 4));
            }
#pragma unroll
            for (uint32_t lo = 0; lo < PER_THREAD; lo++) {
                if (lo & (1u << rb)) continue;
                dif_butterfly<F>(f, v[lo], v[lo | (1u << rb)], w[lo & ((1u << rb) - 1)]);
            }
        }

        // Layers 3..0 across lanes. Twiddle offset g mod 2^b: lane bits below b, which stay in
        // place (layer 0's twiddle is 1). Loaded first so the loads overlap the exchanges.
        W w_x[4];
#pragma unroll
        for (uint32_t b = 1; b < 4; b++) w_x[b] = Form::load(tw, (1u << b) + (lane & ((1u << b) - 1)));
#pragma unroll
        for (int b = 3; b >= 0; b--) {
            const uint32_t mask = 1u << b;
            const bool upper = lane & mask;
            if constexpr (EXCHANGE) {
                // Lane bit b <-> register bit b: the lower lane sends v[r | mask] and receives
                // its partner's v[r] there; the upper lane sends v[r] and receives into v[r].
                // Done for every layer (also those at or above log_n) so the layout is M3.
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) {
                    if (r & mask) continue;
                    const uint32_t send = upper ? v[r] : v[r | mask];
                    const uint32_t got = __shfl_xor_sync(0xffffffffu, send, mask);
                    if (upper) {
                        v[r] = got;
                    } else {
                        v[r | mask] = got;
                    }
                }
                if ((uint32_t)b >= log_n) continue;
                if (b == 0) {
#pragma unroll
                    for (uint32_t r = 0; r < PER_THREAD; r += 2) dif_butterfly_unit<F, Form>(v[r], v[r + 1]);
                } else {
#pragma unroll
                    for (uint32_t r = 0; r < PER_THREAD; r++) {
                        if (r & mask) continue;
                        dif_butterfly<F>(f, v[r], v[r | mask], w_x[b]);
                    }
                }
            } else {
                if ((uint32_t)b >= log_n) continue;
                // One twiddle per lane; the lower lane multiplies by entry mask + 0 = w^0 = 1.
                const W w = Form::load(tw, mask + (upper ? lane & (mask - 1) : 0));
#pragma unroll
                for (uint32_t r = 0; r < PER_THREAD; r++) {
                    uint32_t other = __shfl_xor_sync(0xffffffffu, v[r], mask);
                    v[r] = dif_half_butterfly<F>(f, v[r], other, upper, w);
                }
            }
        }

        // Output exchange: the value of tile index g goes to slot(out_pos(g)); read back in M1
        // order.
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) {
            uint32_t s = s_out;
#pragma unroll
            for (uint32_t k = 0; k < 4; k++) {
                if (r & (1u << k)) s ^= b_out[k];
            }
            smem[s] = v[r];
        }
        __syncthreads();
        uint32_t* dst = base + tid;
        if (plain) {
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t x = smem[s_m1 ^ slot(r << 8)];
                if (full || (tid | r << 8) < valid) dst[r << 8] = Form::LAZY ? reduce_once(x, F::Q) : x;
            }
        } else {
            const uint64_t first_transform = (tile << TILE_LOG) >> log_n;
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                const uint32_t g = tid | r << 8;
                const uint32_t x = smem[s_m1 ^ slot(r << 8)];
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
// tile of batch << log_n elements). In/out: natural order, in place, log_n in 0..12.
#define ZKNTT_SMALL_WSX(FIELD, FORM, NAME)                                                            \
    extern "C" __global__ void __launch_bounds__(256, 4)                                            \
        small_ntt_wsx_##NAME(const zkntt::small::NttParams p) {                                      \
        zkntt::small::wsx::kernel<zkntt::small::FIELD, zkntt::small::FORM<zkntt::small::FIELD>, true>(p); \
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
