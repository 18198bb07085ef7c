// Shared pieces of the NTT kernels: the launch parameters (mirrored by #[repr(C)] structs in
// crates/zkntt-gpu/src/ntt/params.rs), shared-memory element storage, twiddle-table reads.
#pragma once
#include <cstdint>

#include "field/mont52.cuh"
#include "launch_dependent.cuh"
#include "shared_memory.cuh"

namespace zkntt {
namespace ntt {

// Flags of NttStageParams::flags (the plan's launch table sets them: zkntt_core::plan::flags).
constexpr uint32_t PRE_SCALE = 1;     // input element j *= pre(j)          (coset forward: g^j)
constexpr uint32_t TWIDDLE_OUT = 2;   // column output (k1, c) *= w_N^(c*k1) (first column stage)
constexpr uint32_t POST_SCALE = 4;    // output element k *= post(k)        (coset inverse: g^-k / N)
constexpr uint32_t POST_CONST = 8;    // output element *= post_const[0]    (inverse: 1/N)
constexpr uint32_t OMEGA_FULL = 16;   // omega.lo holds all N powers: one read, no product (small N)
constexpr uint32_t IN_BITREV = 32;    // column row i holds entry rev(i); PRE_SCALE exponents reversed
constexpr uint32_t OUT_BITREV = 64;   // column entry k to row rev(k); POST_SCALE exponents reversed
constexpr uint32_t TWIDDLE_IN = 128;  // column input (row i, column c) *= w_M^(rev(i)*c) (RN)
constexpr uint32_t MID_TWIDDLES = 256;  // TWIDDLE_IN/OUT read w_M^e from mid_twiddles (M = N/P)
constexpr uint32_t NARROW = 512;        // at most 2 elements per thread: radix-2 layers, a butterfly
                                        // per thread; sub-NTT twiddles staged in shared memory
constexpr uint32_t FP64_HYBRID = 1024;  // host only: the launch runs a `_hybrid` column symbol
constexpr uint32_t LDE = 2048;          // the `_lde` column symbol: a coset LDE's inverse last and
                                        // forward first column launches in one (column.cu)
constexpr uint32_t SCRATCH_OUT = 4096;  // host only: the natural column launch stores into the scratch
constexpr uint32_t SCRATCH_IN = 8192;   // natural column launch: row i of column c at data[c*S + i]
constexpr uint32_t MID_SCALED = 16384;  // mid_twiddles holds w_M^e / N (the inverse's 1/N): no folding
constexpr uint32_t OMEGA_SCALED = 32768;  // omega.lo holds w_N^e / N (the inverse's 1/N): no folding
constexpr uint32_t TRIGGER_START = 65536;  // column launch: allow_dependent_launch right after the wait

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
    PowerTable omega;       // w_N^e (stage twiddles); times 1/N on an inverse's OMEGA_SCALED launch (not folded)
    PowerTable pre;         // PRE_SCALE table
    PowerTable post;        // POST_SCALE table
    uint64_t post_const;    // F*: one element (POST_CONST)
    uint32_t log_n;         // the whole transform
    uint32_t log_p;         // P of the plan (column stage: its column size S)
    union {
        uint32_t log_q;     // middle stage: Q of the plan
        uint32_t log_m;     // column stage: log2 of the sub-transforms whose columns it works down
                            // (log_n, or less in the bit-reversed orderings: zkntt_core::plan)
    };
    uint32_t log_cols;      // column stage: columns per block; middle stage: log2 tile side
    uint32_t lo_bits;       // split of every PowerTable
    uint32_t flags;
    uint64_t mid_twiddles;  // F*: middle stage, w_N^(P*e) = w_(N/P)^e for e < N/P (one lookup, no product);
                            // times 1/N on an inverse's MID_SCALED launch (not folded)
    uint64_t col_base;      // column stage: first column of this launch (the host pipeline launches
                            // the column stages a range of columns at a time); 0 otherwise
    uint64_t out;           // natural column stage: F* the stores go to (transform 0), always set:
                            // data (in place), or a two-pass transform's scratch and back
};
static_assert(sizeof(NttStageParams) == 136, "mirrored by params.rs");

// Programmatic dependent launch: every NTT kernel calls `wait_for_previous_grid` before its first
// global memory access (launch_dependent.cuh); the host sets the launch attribute on sm_90+ for
// the launches the plan marks dependent (zkntt_core::plan::Chain).
using zkntt::allow_dependent_launch;
using zkntt::wait_for_previous_grid;

__device__ __forceinline__ uint32_t bit_reverse(uint32_t x, uint32_t bits) {
    return bits == 0 ? 0 : __brev(x) >> (32 - bits);
}

__device__ __forceinline__ uint64_t bit_reverse64(uint64_t x, uint32_t bits) {
    return bits == 0 ? 0 : __brevll(x) >> (64 - bits);
}

// Elements in shared memory, column-major by 32-bit word with one padding word per 32 slots, so
// that consecutive slots are consecutive banks for every word (stage1 and the cluster kernel; the
// column and middle blocks use SmemQuads).
template <class F>
struct SmemElements {
    uint32_t* base;
    uint32_t stride;  // words between word w and word w+1 of the same slot

