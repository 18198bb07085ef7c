// The cluster kernel: one transform of N = C x 4096 (C = 2..16, so 2^13..2^16) in one launch,
// on a thread-block cluster of C blocks (sm_90) that exchange through distributed shared memory
// instead of global memory and a second launch (the panel kernel's two passes). Its blocks are
// 1024 threads running the quad tile's rounds (quad_tile.cuh): a lone transform is one chain of
// dependent layers, which 32 warps per SM shorten.
//
// N = C x 4096, x[4096 n1 + n2] (n1 < C, n2 < 4096); X[k1 + C k2] =
//   sum_n2 w_4096^(n2 k2) w_N^(n2 k1) sum_n1 x[4096 n1 + n2] w_C^(n1 k1).
// Block `me` (cluster rank) of transform u:
//   1. loads its segment x[4096 me + n2] into `seg` and the DIF table into `table`; cluster barrier;
//   2. gathers its 4096 / C columns n2 = me 4096 / C + j from the C blocks' `seg` into `col`
//      (column j's C words at j C ..), runs their C-point DIFs (the quad rounds on 2^log C-word
//      transforms), multiplies entry k1 by w_N^(n2 k1) and sends it to block k1's `row[n2]`;
//      cluster barrier;
//   3. runs the 4096-point DIF on `row` (output row k1 = me; `finish` with the inverse's scale)
//      and stores X[me + C k2] (stride C).
// Every remote access precedes the second barrier, which every block passes before it exits.
#include "small/quad_tile.cuh"

namespace zkntt {
namespace small {
namespace cluster {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ uint32_t rank() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// Every thread of every block of the cluster; orders shared (local and remote) and global memory.
__device__ __forceinline__ void barrier() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// The shared::cluster address of shared-memory address `local` in block `block` of the cluster.
__device__ __forceinline__ uint32_t remote(uint32_t local, uint32_t block) {
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local), "r"(block));
    return r;
}
__device__ __forceinline__ uint32_t load_remote(uint32_t addr) {
    uint32_t v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}
__device__ __forceinline__ void store_remote(uint32_t addr, uint32_t v) {
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
#endif

// Mirrored by `ClusterParams` in crates/zkntt-small/src/ntt/cluster.rs. ntt: the transforms
// (log_n 13..16, input at data, the 4096-entry DIF table), the 2-D tables w_N^i and w_N^(4096 i)
// in post_lo / post_hi, the inverse's scale. out: where the outputs go (may be ntt.data).
struct ClusterParams {
    NttParams ntt;
    uint32_t* out;
};

// Dynamic shared memory: seg (4096 words), col and row (padded tiles), the DIF table.
template <class Form>
constexpr uint32_t smem_bytes() {
    return TILE * 4 + quad::smem_bytes<Form>(2);
}

template <class F, class Form>
__device__ __forceinline__ void kernel(const ClusterParams& cp) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using W = typename Form::W;
    using quad::pad;
    extern __shared__ uint4 smem[];
    uint32_t* seg = reinterpret_cast<uint32_t*>(smem);
    uint32_t* col = seg + TILE;
    uint32_t* row = col + quad::PADDED;
    W* table = reinterpret_cast<W*>(row + quad::PADDED);
    const NttParams& p = cp.ntt;
    const Form f(p);
    const uint32_t i = threadIdx.x;
    const uint32_t log_c = p.log_n - TILE_LOG, me = rank();
    const uint32_t log_cols = TILE_LOG - log_c;  // columns per block
    const uint64_t first = (uint64_t)(blockIdx.x >> log_c) << p.log_n;
    const uint32_t* data = p.data + first;
    uint32_t* out = cp.out + first;
    NttParams rows = p;  // the scale, no 2-D twiddle
    rows.post_lo = nullptr;

    // Word q = i + 1024 k of the column phase: column j = q mod 2^log_cols, entry s = q >> log_cols
    // (word n1 = s of the gather, slot s of the DIF's output, entry k1 = rev(s)). The 2-D
    // twiddles of its entries are read here, with the segment and the table, so that their
    // latencies overlap.
    W w_lo[4], w_hi[4];
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) {
        const uint32_t q = i + k * quad::THREADS;
        const uint32_t n2 = (me << log_cols) + (q & ((1u << log_cols) - 1));
        const uint32_t e = n2 * bitrev(q >> log_cols, log_c);
        w_lo[k] = Form::load(p.post_lo, e & (TILE - 1));
        w_hi[k] = Form::load(p.post_hi, e >> TILE_LOG);
    }
    // 1. Segment me and the table, coalesced.
    quad::stage_table<Form>(table, p.twiddles);
    {
        uint32_t x[4];
#pragma unroll
        for (uint32_t k = 0; k < 4; k++) x[k] = data[(me << TILE_LOG) | (i + k * quad::THREADS)];
#pragma unroll
        for (uint32_t k = 0; k < 4; k++) seg[i + k * quad::THREADS] = x[k];
    }
    barrier();

