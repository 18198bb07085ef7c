// Shared pieces of the small-word NTT kernels (ntt_wsx.cu, ntt_block.cu): the three fields, the
// modmul forms as twiddle policies, the launch parameters and the DIF butterfly.
//
// Both kernels compute batches of natural-order NTTs of size N = 2^log_n <= 4096 in place:
// decimation in frequency over the 4096-element tile a block holds on chip, then a bit-reversing
// exchange through shared memory so that the output is natural order too. The twiddle of the DIF
// layer with stride 2^b at offset j < 2^b is entry (1 << b) | j of one 4096-entry table, layer
// by layer: w_2^(b+1)^j = w_4096^(j << (11 - b)). A layer's twiddles are contiguous, so the lanes
// of a warp that read consecutive offsets touch one cache line (the earlier single table of
// w_4096^k, read at stride 2^(11-b), took up to 16 lines per load; see benches/NOTES.md).
//
// Unlike the paper, the twiddle table is read through the read-only data cache (__ldg), not
// constant memory: within a layer the 32 lanes of a warp read different entries, and the constant
// cache serialises divergent addresses (up to 32 transactions per load). Bit reversal is __brev,
// one instruction, instead of a table.
#pragma once
#include <cstdint>

#include "small/modmul.cuh"

namespace zkntt {
namespace small {

constexpr uint32_t TILE_LOG = 12;
constexpr uint32_t TILE = 1u << TILE_LOG;  // elements per block tile
constexpr uint32_t THREADS = 256;           // threads per block, both kernels
constexpr uint32_t PER_THREAD = TILE / THREADS;

// q = 2^28 - 2^16 + 1 (q - 1 = 2^16 * 4095). 4q < 2^32: values may stay in [0, 2q) between layers.
struct FieldQ28 {
    static constexpr uint32_t Q = 268369921u;
    static constexpr bool HARVEY = true;
};
// BabyBear q = 2^31 - 2^27 + 1. 2q < 2^32 < 4q: values stay canonical between layers; only the
// multiplier's input may be unreduced, in [0, 2q).
struct FieldBabyBear {
    static constexpr uint32_t Q = 2013265921u;
    static constexpr bool HARVEY = false;
};
// KoalaBear q = 2^31 - 2^24 + 1 (q - 1 = 2^24 * 127). Like BabyBear, 2q < 2^32 < 4q.
struct FieldKoalaBear {
    static constexpr uint32_t Q = 2130706433u;
    static constexpr bool HARVEY = false;
};

// Launch parameters, one struct (mirrored by `NttParams` in crates/zkntt-small/src/ntt/mod.rs).
struct NttParams {
    uint32_t* data;         // batch << log_n elements, transforms contiguous; in place
    const void* twiddles;   // 4096 entries: (1 << b) | j holds w_2^(b+1)^j, in the form's representation
    const void* post_lo;    // optional 2-D twiddles (null when unused): w_M^i, i < 4096
    const void* post_hi;    //   and w_M^(4096 i), i < max(4096, M / 4096); output (t, k) times w_M^(t * k)
    uint64_t batch;         // number of transforms
    uint32_t log_n;         // 1..12 (0 is a copy)
    uint32_t q;             // the modulus at run time (the dynamic form divides by it)
    uint32_t scale_w;       // when has_scale: every output times this (inverse: n^-1)
    uint32_t scale_w_shoup; //   and its Shoup companion
    uint32_t has_scale;
    uint32_t post_log_rows; // 2-D: t above is the transform index modulo 2^post_log_rows
    uint32_t order;         // 0: natural in and out (NN); 1: output bit-reversed (NR); 2: input (RN)
    uint32_t dependent;     // the tile kernel: 1 when launched as a programmatic dependent of the
                            //   previous kernel (it waits for that grid before it touches the data)
};

// ---- forms as twiddle policies: how a twiddle is stored and how x * twiddle is computed ----
// LAZY forms return a value in [0, 2q) congruent to the product; the others return it reduced.

template <class F>
struct FormDynamic {
    static constexpr bool LAZY = false;
    using W = uint32_t;
    uint32_t q;
    __device__ explicit FormDynamic(const NttParams& p) : q(p.q) {}
    __device__ static W load(const void* t, uint32_t i) { return __ldg((const uint32_t*)t + i); }
    __device__ static W scalar(const NttParams& p) { return p.scale_w; }
    __device__ uint32_t mul(uint32_t x, W w) const { return mul_dynamic(x, w, q); }
};

template <class F>
struct FormConstMod {
    static constexpr bool LAZY = false;
    using W = uint32_t;
    __device__ explicit FormConstMod(const NttParams&) {}
    __device__ static W load(const void* t, uint32_t i) { return __ldg((const uint32_t*)t + i); }
    __device__ static W scalar(const NttParams& p) { return p.scale_w; }
    __device__ uint32_t mul(uint32_t x, W w) const { return mul_const_mod<F::Q>(x, w); }
};

template <class F>
struct FormBarrett {
    static constexpr bool LAZY = false;
    using W = uint32_t;
    __device__ explicit FormBarrett(const NttParams&) {}
    __device__ static W load(const void* t, uint32_t i) { return __ldg((const uint32_t*)t + i); }
    __device__ static W scalar(const NttParams& p) { return p.scale_w; }
    __device__ uint32_t mul(uint32_t x, W w) const { return mul_barrett<F::Q>(x, w); }
};

template <class F, bool L>
struct FormShoupT {
    static constexpr bool LAZY = L;
    using W = uint2;  // (w, floor(w * 2^32 / q))
    __device__ explicit FormShoupT(const NttParams&) {}
    __device__ static W load(const void* t, uint32_t i) { return __ldg((const uint2*)t + i); }
    __device__ static W scalar(const NttParams& p) { return make_uint2(p.scale_w, p.scale_w_shoup); }
    __device__ uint32_t mul(uint32_t x, W w) const {
        return L ? mul_shoup_lazy<F::Q>(x, w.x, w.y) : mul_shoup<F::Q>(x, w.x, w.y);
    }
};
template <class F> using FormShoup = FormShoupT<F, false>;
template <class F> using FormShoupLazy = FormShoupT<F, true>;

template <class F, bool L>
struct FormMontT {
    static constexpr bool LAZY = L;
    using W = uint32_t;  // w * 2^32 mod q
    __device__ explicit FormMontT(const NttParams&) {}
    __device__ static W load(const void* t, uint32_t i) { return __ldg((const uint32_t*)t + i); }
    __device__ static W scalar(const NttParams& p) { return p.scale_w; }
    __device__ uint32_t mul(uint32_t x, W w) const {
        return L ? mul_mont_lazy<F::Q>(x, w) : mul_mont<F::Q>(x, w);
    }
};
template <class F> using FormMont = FormMontT<F, false>;
template <class F> using FormMontLazy = FormMontT<F, true>;

// ---- the DIF butterfly and the value ranges between layers ----
// Non-lazy forms: values in [0, q). Lazy forms on a field with HARVEY: values in [0, 2q), sums
// and differences below 4q go into the lazy multiply. Lazy forms otherwise: values in [0, q), the
// difference a - c + q < 2q goes into the multiply unreduced.

template <class F, class Form>
__device__ __forceinline__ void dif_butterfly(const Form& f, uint32_t& a, uint32_t& c,
                                              typename Form::W w) {
    constexpr uint32_t Q = F::Q;
    if constexpr (!Form::LAZY) {
        uint32_t s = add_mod(a, c, Q);
        c = f.mul(sub_mod(a, c, Q), w);
        a = s;
    } else if constexpr (F::HARVEY) {
        uint32_t s = reduce_once(a + c, 2 * Q);
        c = f.mul(a - c + 2 * Q, w);
        a = s;
    } else {
        uint32_t s = add_mod(a, c, Q);
        c = reduce_once(f.mul(a - c + Q, w), Q);
        a = s;
    }
}

// The last DIF layer (stride 1): its twiddle is w^0 = 1, so no multiplication. Same value ranges
// out as dif_butterfly.
template <class F, class Form>
__device__ __forceinline__ void dif_butterfly_unit(uint32_t& a, uint32_t& c) {
    constexpr uint32_t Q = F::Q;
    if constexpr (Form::LAZY && F::HARVEY) {
        uint32_t s = reduce_once(a + c, 2 * Q);
        c = reduce_once(a - c + 2 * Q, 2 * Q);  // a - c + 2q < 4q
        a = s;
    } else {
        uint32_t s = add_mod(a, c, Q);
        c = sub_mod(a, c, Q);
        a = s;
    }
}

// The butterfly across a lane pair (shuffle layers): this lane holds `own`, its partner `other`.
// The lower lane keeps the sum, the upper lane the twiddled difference; the lower lane multiplies
// by the table's w^0 = 1 so both take the same instructions (no divergence).
template <class F, class Form>
__device__ __forceinline__ uint32_t dif_half_butterfly(const Form& f, uint32_t own, uint32_t other,
                                                       bool upper, typename Form::W w) {
    constexpr uint32_t Q = F::Q;
    if constexpr (!Form::LAZY) {
        uint32_t x = upper ? sub_mod(other, own, Q) : add_mod(own, other, Q);
        return f.mul(x, w);
    } else if constexpr (F::HARVEY) {
        uint32_t x = upper ? other - own + 2 * Q : own + other;
        return f.mul(x, w);
    } else {
        uint32_t x = upper ? other - own + Q : add_mod(own, other, Q);
        return reduce_once(f.mul(x, w), Q);
    }
}

// What leaves a kernel: the optional 2-D twiddle w_M^(t*k) and scale, then canonical form.
template <class F, class Form>
__device__ __forceinline__ uint32_t finish(const Form& f, const NttParams& p, uint32_t x,
                                           uint64_t t, uint32_t k) {
    if (p.post_lo != nullptr) {
        // t*k < M <= 2^26: split the exponent at bit 12.
        uint32_t e = (uint32_t)(t & ((1u << p.post_log_rows) - 1)) * k;
        x = f.mul(x, Form::load(p.post_lo, e & (TILE - 1)));
        if (Form::LAZY && !F::HARVEY) x = reduce_once(x, F::Q);
        x = f.mul(x, Form::load(p.post_hi, e >> TILE_LOG));
        if (Form::LAZY && !F::HARVEY) x = reduce_once(x, F::Q);
    }
    if (p.has_scale) {
        x = f.mul(x, Form::scalar(p));
    }
    return Form::LAZY ? reduce_once(x, F::Q) : x;
}

// R^2 mod Q for R = 2^32: mul_mont(a, R2) = a R mod Q, a value's Montgomery form.
template <uint32_t Q>
__device__ __forceinline__ constexpr uint32_t mont_r2() {
    return (uint32_t)((0xffffffffffffffffull % Q + 1) % Q);
}

// R mod Q for R = 2^32: one in Montgomery form.
template <uint32_t Q>
__device__ __forceinline__ constexpr uint32_t mont_one() {
    return (uint32_t)((0xffffffffull % Q + 1) % Q);
}

// w_M^e as a canonical value from the 2-D tables (the exponent split in 12-bit halves).
template <class F, class Form>
__device__ __forceinline__ uint32_t post_twiddle(const Form& f, const NttParams& p, uint32_t e) {
    uint32_t x = f.mul(1u, Form::load(p.post_lo, e & (TILE - 1)));
    if (Form::LAZY) x = reduce_once(x, F::Q);
    x = f.mul(x, Form::load(p.post_hi, e >> TILE_LOG));
    return Form::LAZY ? reduce_once(x, F::Q) : x;
}

// w_M^e (times the launch's scale, if `scaled` and it has one) as a Montgomery form x R mod Q,
// so that mul_mont by it multiplies by w_M^e: the start and step of a chain of 2-D twiddles.
template <class F, class Form>
__device__ __forceinline__ uint32_t post_mont(const Form& f, const NttParams& p, uint32_t e, bool scaled) {
    uint32_t a = post_twiddle<F, Form>(f, p, e);
    if (scaled && p.has_scale) {
        a = f.mul(a, Form::scalar(p));
        if (Form::LAZY) a = reduce_once(a, F::Q);
    }
    return mul_mont<F::Q>(a, mont_r2<F::Q>());
}

// A chain of 2-D twiddles a, a s, a s^2, ... (Montgomery forms from `post_mont`): `apply`
// multiplies the next word by the next one, the result canonical. Two lookups start a chain where
// a lookup a word would be two each.
template <uint32_t Q>
struct TwiddleChain {
    uint32_t a = 0, s = 0;
    __device__ __forceinline__ uint32_t apply(uint32_t z) {
        z = mul_mont<Q>(z, a);
        a = mul_mont<Q>(a, s);
        return z;
    }
};

// RUN contiguous words from `run` into x[0..RUN): 16-byte loads where `vec` (the run 16-byte
// aligned), else word by word.
template <uint32_t RUN>
__device__ __forceinline__ void read_run(const uint32_t* run, bool vec, uint32_t* x) {
    if (RUN >= 4 && vec) {
        if constexpr (RUN >= 4) {
#pragma unroll
            for (uint32_t q = 0; q < RUN / 4; q++) {
                const uint4 v = reinterpret_cast<const uint4*>(run)[q];
                x[4 * q] = v.x;
                x[4 * q + 1] = v.y;
                x[4 * q + 2] = v.z;
                x[4 * q + 3] = v.w;
            }
        }
    } else {
#pragma unroll
        for (uint32_t j = 0; j < RUN; j++) x[j] = run[j];
    }
}

// k's low BITS bits reversed (k a constant of an unrolled loop: folded at compile time; with
// BITS a function argument instead, the loop did not fold).
template <uint32_t BITS>
__device__ __forceinline__ constexpr uint32_t rev_bits(uint32_t k) {
    uint32_t r = 0;
    for (uint32_t b = 0; b < BITS; b++) r |= (k >> b & 1u) << (BITS - 1 - b);
    return r;
}

// Natural-order position of DIF output slot `pos` (bit reversal of the low log_n bits).
__device__ __forceinline__ uint32_t bitrev(uint32_t pos, uint32_t log_n) {
    return log_n == 0 ? pos : __brev(pos) >> (32 - log_n);
}

}  // namespace small
}  // namespace zkntt