    __host__ __device__ __forceinline__ static constexpr uint32_t padded_slots(uint32_t slots) {
        return slots + (slots >> 5) + 1;
    }
    __device__ __forceinline__ static uint32_t pad(uint32_t slot) { return slot + (slot >> 5); }

    // A slot's address, and that of slot + 2^b from it where the slot's bit b is 0 (a butterfly
    // group's other slots); the same interface as SmemQuads.
    __device__ __forceinline__ static uint32_t addr(uint32_t slot) { return pad(slot); }
    __device__ __forceinline__ static uint32_t next_bit(uint32_t, uint32_t slot, uint32_t b) { return pad(slot + (1u << b)); }
    __device__ __forceinline__ F get_at(uint32_t s) const {
        F x;
#pragma unroll
        for (int w = 0; w < F::N; w++) x.l[w] = base[w * stride + s];
        return x;
    }
    __device__ __forceinline__ void set_at(uint32_t s, const F& x) const {
#pragma unroll
        for (int w = 0; w < F::N; w++) base[w * stride + s] = x.l[w];
    }
    __device__ __forceinline__ F get(uint32_t slot) const { return get_at(pad(slot)); }
    __device__ __forceinline__ void set(uint32_t slot, const F& x) const { set_at(pad(slot), x); }
};

// The column and middle blocks' elements (and narrow blocks' staged twiddles): an element as
// F::N / 4 16-byte quads, quad q of slot s at q * stride + phys(s), so that a slot is F::N / 4
// 128-bit accesses from one address (SmemElements takes F::N word accesses: benches/NOTES.md,
// issue 17). phys permutes each 8 aligned slots, so no padding (`stride`: the slots, at least 8),
// and puts the 8 slots a quarter-warp touches at once on distinct 16-byte bank groups in every
// pattern of these blocks: a radix-2 or radix-4 layer's slots at any span, consecutive slots, a
// column's natural or bit-reversed rows. STRIDE != 0 (the wide column blocks of the large sizes):
// the stride as a constant, so a slot's second quad is an immediate offset.
template <class F, uint32_t STRIDE = 0>
struct SmemQuads {
    uint4* base;
    uint32_t stride;  // quads between quad q and q+1 of a slot
    static constexpr int QUADS = F::N / 4;

