// The quad kernel: transforms of up to 4096 words, one 4096-word tile per block of 1024 threads
// (quad_tile.cuh), for the few tiles of a single transform or a small batch; the WSX kernel
// (ntt_wsx.cu) keeps batches that fill the GPU.
#include "small/quad_tile.cuh"

namespace zkntt {
namespace small {
namespace quad {

template <class F, class Form>
__device__ __forceinline__ void kernel(const NttParams& p) {
    using W = typename Form::W;
    extern __shared__ uint4 smem[];
    uint32_t* buf = reinterpret_cast<uint32_t*>(smem);
    W* table = reinterpret_cast<W*>(buf + PADDED);
    const Form f(p);
    const uint32_t i = threadIdx.x, log_n = p.log_n;
    const uint32_t low = (1u << log_n) - 1;
    const uint64_t total = p.batch << log_n;
    const uint64_t tile = blockIdx.x;
    uint32_t* data = p.data + (tile << TILE_LOG);
    const uint32_t valid = (uint32_t)min(total - (tile << TILE_LOG), (uint64_t)TILE);
    stage_table<Form>(table, p.twiddles);
    {
        uint32_t x[4];
#pragma unroll
        for (uint32_t k = 0; k < 4; k++) x[k] = i + k * THREADS < valid ? data[i + k * THREADS] : 0;
#pragma unroll
        for (uint32_t k = 0; k < 4; k++) buf[pad(i + k * THREADS)] = x[k];
    }
    __syncthreads();
    layers<F, Form>(f, buf, table, log_n);
    const uint64_t first_transform = (tile << TILE_LOG) >> log_n;
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) {
        const uint32_t g = i + k * THREADS;
        if (g >= valid) continue;
        const uint32_t x = buf[pad((g & ~low) | bitrev(g & low, log_n))];
        data[g] = finish<F>(f, p, x, first_transform + (g >> log_n), g & low);
    }
}

}  // namespace quad
}  // namespace small
}  // namespace zkntt

// Launch: 1024 threads per block, one block per 4096-word tile (grid = tiles of batch << log_n
// words), dynamic shared memory quad::smem_bytes<Form>(1) (20.5 KiB + the table: 36.5 KiB, 52.5
// KiB for the Shoup forms). In place, natural order, log_n 1..12.
#define ZKNTT_SMALL_QUAD(FIELD, FORM, NAME)                                                           \
    extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
        small_ntt_quad_##NAME(const zkntt::small::NttParams p) {                                     \
        zkntt::small::quad::kernel<zkntt::small::FIELD, zkntt::small::FORM<zkntt::small::FIELD>>(p); \
    }

ZKNTT_SMALL_QUAD(FieldQ28, FormDynamic, q28_dynamic)
ZKNTT_SMALL_QUAD(FieldQ28, FormConstMod, q28_const_mod)
ZKNTT_SMALL_QUAD(FieldQ28, FormBarrett, q28_barrett)
ZKNTT_SMALL_QUAD(FieldQ28, FormShoup, q28_shoup)
ZKNTT_SMALL_QUAD(FieldQ28, FormShoupLazy, q28_shoup_lazy)
ZKNTT_SMALL_QUAD(FieldQ28, FormMont, q28_montgomery)
ZKNTT_SMALL_QUAD(FieldQ28, FormMontLazy, q28_montgomery_lazy)
ZKNTT_SMALL_QUAD(FieldBabyBear, FormDynamic, babybear_dynamic)
ZKNTT_SMALL_QUAD(FieldBabyBear, FormConstMod, babybear_const_mod)
ZKNTT_SMALL_QUAD(FieldBabyBear, FormBarrett, babybear_barrett)
ZKNTT_SMALL_QUAD(FieldBabyBear, FormShoup, babybear_shoup)
ZKNTT_SMALL_QUAD(FieldBabyBear, FormShoupLazy, babybear_shoup_lazy)
ZKNTT_SMALL_QUAD(FieldBabyBear, FormMont, babybear_montgomery)
ZKNTT_SMALL_QUAD(FieldBabyBear, FormMontLazy, babybear_montgomery_lazy)
ZKNTT_SMALL_QUAD(FieldKoalaBear, FormDynamic, koalabear_dynamic)
ZKNTT_SMALL_QUAD(FieldKoalaBear, FormConstMod, koalabear_const_mod)
ZKNTT_SMALL_QUAD(FieldKoalaBear, FormBarrett, koalabear_barrett)
ZKNTT_SMALL_QUAD(FieldKoalaBear, FormShoup, koalabear_shoup)
ZKNTT_SMALL_QUAD(FieldKoalaBear, FormShoupLazy, koalabear_shoup_lazy)
ZKNTT_SMALL_QUAD(FieldKoalaBear, FormMont, koalabear_montgomery)
ZKNTT_SMALL_QUAD(FieldKoalaBear, FormMontLazy, koalabear_montgomery_lazy)
