// The cluster launch: a whole transform of N = C x L (C = 2^c blocks, L = 2^l elements each) in one
// launch, on a thread-block cluster (sm_90) whose blocks exchange through distributed shared memory
// instead of global memory and a second and third launch. Four-step, with i = i1 L + i2 and
// k = k1 + C k2 (i1, k1 < C; i2, k2 < L):
//   X[k1 + C k2] = sum_i2 w_L^(i2 k2) w_N^(i2 k1) sum_i1 x[i1 L + i2] w_C^(i1 k1).
// Block b (cluster rank b) of transform u:
//   1. loads the L/C columns i2 = b L/C + t (t < L/C), each column's C entries from the C rows
//      (coset forward: times g^i), into `cols` (slot t C + i1); runs their C-point DIFs
//      (dif_in_shared, reading the L-point table at every (L/C)-th entry), so slot t C + j holds
//      entry k1 = rev_c(j); multiplies it by w_N^(i2 k1) and stores it into block k1's `row`,
//      slot i2; cluster barrier;
//   2. runs the L-point DIF on `row` (its row k1 = b; slot j then holds entry k2 = rev_l(j)) and
//      stores X[b + C k2] (inverse: times 1/N or g^-k / N), canonical.
// In a bit-reversed input (IN_BITREV) entry i sits at rev_n(i) = rev_l(i2) C + rev_c(i1), so a
// column's C entries are contiguous; in a bit-reversed output (OUT_BITREV) entry k goes to
// rev_n(k) = rev_c(k1) L + rev_l(k2), so block k1's outputs are one contiguous segment, stored
// in the order of `row`'s slots. Every remote access lies between a barrier that every block has
// reached after starting and the cluster barrier, so no block is addressed before it started or
// after it exited. CPU twin: zkntt_core::self_sort::cluster_launch.
#include "cluster.cuh"
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"

