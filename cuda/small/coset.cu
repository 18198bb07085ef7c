// Coset powers and zero-padding of column-major transforms, for the Plonky3 backend's coset DFTs
// and low-degree extensions (crates/zkntt-small/src/coset.rs; CPU twin `coset::expand_twin`).
// The multiplier is a plain residue and the data any representation in [0, q) (Plonky3's
// Montgomery form included): x * s^j mod q keeps the representation, as the NTT's twiddles do.
#include <cstdint>

#include "small/ntt.cuh"

namespace zkntt {
namespace small {

// Launch parameters (mirrored by `CosetParams` in crates/zkntt-small/src/coset.rs).
struct CosetParams {
    const uint32_t* in;   // columns << log_in elements, column after column
    uint32_t* out;        // columns << log_out elements (may equal `in` when log_out == log_in)
    const uint32_t* lo;   // s^i, i < 4096 (plain residues)
    const uint32_t* hi;   // s^(4096 i), i < max(1, 2^log_in / 4096)
    uint64_t columns;
    uint32_t log_in;      // rows j < 2^log_in take in[j] * s^j; rows above are zero
    uint32_t log_out;     // log_out >= log_in
};

template <class F>
__device__ __forceinline__ void coset_expand(const CosetParams& p) {
    const uint64_t total = p.columns << p.log_out;
    const uint64_t rows_in = 1ull << p.log_in;
    const uint64_t mask_out = (1ull << p.log_out) - 1;
    for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t j = e & mask_out;
        uint32_t y = 0;
        if (j < rows_in) {
            const uint32_t x = p.in[((e >> p.log_out) << p.log_in) + j];
            y = mul_const_mod<F::Q>(x, __ldg(p.lo + (j & (TILE - 1))));
            y = mul_const_mod<F::Q>(y, __ldg(p.hi + (j >> TILE_LOG)));
        }
        p.out[e] = y;
    }
}

}  // namespace small
}  // namespace zkntt

// Launch: any block and grid (grid-stride over columns << log_out elements). In: column-major
// transforms of 2^log_in; out: of 2^log_out, row j times s^j, rows from 2^log_in on zero.
#define ZKNTT_SMALL_COSET(FIELD, NAME)                                                              \
    extern "C" __global__ void small_coset_expand_##NAME(const zkntt::small::CosetParams p) {     \
        zkntt::small::coset_expand<zkntt::small::FIELD>(p);                                          \
    }

ZKNTT_SMALL_COSET(FieldQ28, q28)
ZKNTT_SMALL_COSET(FieldBabyBear, babybear)
ZKNTT_SMALL_COSET(FieldKoalaBear, koalabear)