    __host__ __device__ __forceinline__ static constexpr uint32_t plane(uint32_t slots) { return slots < 8 ? 8 : slots; }
    __device__ __forceinline__ uint32_t quad_stride() const { return STRIDE != 0 ? STRIDE : stride; }
    // GF(2)-linear, phys(a ^ b) = phys(a) ^ phys(b): the low three bits XOR the image of slot
    // bits 3, 4, 5, 6 under 7, 5, 6, 4, and of bits 7..10 under the same again (bits 11 and up map
    // to 0: the largest block, a middle tile pair, holds 2^11 slots), so that any three
    // consecutive slot bits, and bit 3 or 4 beside any two of bits 0..2, land on independent
    // values (simulated over every pattern above: benches/NOTES.md, issue 17).
    __device__ __forceinline__ static uint32_t phys(uint32_t s) {
        const uint32_t y = (s >> 3) ^ (s >> 7), a = y ^ (y >> 1);
        return s ^ ((((0u - (a & 1)) ^ a) & 6) | (a & 1));
    }
    // A slot's address, and that of slot + 2^b from it where the slot's bit b is 0: an XOR with
    // phys(2^b), read from a table of the bits' images (b < 16; blocks use b <= 10), not folded.
    __device__ __forceinline__ static uint32_t addr(uint32_t slot) { return phys(slot); }
    __device__ __forceinline__ static uint32_t next_bit(uint32_t a, uint32_t, uint32_t b) { return a ^ image(b); }
    // phys(2^b) (b < 16).
    __device__ __forceinline__ static uint32_t image(uint32_t b) {
        constexpr uint64_t images = 0x46574657000ull;  // nibble b: phys(2^b) ^ 2^b
        return (1u << b) ^ (uint32_t)((images >> (4 * b)) & 7);
    }
    __device__ __forceinline__ F get_at(uint32_t p) const {
        F x;
#pragma unroll
        for (int q = 0; q < QUADS; q++) {
            const uint4 v = base[q * quad_stride() + p];
            x.l[4 * q] = v.x;
            x.l[4 * q + 1] = v.y;
            x.l[4 * q + 2] = v.z;
            x.l[4 * q + 3] = v.w;
        }
        return x;
    }
    __device__ __forceinline__ void set_at(uint32_t p, const F& x) const {
#pragma unroll
        for (int q = 0; q < QUADS; q++)
            base[q * quad_stride() + p] = make_uint4(x.l[4 * q], x.l[4 * q + 1], x.l[4 * q + 2], x.l[4 * q + 3]);
    }
    __device__ __forceinline__ F get(uint32_t slot) const { return get_at(phys(slot)); }
    __device__ __forceinline__ void set(uint32_t slot, const F& x) const { set_at(phys(slot), x); }
};

template <class F>
__device__ __forceinline__ F load_global(uint64_t ptr, uint64_t index) {
    const F* q = reinterpret_cast<const F*>(ptr) + index;
    __builtin_assume(__isGlobal(q));  // global loads (LDG), not generic ones
    return F::load(q);
}

template <class F>
__device__ __forceinline__ void store_global(uint64_t ptr, uint64_t index, const F& x) {
    F* q = reinterpret_cast<F*>(ptr) + index;
    __builtin_assume(__isGlobal(q));  // global stores (STG), not generic ones
    x.store(q);
}

// a * w in lazy<P>'s range, on the integer pipe or, with FP64, on the FP64 pipe (fp64::mul_ark,
// the hybrid kernels' second product of each independent pair: both pipes busy at once).
template <class F, bool FP64>
__device__ __forceinline__ F mul_on(const F& a, const F& w) {
    if constexpr (FP64) return fp64::mul_ark<typename F::params>(a, w);
    else return lazy<typename F::params>::mul(a, w);
}

// The lazy product out of line: every call runs the one copy of its code. For a kernel whose lone
// warp per SM runs each inlined product once, and so waits on instruction fetch more than on the
// products (the cluster kernel: benches/NOTES.md, issue 17).
template <class F>
__device__ __noinline__ F mul_called(F a, F w) {
    return lazy<typename F::params>::mul(a, w);
}

// a * w in lazy<P>'s range, inlined or (CALLED) out of line.
template <class F, bool CALLED>
__device__ __forceinline__ F mul_by(const F& a, const F& w) {
    if constexpr (CALLED) return mul_called<F>(a, w);
    else return lazy<typename F::params>::mul(a, w);
}

// x[u] *= t^(e[u]) for u < B, two elements at a time: the four table reads of a pair are issued
// before its products (four elements at a time would spill at 128 registers). HYBRID: the second
// element's two products on the FP64 pipe.
template <class F, uint32_t B, bool HYBRID = false>
__device__ __forceinline__ void mul_lookups(F (&x)[B], const PowerTable& t, uint32_t lo_bits,
                                            const uint64_t (&e)[B]) {
    using L = lazy<typename F::params>;
    static_assert(B % 2 == 0, "pairs");
#pragma unroll
    for (uint32_t u = 0; u < B; u += 2) {
        const F lo0 = load_global<F>(t.lo, e[u] & ((1ull << lo_bits) - 1));
        const F hi0 = load_global<F>(t.hi, e[u] >> lo_bits);
        const F lo1 = load_global<F>(t.lo, e[u + 1] & ((1ull << lo_bits) - 1));
        const F hi1 = load_global<F>(t.hi, e[u + 1] >> lo_bits);
        x[u] = L::mul(x[u], L::mul(hi0, lo0));
        x[u + 1] = mul_on<F, HYBRID>(x[u + 1], mul_on<F, HYBRID>(hi1, lo1));
    }
}

// x[u] *= table[e[u]] for u < B: every read issued before the first product. HYBRID: the odd
// elements' products on the FP64 pipe.
template <class F, uint32_t B, bool HYBRID = false>
__device__ __forceinline__ void mul_table(F (&x)[B], uint64_t table, const uint64_t (&e)[B]) {
    F w[B];
#pragma unroll
    for (uint32_t u = 0; u < B; u++) w[u] = load_global<F>(table, e[u]);
#pragma unroll
    for (uint32_t u = 0; u < B; u++) x[u] = HYBRID && (u & 1) ? mul_on<F, true>(x[u], w[u]) : mul_on<F, false>(x[u], w[u]);
}

// Layer 0 alone, in DIT and DIF alike: each of `pairs` pairs of neighbouring slots (2i, 2i+1),
// twiddle 1. Called by the whole block; ends with a barrier.
template <class F, class SM>
__device__ __forceinline__ void neighbour_layer(const SM& sm, uint32_t pairs) {
    using L = lazy<typename F::params>;
    for (uint32_t i = threadIdx.x; i < pairs; i += blockDim.x) {
        const uint32_t a = sm.addr(2 * i), b = sm.next_bit(a, 2 * i, 0);
        const F u = sm.get_at(a), v = sm.get_at(b);
        sm.set_at(a, L::add(u, v));
        sm.set_at(b, L::sub(u, v));
    }
    __syncthreads();
}

// Narrow blocks' sub-NTT twiddles by layer, in a table of S = 2^log_s slots (plain quad planes):
// slot h + pos holds layer s's twiddle w_(2h)^pos = w_S^(pos << (log_s - 1 - s)), h = 2^s, so a
// layer's threads read consecutive slots (S/2 slots indexed pos << (log_s - 1 - s) put a
// quarter-warp's reads on one bank group). Thread t < S/2 reads slots t and S/2 + t from the
// global table of w_S^e, e < S/2 (`load`, beside its data), and stages them (`stage`); slot 0 is
// not read.
template <class F>
struct LayerTwiddles {
    F lo, hi;
    __device__ __forceinline__ void load(uint64_t table, uint32_t log_s) {
        const uint32_t t = threadIdx.x;
        if (t < (1u << log_s) / 2) {
            const uint32_t s = 31 - __clz(t | 1);  // slot t's layer (slot 0: not read)
            lo = load_global<F>(table, t == 0 ? 0 : (t - (1u << s)) << (log_s - 1 - s));
            hi = load_global<F>(table, t);
        }
    }
    // A column's stage twiddle folded into its layers (one column a block): the column's S-point
    // transform with input x_n g^n (TWIDDLE_IN, DIT) or output X_k g^k (TWIDDLE_OUT, DIF), g =
    // w_M^c, is the plain one with layer s's twiddle g^(S/2h) w_(2h)^pos = w_M^((S/2h)(c + pos R)),
    // h = 2^s, read from the single table of w_M^e (e < M/2, times 2^tw_shift: w_N's table). Layer 0
    // (slot 1) is no longer 1. CPU twin: zkntt_core::self_sort::folded_layer_exponent.
    __device__ __forceinline__ void load_folded(uint64_t table, uint32_t log_s, uint64_t c, uint32_t log_r,
                                                uint32_t tw_shift) {
        const uint32_t t = threadIdx.x;
        if (t < (1u << log_s) / 2) {
            const uint32_t s = 31 - __clz(t | 1);  // slot t's layer (slot 0: not read)
            const uint64_t pos = t - (1u << s);
            lo = load_global<F>(table, t == 0 ? 0 : ((c + (pos << log_r)) << (log_s - 1 - s)) << tw_shift);
            hi = load_global<F>(table, (c + ((uint64_t)t << log_r)) << tw_shift);
        }
    }
    __device__ __forceinline__ void stage(const SmemQuads<F>& slots, uint32_t log_s) const {
        const uint32_t t = threadIdx.x, half = (1u << log_s) / 2;
        if (t < half) {
            slots.set_at(t, lo);
            slots.set_at(half + t, hi);
        }
    }
};

// Narrow blocks' pair address, layer by layer. Pair i's first slot at layer s is i0 = i with a 0
// inserted at bit s (its second i0 | 2^s). phys is GF(2)-linear, so between layers s and s+1 (bit
// s of i moving from slot bit s+1 to bit s) phys(i0) changes by i_s (phys(2^s) ^ phys(2^(s+1))):
// two logic operations a layer instead of the swizzle of a fresh index (benches/NOTES.md, issue 17).
template <class F>
struct NarrowPair {
    uint32_t p0;  // phys(i0)
    __device__ __forceinline__ static NarrowPair at(uint32_t i, uint32_t s) {
        return {SmemQuads<F>::phys(((i >> s) << (s + 1)) + (i & ((1u << s) - 1)))};
    }
    // Moves between layers s and s + 1 (either way): img = phys(2^s), img_up = phys(2^(s+1)).
    __device__ __forceinline__ void step(uint32_t i, uint32_t s, uint32_t img, uint32_t img_up) {
        p0 ^= (0u - ((i >> s) & 1)) & (img ^ img_up);
    }
};

// Narrow blocks (a thread per butterfly: pairs <= blockDim.x): in-place DIT over `count`
// independent sub-transforms of 2^log_s slots each, bit-reversed in, natural out, in radix-2
// layers; layer s's twiddles from `tw` (LayerTwiddles). A pair's first slot is carried from layer
// to layer (NarrowPair), its second is that with bit s set. Layer 0 (twiddle 1; slot 1's with `folded`) is peeled off the
// loop. FULL: every thread has a pair (pairs == blockDim.x, the column launches' Plain and Table
// copies), so a layer has no test; otherwise threads past the pairs skip the butterflies. Lazy
// range in and out; called by the whole block; ends with a barrier.
template <class F, bool FULL = false>
__device__ __forceinline__ void dit_narrow(const SmemQuads<F>& sm, uint32_t log_s, uint32_t count,
                                           const SmemQuads<F>& tw, bool folded = false) {
    using L = lazy<typename F::params>;
    using SM = SmemQuads<F>;
    if (log_s == 0) return;
    const uint32_t pairs = count << (log_s - 1), i = threadIdx.x;
    const bool mine = FULL || i < pairs;
    NarrowPair<F> a = NarrowPair<F>::at(i, 0);
    uint32_t img = SM::image(0);
    if (mine) {
        const uint32_t p1 = a.p0 ^ img;
        const F u = sm.get_at(a.p0);
        F v = sm.get_at(p1);
        if (folded) v = L::mul(v, tw.get_at(1));
        sm.set_at(a.p0, L::add(u, v));
        sm.set_at(p1, L::sub(u, v));
    }
    for (uint32_t s = 1; s < log_s; s++) {
        const uint32_t h = 1u << s, img_up = SM::image(s);
        a.step(i, s - 1, img, img_up);
        img = img_up;
        __syncthreads();
        if (mine) {
            const uint32_t p1 = a.p0 ^ img;
            const F u = sm.get_at(a.p0);
            const F v = L::mul(sm.get_at(p1), tw.get_at(h | (i & (h - 1))));
            sm.set_at(a.p0, L::add(u, v));
            sm.set_at(p1, L::sub(u, v));
        }
    }
    __syncthreads();
}

// The mirror of dit_narrow: DIF (Gentleman-Sande) from the widest span down, natural in,
// bit-reversed out (slot k holds entry rev(k)), each butterfly (u + v, (u - v) * w_(2h)^pos);
// layer 0 (twiddle 1; slot 1's with `folded`: LayerTwiddles::load_folded) peeled off the loop.
template <class F>
__device__ __forceinline__ void dif_narrow(const SmemQuads<F>& sm, uint32_t log_s, uint32_t count,
                                           const SmemQuads<F>& tw, bool folded = false) {
    using L = lazy<typename F::params>;
    using SM = SmemQuads<F>;
    if (log_s == 0) return;
    const uint32_t pairs = count << (log_s - 1), i = threadIdx.x;
    const bool mine = i < pairs;
    NarrowPair<F> a = NarrowPair<F>::at(i, log_s - 1);
    uint32_t img = SM::image(log_s - 1);
    for (uint32_t s = log_s - 1; s > 0; s--) {
        const uint32_t h = 1u << s;
        if (mine) {
            const uint32_t p1 = a.p0 ^ img;
            const F u = sm.get_at(a.p0), v = sm.get_at(p1);
            sm.set_at(p1, L::mul(L::sub(u, v), tw.get_at(h | (i & (h - 1)))));
            sm.set_at(a.p0, L::add(u, v));
        }
        const uint32_t img_down = SM::image(s - 1);
        a.step(i, s - 1, img_down, img);
        img = img_down;
        __syncthreads();
    }
    if (mine) {
        const uint32_t p1 = a.p0 ^ img;
        const F u = sm.get_at(a.p0), v = sm.get_at(p1);
        sm.set_at(a.p0, L::add(u, v));
        sm.set_at(p1, folded ? L::mul(L::sub(u, v), tw.get_at(1)) : L::sub(u, v));
    }
    __syncthreads();
}

// In-place DIT over `count` independent sub-transforms of 2^log_s slots each, held in
// bit-reversed order at slots [g << log_s, (g+1) << log_s); natural order afterwards (wide
// blocks; narrow ones run dit_narrow). Layers two at a time (radix-4 groups of four slots in
// registers: half the shared-memory round trips and barriers of radix-2, three twiddle loads per
// four products); an odd layer count starts with one radix-2 layer. Layer 0's twiddles are all
// 1 and layer 1's are 1 and w_4: those products are skipped. `tw` holds w_S^t, t < S/2.
// Values in and out are in the lazy range of `lazy<P>` ([0, 2p) for BN254 Fr). Called by the
// whole block; ends with a barrier. HYBRID: the second product of each independent pair of a
// radix-4 group (x3 * w1 beside x1 * w1, a3's beside a2's) on the FP64 pipe.
template <class F, bool HYBRID = false, class SM>
__device__ __forceinline__ void dit_in_shared(const SM& sm, uint32_t log_s, uint32_t count, const F* __restrict__ tw) {
    using L = lazy<typename F::params>;
    uint32_t s = 0;
    if (log_s & 1) {
        neighbour_layer<F>(sm, count << (log_s - 1));
        s = 1;
    }
    const uint32_t log_quarter = log_s - 2;
    const uint32_t groups = log_s >= 2 ? count << log_quarter : 0;
    for (; s + 1 < log_s; s += 2) {
        // Layers s and s+1 on the slots base + pos + {0, h, 2h, 3h}, h = 2^s.
        const uint32_t h = 1u << s;
        for (uint32_t i = threadIdx.x; i < groups; i += blockDim.x) {
            const uint32_t g = i >> log_quarter;
            const uint32_t j = i & ((1u << log_quarter) - 1);
            const uint32_t pos = j & (h - 1);
            const uint32_t i0 = (g << log_s) + ((j >> s) << (s + 2)) + pos;
            const uint32_t p0 = sm.addr(i0), p1 = sm.next_bit(p0, i0, s), p2 = sm.next_bit(p0, i0, s + 1),
                           p3 = sm.next_bit(p2, i0 + 2 * h, s);
            const F x0 = sm.get_at(p0), x1 = sm.get_at(p1), x2 = sm.get_at(p2), x3 = sm.get_at(p3);
            F a0, a1, a2, a3, b2, b3;
            if (s == 0) {
                // pos == 0: layer 0 twiddles 1; layer 1 twiddles 1 and w_S^(S/4) (= w_4).
                a0 = L::add(x0, x1);
                a1 = L::sub(x0, x1);
                a2 = L::add(x2, x3);
                a3 = L::sub(x2, x3);
                b2 = a2;
                b3 = L::mul(a3, F::load(tw + (1u << log_quarter)));
            } else {
                const F w1 = F::load(tw + (pos << (log_s - 1 - s)));
                const F t1 = L::mul(x1, w1), t3 = mul_on<F, HYBRID>(x3, w1);
                a0 = L::add(x0, t1);
                a1 = L::sub(x0, t1);
                a2 = L::add(x2, t3);
                a3 = L::sub(x2, t3);
                b2 = L::mul(a2, F::load(tw + (pos << (log_s - 2 - s))));
                b3 = mul_on<F, HYBRID>(a3, F::load(tw + ((pos + h) << (log_s - 2 - s))));
            }
            sm.set_at(p0, L::add(a0, b2));
            sm.set_at(p2, L::sub(a0, b2));
            sm.set_at(p1, L::add(a1, b3));
            sm.set_at(p3, L::sub(a1, b3));
        }
        __syncthreads();
    }
}

// In-place DIF (Gentleman-Sande) over `count` independent sub-transforms of 2^log_s slots each,
// held in natural order at slots [g << log_s, (g+1) << log_s); bit-reversed order afterwards
// (slot k holds entry rev(k)). The mirror of dit_in_shared (wide blocks; narrow ones run
// dif_narrow): layers from the widest span down, each butterfly (u + v, (u - v) * w_(2h)^pos),
// two layers at a time in radix-4 groups, an odd layer count ending with one radix-2 layer of
// twiddle 1. The same trivial twiddles are skipped. `tw` holds w_S^t, t < S/2, or with
// `tw_shift` w_S'^t, S' = S 2^tw_shift, of which every 2^tw_shift-th entry is read (the cluster
// kernel's C-point columns read its L-point table). CALLED: every product out of line
// (mul_called). Lazy range in and out; called by the whole block; ends with a barrier. CPU twin:
// zkntt_core::self_sort::dif_in_slots.
template <class F, bool CALLED = false, class SM>
__device__ __forceinline__ void dif_in_shared(const SM& sm, uint32_t log_s, uint32_t count, const F* __restrict__ tw,
                                              uint32_t tw_shift = 0) {
    using L = lazy<typename F::params>;
    if (log_s == 0) return;
    const uint32_t log_quarter = log_s - 2;
    const uint32_t groups = log_s >= 2 ? count << log_quarter : 0;
    // Layers s+1 and s on the slots base + pos + {0, h, 2h, 3h}, h = 2^s, from the top.
    for (int32_t s = (int32_t)log_s - 2; s >= 0; s -= 2) {
        const uint32_t h = 1u << s;
        for (uint32_t i = threadIdx.x; i < groups; i += blockDim.x) {
            const uint32_t g = i >> log_quarter;
            const uint32_t j = i & ((1u << log_quarter) - 1);
            const uint32_t pos = j & (h - 1);
            const uint32_t i0 = (g << log_s) + ((j >> s) << (s + 2)) + pos;
            const uint32_t p0 = sm.addr(i0), p1 = sm.next_bit(p0, i0, s), p2 = sm.next_bit(p0, i0, s + 1),
                           p3 = sm.next_bit(p2, i0 + 2 * h, s);
            const F x0 = sm.get_at(p0), x1 = sm.get_at(p1), x2 = sm.get_at(p2), x3 = sm.get_at(p3);
            F a2, a3, y1, y3;
            const F a0 = L::add(x0, x2), a1 = L::add(x1, x3);
            if (s == 0) {
                // pos == 0: layer 1's twiddles 1 and w_4 (= w_S^(S/4)), layer 0's 1.
                a2 = L::sub(x0, x2);
                a3 = mul_by<F, CALLED>(L::sub(x1, x3), F::load(tw + ((1u << log_quarter) << tw_shift)));
                y1 = L::sub(a0, a1);
                y3 = L::sub(a2, a3);
            } else {
                a2 = mul_by<F, CALLED>(L::sub(x0, x2), F::load(tw + ((pos << (log_s - 2 - s)) << tw_shift)));
                a3 = mul_by<F, CALLED>(L::sub(x1, x3), F::load(tw + (((pos + h) << (log_s - 2 - s)) << tw_shift)));
                const F w1 = F::load(tw + ((pos << (log_s - 1 - s)) << tw_shift));
                y1 = mul_by<F, CALLED>(L::sub(a0, a1), w1);
                y3 = mul_by<F, CALLED>(L::sub(a2, a3), w1);
            }
            sm.set_at(p0, L::add(a0, a1));
            sm.set_at(p1, y1);
            sm.set_at(p2, L::add(a2, a3));
            sm.set_at(p3, y3);
        }
        __syncthreads();
    }
    if (log_s & 1) neighbour_layer<F>(sm, count << (log_s - 1));
}

}  // namespace ntt
}  // namespace zkntt
