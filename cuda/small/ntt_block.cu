// The baseline the paper measures WSX against: a block-synchronous NTT. The block loads its
// 4096-element tile into shared memory and runs one DIF layer at a time, every thread taking 8
// butterflies straight from shared memory, with __syncthreads after every layer. Same threads per
// block, same tile, same modmul forms and twiddle tables as ntt_wsx.cu, so the two differ only in
// how data moves between butterflies.
#include "small/ntt.cuh"
#include "shared_memory.cuh"

namespace zkntt {
namespace small {
namespace block {

template <class F, class Form>
__device__ __forceinline__ void kernel(const NttParams& p) {
    ZKNTT_STATIC_SHARED(uint32_t, smem, [TILE]);
    const Form f(p);
    const uint32_t tid = threadIdx.x;
    const uint32_t log_n = p.log_n;
    const uint64_t total = p.batch << log_n;
    const uint64_t tiles = (total + TILE - 1) >> TILE_LOG;
    const uint32_t low = (1u << log_n) - 1;

    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        uint32_t* base = p.data + (tile << TILE_LOG);
        const uint64_t valid = total - (tile << TILE_LOG);
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) {
            uint32_t g = tid + r * THREADS;
            smem[g] = g < valid ? base[g] : 0;
        }
        __syncthreads();
        for (int b = (int)log_n - 1; b >= 0; b--) {
            const uint32_t stride = 1u << b;
#pragma unroll
            for (uint32_t k = 0; k < PER_THREAD / 2; k++) {
                const uint32_t i = tid + k * THREADS;  // butterfly 0..2047
                const uint32_t j = i & (stride - 1);
                const uint32_t lo = ((i >> b) << (b + 1)) | j;
                uint32_t a = smem[lo], c = smem[lo | stride];
                dif_butterfly<F>(f, a, c, Form::load(p.twiddles, stride | j));
                smem[lo] = a;
                smem[lo | stride] = c;
            }
            __syncthreads();
        }
        const uint64_t first_transform = (tile << TILE_LOG) >> log_n;
#pragma unroll
        for (uint32_t r = 0; r < PER_THREAD; r++) {
            uint32_t g = tid + r * THREADS;
            uint32_t x = smem[(g & ~low) | bitrev(g & low, log_n)];
            if (g < valid) base[g] = finish<F>(f, p, x, first_transform + (g >> log_n), g & low);
        }
        __syncthreads();
    }
}

}  // namespace block
}  // namespace small
}  // namespace zkntt

// Launch: 256 threads per block (required), any grid (grid-stride over 4096-element tiles).
// In/out: natural order, in place, log_n in 0..12.
#define ZKNTT_SMALL_BLOCK(FIELD, FORM, NAME)                                                        \
    extern "C" __global__ void __launch_bounds__(256, 4)                                          \
        small_ntt_block_##NAME(const zkntt::small::NttParams p) {                                  \
        zkntt::small::block::kernel<zkntt::small::FIELD, zkntt::small::FORM<zkntt::small::FIELD>>(p); \
    }

ZKNTT_SMALL_BLOCK(FieldQ28, FormDynamic, q28_dynamic)
ZKNTT_SMALL_BLOCK(FieldQ28, FormConstMod, q28_const_mod)
ZKNTT_SMALL_BLOCK(FieldQ28, FormBarrett, q28_barrett)
ZKNTT_SMALL_BLOCK(FieldQ28, FormShoup, q28_shoup)
ZKNTT_SMALL_BLOCK(FieldQ28, FormShoupLazy, q28_shoup_lazy)
ZKNTT_SMALL_BLOCK(FieldQ28, FormMont, q28_montgomery)
ZKNTT_SMALL_BLOCK(FieldQ28, FormMontLazy, q28_montgomery_lazy)
ZKNTT_SMALL_BLOCK(FieldBabyBear, FormDynamic, babybear_dynamic)
ZKNTT_SMALL_BLOCK(FieldBabyBear, FormConstMod, babybear_const_mod)
ZKNTT_SMALL_BLOCK(FieldBabyBear, FormBarrett, babybear_barrett)
ZKNTT_SMALL_BLOCK(FieldBabyBear, FormShoup, babybear_shoup)
ZKNTT_SMALL_BLOCK(FieldBabyBear, FormShoupLazy, babybear_shoup_lazy)
ZKNTT_SMALL_BLOCK(FieldBabyBear, FormMont, babybear_montgomery)
ZKNTT_SMALL_BLOCK(FieldBabyBear, FormMontLazy, babybear_montgomery_lazy)
ZKNTT_SMALL_BLOCK(FieldKoalaBear, FormDynamic, koalabear_dynamic)
ZKNTT_SMALL_BLOCK(FieldKoalaBear, FormConstMod, koalabear_const_mod)
ZKNTT_SMALL_BLOCK(FieldKoalaBear, FormBarrett, koalabear_barrett)
ZKNTT_SMALL_BLOCK(FieldKoalaBear, FormShoup, koalabear_shoup)
ZKNTT_SMALL_BLOCK(FieldKoalaBear, FormShoupLazy, koalabear_shoup_lazy)
ZKNTT_SMALL_BLOCK(FieldKoalaBear, FormMont, koalabear_montgomery)
ZKNTT_SMALL_BLOCK(FieldKoalaBear, FormMontLazy, koalabear_montgomery_lazy)
