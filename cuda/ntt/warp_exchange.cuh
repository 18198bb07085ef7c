// Exchanges inside a warp by __shfl_xor_sync, shared by the seed's kernels (stage1_block.cu,
// stage2_warp.cu): a register bit and a lane bit trade places so that every butterfly of a layer
// runs between two registers of one lane (no lane idles). CPU twin:
// zkntt_core::self_sort::swap_register_lane_bit.
#pragma once
#include <cstdint>

namespace zkntt {
namespace ntt {

// Word w of an element, or the one word of a slot index.
template <class F>
__device__ __forceinline__ uint32_t& word(F& x, int w) { return x.l[w]; }
__device__ __forceinline__ uint32_t& word(uint32_t& x, int) { return x; }

// Register bit `rbit` and lane bit `lbit` trade places: the lane whose bit is 0 keeps its
// registers with bit 0 and gets its partner's registers with bit 0 in place of its own with bit 1.
// Half a lane's elements cross, one word per shuffle.
template <uint32_t EL, class W, int WORDS>
__device__ __forceinline__ void swap_register_lane_bit(W (&x)[EL], uint32_t rbit, uint32_t lbit, bool up) {
#pragma unroll
    for (uint32_t r = 0; r < EL; r++) {
        if (r >> rbit & 1) continue;
        const uint32_t r1 = r | (1u << rbit);
#pragma unroll
        for (int w = 0; w < WORDS; w++) {
            uint32_t& lo = word(x[r], w);
            uint32_t& hi = word(x[r1], w);
            const uint32_t got = __shfl_xor_sync(0xffffffffu, up ? lo : hi, 1u << lbit);
            if (up) lo = got;
            else hi = got;
        }
    }
}

}  // namespace ntt
}  // namespace zkntt
