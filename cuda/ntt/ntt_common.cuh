// Shared pieces of the NTT kernels: the launch parameters (mirrored by #[repr(C)] structs in
// crates/zkntt-gpu/src/ntt/params.rs), shared-memory element storage, twiddle lookup.
#pragma once
#include <cstdint>

namespace zkntt {
namespace ntt {

// Flags of NttStageParams::flags.
constexpr uint32_t PRE_SCALE = 1;     // input element j *= pre(j)          (coset forward: g^j)
constexpr uint32_t TWIDDLE_OUT = 2;   // column output (k1, c) *= w_N^(c*k1) (stage A)
constexpr uint32_t POST_SCALE = 4;    // output element k *= post(k)        (coset inverse: g^-k / N)
constexpr uint32_t POST_CONST = 8;    // output element *= post_const[0]    (inverse: 1/N)

// A power table split in two: x^e = hi[e >> lo_bits] * lo[e & (2^lo_bits - 1)], e < N.
// Two tables of about sqrt(N) entries instead of N.
struct PowerTable {
    uint64_t lo;  // device pointers to field elements
    uint64_t hi;
};

struct NttStageParams {
    uint64_t data;          // F*: first element of transform 0
    uint64_t elem_stride;   // elements between consecutive entries of one transform
    uint64_t batch_stride;  // elements between transform b and b+1
    uint64_t sub_twiddles;  // F*: w_S^t, t < S/2, for the S-point sub-NTT of this stage
    PowerTable omega;       // w_N^e (stage twiddles)
    PowerTable pre;         // PRE_SCALE table
    PowerTable post;        // POST_SCALE table
    uint64_t post_const;    // F*: one element (POST_CONST)
    uint32_t log_n;         // the whole transform
    uint32_t log_p;         // P of the plan (the column size)
    uint32_t log_q;         // Q of the plan (middle stage)
    uint32_t log_cols;      // column stage: columns per block; middle stage: log2 tile side
    uint32_t lo_bits;       // split of every PowerTable
    uint32_t flags;
};

__device__ __forceinline__ uint32_t bit_reverse(uint32_t x, uint32_t bits) {
    return bits == 0 ? 0 : __brev(x) >> (32 - bits);
}

__device__ __forceinline__ uint64_t bit_reverse64(uint64_t x, uint32_t bits) {
    return bits == 0 ? 0 : __brevll(x) >> (64 - bits);
}

// Elements in shared memory, column-major by 32-bit word with one padding word per 32 slots, so
// that consecutive slots are consecutive banks for every word.
template <class F>
struct SmemElements {
    uint32_t* base;
    uint32_t stride;  // words between word w and word w+1 of the same slot

    __device__ __forceinline__ static uint32_t padded_slots(uint32_t slots) { return slots + (slots >> 5) + 1; }
    __device__ __forceinline__ static uint32_t pad(uint32_t slot) { return slot + (slot >> 5); }

    __device__ __forceinline__ F get(uint32_t slot) const {
        F x;
        const uint32_t s = pad(slot);
#pragma unroll
        for (int w = 0; w < F::N; w++) x.l[w] = base[w * stride + s];
        return x;
    }
    __device__ __forceinline__ void set(uint32_t slot, const F& x) const {
        const uint32_t s = pad(slot);
#pragma unroll
        for (int w = 0; w < F::N; w++) base[w * stride + s] = x.l[w];
    }
};

template <class F>
__device__ __forceinline__ F load_global(uint64_t ptr, uint64_t index) {
    return F::load(reinterpret_cast<const F*>(ptr) + index);
}

template <class F>
__device__ __forceinline__ F lookup(const PowerTable& t, uint32_t lo_bits, uint64_t e) {
    const F lo = load_global<F>(t.lo, e & ((1ull << lo_bits) - 1));
    const F hi = load_global<F>(t.hi, e >> lo_bits);
    return mul(hi, lo);
}

// In-place radix-2 DIT over `count` independent sub-transforms of 2^log_s slots each, held in
// bit-reversed order at slots [g << log_s, (g+1) << log_s); natural order afterwards.
// Called by the whole block; ends with a barrier.
template <class F>
__device__ __forceinline__ void dit_in_shared(const SmemElements<F>& sm, uint32_t log_s, uint32_t count,
                                              const F* __restrict__ tw) {
    const uint32_t half_total = count << (log_s - 1);  // butterflies per layer
    for (uint32_t s = 0; s < log_s; s++) {
        const uint32_t half = 1u << s;
        for (uint32_t i = threadIdx.x; i < half_total; i += blockDim.x) {
            const uint32_t g = i >> (log_s - 1);
            const uint32_t j = i & ((1u << (log_s - 1)) - 1);
            const uint32_t pos = j & (half - 1);
            const uint32_t i0 = (g << log_s) + ((j >> s) << (s + 1)) + pos;
            const uint32_t i1 = i0 + half;
            const F w = F::load(tw + (pos << (log_s - 1 - s)));
            const F u = sm.get(i0);
            const F v = mul(sm.get(i1), w);
            sm.set(i0, add(u, v));
            sm.set(i1, sub(u, v));
        }
        __syncthreads();
    }
}

}  // namespace ntt
}  // namespace zkntt
