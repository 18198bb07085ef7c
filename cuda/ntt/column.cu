// The column stage (the first and last launches of the plan, and whole transforms up to 2^11):
// P-point NTTs down the columns of the P x R matrix (R = N/P), in shared memory, in place.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"

namespace zkntt {
namespace ntt {

// Elements per thread whose global accesses are issued together: 4 in the load loops, 2 in the
// store loops with their twiddle reads (4 there spills at 128 registers).
constexpr uint32_t LOAD_BATCH = 4;
constexpr uint32_t STORE_BATCH = 2;

template <class F>
__device__ __forceinline__ void column_stage(const NttStageParams& p) {
    wait_for_previous_grid();
    extern __shared__ __align__(16) uint32_t smem_words[];
    using L = lazy<typename F::params>;  // lazy range inside, canonical in global memory
    const uint32_t log_p = p.log_p, log_cols = p.log_cols;
    const uint32_t P = 1u << log_p, cols = 1u << log_cols, E = P << log_cols;
    const uint64_t R = 1ull << (p.log_n - log_p);
    const uint64_t c0 = p.col_base + ((uint64_t)blockIdx.x << log_cols);
    const uint64_t base = p.data + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
    const SmemElements<F> sm{smem_words, SmemElements<F>::padded_slots(E)};

    // Load column c0+t, entry a, into slot t*P + rev(a). Consecutive threads: consecutive columns.
    // LOAD_BATCH elements per thread per round, their global loads all in flight before the first
    // shared-memory store (one memory latency per round, not per element). Past the end (only
    // transforms below 2^9 elements have partial rounds) a thread re-reads element E-1 and skips
    // the store, so nothing but the stores needs a branch.
    for (uint32_t e0 = threadIdx.x; e0 < E; e0 += LOAD_BATCH * blockDim.x) {
        F x[LOAD_BATCH];
        uint64_t idx[LOAD_BATCH];
        uint32_t slot[LOAD_BATCH];
#pragma unroll
        for (uint32_t u = 0; u < LOAD_BATCH; u++) {
            const uint32_t e = min(e0 + u * blockDim.x, E - 1), t = e & (cols - 1), a = e >> log_cols;
            idx[u] = (uint64_t)a * R + c0 + t;
            x[u] = load_global<F>(base, idx[u] * p.elem_stride);
            slot[u] = (t << log_p) + bit_reverse(a, log_p);
        }
        if (p.flags & PRE_SCALE) mul_lookups<F, LOAD_BATCH>(x, p.pre, p.lo_bits, idx);
#pragma unroll
        for (uint32_t u = 0; u < LOAD_BATCH; u++)
            if (e0 + u * blockDim.x < E) sm.set(slot[u], x[u]);
    }
    __syncthreads();
    if (log_p > 0) dit_in_shared<F>(sm, log_p, cols, reinterpret_cast<const F*>(p.sub_twiddles));
    allow_dependent_launch();

    F post_const;
    if (p.flags & POST_CONST) post_const = load_global<F>(p.post_const, 0);
    // Entry k of column c to (k, c), STORE_BATCH elements per thread per round (their twiddle reads in
    // flight together); the same clamping as the loads.
    for (uint32_t e0 = threadIdx.x; e0 < E; e0 += STORE_BATCH * blockDim.x) {
        F x[STORE_BATCH];
        uint64_t idx[STORE_BATCH], ck[STORE_BATCH];
#pragma unroll
        for (uint32_t u = 0; u < STORE_BATCH; u++) {
            const uint32_t e = min(e0 + u * blockDim.x, E - 1), t = e & (cols - 1), k = e >> log_cols;
            idx[u] = (uint64_t)k * R + c0 + t;
            ck[u] = (c0 + t) * k;
            x[u] = sm.get((t << log_p) + k);
        }
        if (p.flags & TWIDDLE_OUT) {
            if (p.flags & OMEGA_FULL) mul_table<F, STORE_BATCH>(x, p.omega.lo, ck);
            else mul_lookups<F, STORE_BATCH>(x, p.omega, p.lo_bits, ck);
        }
        if (p.flags & POST_SCALE) mul_lookups<F, STORE_BATCH>(x, p.post, p.lo_bits, idx);
#pragma unroll
        for (uint32_t u = 0; u < STORE_BATCH; u++) {
            if (p.flags & POST_CONST) x[u] = L::mul(x[u], post_const);
            x[u] = L::canonical(x[u]);
        }
#pragma unroll
        for (uint32_t u = 0; u < STORE_BATCH; u++)
            if (e0 + u * blockDim.x < E) x[u].store(reinterpret_cast<F*>(base) + idx[u] * p.elem_stride);
    }
}

}  // namespace ntt
}  // namespace zkntt

// Launch: grid (R / cols, batch), 128 threads (or fewer blocks from column p.col_base on), dynamic shared memory 32 * padded_slots(P * cols)
// bytes. In/out: natural order, in place; column c of transform b is data[b*batch_stride +
// (a*R + c)*elem_stride] for a < P.
#define ZKNTT_COLUMN(FIELD)                                                                  \
    extern "C" __global__ void __launch_bounds__(128, 4) ntt_column_##FIELD(                    \
        const zkntt::ntt::NttStageParams p) {                                                      \
        zkntt::ntt::column_stage<zkntt::FIELD>(p);                                                 \
    }

ZKNTT_COLUMN(bn254_fr)
ZKNTT_COLUMN(bls12_381_fr)
