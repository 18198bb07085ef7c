// The column stage (stages A and C of the plan, and whole transforms up to 2^11): P-point NTTs
// down the columns of the P x R matrix (R = N/P), in shared memory, in place.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"

namespace zkntt {
namespace ntt {

template <class F>
__device__ __forceinline__ void column_stage(const NttStageParams& p) {
    extern __shared__ __align__(16) uint32_t smem_words[];
    using L = lazy<typename F::params>;  // lazy range inside, canonical in global memory
    const uint32_t log_p = p.log_p, log_cols = p.log_cols;
    const uint32_t P = 1u << log_p, cols = 1u << log_cols, E = P << log_cols;
    const uint64_t R = 1ull << (p.log_n - log_p);
    const uint64_t c0 = (uint64_t)blockIdx.x << log_cols;
    const uint64_t base = p.data + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
    const SmemElements<F> sm{smem_words, SmemElements<F>::padded_slots(E)};

    // Load column c0+t, entry a, into slot t*P + rev(a). Consecutive threads: consecutive columns.
    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        const uint32_t t = e & (cols - 1), a = e >> log_cols;
        const uint64_t idx = (uint64_t)a * R + c0 + t;
        F x = load_global<F>(base, idx * p.elem_stride);
        if (p.flags & PRE_SCALE) x = L::mul(x, lookup<F>(p.pre, p.lo_bits, idx));
        sm.set((t << log_p) + bit_reverse(a, log_p), x);
    }
    __syncthreads();
    if (log_p > 0) dit_in_shared<F>(sm, log_p, cols, reinterpret_cast<const F*>(p.sub_twiddles));

    F post_const;
    if (p.flags & POST_CONST) post_const = load_global<F>(p.post_const, 0);
    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        const uint32_t t = e & (cols - 1), k = e >> log_cols;
        const uint64_t c = c0 + t;
        const uint64_t idx = (uint64_t)k * R + c;
        F x = sm.get((t << log_p) + k);
        if (p.flags & TWIDDLE_OUT) x = L::mul(x, lookup<F>(p.omega, p.lo_bits, c * k));
        if (p.flags & POST_SCALE) x = L::mul(x, lookup<F>(p.post, p.lo_bits, idx));
        if (p.flags & POST_CONST) x = L::mul(x, post_const);
        x = L::canonical(x);
        x.store(reinterpret_cast<F*>(base) + idx * p.elem_stride);
    }
}

}  // namespace ntt
}  // namespace zkntt

// Launch: grid (R / cols, batch), 128 threads, dynamic shared memory 32 * padded_slots(P * cols)
// bytes. In/out: natural order, in place; column c of transform b is data[b*batch_stride +
// (a*R + c)*elem_stride] for a < P.
#define ZKNTT_COLUMN_STAGE(FIELD)                                                                  \
    extern "C" __global__ void __launch_bounds__(128, 4) ntt_column_block_##FIELD(                    \
        const zkntt::ntt::NttStageParams p) {                                                      \
        zkntt::ntt::column_stage<zkntt::FIELD>(p);                                                 \
    }

ZKNTT_COLUMN_STAGE(bn254_fr)
ZKNTT_COLUMN_STAGE(bls12_381_fr)
