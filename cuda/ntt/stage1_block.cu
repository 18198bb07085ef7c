// The seed's stage1: the column launches of the plan (P-point NTTs down the columns of the P x R
// matrix, the same input, output, flags and twiddles as column.cu) as the seed describes them:
// - shared memory column-major by 32-bit word, padded (ntt_common.cuh's SmemElements), its word
//   stride chosen so that the word loads and stores below are at most 2-way conflicted;
// - global loads and stores by 8 consecutive lanes per element, one word each, so a warp moves 4
//   whole elements (4 full sectors, 128 contiguous bytes where 4 columns are neighbours) whatever
//   the element stride; lanes 16-31 walk the words in reversed order;
// - butterflies in registers: a thread holds 2^LOG_EL slots; a layer whose slot bit sits in a lane
//   bit first trades it for a register bit by __shfl_xor_sync (warp_exchange.cuh); shared memory
//   only between the two phases (slot bits held by warps) and for the word loads and stores;
// - 128 threads per block, 2^(LOG_EL + 7) slots (P x cols).
// CPU twin, lane by lane: zkntt_core::self_sort::stage1_block.
#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"
#include "ntt/ntt_common.cuh"
#include "ntt/warp_exchange.cuh"

namespace zkntt {
namespace ntt {

// Words one thread has in flight in the word loads and stores.
constexpr uint32_t STAGE1_WORD_BATCH = 8;

// Words between word w and word w+1 of a slot: the padded slot count rounded up to 5 mod 32
// (zkntt_core::plan::stage1_word_stride; the bank model there picked 5).
__device__ __forceinline__ uint32_t stage1_word_stride(uint32_t slots) {
    const uint32_t s = slots + (slots >> 5);
    return s + ((5u - s) & 31u);
}

// Layer j (slot bit j, register bit RB) of the DIT on 2^log_p-point columns: butterflies between
// registers r and r | 2^RB, twiddle w_{2^(j+1)}^(s mod 2^j) = tw[(s mod 2^j) << (log_p - 1 - j)].
// With STATIC_POS the low j slot bits are register bits (pos = r mod 2^j): products by 1 skipped.
template <class F, uint32_t EL, uint32_t RB, bool STATIC_POS>
__device__ __forceinline__ void stage1_layer(F (&x)[EL], const uint32_t (&s)[EL], uint32_t j, uint32_t log_p,
                                             const F* __restrict__ tw) {
    using L = lazy<typename F::params>;
    // Two twiddle reads in flight before their products (all EL/2 at once spills at EL = 8).
#pragma unroll
    for (uint32_t u = 0; u < EL / 2; u += 2) {
        uint32_t rr[2];
        F w[2];
#pragma unroll
        for (uint32_t v = 0; v < 2 && u + v < EL / 2; v++) {
            const uint32_t k = u + v;
            rr[v] = ((k >> RB) << (RB + 1)) | (k & ((1u << RB) - 1));
            const uint32_t pos = (STATIC_POS ? rr[v] : s[rr[v]]) & ((1u << j) - 1);
            if (!(STATIC_POS && pos == 0)) w[v] = load_global<F>((uint64_t)tw, pos << (log_p - 1 - j));
        }
#pragma unroll
        for (uint32_t v = 0; v < 2 && u + v < EL / 2; v++) {
            const uint32_t r = rr[v], r1 = r | (1u << RB);
            const bool one = STATIC_POS && (r & ((1u << j) - 1)) == 0;
            const F t = one ? x[r1] : L::mul(x[r1], w[v]);
            const F x0 = x[r];
            x[r] = L::add(x0, t);
            x[r1] = L::sub(x0, t);
        }
    }
}

// stage1_layer with the register bit `rb` (a constant once the callers' loops are unrolled).
template <class F, uint32_t LOG_EL, bool STATIC_POS>
__device__ __forceinline__ void stage1_layer_at(F (&x)[1u << LOG_EL], const uint32_t (&s)[1u << LOG_EL], uint32_t j,
                                                uint32_t rb, uint32_t log_p, const F* __restrict__ tw) {
    constexpr uint32_t EL = 1u << LOG_EL;
    if (rb == 0) stage1_layer<F, EL, 0, STATIC_POS>(x, s, j, log_p, tw);
    if constexpr (LOG_EL > 1) if (rb == 1) stage1_layer<F, EL, 1, STATIC_POS>(x, s, j, log_p, tw);
    if constexpr (LOG_EL > 2) if (rb == 2) stage1_layer<F, EL, 2, STATIC_POS>(x, s, j, log_p, tw);
    static_assert(LOG_EL <= 3, "register bits 0..2");
}

// x[r] *= table^(e(s[r])) two at a time (ntt_common.cuh's lookups take arrays).
template <class F, uint32_t EL, class Exp>
__device__ __forceinline__ void stage1_scale(F (&x)[EL], const uint32_t (&s)[EL], const PowerTable& t,
                                             uint32_t lo_bits, bool full, Exp exponent) {
#pragma unroll
    for (uint32_t r = 0; r < EL; r += 2) {
        F y[2] = {x[r], x[r + 1]};
        const uint64_t e[2] = {exponent(s[r]), exponent(s[r + 1])};
        if (full) mul_table<F, 2>(y, t.lo, e);
        else mul_lookups<F, 2>(y, t, lo_bits, e);
        x[r] = y[0];
        x[r + 1] = y[1];
    }
}

template <class F, uint32_t LOG_EL>
__device__ __forceinline__ void stage1_block(const NttStageParams& p) {
    using L = lazy<typename F::params>;  // lazy range inside, canonical in global memory
    constexpr uint32_t EL = 1u << LOG_EL, LOG_E = LOG_EL + 7, E = 1u << LOG_E;
    constexpr uint32_t LANE_LAYERS = LOG_EL + 5;  // slot bits a warp holds in phase A
    static_assert(F::N == 8, "8 lanes per element");
    ZKNTT_DYNAMIC_SHARED(uint32_t, smem_words);
    wait_for_previous_grid();
    const uint32_t log_p = p.log_p, log_cols = p.log_cols;  // log_p + log_cols == LOG_E
    const uint32_t P = 1u << log_p, cols = 1u << log_cols;
    const uint64_t R = 1ull << (p.log_n - log_p);
    const uint64_t c0 = p.col_base + ((uint64_t)blockIdx.x << log_cols);
    const uint64_t base = p.data + (uint64_t)blockIdx.y * p.batch_stride * sizeof(F);
    const uint32_t stride = stage1_word_stride(E);
    const SmemElements<F> sm{smem_words, stride};
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // This lane's word of its element; lanes 16-31 in reversed order (the seed's).
    const uint32_t w = (lane & 16) ? 7 - (lane & 7) : (lane & 7);
    uint32_t* const g32 = reinterpret_cast<uint32_t*>(base);
    __builtin_assume(__isGlobal(g32));

    // Word loads: element e = a*cols + t (column c0 + t, entry a) into slot t*P + rev(a), 16
    // elements per block per step, STAGE1_WORD_BATCH steps in flight.
    for (uint32_t e0 = threadIdx.x >> 3; e0 < E; e0 += 16 * STAGE1_WORD_BATCH) {
        uint32_t v[STAGE1_WORD_BATCH], slot[STAGE1_WORD_BATCH];
#pragma unroll
        for (uint32_t u = 0; u < STAGE1_WORD_BATCH; u++) {
            const uint32_t e = e0 + 16 * u, t = e & (cols - 1), a = e >> log_cols;
            v[u] = g32[((uint64_t)a * R + c0 + t) * p.elem_stride * 8 + w];
            slot[u] = (t << log_p) | bit_reverse(a, log_p);
        }
#pragma unroll
        for (uint32_t u = 0; u < STAGE1_WORD_BATCH; u++) smem_words[w * stride + SmemElements<F>::pad(slot[u])] = v[u];
    }
    __syncthreads();

    // Phase A: register bits = slot bits [0, LOG_EL), lane bits the next 5, warp bits the rest.
    F x[EL];
    uint32_t s[EL];
#pragma unroll
    for (uint32_t r = 0; r < EL; r++) {
        s[r] = r | (lane << LOG_EL) | (warp << LANE_LAYERS);
        x[r] = sm.get(s[r]);
    }
    // Entry a = rev(s mod P) of column t = s / P is global element a*R + c0 + t.
    const auto input_index = [&](uint32_t slot) {
        return (uint64_t)bit_reverse(slot & (P - 1), log_p) * R + c0 + (slot >> log_p);
    };
    if (p.flags & PRE_SCALE) stage1_scale<F, EL>(x, s, p.pre, p.lo_bits, false, input_index);
    const F* tw = reinterpret_cast<const F*>(p.sub_twiddles);
    const uint32_t layers_a = min(log_p, LANE_LAYERS);
#pragma unroll
    for (uint32_t j = 0; j < LANE_LAYERS; j++) {
        if (j >= layers_a) break;
        const uint32_t block = j / LOG_EL;
        if (block > 0 && j % LOG_EL == 0) {
            // Slot bits j.. (in lane bits (block-1)*LOG_EL..) trade places with register bits 0...
#pragma unroll
            for (uint32_t i = 0; i < LOG_EL; i++) {
                if (j + i >= layers_a) break;
                const uint32_t lbit = (block - 1) * LOG_EL + i;
                const bool up = (lane >> lbit) & 1;
                swap_register_lane_bit<EL, F, F::N>(x, i, lbit, up);
                swap_register_lane_bit<EL, uint32_t, 1>(s, i, lbit, up);
            }
        }
        if (j < LOG_EL) stage1_layer_at<F, LOG_EL, true>(x, s, j, j % LOG_EL, log_p, tw);
        else stage1_layer_at<F, LOG_EL, false>(x, s, j, j % LOG_EL, log_p, tw);
    }

    if (log_p > LANE_LAYERS) {
        // Phase B: the last layers' slot bits were warp bits. Through shared memory (a warp
        // rewrites the slots it read: __syncwarp), then register bits = the top LOG_EL slot bits,
        // lane bits = slot bits [0, 5) (conflict-free rows), warp bits between.
        __syncwarp();
#pragma unroll
        for (uint32_t r = 0; r < EL; r++) sm.set(s[r], x[r]);
        __syncthreads();
#pragma unroll
        for (uint32_t r = 0; r < EL; r++) {
            s[r] = lane | (warp << 5) | (r << (LOG_E - LOG_EL));
            x[r] = sm.get(s[r]);
        }
#pragma unroll
        for (uint32_t rb = 0; rb < LOG_EL; rb++) {
            const uint32_t j = rb + LOG_E - LOG_EL;
            if (j < LANE_LAYERS || j >= log_p) continue;
            stage1_layer_at<F, LOG_EL, false>(x, s, j, rb, log_p, tw);
        }
    }
    allow_dependent_launch();

    // Slot s holds entry k = s mod P of column t = s / P: global element k*R + c0 + t, scaled
    // in registers, then through shared memory to the word stores.
    const auto output_index = [&](uint32_t slot) { return (uint64_t)(slot & (P - 1)) * R + c0 + (slot >> log_p); };
    if (p.flags & TWIDDLE_OUT) {
        const auto ck = [&](uint32_t slot) { return (c0 + (slot >> log_p)) * (uint64_t)(slot & (P - 1)); };
        stage1_scale<F, EL>(x, s, p.omega, p.lo_bits, p.flags & OMEGA_FULL, ck);
    }
    if (p.flags & POST_SCALE) stage1_scale<F, EL>(x, s, p.post, p.lo_bits, false, output_index);
    F post_const;
    if (p.flags & POST_CONST) post_const = load_global<F>(p.post_const, 0);
    __syncwarp();
#pragma unroll
    for (uint32_t r = 0; r < EL; r++) {
        if (p.flags & POST_CONST) x[r] = L::mul(x[r], post_const);
        sm.set(s[r], L::canonical(x[r]));
    }
    __syncthreads();

    // Word stores: element e = k*cols + t from slot t*P + k.
    for (uint32_t e0 = threadIdx.x >> 3; e0 < E; e0 += 16 * STAGE1_WORD_BATCH) {
        uint32_t v[STAGE1_WORD_BATCH];
#pragma unroll
        for (uint32_t u = 0; u < STAGE1_WORD_BATCH; u++) {
            const uint32_t e = e0 + 16 * u, t = e & (cols - 1), k = e >> log_cols;
            v[u] = smem_words[w * stride + SmemElements<F>::pad((t << log_p) | k)];
        }
#pragma unroll
        for (uint32_t u = 0; u < STAGE1_WORD_BATCH; u++) {
            const uint32_t e = e0 + 16 * u, t = e & (cols - 1), k = e >> log_cols;
            g32[((uint64_t)k * R + c0 + t) * p.elem_stride * 8 + w] = v[u];
        }
    }
}

}  // namespace ntt
}  // namespace zkntt

// Launch: as ntt_column (grid (R / cols, batch), 128 threads, from column p.col_base on), dynamic
// shared memory 32 * stage1_word_stride(P * cols) bytes. One kernel per block size, each with its
// own register budget: el4 for P * cols = 2^9 (4 slots per thread, four blocks per SM), el8 for
// 2^10 (8 slots per thread need about 170 registers: three blocks per SM).
#define ZKNTT_STAGE1(FIELD)                                                                    \
    extern "C" __global__ void __launch_bounds__(128, 4) ntt_stage1_el4_##FIELD(                \
        const zkntt::ntt::NttStageParams p) {                                                      \
        zkntt::ntt::stage1_block<zkntt::FIELD, 2>(p);                                              \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(128, 3) ntt_stage1_el8_##FIELD(                \
        const zkntt::ntt::NttStageParams p) {                                                      \
        zkntt::ntt::stage1_block<zkntt::FIELD, 3>(p);                                              \
    }

ZKNTT_STAGE1(bn254_fr)
ZKNTT_STAGE1(bls12_381_fr)