    // 2. Columns: a warp reads 32 consecutive n2 of one block's segment.
    const uint32_t seg_at = (uint32_t)__cvta_generic_to_shared(seg);
    const uint32_t row_at = (uint32_t)__cvta_generic_to_shared(row);
    {
        uint32_t x[4];
#pragma unroll
        for (uint32_t k = 0; k < 4; k++) {
            const uint32_t q = i + k * quad::THREADS;
            const uint32_t n2 = (me << log_cols) + (q & ((1u << log_cols) - 1));
            x[k] = load_remote(remote(seg_at + 4 * n2, q >> log_cols));
        }
#pragma unroll
        for (uint32_t k = 0; k < 4; k++) {
            const uint32_t q = i + k * quad::THREADS;
            col[pad(((q & ((1u << log_cols) - 1)) << log_c) | (q >> log_cols))] = x[k];
        }
    }
    __syncthreads();
    quad::layers<F, Form>(f, col, table, log_c);
    // Entry k1 = rev(s) of column j times w_N^(n2 k1), in canonical form, to block k1.
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) {
        const uint32_t q = i + k * quad::THREADS;
        const uint32_t j = q & ((1u << log_cols) - 1), s = q >> log_cols;
        uint32_t x = post_twiddle<F>(f, col[pad((j << log_c) | s)], w_lo[k], w_hi[k]);
        if (Form::LAZY) x = reduce_once(x, F::Q);
        store_remote(remote(row_at + 4 * pad((me << log_cols) + j), bitrev(s, log_c)), x);
    }
    barrier();

    // 3. The 4096-point row k1 = me, natural order in `row`, out at stride C.
    quad::layers<F, Form>(f, row, table, TILE_LOG);
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) {
        const uint32_t k2 = i + k * quad::THREADS;
        const uint32_t x = row[pad(bitrev(k2, TILE_LOG))];
        out[me + (k2 << log_c)] = finish<F>(f, rows, x, 0, k2);
    }
#endif
}

}  // namespace cluster
}  // namespace small
}  // namespace zkntt

// Launch (sm_90+ only): 1024 threads per block, clusters of C = 2^(log_n - 12) blocks (1-D), one
// cluster per transform (grid = batch x C); dynamic shared memory cluster::smem_bytes<Form>() (49
// KiB + the table: 65 KiB, 81 KiB for the Shoup forms). Natural order, in place or not (every
// block's reads precede the cluster's first barrier, its writes follow the second).
#define ZKNTT_SMALL_CLUSTER(FIELD, FORM, NAME)                                                        \
    extern "C" __global__ void __launch_bounds__(1024, 1)                                           \
        small_ntt_cluster_##NAME(const zkntt::small::cluster::ClusterParams p) {                                  \
        zkntt::small::cluster::kernel<zkntt::small::FIELD, zkntt::small::FORM<zkntt::small::FIELD>>(p); \
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
