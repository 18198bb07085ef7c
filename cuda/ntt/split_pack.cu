// The split NTT's step between its two local NTT passes (one transform across k GPUs, see
// zkntt_core::distributed): a rank's step-1 output, N2 x c row-major (A[k2*c + j], column j is
// global column n1 = col0 + j), times the four-step twiddle w^(n1*k2) and the optional per-column
// and per-row factors the coset and inverse fold in here, written straight into the all-to-all's
// send layout: chunk h = k2 / r for rank h, row j, slot k2 % r. No separate pack pass.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"

namespace zkntt {
namespace split {

struct SplitPackParams {
    uint64_t a;             // const F*: the rank's step-1 output, N2 * c elements
    uint64_t send;          // F*: the send buffer, k chunks of c * r elements
    ntt::PowerTable omega;  // w^e, e < N (split: hi[e >> lo_bits] * lo[e & mask])
    uint64_t col_factor;    // const F*: c factors by local column j, or 0 for none
    uint64_t row_factor;    // const F*: N2 factors by k2, or 0 for none
    uint64_t col0;          // first global column of this rank
    uint32_t log_c;         // columns of this rank
    uint32_t log_r;         // k2 values per rank
    uint32_t log_n2;        // rows
    uint32_t lo_bits;       // split of `omega`
};
static_assert(sizeof(SplitPackParams) == 72, "mirrored by zkntt-gpu's multi/split.rs");

template <class F>
__device__ __forceinline__ void pack(const SplitPackParams& p) {
    const uint64_t total = 1ull << (p.log_n2 + p.log_c);
    const uint64_t c_mask = (1ull << p.log_c) - 1, r_mask = (1ull << p.log_r) - 1;
    const uint64_t lo_mask = (1ull << p.lo_bits) - 1;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t k2 = i >> p.log_c, j = i & c_mask;
        const uint64_t e = (p.col0 + j) * k2;  // n1 * k2 < N1 * N2 = N: no reduction needed
        F x = ntt::load_global<F>(p.a, i);
        const F lo = ntt::load_global<F>(p.omega.lo, e & lo_mask);
        const F hi = ntt::load_global<F>(p.omega.hi, e >> p.lo_bits);
        x = zkntt::mul(x, zkntt::mul(hi, lo));
        if (p.col_factor) x = zkntt::mul(x, ntt::load_global<F>(p.col_factor, j));
        if (p.row_factor) x = zkntt::mul(x, ntt::load_global<F>(p.row_factor, k2));
        const uint64_t dst = ((k2 >> p.log_r) << (p.log_c + p.log_r)) + (j << p.log_r) + (k2 & r_mask);
        x.store(reinterpret_cast<F*>(p.send) + dst);
    }
}

}  // namespace split
}  // namespace zkntt

// Launch: 1-D grid-stride over the N2 * c elements of the rank, any grid and block size.
#define ZKNTT_SPLIT_PACK(FIELD)                                                                    \
    extern "C" __global__ void ntt_split_pack_##FIELD(const zkntt::split::SplitPackParams p) {     \
        zkntt::split::pack<zkntt::FIELD>(p);                                                       \
    }

ZKNTT_SPLIT_PACK(bn254_fr)
ZKNTT_SPLIT_PACK(bls12_381_fr)