namespace zkntt {
namespace ntt {

// Global accesses of one thread issued together (their latencies overlap).
constexpr uint32_t CLUSTER_BATCH = 4;

// x[u] *= t^(e[u]) (a split power table) for u < B: every read issued before the first product,
// the products out of line (mul_called).
template <class F, uint32_t B>
__device__ __forceinline__ void mul_powers_called(F (&x)[B], const PowerTable& t, uint32_t lo_bits,
                                                  const uint64_t (&e)[B]) {
    F lo[B], hi[B];
#pragma unroll
    for (uint32_t u = 0; u < B; u++) {
        lo[u] = load_global<F>(t.lo, e[u] & ((1ull << lo_bits) - 1));
        hi[u] = load_global<F>(t.hi, e[u] >> lo_bits);
    }
#pragma unroll
    for (uint32_t u = 0; u < B; u++) x[u] = mul_called<F>(x[u], mul_called<F>(hi[u], lo[u]));
}

template <class F, bool IN_REV, bool OUT_REV>
__device__ __forceinline__ void cluster_transform(const NttStageParams& p) {
#if ZKNTT_HAS_CLUSTERS
    using L = lazy<typename F::params>;
    cluster::arrive_started();
    wait_for_previous_grid();
    ZKNTT_DYNAMIC_SHARED(uint32_t, smem_words);
    const uint32_t log_n = p.log_n, log_c = p.log_cols, log_l = log_n - log_c;
    const uint32_t C = 1u << log_c, Lsz = 1u << log_l, log_w = log_l - log_c;  // L/C = 2^log_w columns
    const uint32_t b = cluster::rank();
    const uint32_t padded = SmemElements<F>::padded_slots(Lsz);
    const SmemElements<F> cols{smem_words, padded};
    const SmemElements<F> row{smem_words + F::N * padded, padded};
    const uint64_t base = p.data + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
    const F* tw = reinterpret_cast<const F*>(p.sub_twiddles);  // w_L^t, t < L/2

    // 1. Column t, entry i1 (i2 = b L/C + t) to slot t C + i1. Consecutive threads take
    // consecutive positions: consecutive columns (natural input) or entries (bit-reversed).
    for (uint32_t e0 = threadIdx.x; e0 < Lsz; e0 += CLUSTER_BATCH * blockDim.x) {
        F x[CLUSTER_BATCH];
        uint64_t i[CLUSTER_BATCH];
        uint32_t slot[CLUSTER_BATCH];
#pragma unroll
        for (uint32_t u = 0; u < CLUSTER_BATCH; u++) {
            const uint32_t e = min(e0 + u * blockDim.x, Lsz - 1);
            uint32_t t, i1;
            if (IN_REV) {
                t = e >> log_c;
                i1 = bit_reverse(e & (C - 1), log_c);
            } else {
                t = e & ((1u << log_w) - 1);
                i1 = e >> log_w;
            }
            const uint32_t i2 = (b << log_w) + t;
            i[u] = ((uint64_t)i1 << log_l) + i2;
            const uint64_t pos = IN_REV ? ((uint64_t)bit_reverse(i2, log_l) << log_c) + (e & (C - 1)) : i[u];
            x[u] = load_global<F>(base, pos * p.elem_stride);
            slot[u] = (t << log_c) + i1;
        }
        if (p.flags & PRE_SCALE) mul_powers_called<F, CLUSTER_BATCH>(x, p.pre, p.lo_bits, i);
#pragma unroll
        for (uint32_t u = 0; u < CLUSTER_BATCH; u++)
            if (e0 + u * blockDim.x < Lsz) cols.set(slot[u], x[u]);
    }
    __syncthreads();
    dif_in_shared<F, true>(cols, log_c, 1u << log_w, tw, log_w);

    // Slot t C + j holds entry k1 = rev_c(j) of column i2: times w_N^(i2 k1), to block k1's row,
    // slot i2. Consecutive threads take consecutive columns (one destination block, consecutive
    // slots there).
    const uint32_t row_at = (uint32_t)__cvta_generic_to_shared(row.base);
    cluster::wait_started();
    for (uint32_t e0 = threadIdx.x; e0 < Lsz; e0 += 2 * blockDim.x) {
        F x[2];
        uint64_t ex[2];
        uint32_t dst[2], k1[2];
#pragma unroll
        for (uint32_t u = 0; u < 2; u++) {
            const uint32_t e = min(e0 + u * blockDim.x, Lsz - 1);
            const uint32_t t = e & ((1u << log_w) - 1), j = e >> log_w;
            const uint32_t i2 = (b << log_w) + t;
            k1[u] = bit_reverse(j, log_c);
            x[u] = cols.get((t << log_c) + j);
            ex[u] = (uint64_t)i2 * k1[u];
            dst[u] = SmemElements<F>::pad(i2);
        }
        if (p.flags & OMEGA_FULL) {
            const F w0 = load_global<F>(p.omega.lo, ex[0]), w1 = load_global<F>(p.omega.lo, ex[1]);
            x[0] = mul_called<F>(x[0], w0);
            x[1] = mul_called<F>(x[1], w1);
        } else {
            mul_powers_called<F, 2>(x, p.omega, p.lo_bits, ex);
        }
#pragma unroll
        for (uint32_t u = 0; u < 2; u++) {
            if (e0 + u * blockDim.x >= Lsz) continue;
            const uint32_t at = cluster::remote(row_at + 4 * dst[u], k1[u]);
#pragma unroll
            for (uint32_t w = 0; w < F::N; w++) cluster::store_remote(at + 4 * w * padded, x[u].l[w]);
        }
    }
    cluster::barrier();

    // 2. Row k1 = b: the L-point DIF; slot j then holds entry k2 = rev_l(j).
    dif_in_shared<F, true>(row, log_l, 1, tw);
    F post_const;
    if (p.flags & POST_CONST) post_const = load_global<F>(p.post_const, 0);
    for (uint32_t e0 = threadIdx.x; e0 < Lsz; e0 += 2 * blockDim.x) {
        F x[2];
        uint64_t k[2], pos[2];
#pragma unroll
        for (uint32_t u = 0; u < 2; u++) {
            const uint32_t e = min(e0 + u * blockDim.x, Lsz - 1);
            // Bit-reversed output: position e of the segment takes slot e (entry rev_l(e)).
            // Natural: entry k2 = e, from slot rev_l(e), to position b + C e.
            const uint32_t k2 = OUT_REV ? bit_reverse(e, log_l) : e;
            x[u] = row.get(OUT_REV ? e : bit_reverse(e, log_l));
            k[u] = b + ((uint64_t)k2 << log_c);
            pos[u] = OUT_REV ? ((uint64_t)bit_reverse(b, log_c) << log_l) + e : k[u];
        }
        if (p.flags & POST_SCALE) mul_powers_called<F, 2>(x, p.post, p.lo_bits, k);
#pragma unroll
        for (uint32_t u = 0; u < 2; u++) {
            if (p.flags & POST_CONST) x[u] = mul_called<F>(x[u], post_const);
            x[u] = L::canonical(x[u]);
            if (e0 + u * blockDim.x < Lsz) store_global<F>(base, pos[u] * p.elem_stride, x[u]);
        }
    }
#endif
}

}  // namespace ntt
}  // namespace zkntt

// Launch (sm_90+ only): grid (C, batch) as 1-D clusters of C = 2^p.log_cols blocks (one cluster
// per transform), C <= L = N / C, up to 256 threads (any count: every loop strides by the block);
// dynamic shared memory 2 * 32 * padded_slots(L) bytes. p.sub_twiddles: w_L^t, t < L/2; p.omega:
// w_N^e (OMEGA_FULL: all N powers); flags PRE_SCALE, POST_SCALE, POST_CONST, OMEGA_FULL, and
// IN_BITREV / OUT_BITREV for the bit-reversed orderings. In place: every global read of a
// transform precedes the cluster barrier, every write follows it.
#define ZKNTT_CLUSTER(FIELD)                                                                       \
    extern "C" __global__ void __launch_bounds__(256, 1) ntt_cluster_##FIELD(                          \
        const zkntt::ntt::NttStageParams p) {                                                            \
        if (p.flags & zkntt::ntt::IN_BITREV)                                                             \
            zkntt::ntt::cluster_transform<zkntt::FIELD, true, false>(p);                                 \
        else if (p.flags & zkntt::ntt::OUT_BITREV)                                                       \
            zkntt::ntt::cluster_transform<zkntt::FIELD, false, true>(p);                                 \
        else                                                                                             \
            zkntt::ntt::cluster_transform<zkntt::FIELD, false, false>(p);                                \
    }

ZKNTT_CLUSTER(bn254_fr)
ZKNTT_CLUSTER(bls12_381_fr)
