// The middle stage (B) of the plan: Q-point NTTs on the groups (a, *, b) = {a*R + m*P + b : m},
// times w_N^(P*b*k), written to group (b, *, a). A block owns a pair of T x T tiles of groups,
// (a in I, b in J) and (a in J, b in I), so every write lands on data the block itself read:
// in place, and the transposition needs no second buffer.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"

namespace zkntt {
namespace ntt {

template <class F>
__device__ __forceinline__ void middle_stage(const NttStageParams& p) {
    extern __shared__ __align__(16) uint32_t smem_words[];
    using L = lazy<typename F::params>;  // lazy range inside, canonical in global memory
    const uint32_t log_p = p.log_p, log_q = p.log_q, log_t = p.log_cols;
    const uint32_t P = 1u << log_p, Q = 1u << log_q, T = 1u << log_t;
    const uint64_t R = (uint64_t)P << log_q;
    const uint32_t tiles = P >> log_t;
    const uint32_t ti = blockIdx.x / tiles, tj = blockIdx.x % tiles;
    if (ti > tj) return;  // the pair (tj, ti) is done by block (ti, tj)
    const uint32_t pairs = ti == tj ? 1 : 2;
    const uint32_t TT = T * T;
    const uint32_t E = pairs * TT * Q;
    const uint64_t base = p.data + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
    const SmemElements<F> sm{smem_words, SmemElements<F>::padded_slots(E)};

    // Group g = sel*T*T + aa*T + bb is (a, b) = (I_sel*T + aa, J_sel*T + bb) with (I, J) = (ti, tj)
    // for sel 0 and (tj, ti) for sel 1. Load: consecutive threads take consecutive b.
    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        const uint32_t bb = e & (T - 1), aa = (e >> log_t) & (T - 1);
        const uint32_t m = (e >> (2 * log_t)) & (Q - 1), sel = e >> (2 * log_t + log_q);
        const uint64_t a = (uint64_t)(sel ? tj : ti) * T + aa, b = (uint64_t)(sel ? ti : tj) * T + bb;
        const F x = load_global<F>(base, (a * R + (uint64_t)m * P + b) * p.elem_stride);
        const uint32_t g = sel * TT + aa * T + bb;
        sm.set((g << log_q) + bit_reverse(m, log_q), x);
    }
    __syncthreads();
    dit_in_shared<F>(sm, log_q, pairs * TT, reinterpret_cast<const F*>(p.sub_twiddles));

    // Store group (a, b) entry k to (b, k, a): consecutive threads take consecutive a.
    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        const uint32_t aa = e & (T - 1), bb = (e >> log_t) & (T - 1);
        const uint32_t k = (e >> (2 * log_t)) & (Q - 1), sel = e >> (2 * log_t + log_q);
        const uint64_t a = (uint64_t)(sel ? tj : ti) * T + aa, b = (uint64_t)(sel ? ti : tj) * T + bb;
        const uint32_t g = sel * TT + aa * T + bb;
        F x = sm.get((g << log_q) + k);
        // w_N^(P*b*k) = w_(N/P)^(b*k), b*k < P*Q = N/P: one table read.
        x = L::canonical(L::mul(x, load_global<F>(p.mid_twiddles, b * k)));
        x.store(reinterpret_cast<F*>(base) + (b * R + (uint64_t)k * P + a) * p.elem_stride);
    }
}

}  // namespace ntt
}  // namespace zkntt

// Launch: grid ((P/T)^2, batch), 128 threads, dynamic shared memory 32 * padded_slots(2*T*T*Q)
// bytes; blocks below the diagonal exit at once. In/out: in place, group (a,*,b) -> (b,*,a).
#define ZKNTT_MIDDLE_STAGE(FIELD)                                                                  \
    extern "C" __global__ void __launch_bounds__(128, 4) ntt_middle_block_##FIELD(                    \
        const zkntt::ntt::NttStageParams p) {                                                      \
        zkntt::ntt::middle_stage<zkntt::FIELD>(p);                                                 \
    }

ZKNTT_MIDDLE_STAGE(bn254_fr)
ZKNTT_MIDDLE_STAGE(bls12_381_fr)
