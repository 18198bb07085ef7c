// The WSX NTT (seed 000): butterflies inside a warp by __shfl_xor_sync with the lane mask as the
// butterfly stride, butterflies inside a thread in registers, shared memory only to move data
// between warps. No global memory inside the transform.
//
// A block holds a 4096-element tile: 256 threads x 16 registers. The tile index g has 12 bits;
// which of them a register, lane or warp index selects changes twice:
//   M1: g = tid | r << 8                      registers hold bits 8..11 (layers 11..8)
//   M2: g = (lane & 15) | r << 4 | (lane >> 4) << 8 | warp << 9
//                                             registers hold bits 4..7 (layers 7..4),
//                                             lanes 0-15 hold bits 0..3 (layers 3..0, shuffles)
// then the output exchange writes each value to its bit-reversed slot and reads back in M1 order,
// which is also the coalesced store order. Transforms smaller than the tile (log_n < 12) occupy
// the tile's low log_n bits and run only the layers below log_n.
#include "small/ntt.cuh"

namespace zkntt {
namespace small {
namespace wsx {

// Shared-memory slot of tile index g: one pad word per 256 breaks the bank conflicts of the
// bit-reversed write, and XOR-ing bit 4 with bit 8 those of the M2 read.
__device__ __forceinline__ uint32_t slot(uint32_t g) {
    return (g ^ (((g >> 8) & 1) << 4)) + (g >> 8);
}
constexpr uint32_t SLOTS = TILE + TILE / 256;

__device__ __forceinline__ uint32_t m2_index(uint32_t lane, uint32_t warp, uint32_t r) {
    return (lane & 15) | (r << 4) | ((lane >> 4) << 8) | (warp << 9);
}

template <class F, class Form>
__device__ __forceinline__ void kernel(const NttParams& p) {
    __shared__ uint32_t smem[SLOTS];
    const Form f(p);
    const uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const uint32_t log_n = p.log_n;
    const uint64_t total = p.batch << log_n;
    const uint64_t tiles = (total + TILE - 1) >> TILE_LOG;

    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        uint32_t* base = p.data + (tile << TILE_LOG);
        const uint64_t valid = total - (tile << TILE_LOG);  // elements of this tile, if < TILE
        uint32_t v[PER_THREAD];

        if (log_n > 8) {
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                uint32_t g = tid | (r << 8);
                v[r] = g < valid ? base[g] : 0;
            }
            // Layers 11..8 in registers: register bit rb is tile bit rb + 8.
#pragma unroll
            for (int rb = 3; rb >= 0; rb--) {
                const uint32_t b = rb + 8;
                if (b >= log_n) continue;
#pragma unroll
                for (uint32_t lo = 0; lo < PER_THREAD; lo++) {
                    if (lo & (1u << rb)) continue;
                    const uint32_t g = tid | (lo << 8);
                    const uint32_t j = g & ((1u << b) - 1);
                    dif_butterfly<F>(f, v[lo], v[lo | (1u << rb)], Form::load(p.twiddles, j << (11 - b)));
                }
            }
            // M1 -> M2 through shared memory.
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) smem[slot(tid | (r << 8))] = v[r];
            __syncthreads();
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) v[r] = smem[slot(m2_index(lane, warp, r))];
            __syncthreads();
        } else {
            // Load straight into M2: each half-warp reads 64 contiguous bytes.
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                uint32_t g = m2_index(lane, warp, r);
                v[r] = g < valid ? base[g] : 0;
            }
        }

        // Layers 7..4 in registers: register bit rb is tile bit rb + 4.
#pragma unroll
        for (int rb = 3; rb >= 0; rb--) {
            const uint32_t b = rb + 4;
            if (b >= log_n) continue;
#pragma unroll
            for (uint32_t lo = 0; lo < PER_THREAD; lo++) {
                if (lo & (1u << rb)) continue;
                const uint32_t j = ((lane & 15) | (lo << 4)) & ((1u << b) - 1);
                dif_butterfly<F>(f, v[lo], v[lo | (1u << rb)], Form::load(p.twiddles, j << (11 - b)));
            }
        }
        // Layers 3..0 across lanes: lane bit b is tile bit b; one twiddle per lane per layer.
#pragma unroll
        for (int b = 3; b >= 0; b--) {
            if ((uint32_t)b >= log_n) continue;
            const uint32_t mask = 1u << b;
            const bool upper = lane & mask;
            const uint32_t j = lane & (mask - 1);
            const typename Form::W w = Form::load(p.twiddles, upper ? j << (11 - b) : 0);
#pragma unroll
            for (uint32_t r = 0; r < PER_THREAD; r++) {
                uint32_t other = __shfl_xor_sync(0xffffffffu, v[r], mask);
                v[r] = dif_half_butterfly<F>(f, v[r], other, upper, w);
            }
        }

        // Output exchange: slot g holds DIF output position (g mod N), i.e. natural index
        // bitrev(g mod N); write it there, read back in M1 order.
        const uint32_t low = (1u << log_n) - 1;
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) {
            uint32_t g = m2_index(lane, warp, r);
            smem[slot((g & ~low) | bitrev(g & low, log_n))] = v[r];
        }
        __syncthreads();
        const uint64_t first_transform = (tile << TILE_LOG) >> log_n;
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) {
            uint32_t g = tid | (r << 8);
            uint32_t x = smem[slot(g)];
            if (g < valid) base[g] = finish<F>(f, p, x, first_transform + (g >> log_n), g & low);
        }
        __syncthreads();
    }
}

}  // namespace wsx
}  // namespace small
}  // namespace zkntt

// Launch: 256 threads per block (required), any grid (grid-stride over 4096-element tiles; a
// tile of batch << log_n elements). In/out: natural order, in place, log_n in 0..12.
#define ZKNTT_SMALL_WSX(FIELD, FORM, NAME)                                                        \
    extern "C" __global__ void __launch_bounds__(256, 4)                                        \
        small_ntt_wsx_##NAME(const zkntt::small::NttParams p) {                                  \
        zkntt::small::wsx::kernel<zkntt::small::FIELD, zkntt::small::FORM<zkntt::small::FIELD>>(p); \
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
