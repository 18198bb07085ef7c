// The Tensor Core FFT (seed 000_1717c90dfab45294): batched complex FFTs of 2^1..2^12 points in fp16,
// the size-N DFT decomposed (in-place decimation in frequency) into 16-point DFT matrix products on
// Tensor Cores with twiddles (fp32) between the steps. The CPU model of the same stages, order and
// twiddles is crates/zkntt-small/src/fft/model.rs; this file fuses them differently, not changing
// the arithmetic.
//
// Products are `mma.sync m16n8k16` (fp16 operands, fp32 accumulation) with its documented fragment
// layout, so the data stays in registers between two steps. A complex 16-point DFT is one real
// 32x32 product ([Re -Im; Im Re] with the rows and the reduction index permuted so that (a) a
// (re, im) half2 word of memory is one operand register, (b) a thread's accumulators hold the re
// and im of the same outputs, and (c) the first product's accumulators are, after the twiddle and
// a cvt, the second product's A operand without a shuffle). One warp tile is 256 points as a
// 16x16 matrix M[a][b] (tile offset 16 a + b): step 1 along a (block-diagonal DFT_r,
// r = 1..16), twiddle, step 2 along b (DFT_16, or block-diagonal DFT_N for N < 16).
//   - N <= 256 (`fft_tc_f16_small_*`): a tile is 256/N whole transforms, read and written straight
//     from and to global memory (every 32-byte sector whole), the next tile's loads issued before
//     this one's arithmetic; shared memory only for the constant fragments and twiddles.
//   - N = 512..4096 (`fft_tc_f16_large_*`): a block takes 4096 points; the radix-R step (R = N/256,
//     rows at stride 256) is one product per tile loaded straight from global memory (whole
//     sectors) into shared memory, then every 256-point sub-transform is a two-step tile whose
//     outputs go to their digit-reversed (natural-order) places in a second buffer, copied out
//     coalesced. Padded layouts make every shared-memory access base + immediate and (nearly)
//     conflict-free.
// Both are one kernel per size, so all index arithmetic is constant. Their constant fragments come
// from images built once per size (fft_tc_f16_consts) and copied from L2 by each block instead of
// computed, so the host can launch short-lived blocks of a few pieces of work each (persistent
// grids cost copy bandwidth). The large kernel's radix-R columns are kept in r_col order (wider
// loads and stores: fewer L1 wavefronts, its limit), and the DFT_16 and block-diagonal DFT_R
// fragments are read as a quarter (A) and half (B) of an image, the rest sign flips or skipped
// zero blocks (step1_img, step2_img: fewer shared-memory wavefronts, the same outputs bit for bit).
// Measurements behind each choice: benches/NOTES.md, the "fp16 TC FFT" sections.
// benches/probes/fft_tc_emu.py emulates the fragments and addresses of both lane by lane (float64) and
// checks the shared-memory layouts' bank conflicts.
//
// Precision: inputs, outputs and the data between steps are fp16; products accumulate in fp32; the
// twiddles are applied in fp32 and rounded to fp16 once per step, except in the large kernel
// (N = 512..4096, and the rows of 2^18..2^20): there the 256-point tiles' inner twiddle is applied
// in half2 arithmetic (fp16 twiddles, HMUL2 + HFMA2) after step 1's outputs are rounded to fp16:
// half the twiddle bytes and instructions of that L1-bound kernel, for somewhat more error there
// (benches/NOTES.md, "the large kernel's tile twiddle in half2").
#include <cstdint>
#include <cuda_fp16.h>

#include "shared_memory.cuh"

namespace zkntt {
namespace fft {
constexpr uint32_t THREADS = 256;
constexpr uint32_t WARPS = THREADS / 32;
// Complex points per block of the large kernel: one 2^12 transform or 2^(12 - log_n) smaller ones.
constexpr uint32_t CHUNK = 4096;
// The twiddle table holds e^{-2 pi i j / TABLE} for j < TABLE (float2, built on the host).
constexpr uint32_t LOG_TABLE = 12;

// w_L^j (L = 2^log_l dividing TABLE), conjugated for the inverse.
template <bool INV>
__device__ __forceinline__ float2 root(const float2* tw, uint32_t j, uint32_t log_l) {
    float2 w = __ldg(tw + ((j & ((1u << log_l) - 1)) << (LOG_TABLE - log_l)));
    if (INV) w.y = -w.y;
    return w;
}

// w^m with w = e^{-pi i turn} (turn = 2 / N: w_N^m), conjugated for the inverse, by sincospif of an
// exact argument (m and turn exact in fp32): for per-lane constants, not per point.
template <bool INV>
__device__ __forceinline__ float2 root_exact(uint32_t m, float turn) {
    float sn, cs;
    sincospif((float)m * turn, &sn, &cs);
    return make_float2(cs, INV ? sn : -sn);
}

// a b, complex, fp32.
__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Two fp32 to one register of two fp16 (lo in the low half), round to nearest even.
__device__ __forceinline__ uint32_t pack(float lo, float hi) {
#ifdef ZKNTT_EMU
    return (uint32_t)__half_as_ushort(__float2half_rn(hi)) << 16 | __half_as_ushort(__float2half_rn(lo));
#else
    uint32_t r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
#endif
}

__device__ __forceinline__ uint32_t half_bits(float x) {
    return __half_as_ushort(__float2half_rn(x));
}

// d += A B, A 16x16 row-major fp16 (4 regs), B 16x8 col-major fp16 (2 regs), d 16x8 fp32. Lane
// l = 4 g + q holds A (g, 2q..2q+1), (g+8, 2q..), (g, 2q+8..), (g+8, 2q+8..); B (k = 2q..2q+1,
// n = g), (2q+8.., g); d (g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1).
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#ifdef ZKNTT_EMU
    zkntt_emu::mma_m16n8k16_f16_f32(d, a, b);
#else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

// Step 1, as an A operand: the 32x32 real form of block-diag(DFT_{2^log_r}) on 16 complex rows.
// Row m = 16 mt + h is component h >> 3 (0 re, 1 im) of output k_a = 8 mt + (h & 7); column
// k = 16 kb + kk is component kk & 1 of input a = 8 kb + (kk >> 1) (interleaved: a half2 word of
// memory is one B register).
template <bool INV>
__device__ __forceinline__ float g1_entry(const float2* tw, uint32_t log_r, uint32_t m, uint32_t k) {
    const uint32_t ka = 8 * (m >> 4) + (m & 7), co = (m >> 3) & 1;
    const uint32_t a = 8 * (k >> 4) + ((k & 15) >> 1), ci = k & 1;
    if ((ka >> log_r) != (a >> log_r)) return 0.0f;
    const float2 w = root<INV>(tw, ka * a, log_r);
    return co == 0 ? (ci == 0 ? w.x : -w.y) : (ci == 0 ? w.y : w.x);
}

// Step 2, as a B operand: the real form of block-diag(DFT_{2^log_c}) on 16 columns. Row
// k = 16 c + b is component c of input column b (planar: step 1's accumulators are the A operand
// as they stand); column n = 8 nt + 2 qq + co is component co of output k_b = kb_of(nt, qq).
// PAIRS puts k_b and k_b + 1 in one thread (nt and nt + 1) for 8-byte stores.
template <bool PAIRS>
__device__ __forceinline__ uint32_t kb_of(uint32_t nt, uint32_t qq) {
    return PAIRS ? 2 * qq + (nt & 1) + 8 * (nt >> 1) : 4 * nt + qq;
}

template <bool INV, bool PAIRS>
__device__ __forceinline__ float g2_entry(const float2* tw, uint32_t log_c, uint32_t k, uint32_t n) {
    const uint32_t c = k >> 4, b = k & 15;
    const uint32_t co = n & 1, kb = kb_of<PAIRS>(n >> 3, (n & 7) >> 1);
    if ((kb >> log_c) != (b >> log_c)) return 0.0f;
    const float2 w = root<INV>(tw, kb * b, log_c);
    return c == 0 ? (co == 0 ? w.x : w.y) : (co == 0 ? -w.y : w.x);
}

// The per-lane fragments of step 1's matrix: [mt][kb][reg].
template <bool INV>
__device__ __forceinline__ void load_g1(uint32_t (&f)[2][2][4], const float2* tw, uint32_t log_r,
                                        uint32_t lane) {
    const uint32_t g = lane >> 2, q = lane & 3;
#pragma unroll
    for (uint32_t mt = 0; mt < 2; mt++)
#pragma unroll
        for (uint32_t kb = 0; kb < 2; kb++)
#pragma unroll
            for (uint32_t j = 0; j < 4; j++) {
                const uint32_t m = 16 * mt + g + 8 * (j & 1), k = 16 * kb + 2 * q + 8 * (j >> 1);
                f[mt][kb][j] = half_bits(g1_entry<INV>(tw, log_r, m, k)) |
                               (half_bits(g1_entry<INV>(tw, log_r, m, k + 1)) << 16);
            }
}

// The per-lane fragments of step 2's matrix: [nt][kb][reg].
template <bool INV, bool PAIRS>
__device__ __forceinline__ void load_g2(uint32_t (&f)[4][2][2], const float2* tw, uint32_t log_c,
                                        uint32_t lane) {
    const uint32_t g = lane >> 2, q = lane & 3;
#pragma unroll
    for (uint32_t nt = 0; nt < 4; nt++)
#pragma unroll
        for (uint32_t kb = 0; kb < 2; kb++)
#pragma unroll
            for (uint32_t j = 0; j < 2; j++) {
                const uint32_t k = 16 * kb + 2 * q + 8 * j, n = 8 * nt + g;
                f[nt][kb][j] = half_bits(g2_entry<INV, PAIRS>(tw, log_c, k, n)) |
                               (half_bits(g2_entry<INV, PAIRS>(tw, log_c, k + 1, n)) << 16);
            }
}

// acc *= w (per element, fp32).
__device__ __forceinline__ void twiddle(float (&acc)[4], uint32_t e, float2 w) {
    const float re = acc[e], im = acc[2 + e];
    acc[e] = re * w.x - im * w.y;
    acc[2 + e] = re * w.y + im * w.x;
}

// Step 2's A operand (to_a2's, untwiddled) times the tile twiddles in half2 arithmetic:
// register j holds columns b, b + 1 of one row, re in a2[0][j], im in a2[1][j].
__device__ __forceinline__ void twiddle_h2(uint32_t (&a2)[2][4], const uint2 (&w)[4][32], uint32_t lane) {
#pragma unroll
    for (uint32_t j = 0; j < 4; j++) {
        const uint2 t = w[j][lane];
        const __half2 re = *reinterpret_cast<const __half2*>(&a2[0][j]);
        const __half2 im = *reinterpret_cast<const __half2*>(&a2[1][j]);
        const __half2 wr = *reinterpret_cast<const __half2*>(&t.x);
        const __half2 wi = *reinterpret_cast<const __half2*>(&t.y);
        const __half2 r = __hfma2(re, wr, __hneg2(__hmul2(im, wi)));
        const __half2 i = __hfma2(re, wi, __hmul2(im, wr));
        a2[0][j] = *reinterpret_cast<const uint32_t*>(&r);
        a2[1][j] = *reinterpret_cast<const uint32_t*>(&i);
    }
}

// Step 1's accumulators (twiddled) as step 2's A operand: [c][reg], reg = mt + 2 nt.
__device__ __forceinline__ void to_a2(uint32_t (&a2)[2][4], const float (&acc)[2][2][4]) {
#pragma unroll
    for (uint32_t j = 0; j < 4; j++) {
        const float(&c)[4] = acc[j & 1][j >> 1];
        a2[0][j] = pack(c[0], c[1]);
        a2[1][j] = pack(c[2], c[3]);
    }
}

// Step 2: out[nt] holds rows k_a = g (regs 0, 1 = re, im) and g + 8 (regs 2, 3), column
// k_b = kb_of(nt, q).
__device__ __forceinline__ void step2(float (&out)[4][4], const uint32_t (&a2)[2][4],
                                      const uint32_t (&g2)[4][2][2]) {
#pragma unroll
    for (uint32_t nt = 0; nt < 4; nt++) {
#pragma unroll
        for (uint32_t e = 0; e < 4; e++) out[nt][e] = 0.0f;
#pragma unroll
        for (uint32_t c = 0; c < 2; c++) mma(out[nt], a2[c], g2[nt][c]);
    }
}

// ---- N = 2..256: one tile per warp per iteration, global memory only -------------------------

// Tile row k_a is transform k_a >> log_r, step-1 output k1 = k_a & (r - 1); column b is n2, so the
// element sits at 16 k_a + b before and after step 1. After step 2 output k1 + r k_b of its
// transform. For N < 16 (log_r = 0, log_c = log_n) a row is 16 / N transforms and step 2 keeps
// every output in place.
// The kernels' constant fragments and twiddles, lane-indexed (conflict-free 16-byte reads) and read
// before each use (in registers they would cost occupancy, too few loads in flight; only 2^13's
// one-block kernel, L1-bound and running four tiles of an image a warp, holds them: TileRegs). They depend
// only on the size and direction, so `fft_tc_f16_consts` builds every such image once (in global
// memory, the host keeps it) and each block copies its image into shared memory (6 or 9 KiB from
// L2) instead of computing it (hundreds of instructions and dependent table loads per block):
// that is what lets the grids be a block per few pieces of work (benches/NOTES.md, "grid").
//   - TILE(t), t = 4..8: a two-step tile of a 2^t-point DFT (fft_small at 5..8, the row and
//     column passes): frag[0] step 1's block-diag DFT_{2^(t-4)}, frag[1] step 2's DFT_16, w1
//     step 1's twiddles w_{2^t}^{b k1}.
//   - PAIRS(c), c = 1..4: fft_small at N <= 16, one step: frag[1] block-diag DFT_{2^c} as a B
//     operand with k_b and k_b + 1 in one thread (PAIRS), the rest unused.
//   - LARGE(n), n = 9..12, a LargeConsts: fft_large: frag[0] the radix-R step (R = 2^(n-8)),
//     frag[1] the 256-point tiles' DFT_16 (step 1), frag2 their step 2, w1h w_256^{b k_a} as half2
//     pairs (twiddle_h2), wr the lane's part of the radix-R step's w_N^{n2 k1}.
struct TileConsts {
    uint4 frag[2][4][32];  // [matrix][4 regs][lane]
    float2 w1[8][32];      // [mt][nt][e][lane]
    // What a tile reads of it (tile_first, tile_rest), at each use: step 1's A block, step 2's
    // B blocks i < 2, twiddle i.
    __device__ __forceinline__ uint4 a(uint32_t lane) const { return frag[0][0][lane]; }
    __device__ __forceinline__ uint4 b(uint32_t i, uint32_t lane) const { return frag[1][i][lane]; }
    __device__ __forceinline__ float2 w(uint32_t i, uint32_t lane) const { return w1[i][lane]; }
};
struct LargeConsts {
    uint4 frag[2][4][32];  // as TileConsts'
    uint2 w1h[4][32];      // [j = mt + 2 nt][lane]: (re of columns b, b + 1; im of them) as half2
    uint4 frag2[4][32];
    float2 wr[8][32];
};
// Image slots per direction: PAIRS(c) at c - 1, TILE(t) at t, LARGE(n) at n; the inverse's after
// the forward's. Every image takes sizeof(LargeConsts).
constexpr uint32_t IMAGES = 13;
constexpr uint32_t IMAGE_WORDS4 = sizeof(LargeConsts) / 16;
static_assert(sizeof(LargeConsts) == 9216 && sizeof(TileConsts) <= sizeof(LargeConsts) &&
                  2 * IMAGES == 26,
              "the host's IMAGE_BYTES and IMAGES (crates/zkntt-small/src/fft/gpu.rs)");
__host__ __device__ constexpr uint32_t pairs_image(bool inv, uint32_t log_c) { return inv * IMAGES + log_c - 1; }
__host__ __device__ constexpr uint32_t tile_image(bool inv, uint32_t log_t) { return inv * IMAGES + log_t; }
__host__ __device__ constexpr uint32_t large_image(bool inv, uint32_t log_n) { return inv * IMAGES + log_n; }

// Column b of a radix-R step tile at word r_col(b) of its row (the step is independent per
// column, so any order serves; this one gives a lane's two B-operand columns g, g + 8 as
// adjacent words, one 8-byte load, and its four accumulator columns 2q + {0, 1, 8, 9} as the
// words 4q .. 4q + 3, one 16-byte store).
__host__ __device__ constexpr uint32_t r_col(uint32_t b) { return 2 * (b & 7) + (b >> 3); }

// One warp writes image `slot` (< IMAGES) of a direction: PAIRS and TILE images as a TileConsts
// at the start of the slot, LARGE as a LargeConsts.
template <bool INV>
__device__ void build_image(LargeConsts& c, const float2* tw, uint32_t slot, uint32_t lane) {
    const uint32_t g = lane >> 2, q = lane & 3;
    TileConsts& t = *reinterpret_cast<TileConsts*>(&c);
    auto put_a = [&](uint4 (&dst)[4][32], const uint32_t (&f)[2][2][4]) {
#pragma unroll
        for (uint32_t i = 0; i < 4; i++)
            dst[i][lane] = make_uint4(f[i >> 1][i & 1][0], f[i >> 1][i & 1][1], f[i >> 1][i & 1][2],
                                      f[i >> 1][i & 1][3]);
    };
    auto put_b = [&](uint4 (&dst)[4][32], const uint32_t (&f)[4][2][2]) {
#pragma unroll
        for (uint32_t i = 0; i < 4; i++)  // [nt = i][kb][reg]
            dst[i][lane] = make_uint4(f[i][0][0], f[i][0][1], f[i][1][0], f[i][1][1]);
    };
    if (slot < 4) {
        uint32_t g2[4][2][2];
        load_g2<INV, true>(g2, tw, slot + 1, lane);
        put_b(t.frag[1], g2);
    } else if (slot <= 8) {
        const uint32_t log_t = slot, log_r = log_t - 4, r = 1u << log_r;
        uint32_t g1[2][2][4], g2[4][2][2];
        load_g1<INV>(g1, tw, log_r, lane);
        load_g2<INV, false>(g2, tw, 4, lane);
        put_a(t.frag[0], g1);
        put_b(t.frag[1], g2);
#pragma unroll
        for (uint32_t i = 0; i < 8; i++) {
            const uint32_t mt = i >> 2, nt = (i >> 1) & 1, e = i & 1;
            t.w1[i][lane] = root<INV>(tw, (8 * nt + 2 * q + e) * ((8 * mt + g) & (r - 1)), log_t);
        }
    } else {
        const uint32_t log_n = slot, log_r = log_n - 8, r = 1u << log_r;
        uint32_t g1[2][2][4], g16[2][2][4], g2[4][2][2];
        load_g1<INV>(g1, tw, log_r, lane);
        load_g1<INV>(g16, tw, 4, lane);
        load_g2<INV, false>(g2, tw, 4, lane);
        put_a(c.frag[0], g1);
        put_a(c.frag[1], g16);
        put_b(c.frag2, g2);
#pragma unroll
        for (uint32_t i = 0; i < 8; i++) {
            const uint32_t mt = i >> 2, nt = (i >> 1) & 1, e = i & 1, ka = 8 * mt + g;
            const uint32_t b = 8 * nt + 2 * q + e;
            if (e == 0) {
                const float2 w0 = root<INV>(tw, b * ka, 8), w1 = root<INV>(tw, (b + 1) * ka, 8);
                c.w1h[mt + 2 * nt][lane] = make_uint2(pack(w0.x, w1.x), pack(w0.y, w1.y));
            }
            c.wr[i][lane] = root<INV>(tw, (16 * (ka >> log_r) + r_col(b)) * (ka & (r - 1)), log_n);
        }
    }
}

// The block copies the first sizeof(T) bytes of image `image` into shared memory (the caller
// synchronises before the first read).
template <typename T>
__device__ __forceinline__ void fetch_image(T& dst, const uint4* images, uint32_t image) {
    static_assert(sizeof(T) % 16 == 0 && sizeof(T) <= sizeof(LargeConsts), "image part");
    const uint4* src = images + image * IMAGE_WORDS4;
    uint4* d = reinterpret_cast<uint4*>(&dst);
#pragma unroll
    for (uint32_t k = 0; k < (sizeof(T) / 16 + THREADS - 1) / THREADS; k++) {
        const uint32_t i = threadIdx.x + k * THREADS;
        if ((sizeof(T) / 16) % THREADS == 0 || i < sizeof(T) / 16) d[i] = __ldg(src + i);
    }
}

// One block of a B-operand matrix, the lane's 16 bytes of it, as [kb][reg] (put_b's layout).
__device__ __forceinline__ void b_block(uint32_t (&f)[2][2], uint4 v) {
    f[0][0] = v.x;
    f[0][1] = v.y;
    f[1][0] = v.z;
    f[1][1] = v.w;
}

// A lane's fragments of one B-operand matrix of an image (its blocks nt < NT), in the layout put_b
// of build_image wrote: [nt][kb][reg].
template <uint32_t NT = 4>
__device__ __forceinline__ void get_b(uint32_t (&f)[NT][2][2], const uint4 (&src)[4][32], uint32_t lane) {
#pragma unroll
    for (uint32_t i = 0; i < NT; i++) b_block(f[i], src[i][lane]);
}

// Step 1 on the B fragments x[kb][nt][reg] (word (a = 8 kb + q + 4 reg, b = 8 nt + g)): the
// accumulators acc[mt][nt] hold output row k_a = 8 mt + g, columns b = 8 nt + 2 q + e as
// (re, im) = (acc[e], acc[2 + e]).
// The matrix is an image's block-diag(DFT_{2^LOG_R}) (load_g1's A operand) read as its block
// [mt][kb] = [0][0] alone (a quarter of the shared-memory reads): entry (k_a, a) is
// w_R^{k_a a} where k_a >> LOG_R == a >> LOG_R, k_a = 8 mt + g, a = 8 kb + q + 4 (reg >> 1), so
//   - R <= 8: blocks [0][1] and [1][0] are zero (their products are skipped) and [1][1] = [0][0]
//     ((8 + g)(8 + q') = g q' mod R);
//   - R = 16: [mt][kb] = (-1)^(mt q + kb g) [0][0] (w_16^(8 mt q' + 8 kb g)), a sign flip of both
//     halves of every register. benches/probes/fft_tc_emu.py checks both against load_g1.
// FULL reads all four blocks instead: for the large kernel's radix-16 step, where the twelve sign
// flips measured slower than the three reads they save (the 256-point tiles' step 1 measured the
// other way round; benches/NOTES.md, "fragments derived from a quarter of the images").
// `frag(i)` gives the lane's part of block i (i = 2 mt + kb) of the image's matrix; only block 0
// unless FULL.
template <uint32_t LOG_R, bool FULL = false, typename Frag>
__device__ __forceinline__ void step1_frags(float (&acc)[2][2][4], Frag frag,
                                            const uint32_t (&x)[2][2][2], uint32_t lane) {
    const uint4 v = frag(0);
    const uint32_t a[4] = {v.x, v.y, v.z, v.w};
    if constexpr (LOG_R < 4 && !FULL) {
#pragma unroll
        for (uint32_t mt = 0; mt < 2; mt++)
#pragma unroll
            for (uint32_t nt = 0; nt < 2; nt++) {
#pragma unroll
                for (uint32_t e = 0; e < 4; e++) acc[mt][nt][e] = 0.0f;
                mma(acc[mt][nt], a, x[mt][nt]);
            }
    } else {
        const uint32_t sq = (0u - (lane & 1)) & 0x80008000u, sg = (0u - ((lane >> 2) & 1)) & 0x80008000u;
#pragma unroll
        for (uint32_t mt = 0; mt < 2; mt++) {
#pragma unroll
            for (uint32_t nt = 0; nt < 2; nt++)
#pragma unroll
                for (uint32_t e = 0; e < 4; e++) acc[mt][nt][e] = 0.0f;
#pragma unroll
            for (uint32_t kb = 0; kb < 2; kb++) {
                uint32_t f[4];
                if constexpr (FULL) {
                    const uint4 w = frag(2 * mt + kb);
                    f[0] = w.x, f[1] = w.y, f[2] = w.z, f[3] = w.w;
                } else {
                    const uint32_t m = (mt ? sq : 0u) ^ (kb ? sg : 0u);
#pragma unroll
                    for (uint32_t i = 0; i < 4; i++) f[i] = a[i] ^ m;
                }
#pragma unroll
                for (uint32_t nt = 0; nt < 2; nt++) mma(acc[mt][nt], f, x[kb][nt]);
            }
        }
    }
}

template <uint32_t LOG_R, bool FULL = false>
__device__ __forceinline__ void step1_img(float (&acc)[2][2][4], const uint4 (&src)[4][32],
                                          const uint32_t (&x)[2][2][2], uint32_t lane) {
    step1_frags<LOG_R, FULL>(acc, [&](uint32_t i) { return src[i][lane]; }, x, lane);
}

// Step 2 with an image's DFT_16 as a B operand (load_g2<INV, false>(4)), reading its blocks
// nt = 0, 1 only: output k_b = 4 nt + (g >> 1) of input b = 2 q + 8 j + h (h the register's
// half), so nt + 2 is nt times w_16^(8 b) = (-1)^h, the high halves' signs flipped.
// b0, b1: the lane's part of the image's blocks 0 and 1.
__device__ __forceinline__ void step2_frags(float (&out)[4][4], const uint32_t (&a2)[2][4], uint4 b0, uint4 b1) {
    uint32_t b[2][2][2];  // [nt][kb][reg]
    b_block(b[0], b0);
    b_block(b[1], b1);
#pragma unroll
    for (uint32_t nt = 0; nt < 4; nt++) {
        const uint32_t m = nt < 2 ? 0u : 0x80000000u;
#pragma unroll
        for (uint32_t e = 0; e < 4; e++) out[nt][e] = 0.0f;
#pragma unroll
        for (uint32_t c = 0; c < 2; c++) {
            const uint32_t f[2] = {b[nt & 1][c][0] ^ m, b[nt & 1][c][1] ^ m};
            mma(out[nt], a2[c], f);
        }
    }
}

__device__ __forceinline__ void step2_img(float (&out)[4][4], const uint32_t (&a2)[2][4],
                                          const uint4 (&src)[4][32], uint32_t lane) {
    step2_frags(out, a2, src[0][lane], src[1][lane]);
}

// A TILE image's operands held in registers, for a warp that runs several tiles of one image in a
// row (fft_whole): read once instead of once a tile (the image in shared memory, TileConsts'
// accessors, is the default).
template <uint32_t LOG_R>
struct TileRegs {
    static constexpr uint32_t W = LOG_R < 4 ? 4 : 8;  // tile_rest reads w1[4..8) only at R = 16
    uint4 a_, b_[2];
    float2 w_[W];
    __device__ __forceinline__ TileRegs(const TileConsts& c, uint32_t lane) : a_(c.a(lane)), b_{c.b(0, lane), c.b(1, lane)} {
#pragma unroll
        for (uint32_t i = 0; i < W; i++) w_[i] = c.w(i, lane);
    }
    __device__ __forceinline__ uint4 a(uint32_t) const { return a_; }
    __device__ __forceinline__ uint4 b(uint32_t i, uint32_t) const { return b_[i]; }
    __device__ __forceinline__ float2 w(uint32_t i, uint32_t) const { return w_[i]; }
};

// The operands tiles of one image read: the image in shared memory itself, or with REGS a
// TileRegs of it.
template <bool REGS, uint32_t LOG_R>
__device__ __forceinline__ decltype(auto) tile_operands(const TileConsts& c, uint32_t lane) {
    if constexpr (REGS) return TileRegs<LOG_R>(c, lane);
    else return (c);
}

// A TILE image's two steps on one warp tile, split where the callers issue their next loads:
// step 1 (block-diag DFT_{2^LOG_R}) on the B fragments x (see step1), then the twiddle, step 2,
// outputs as step2's. C: the image (TileConsts in shared memory, or TileRegs).
template <uint32_t LOG_R, typename C>
__device__ __forceinline__ void tile_first(const C& c, const uint32_t (&x)[2][2][2],
                                           float (&acc)[2][2][4], uint32_t lane) {
    step1_frags<LOG_R>(acc, [&](uint32_t) { return c.a(lane); }, x, lane);
}

// The twiddle of row k_a = 8 mt + g is w^{b (k_a & (R - 1))}: for R <= 8 the same for mt = 0 and
// 1, so those tiles read half of w1 (8 of the 16 wavefronts of its reads).
template <uint32_t LOG_R, typename C>
__device__ __forceinline__ void tile_rest(const C& c, float (&acc)[2][2][4],
                                          float (&y)[4][4], uint32_t lane) {
#pragma unroll
    for (uint32_t nt = 0; nt < 2; nt++)
#pragma unroll
        for (uint32_t e = 0; e < 2; e++) {
            const float2 w0 = c.w(2 * nt + e, lane);
            twiddle(acc[0][nt], e, w0);
            twiddle(acc[1][nt], e, LOG_R < 4 ? w0 : c.w(4 + 2 * nt + e, lane));
        }
    uint32_t a2[2][4];
    to_a2(a2, acc);
    step2_frags(y, a2, c.b(0, lane), c.b(1, lane));
}

template <bool INV, uint32_t LOG_N>
__device__ __forceinline__ void fft_small(TileConsts& sm, const uint32_t* __restrict__ in,
                                          uint32_t* __restrict__ out, const uint4* images,
                                          uint64_t total) {
    constexpr uint32_t log_n = LOG_N;
    constexpr uint32_t log_r = log_n > 4 ? log_n - 4 : 0, log_c = log_n < 4 ? log_n : 4;
    constexpr uint32_t r = 1u << log_r;
    const uint32_t lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
    // Whole tiles go through the loop with no bounds checks (a pointer per tile, the rest
    // immediates); a partial last tile, if any, after it with checks.
    const uint64_t whole = total / 256;
    const uint64_t stride = (uint64_t)gridDim.x * WARPS;
    uint64_t tile = (uint64_t)blockIdx.x * WARPS + (threadIdx.x >> 5);

    if constexpr (log_r == 0) {
        // One step: rows g, g + 8, columns 8 nt + 2 q and + 1 as two words, straight into A.
        uint32_t g2[4][2][2];
        get_b(g2,
              reinterpret_cast<const TileConsts*>(images + pairs_image(INV, log_c) * IMAGE_WORDS4)
                  ->frag[1],
              lane);
        // A lane's offset in the tile, then immediates (kept apart so that they stay immediates).
        const uint32_t lane_at = 16 * g + 2 * q;
        auto load = [&](uint2 (&w)[2][2], uint64_t base, bool check) {
            const uint32_t* p = in + base + lane_at;
#pragma unroll
            for (uint32_t mt = 0; mt < 2; mt++)
#pragma unroll
                for (uint32_t nt = 0; nt < 2; nt++) {
                    const uint32_t at = 128 * mt + 8 * nt;
                    w[mt][nt] = !check || base + lane_at + at < total
                                    ? __ldg(reinterpret_cast<const uint2*>(p + at))
                                    : make_uint2(0, 0);
                }
        };
        auto work = [&](const uint2 (&w)[2][2], float (&y)[4][4]) {
            uint32_t a2[2][4];
#pragma unroll
            for (uint32_t j = 0; j < 4; j++) {
                const uint2 v = w[j & 1][j >> 1];
                a2[0][j] = __byte_perm(v.x, v.y, 0x5410);  // (re_b, re_b+1)
                a2[1][j] = __byte_perm(v.x, v.y, 0x7632);  // (im_b, im_b+1)
            }
            step2(y, a2, g2);
        };
        // nt = 2 p and 2 p + 1 hold k_b = 2 q + 8 p and + 1: one 8-byte store per row.
        auto store = [&](const float (&y)[4][4], uint64_t base, bool check) {
            uint32_t* o = out + base + lane_at;
#pragma unroll
            for (uint32_t p = 0; p < 2; p++)
#pragma unroll
                for (uint32_t h = 0; h < 2; h++) {
                    const uint32_t at = 128 * h + 8 * p;
                    if (!check || base + lane_at + at < total)
                        *reinterpret_cast<uint2*>(o + at) =
                            make_uint2(pack(y[2 * p][2 * h], y[2 * p][2 * h + 1]),
                                       pack(y[2 * p + 1][2 * h], y[2 * p + 1][2 * h + 1]));
                }
        };
        uint2 w[2][2];
        if (tile < whole) load(w, tile * 256, false);
        for (; tile < whole; tile += stride) {
            float y[4][4];
            uint2 v[2][2];
#pragma unroll
            for (uint32_t i = 0; i < 4; i++) v[i >> 1][i & 1] = w[i >> 1][i & 1];
            // The next tile's loads go out before this tile's arithmetic.
            if (tile + stride < whole) load(w, (tile + stride) * 256, false);
            work(v, y);
            store(y, tile * 256, false);
        }
        if (tile == whole && whole * 256 < total) {
            float y[4][4];
            load(w, tile * 256, true);
            work(w, y);
            store(y, tile * 256, true);
        }
    } else {
        // A lane's offsets in the tile (loads: row q, column g; stores: output row g, column q),
        // then immediates (kept apart so that they stay immediates; the output index is additive
        // over the lane's bits and the register's).
        const uint32_t lane_ld = 16 * q + g;
        const uint32_t lane_st = ((g >> log_r) << log_n) + (g & (r - 1)) + (q << log_r);
        auto load = [&](uint32_t (&x)[2][2][2], uint64_t base, bool check) {
            const uint32_t* p = in + base + lane_ld;
#pragma unroll
            for (uint32_t kb = 0; kb < 2; kb++)
#pragma unroll
                for (uint32_t nt = 0; nt < 2; nt++)
#pragma unroll
                    for (uint32_t j = 0; j < 2; j++) {
                        const uint32_t at = 16 * (8 * kb + 4 * j) + 8 * nt;
                        x[kb][nt][j] = !check || base + lane_ld + at < total ? __ldg(p + at) : 0u;
                    }
        };
        auto store = [&](const float (&y)[4][4], uint64_t base, bool check) {
            uint32_t* p = out + base + lane_st;
#pragma unroll
            for (uint32_t nt = 0; nt < 4; nt++)
#pragma unroll
                for (uint32_t h = 0; h < 2; h++) {
                    // k_a = g + 8 h, k_b = kb_of<false>(nt, q) = q + 4 nt.
                    const uint32_t at = (((8 * h) >> log_r) << log_n) + ((8 * h) & (r - 1)) +
                                        ((4 * nt) << log_r);
                    if (!check || base + lane_st + at < total)
                        p[at] = pack(y[nt][2 * h], y[nt][2 * h + 1]);
                }
        };
        uint32_t x[2][2][2];
        // The first tile's loads go out before the constants are copied.
        if (tile < whole) load(x, tile * 256, false);
        fetch_image(sm, images, tile_image(INV, log_n));
        __syncthreads();
        for (; tile < whole; tile += stride) {
            float acc[2][2][4], y[4][4];
            tile_first<log_r>(sm, x, acc, lane);
            // The next tile's loads go out before this tile's arithmetic.
            if (tile + stride < whole) load(x, (tile + stride) * 256, false);
            tile_rest<log_r>(sm, acc, y, lane);
            store(y, tile * 256, false);
        }
        if (tile == whole && whole * 256 < total) {
            float acc[2][2][4], y[4][4];
            load(x, tile * 256, true);
            tile_first<log_r>(sm, x, acc, lane);
            tile_rest<log_r>(sm, acc, y, lane);
            store(y, tile * 256, true);
        }
    }
}

// ---- N = 512..4096: a block per 4096 points, through shared memory ---------------------------

// Padded shared-memory layouts of the chunk's word index a, chosen by script over every access
// pattern below (benches/probes/fft_tc_emu.py --banks): `in` (pad_mid) conflict-free everywhere and
// its 16-byte groups whole, `out` (pad_out_r) at most 2-way (R = 2).
// Each is a sum of shifted copies of a, so for an address made of disjoint bit fields (a lane's
// part | a register's part) the register's part is a constant added to the lane's padded base:
// the loops below address shared memory as base + immediate.
__host__ __device__ constexpr uint32_t pad_out(uint32_t a) { return a + (a >> 5) + 2 * (a >> 7); }
// `out` at R = 4 (N = 1024): pad_out's stores there are 2-way conflicted, this one's none (faster
// at 1024: benches/NOTES.md, "what limits the large kernel"). At R = 2 no padding of this form
// clears them within the 48 KiB of static shared memory.
template <uint32_t LOG_R>
__host__ __device__ constexpr uint32_t pad_out_r(uint32_t a) { return LOG_R == 2 ? a + (a >> 6) : pad_out(a); }
__host__ __device__ constexpr uint32_t pad_mid(uint32_t a) { return a + 8 * (a >> 5) + 16 * (a >> 8); }
constexpr uint32_t IN_WORDS = pad_mid(CHUNK - 1) + 4;
constexpr uint32_t OUT_WORDS = pad_out(CHUNK - 1) + 1;

struct LargeSmem {
    alignas(16) uint32_t in[IN_WORDS];
    uint32_t out[OUT_WORDS];
    LargeConsts c;  // image LARGE(log_n)
};

// Row a of a radix-R step tile (a = j R + n1) at n1 * 256 + 16 j: a bit permutation of a.
template <uint32_t LOG_R>
__host__ __device__ constexpr uint32_t r_row(uint32_t a) {
    return ((a & ((1u << LOG_R) - 1)) << 8) + 16 * (a >> LOG_R);
}


// A band (B = 2^LOG_BAND rows of 2^LOG_N words, pass 2 of the four-step split at N2 = 2^10..2^12)
// staged in shared memory: row j at j S, output k2 at pad_out_r(k2) in it. S is the padded row
// rounded to 32 / B mod 32 words, so the copy-out's B rows x 32 / B consecutive k2 of a warp hit
// 32 distinct banks.
template <uint32_t LOG_N, uint32_t LOG_BAND>
__host__ __device__ constexpr uint32_t band_stride() {
    constexpr uint32_t base = pad_out_r<LOG_N - 8>((1u << LOG_N) - 1) + 1, want = 32u >> LOG_BAND;
    return base + ((want + 32 - base % 32) % 32);
}
// What precedes a band's staging in dynamic shared memory: the large kernel's radix-R buffer and
// constants (no `out`: the band is the output buffer).
struct BandHead {
    alignas(16) uint32_t in[IN_WORDS];
    LargeConsts c;
};
static_assert(sizeof(BandHead) == 30640, "the host's BAND_HEAD_BYTES (crates/zkntt-small/src/fft/gpu.rs)");

// LOG_N1 > 0 (FOLD, pass 2 of the four-step split with the transpose folded in, N = N1 x 2^LOG_N):
// the chunk is R = 4096 / 2^LOG_N consecutive rows k1 of one transform (total a multiple of N >=
// 2^13), and output k2 of row k1 goes to k1 + N1 k2 of the transform: runs of R words (used for
// R = 8, 32-byte runs) or, with LOG_BAND > 0, of a band's B = 2^LOG_BAND rows: the block takes
// B / R consecutive chunks into `so` (band_stride's layout) before one copy-out. Otherwise `so`
// is the chunk's output buffer (sm.out). Smem: LargeSmem or BandHead.
template <bool INV, uint32_t LOG_N, uint32_t LOG_N1 = 0, uint32_t LOG_BAND = 0, typename Smem = LargeSmem>
__device__ __forceinline__ void fft_large(Smem& sm, uint32_t* so, const uint4* __restrict__ in,
                                          uint32_t* __restrict__ out, const float2* tw,
                                          const uint4* images, uint64_t total) {
    constexpr bool FOLD = LOG_N1 > 0, BAND = LOG_BAND > 0;
    constexpr uint32_t log_n = LOG_N, log_r = log_n - 8, r = 1u << log_r;
    // Rows of a chunk; chunks a unit of the loop (a band, else one chunk); a band's row stride.
    constexpr uint32_t log_rows = 12 - log_n, log_cpu = BAND ? LOG_BAND - log_rows : 0;
    constexpr uint32_t S = BAND ? band_stride<LOG_N, LOG_BAND>() : 0;
    static_assert(!BAND || (FOLD && LOG_BAND >= log_rows && LOG_BAND <= LOG_N1), "a band is whole chunks of one transform");
    const uint32_t tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, q = lane & 3;
    const uint64_t chunks = (total + CHUNK - 1) / CHUNK, units = chunks >> log_cpu;


    // Per-thread padded bases, for tile slot s (tile T = warp + 8 s): radix-R step loads (rows
    // q + ..., columns g, g + 8) and stores (rows g + ..., columns 2 q + {0, 1, 8, 9}); 256-point
    // tile loads and output stores. Then the radix-R step's per-tile twiddle w_N^{tau (256 / R) k1}.
    uint32_t b2l[2], b2s[2], b3l[2], b3s[2];
    float2 wt[2][2];
#pragma unroll
    for (uint32_t s = 0; s < 2; s++) {
        const uint32_t T = warp + WARPS * s, t = T >> log_r, tau = T & (r - 1);
        const uint32_t col0 = (t << log_n) + (tau << (8 - log_r));
        b2l[s] = col0 + r_row<log_r>(q) + r_col(g);  // the chunk's word (global memory)
        b2s[s] = pad_mid(col0 + r_row<log_r>(g) + r_col(2 * q));
        b3l[s] = pad_mid(256 * T + 16 * q + g);
        b3s[s] = BAND ? t * S + pad_out_r<log_r>(tau + ((g + 16 * q) << log_r))
                      : pad_out_r<log_r>((t << log_n) + tau + ((g + 16 * q) << log_r));
#pragma unroll
        for (uint32_t mt = 0; mt < 2; mt++)
            wt[s][mt] = root<INV>(tw, (tau << (8 - log_r)) * ((8 * mt + g) & (r - 1)), log_n);
    }

    // The radix-R step's tiles come straight from global memory (each 8-byte load instruction
    // eight whole 32-byte sectors in two (R = 2) to four (R = 16) 128-byte lines), the next
    // chunk's issued right after this chunk's step 1 of the same tile slot. Tiles past a
    // partial chunk's transforms load nothing.
    const uint32_t* in_words = reinterpret_cast<const uint32_t*>(in);
    auto load = [&](uint32_t (&x)[2][2][2], uint64_t chunk, uint32_t s) {
        const uint64_t base = chunk * CHUNK;
        const uint32_t T = warp + WARPS * s;
        if (base + ((T >> log_r) << log_n) >= total) return;
        const uint32_t* p = in_words + base + b2l[s];
#pragma unroll
        for (uint32_t kb = 0; kb < 2; kb++)
#pragma unroll
            for (uint32_t j = 0; j < 2; j++) {
                const uint2 v = __ldg(reinterpret_cast<const uint2*>(p + r_row<log_r>(8 * kb + 4 * j)));
                x[kb][0][j] = v.x;  // column g
                x[kb][1][j] = v.y;  // column g + 8
            }
    };
    const uint32_t p4 = pad_out_r<log_r>(tid);
    uint32_t xr[2][2][2][2];  // [tile slot][kb][nt][reg]
    uint64_t unit = blockIdx.x;
    if (unit < units) {
        load(xr[0], unit << log_cpu, 0);
        load(xr[1], unit << log_cpu, 1);
    }
    fetch_image(sm.c, images, large_image(INV, log_n));
    __syncthreads();
    for (; unit < units; unit += gridDim.x) {
#pragma unroll 1
      for (uint32_t c = 0; c < (1u << log_cpu); c++) {
        const uint64_t chunk = (unit << log_cpu) + c, base = chunk * CHUNK;
        // The chunk whose loads go out during this one's radix-R step.
        const uint64_t next = c + 1 < (1u << log_cpu) ? chunk + 1 : (unit + gridDim.x) << log_cpu;
        const uint32_t valid = (uint32_t)min((uint64_t)CHUNK, total - base);  // a multiple of 2^log_n

        // The radix-R step: tile T of transform t = T >> log_r covers the columns
        // n2 = tau 256/R + 16 j + b (tau = T & (R - 1)) of rows n1; tile row a = j R + n1; its
        // outputs go to the same places of sm.in.
#pragma unroll
        for (uint32_t s = 0; s < 2; s++) {
            const uint32_t T = warp + WARPS * s;
            if (((T >> log_r) << log_n) >= valid) continue;
            float acc[2][2][4];
            step1_img<log_r, log_r == 4>(acc, sm.c.frag[0], xr[s], lane);  // FULL at R = 16
            if (next < chunks) load(xr[s], next, s);
#pragma unroll
            for (uint32_t mt = 0; mt < 2; mt++) {
#pragma unroll
                for (uint32_t nt = 0; nt < 2; nt++)
#pragma unroll
                    for (uint32_t e = 0; e < 2; e++) {
                        const float2 l = sm.c.wr[4 * mt + 2 * nt + e][lane], v = wt[s][mt];
                        twiddle(acc[mt][nt], e, make_float2(l.x * v.x - l.y * v.y, l.x * v.y + l.y * v.x));
                    }
                // Columns 2q + e + 8 nt at words 4q + 2e + nt (r_col).
                const float(&c0)[4] = acc[mt][0];
                const float(&c1)[4] = acc[mt][1];
                *reinterpret_cast<uint4*>(sm.in + b2s[s] + pad_mid(r_row<log_r>(8 * mt))) =
                    make_uint4(pack(c0[0], c0[2]), pack(c1[0], c1[2]), pack(c0[1], c0[3]), pack(c1[1], c1[3]));
            }
        }
        __syncthreads();

        // Every 256-point run (sub-transform k1 = run & (R - 1) of transform t = run >> log_r):
        // two steps in registers, output k1 + R (k_a + 16 k_b) of the transform.
#pragma unroll
        for (uint32_t s = 0; s < 2; s++) {
            const uint32_t run = warp + WARPS * s;
            if (((run >> log_r) << log_n) >= valid) continue;
            uint32_t x[2][2][2];
#pragma unroll
            for (uint32_t kb = 0; kb < 2; kb++)
#pragma unroll
                for (uint32_t nt = 0; nt < 2; nt++)
#pragma unroll
                    for (uint32_t j = 0; j < 2; j++)
                        x[kb][nt][j] = sm.in[b3l[s] + pad_mid(16 * (8 * kb + 4 * j) + 8 * nt)];
            float acc[2][2][4];
            step1_img<4>(acc, sm.c.frag[1], x, lane);
            uint32_t a2[2][4];
            to_a2(a2, acc);
            twiddle_h2(a2, sm.c.w1h, lane);
            float y[4][4];
            step2_img(y, a2, sm.c.frag2, lane);
#pragma unroll
            for (uint32_t nt = 0; nt < 4; nt++)
#pragma unroll
                for (uint32_t h = 0; h < 2; h++)
                    so[b3s[s] + (BAND ? (c << log_rows) * S : 0) + pad_out_r<log_r>((8 * h + 64 * nt) << log_r)] =
                        pack(y[nt][2 * h], y[nt][2 * h + 1]);
        }
        __syncthreads();

        if constexpr (BAND) {
            if (c + 1 < (1u << log_cpu)) continue;
            // Word tid + 256 i of the band's copy-out: row tid % B (the same for every i), output
            // k2 = tid / B + i 256 / B; runs of B words (B 4-byte words of one k2, 8 = a sector).
            constexpr uint32_t step = THREADS >> LOG_BAND;
            const uint64_t per = 1ull << (LOG_N1 - LOG_BAND);  // bands per transform
            const uint32_t row = tid & ((1u << LOG_BAND) - 1), k2 = tid >> LOG_BAND;
            uint32_t* o = out + ((unit / per) << (LOG_N1 + log_n)) +
                          ((uint32_t)(unit & (per - 1)) << LOG_BAND) + row + ((uint64_t)k2 << LOG_N1);
            const uint32_t p = row * S + pad_out_r<log_r>(k2);
#pragma unroll 16
            for (uint32_t i = 0; i < (CHUNK << log_cpu) / THREADS; i++)
                o[(uint64_t)(step * i) << LOG_N1] = so[p + pad_out_r<log_r>(step * i)];
        } else if constexpr (FOLD) {
            // Word tid + 256 i of the copy-out: chunk row tid % R (the same for every i, R <= 8),
            // output k2 = tid / R + i 256 / R; pointer and padded base once, then immediates.
            constexpr uint32_t log_rows = 12 - log_n, step = THREADS >> log_rows;
            const uint64_t per = 1ull << (LOG_N1 + log_n - 12);  // chunks per transform
            const uint32_t row = tid & ((1u << log_rows) - 1), k2 = tid >> log_rows;
            uint32_t* o = out + ((chunk / per) << (LOG_N1 + log_n)) +
                          ((uint32_t)(chunk & (per - 1)) << log_rows) + row + ((uint64_t)k2 << LOG_N1);
            const uint32_t p = pad_out_r<log_r>((row << log_n) + k2);
#pragma unroll
            for (uint32_t i = 0; i < CHUNK / THREADS; i++)
                o[(uint64_t)(step * i) << LOG_N1] = so[p + pad_out_r<log_r>(step * i)];
        } else if (valid == CHUNK) {
#pragma unroll
            for (uint32_t i = 0; i < CHUNK / THREADS; i++)
                out[base + tid + i * THREADS] = so[p4 + pad_out_r<log_r>(THREADS * i)];
        } else {
#pragma unroll
            for (uint32_t i = 0; i < CHUNK / THREADS; i++)
                if (tid + i * THREADS < valid)
                    out[base + tid + i * THREADS] = so[p4 + pad_out_r<log_r>(THREADS * i)];
        }
      }
    }
}

template <bool INV>
__device__ __forceinline__ void fft_large_fold_any(const uint4* in, uint32_t* out, const float2* tw,
                                                   const uint4* images, uint32_t log_n2,
                                                   uint32_t log_n1, uint64_t total) {
    ZKNTT_STATIC_SHARED(LargeSmem, sm, );
    switch (log_n2) {
        // 2^17 = 256 x 512 only: at 2^18 and 2^19 the runs of 4 and 2 words made this pass
        // slower than the rows and a transpose (benches/NOTES.md, "the transpose folded").
        case 9: if (log_n1 == 8) fft_large<INV, 9, 8>(sm, sm.out, in, out, tw, images, total); break;
        default: break;
    }
}

// 2^18..2^20 = 256 x 2^10..2^12: bands of 8 rows (32-byte runs), the band's bytes after a BandHead in
// dynamic shared memory (63 / 97 / 164 KiB). The host launches only the (log_n2, log_band) below.
template <bool INV>
__device__ __forceinline__ void fft_large_band_any(const uint4* in, uint32_t* out, const float2* tw,
                                                   const uint4* images, uint32_t log_n2,
                                                   uint32_t log_n1, uint32_t log_band, uint64_t total) {
    ZKNTT_DYNAMIC_SHARED(uint4, band_smem);
    BandHead& sm = *reinterpret_cast<BandHead*>(band_smem);
    uint32_t* so = reinterpret_cast<uint32_t*>(&sm + 1);
    if (log_n1 != 8) return;
    switch (log_n2 * 8 + log_band) {
        case 10 * 8 + 3: fft_large<INV, 10, 8, 3>(sm, so, in, out, tw, images, total); break;
        case 11 * 8 + 3: fft_large<INV, 11, 8, 3>(sm, so, in, out, tw, images, total); break;
        case 12 * 8 + 3: fft_large<INV, 12, 8, 3>(sm, so, in, out, tw, images, total); break;
        default: break;
    }
}

// ---- N = 2^13..2^16: pass 2 of the four-step split, rows of N2 = 2^6..2^8, transpose folded in --

// A block takes a chunk of 4096 words = R = 4096 / N2 consecutive rows k1 of one transform; each
// warp two 256-word tiles of 256 / N2 rows, computed as fft_small's tiles (same fragments, loads
// and output order); output k2 of chunk row j goes to shared memory at k2 (R + 1) + j (the + 1:
// at most 2-way conflicts on every size), and from there to X[k1 + N1 k2] in runs of R words.
constexpr uint32_t ROWS_WORDS = CHUNK + 256;
struct RowsSmem {
    uint32_t data[ROWS_WORDS];
    TileConsts c;  // image TILE(log N2)
};

template <bool INV, uint32_t LOG_N2, uint32_t LOG_N1>
__device__ __forceinline__ void fft_rows(RowsSmem& sm, const uint32_t* __restrict__ in,
                                         uint32_t* __restrict__ out, const uint4* images,
                                         uint64_t total) {
    constexpr uint32_t log_r = LOG_N2 - 4, r = 1u << log_r;
    constexpr uint32_t log_rows = 12 - LOG_N2, R = 1u << log_rows;
    const uint32_t tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, q = lane & 3;
    const uint64_t chunks = total / CHUNK, per = 1ull << (LOG_N1 + LOG_N2 - 12);

    // As fft_small: loads row q, column g of the tile; output k_a = g + ..., k_b = q + ... at
    // tile offset lane_st + immediate (row (offset >> LOG_N2), output k2 = offset & (N2 - 1)).
    const uint32_t lane_ld = 16 * q + g;
    // The lane's output (chunk row, k2) as a shared-memory base (k2 (R + 1) + row is linear and the
    // lane's and the register's bit fields are disjoint, so the rest is an immediate).
    const uint32_t st = (g >> log_r) + ((g & (r - 1)) + (q << log_r)) * (R + 1);
    auto load = [&](uint32_t (&x)[2][2][2], uint64_t base) {
        const uint32_t* p = in + base + lane_ld;
#pragma unroll
        for (uint32_t kb = 0; kb < 2; kb++)
#pragma unroll
            for (uint32_t nt = 0; nt < 2; nt++)
#pragma unroll
                for (uint32_t j = 0; j < 2; j++) x[kb][nt][j] = __ldg(p + 16 * (8 * kb + 4 * j) + 8 * nt);
    };
    uint32_t x[2][2][2][2];  // [tile slot][kb][nt][reg]
    uint64_t chunk = blockIdx.x;
    if (chunk < chunks) {
        load(x[0], chunk * CHUNK + 256 * warp);
        load(x[1], chunk * CHUNK + 256 * (warp + WARPS));
    }
    fetch_image(sm.c, images, tile_image(INV, LOG_N2));
    __syncthreads();
    for (; chunk < chunks; chunk += gridDim.x) {
#pragma unroll
        for (uint32_t s = 0; s < 2; s++) {
            const uint32_t T = warp + WARPS * s;
            float acc[2][2][4], y[4][4];
            tile_first<log_r>(sm.c, x[s], acc, lane);
            // The next chunk's loads go out before this tile's arithmetic.
            if (chunk + gridDim.x < chunks) load(x[s], (chunk + gridDim.x) * CHUNK + 256 * T);
            tile_rest<log_r>(sm.c, acc, y, lane);
#pragma unroll
            for (uint32_t nt = 0; nt < 4; nt++)
#pragma unroll
                for (uint32_t h = 0; h < 2; h++) {
                    const uint32_t row = ((256 * T) >> LOG_N2) + ((8 * h) >> log_r);
                    const uint32_t k2 = ((8 * h) & (r - 1)) + ((4 * nt) << log_r);
                    sm.data[st + k2 * (R + 1) + row] = pack(y[nt][2 * h], y[nt][2 * h + 1]);
                }
        }
        __syncthreads();
        // Word tid + 256 i: chunk row tid % R (the same for every i), output k2 = tid / R + i 256 / R.
        {
            constexpr uint32_t step = THREADS >> log_rows;
            const uint32_t row = tid & (R - 1), k2 = tid >> log_rows;
            uint32_t* o = out + ((chunk / per) << (LOG_N1 + LOG_N2)) +
                          ((uint32_t)(chunk & (per - 1)) << log_rows) + row + ((uint64_t)k2 << LOG_N1);
            const uint32_t p = k2 * (R + 1) + row;
#pragma unroll
            for (uint32_t i = 0; i < CHUNK / THREADS; i++)
                o[(uint64_t)(step * i) << LOG_N1] = sm.data[p + step * i * (R + 1)];
        }
        __syncthreads();
    }
}

template <bool INV>
__device__ __forceinline__ void fft_rows_any(const uint32_t* in, uint32_t* out, const uint4* images,
                                             uint32_t log_n2, uint32_t log_n1, uint64_t total) {
    ZKNTT_STATIC_SHARED(RowsSmem, sm, );
    switch (log_n2) {
        // The sizes model::split gives: 2^13 = 128 x 64, 2^14 = 128 x 128, 2^15 = 256 x 128,
        // 2^16 = 256 x 256.
        case 6: if (log_n1 == 7) fft_rows<INV, 6, 7>(sm, in, out, images, total); break;
        case 7:
            if (log_n1 == 7) fft_rows<INV, 7, 7>(sm, in, out, images, total);
            else if (log_n1 == 8) fft_rows<INV, 7, 8>(sm, in, out, images, total);
            break;
        case 8: if (log_n1 == 8) fft_rows<INV, 8, 8>(sm, in, out, images, total); break;
        default: break;
    }
}

// A warp tile's B fragments x[kb][nt][reg] (step1_img's layout): word(at) of the tile word
// at = 16 (8 kb + 4 reg) + 8 nt past the lane's own (16 q + g), for whichever memory and layout.
template <typename Word>
__device__ __forceinline__ void tile_words(uint32_t (&x)[2][2][2], Word word) {
#pragma unroll
    for (uint32_t kb = 0; kb < 2; kb++)
#pragma unroll
        for (uint32_t nt = 0; nt < 2; nt++)
#pragma unroll
            for (uint32_t j = 0; j < 2; j++) x[kb][nt][j] = word(16 * (8 * kb + 4 * j) + 8 * nt);
}

// One column tile of the four-step split (fft_columns, fft_whole): the 256 words of 256 / N1
// whole columns at the padded base b_ld (+ pad of the register's part) through TILE(log N1)'s two
// steps, output k1 of column n2 back at b_st + pad(o) times w_N^{n2 k1}. With k1 = a + c (a the
// lane's bits of the store offset, c the register's: c_h + nt c_nt) and n2 = n2_0 + d (n2_0 the
// tile's first column, d the register's), w^{n2 k1} = w^{n2_0 a} w^{d a} w^{n2 c_h} (w^{n2 c_nt})^nt:
// the caller gives lane0 = w^{n2_0 a}, w_a = w^a and w_n(m) = w^m for the uniform factors (the
// same in every lane); the rest are fp32 products, not a twiddle computed or gathered a point.
template <uint32_t LOG_N1, typename C, typename WofN, typename Pad>
__device__ __forceinline__ void column_tile(uint32_t* data, uint32_t b_ld, uint32_t b_st,
                                            const C& c, uint32_t n2_0, float2 lane0, float2 w_a,
                                            WofN w_n, Pad pad, uint32_t lane) {
    constexpr uint32_t log_r = LOG_N1 - 4, r = 1u << log_r, N1 = 1u << LOG_N1, c_nt = 4u << log_r;
    static_assert(LOG_N1 >= 7, "a lane's stores within one column (the lane's offset < N1)");
    uint32_t x[2][2][2];
    tile_words(x, [&](uint32_t at) { return data[b_ld + pad(at)]; });
    __syncwarp();
    float acc[2][2][4], y[4][4];
    tile_first<log_r>(c, x, acc, lane);
    tile_rest<log_r>(c, acc, y, lane);
#pragma unroll
    for (uint32_t h = 0; h < 2; h++) {
        // The store offset o = d N1 + c_h + nt c_nt (as fft_small's), linear in nt.
        const uint32_t o_h = (((8 * h) >> log_r) << LOG_N1) + ((8 * h) & (r - 1));
        const uint32_t d = o_h >> LOG_N1, c_h = o_h & (N1 - 1), n2 = n2_0 + d;
        const float2 lane_w = d ? cmul(lane0, w_a) : lane0;
        const float2 v = w_n(n2 * c_nt);
        float2 u = c_h ? w_n(n2 * c_h) : make_float2(1.0f, 0.0f);
#pragma unroll
        for (uint32_t nt = 0; nt < 4; nt++) {
            const float2 w = cmul(lane_w, u);
            const float re = y[nt][2 * h], im = y[nt][2 * h + 1];
            data[b_st + pad(o_h + nt * c_nt)] = pack(re * w.x - im * w.y, re * w.y + im * w.x);
            if (nt < 3) u = cmul(u, v);
        }
    }
}

// ---- N = 2^13..2^20: pass 1 of the four-step split, the N1-point column DFTs ------------------

// N = N1 x N2 (N1 = 2^4..2^8, N2 = N / N1, x[n1 N2 + n2]): Y[k1 N2 + n2] = w_N^{n2 k1} times the
// N1-point DFT of column n2 (rounded to fp16 once, after the fp32 twiddle). Then (host side,
// `crates/zkntt-small/src/fft/gpu.rs`) the N2-point FFT of every row of Y written straight to
// X[k1 + N1 k2] (fft_rows, fft_large with LOG_N1: 2^13..2^17, with LOG_BAND: 2^18..2^20), or
// the one-launch kernel on the rows and a transpose. A block takes a slab of C = 4096 / N1
// adjacent columns (rows of C words, 16-byte coalesced), stores it column-major in shared memory
// (pad_col layout), so that each 256-word run is one warp tile of 256 / N1 whole columns exactly as
// in fft_small, and writes the tile's outputs back in place before copying the slab out.
// The slab in shared memory: column c at c P, row n1 at n1 + 8 (n1 >> 5) in it, P the padded
// column rounded to 2 mod 8 (N1 = 256) or odd (N1 = 128): the staging stores and copy-out reads
// (a 16-byte word's four columns, 8 or 4 rows a warp) and the tiles' loads and stores are all
// conflict-free (benches/probes/fft_columns_banks.py; pad_in's staging was 4-way).
template <uint32_t LOG_N1>
__host__ __device__ constexpr uint32_t pad_col(uint32_t a) {
    constexpr uint32_t P = LOG_N1 == 8 ? 314 : 153;
    const uint32_t row = a & ((1u << LOG_N1) - 1);
    return (a >> LOG_N1) * P + row + 8 * (row >> 5);
}
static_assert(pad_col<8>(4095) < 5355 - 4 && pad_col<7>(4095) < 5355 - 4, "a slab fits IN_WORDS");

struct ColumnSmem {
    alignas(16) uint32_t data[IN_WORDS];
    TileConsts c;  // image TILE(log N1)
};

template <bool INV, uint32_t LOG_N1>
__device__ __forceinline__ void fft_columns(ColumnSmem& sm, const uint4* __restrict__ in,
                                            uint32_t* __restrict__ out, const uint4* images,
                                            uint32_t log_n, uint64_t total) {
    constexpr uint32_t log_r = LOG_N1 - 4, r = 1u << log_r;
    constexpr uint32_t log_c = 12 - LOG_N1, c4s = (1u << log_c) / 4;  // columns per slab, / 4
    const uint32_t tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, q = lane & 3;
    const uint32_t log_n2 = log_n - LOG_N1, log_slabs = log_n - 12;  // slabs per transform
    const uint64_t slabs = total / CHUNK;

    // Slab s: transform s >> log_slabs, columns (s & (slabs per transform - 1)) C + [0, C).
    auto slab_base = [&](uint64_t s) -> uint64_t {
        return ((s >> log_slabs) << log_n) + ((s & ((1ull << log_slabs) - 1)) << log_c);
    };
    // Thread's 16-byte words i = tid + THREADS k: row i / (C / 4), columns 4 (i % (C / 4)) + [0, 4).
    uint4 pre[CHUNK / 4 / THREADS];
    auto fetch = [&](uint64_t s) {
        const uint64_t base = slab_base(s);
#pragma unroll
        for (uint32_t k = 0; k < CHUNK / 4 / THREADS; k++) {
            const uint32_t i = tid + k * THREADS, row = i / c4s, c4 = i % c4s;
            pre[k] = in[(base + ((uint64_t)row << log_n2)) / 4 + c4];
        }
    };
    const uint32_t lane_ld = 16 * q + g;
    const uint32_t lane_st = ((g >> log_r) << LOG_N1) + (g & (r - 1)) + (q << log_r);
    const float turn = __int_as_float((127 + 1 - (int)log_n) << 23);  // 2 / N, exact
    // w_N^(n2 k) for k = lane_st (m = n2 lane_st) or a register's k (m < N).
    constexpr uint32_t C = 256 >> LOG_N1;  // columns a tile holds
    auto w_of = [&](uint32_t m) { return root_exact<INV>(m, turn); };
    const float2 w_a = w_of(lane_st);  // w^{d lane_st}, d = 1 (C = 2)

    uint64_t s = blockIdx.x;
    if (s < slabs) fetch(s);
    // Read after the first __syncthreads below.
    fetch_image(sm.c, images, tile_image(INV, LOG_N1));
    for (; s < slabs; s += gridDim.x) {
        const uint64_t base = slab_base(s);
        const uint32_t col_base = (uint32_t)(base & ((1ull << log_n2) - 1));  // n2 of column 0
#pragma unroll
        for (uint32_t k = 0; k < CHUNK / 4 / THREADS; k++) {
            const uint32_t i = tid + k * THREADS, row = i / c4s, c4 = i % c4s;
            const uint32_t at = ((4 * c4) << LOG_N1) + row;
            sm.data[pad_col<LOG_N1>(at)] = pre[k].x;
            sm.data[pad_col<LOG_N1>(at + (1u << LOG_N1))] = pre[k].y;
            sm.data[pad_col<LOG_N1>(at + (2u << LOG_N1))] = pre[k].z;
            sm.data[pad_col<LOG_N1>(at + (3u << LOG_N1))] = pre[k].w;
        }
        __syncthreads();
        if (s + gridDim.x < slabs) fetch(s + gridDim.x);

#pragma unroll
        for (uint32_t t = 0; t < 2; t++) {
            const uint32_t T = warp + WARPS * t;  // tile: columns T 256 / N1 + [0, 256 / N1)
            const uint32_t n2 = col_base + C * T;  // the tile's first column
            column_tile<LOG_N1>(sm.data, pad_col<LOG_N1>(256 * T + lane_ld), pad_col<LOG_N1>(256 * T + lane_st), sm.c,
                                n2, w_of(n2 * lane_st), w_a, w_of, [](uint32_t a) { return pad_col<LOG_N1>(a); }, lane);
        }
        __syncthreads();

#pragma unroll
        for (uint32_t k = 0; k < CHUNK / 4 / THREADS; k++) {
            const uint32_t i = tid + k * THREADS, row = i / c4s, c4 = i % c4s;
            const uint32_t at = ((4 * c4) << LOG_N1) + row;
            reinterpret_cast<uint4*>(out)[(base + ((uint64_t)row << log_n2)) / 4 + c4] =
                make_uint4(sm.data[pad_col<LOG_N1>(at)], sm.data[pad_col<LOG_N1>(at + (1u << LOG_N1))],
                           sm.data[pad_col<LOG_N1>(at + (2u << LOG_N1))], sm.data[pad_col<LOG_N1>(at + (3u << LOG_N1))]);
        }
        __syncthreads();
    }
}

template <bool INV>
__device__ __forceinline__ void fft_columns_any(const uint4* in, uint32_t* out, const uint4* images,
                                                uint32_t log_n1, uint32_t log_n, uint64_t total) {
    ZKNTT_STATIC_SHARED(ColumnSmem, sm, );
    switch (log_n1) {
        // model::split gives 7 (2^13, 2^14) and 8 (2^15..2^20).
        case 7: fft_columns<INV, 7>(sm, in, out, images, log_n, total); break;
        case 8: fft_columns<INV, 8>(sm, in, out, images, log_n, total); break;
        default: break;
    }
}

// ---- N = 2^13..2^15: one block per transform, the four-step split in shared memory -----------

// The transform (N = N1 x N2, model::split: 2^13 = 128 x 64, 2^14 = 128 x 128, 2^15 = 256 x 128)
// lies in shared memory column-major: input x[n1 N2 + n2] at word n2 N1 + n1 (pad_whole). The
// N1-point column DFTs are whole warp tiles of 256 / N1 adjacent columns, as fft_columns computes
// them, written back in place times w_N^{n2 k1} (fp32); the N2-point row DFTs are tiles of
// 256 / N2 rows at stride N1, as fft_small computes them, output k2 of row k1 written back in
// place at k2 N1 + k1, which is X's natural index k1 + N1 k2; then the block copies X out
// contiguously. One pass over global memory where the two launches make two.
// pad_whole (chosen by benches/probes/fft_whole_banks.py over the loads, both phases' tile loads
// and stores and the copy-out): every access conflict-free but 2^13's row-tile stores (2-way). A
// sum of shifted copies of the word index, so for disjoint bit fields (a lane's part | a
// register's part) it is base + immediate.
template <uint32_t LOG_N1>
__host__ __device__ constexpr uint32_t pad_whole(uint32_t a) {
    return a + 8 * (a >> 5) + (a >> LOG_N1) + 8 * (a >> (LOG_N1 + 5));
}
// Shared memory of the block: the two tile images, the fine twiddles, then the padded transform
// (the host's whole_smem_bytes in crates/zkntt-small/src/fft/gpu.rs computes the same size).
struct WholeHead {
    TileConsts c1;     // TILE(log N1): the column tiles
    TileConsts c2;     // TILE(log N2): the row tiles
    float2 fine[16];   // w_N^t, t < N / 4096 (conjugated for the inverse)
};
static_assert(sizeof(WholeHead) == 12416, "the host's WHOLE_HEAD_BYTES (crates/zkntt-small/src/fft/gpu.rs)");

// REGS: each warp holds a phase's tile image in registers (TileRegs) across its tiles of that
// phase, instead of reading it from shared memory a tile.
template <bool INV, uint32_t LOG_N1, uint32_t LOG_N2, bool REGS = false>
__device__ __forceinline__ void fft_whole(const uint4* __restrict__ in, uint32_t* __restrict__ out,
                                          const float2* tw, const uint4* images, uint64_t total) {
    ZKNTT_DYNAMIC_SHARED(unsigned char, whole_smem);
    WholeHead& hd = *reinterpret_cast<WholeHead*>(whole_smem);
    uint32_t* data = reinterpret_cast<uint32_t*>(whole_smem + sizeof(WholeHead));
    constexpr uint32_t log_n = LOG_N1 + LOG_N2, N = 1u << log_n, N1 = 1u << LOG_N1, N2 = 1u << LOG_N2;
    constexpr uint32_t log_r1 = LOG_N1 - 4, r1 = 1u << log_r1, log_r2 = LOG_N2 - 4, r2 = 1u << log_r2;
    constexpr uint32_t log_fine = log_n - LOG_TABLE;  // w_N^m = w_4096^(m >> log_fine) w_N^(m & ..)
    static_assert(LOG_N1 >= 5 && LOG_N1 <= 8 && LOG_N2 >= 5 && LOG_N2 <= 8 && log_fine >= 1 &&
                      log_fine <= 4,
                  "2^13..2^16 with both sides 2^5..2^8");
    const uint32_t tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, q = lane & 3;
    const uint64_t transforms = total >> log_n;

    // Loads: a warp instruction is 4 rows x 8 16-byte words (128-byte runs); row group m of the
    // warp is rows 4 (warp + 8 m) + [0, 4), column group cg the columns 32 cg + [0, 32). The
    // thread's part of both addresses once, the loop's parts immediates.
    constexpr uint32_t M = N1 / 32, CG = N2 / 32, LOADS = M * CG, BATCH = 8;
    const uint32_t lrow = 4 * warp + (lane >> 3), lcol = 4 * (lane & 7);
    const uint32_t ld_g = lrow * N2 + lcol;                // word of the transform (global)
    const uint32_t ld_s = pad_whole<LOG_N1>(lcol * N1 + lrow);            // padded word of shared memory
    auto g_off = [](uint32_t i) { return (32 * (i / CG)) * N2 + 32 * (i % CG); };
    auto s_off = [](uint32_t i) { return pad_whole<LOG_N1>((32 * (i % CG)) * N1 + 32 * (i / CG)); };

    const uint32_t lane_ld = 16 * q + g;
    const uint32_t st1 = ((g >> log_r1) << LOG_N1) + (g & (r1 - 1)) + (q << log_r1);
    const uint32_t st2 = ((g >> log_r2) << LOG_N2) + (g & (r2 - 1)) + (q << log_r2);
    // Row tiles: tile word o (row tt = o >> LOG_N2, point o & (N2 - 1)) at (o & (N2 - 1)) N1 + tt.
    auto row_at = [](uint32_t o) { return (o & (N2 - 1)) * N1 + (o >> LOG_N2); };

    // w_N^m: by sincospif (the lane's constants, once), and for an m the same in every lane as
    // w_4096^(m >> log_fine) w_N^(m & ..) (a broadcast load of the table and of `fine`).
    auto w_exact = [](uint32_t m) {  // m < N
        return root_exact<INV>(m, __int_as_float((127 + 1 - (int)log_n) << 23));  // turn 2 / N
    };
    auto w_uniform = [&](uint32_t m) {
        m &= N - 1;
        return cmul(root<INV>(tw, m >> log_fine, LOG_TABLE), hd.fine[m & ((1u << log_fine) - 1)]);
    };
    constexpr uint32_t C = 256 >> LOG_N1;  // columns a column tile holds
    const float2 w_a = w_exact(st1), w_step = w_exact(8 * C * st1), w_lane0 = w_exact(C * warp * st1);

    fetch_image(hd.c1, images, tile_image(INV, LOG_N1));
    fetch_image(hd.c2, images, tile_image(INV, LOG_N2));
    if (tid < (1u << log_fine)) hd.fine[tid] = w_exact(tid);
    for (uint64_t t = blockIdx.x; t < transforms; t += gridDim.x) {
        const uint4* src = in + ((t << log_n) >> 2);
#pragma unroll
        for (uint32_t b = 0; b < LOADS; b += BATCH) {
            uint4 v[BATCH];
#pragma unroll
            for (uint32_t k = 0; k < BATCH; k++) v[k] = __ldg(src + ((ld_g + g_off(b + k)) >> 2));
#pragma unroll
            for (uint32_t k = 0; k < BATCH; k++) {
                uint32_t* d = data + ld_s + s_off(b + k);
                d[0] = v[k].x;
                d[pad_whole<LOG_N1>(N1)] = v[k].y;
                d[pad_whole<LOG_N1>(2 * N1)] = v[k].z;
                d[pad_whole<LOG_N1>(3 * N1)] = v[k].w;
            }
        }
        __syncthreads();

        // Column tiles T = warp + 8 s: columns C T + [0, C), output k1 of column n2 at n2 N1 + k1
        // times w_N^{n2 k1}, k1 = a + c (a = st1 the lane's bits, c the register's) and n2 = C T + d
        // (d the register's): w^{n2 k1} = w^{C T a} w^{d a} w^{n2 c}. The first is carried from
        // tile to tile (times w^{8 C a}), the second is w^a or 1, the third the same in every lane
        // (broadcast loads): no per-lane table gathers (those cost up to 32 L1 wavefronts each).
        float2 carried = w_lane0;
        decltype(auto) c1 = tile_operands<REGS, log_r1>(hd.c1, lane);
#pragma unroll 1
        for (uint32_t T = warp; T < (N >> 8); T += WARPS) {
            column_tile<LOG_N1>(data, pad_whole<LOG_N1>(256 * T + lane_ld), pad_whole<LOG_N1>(256 * T + st1),
                                c1, C * T, carried, w_a, w_uniform,
                                [](uint32_t a) { return pad_whole<LOG_N1>(a); }, lane);
            carried = cmul(carried, w_step);
        }
        __syncthreads();

        // Row tiles: rows T 256 / N2 + [0, 256 / N2), output k2 of row k1 at k2 N1 + k1.
        decltype(auto) c2 = tile_operands<REGS, log_r2>(hd.c2, lane);
#pragma unroll 1
        for (uint32_t T = warp; T < (N >> 8); T += WARPS) {
            const uint32_t k1_0 = T << (8 - LOG_N2);
            const uint32_t b_ld = pad_whole<LOG_N1>(row_at(lane_ld) + k1_0), b_st = pad_whole<LOG_N1>(row_at(st2) + k1_0);
            uint32_t x[2][2][2];
            tile_words(x, [&](uint32_t at) { return data[b_ld + pad_whole<LOG_N1>(row_at(at))]; });
            __syncwarp();
            float acc[2][2][4], y[4][4];
            tile_first<log_r2>(c2, x, acc, lane);
            tile_rest<log_r2>(c2, acc, y, lane);
#pragma unroll
            for (uint32_t nt = 0; nt < 4; nt++)
#pragma unroll
                for (uint32_t h = 0; h < 2; h++) {
                    const uint32_t o = (((8 * h) >> log_r2) << LOG_N2) + ((8 * h) & (r2 - 1)) + ((4 * nt) << log_r2);
                    data[b_st + pad_whole<LOG_N1>(row_at(o))] = pack(y[nt][2 * h], y[nt][2 * h + 1]);
                }
        }
        __syncthreads();

        // X in natural order, word tid + 256 i.
        uint32_t* dst = out + (t << log_n) + tid;
        const uint32_t p = pad_whole<LOG_N1>(tid);
#pragma unroll
        for (uint32_t i = 0; i < (N >> 8); i++) dst[256 * i] = data[p + pad_whole<LOG_N1>(256 * i)];
        __syncthreads();
    }
}

}  // namespace fft
}  // namespace zkntt

// Every FFT kernel takes (in, out, tw, images, its u32 sizes, u64 total): tw the 4096 float2
// e^{-2 pi i j / 4096}, images the 2 x 13 images fft_tc_f16_consts wrote from that tw. Grids: any
// size (blocks stride over the work: one block per piece of work is the fastest, see the host).

// Launch: grid 2 * IMAGES = 26 blocks of 32 threads, once; tw as above. Out: images, 26 x 9 KiB
// (image b of the layout zkntt::fft::{pairs,tile,large}_image name).
extern "C" __global__ void __launch_bounds__(32)
    fft_tc_f16_consts(const float2* tw, zkntt::fft::LargeConsts* images) {
    using namespace zkntt::fft;
    const uint32_t b = blockIdx.x, lane = threadIdx.x & 31;
    if (b < IMAGES) build_image<false>(images[b], tw, b, lane);
    else if (b < 2 * IMAGES) build_image<true>(images[b], tw, b - IMAGES, lane);
}

// The one-launch kernels, one per size and direction, each with its own register allocation (one
// kernel switching on log_n spilled where no single size does; benches/NOTES.md, "one kernel per
// size"). Every one takes log_n too (equal to its name's, unused),
// so that all FFT kernels share the launch above.
//
// fft_tc_f16_small_{forward,inverse}_<log_n>, log_n = 1..8. Launch: block 256 (8 warps, each a
// 256-point tile per step of its loop), 6 KiB static shared memory. In/out: total = batch *
// 2^log_n complex fp16 as (re, im) half2 words, transforms contiguous, natural order; in != out
// (another warp's tile may be in flight). The inverse is unnormalised (+ in the exponent, no
// 1/N), so inverse(forward(x)) = N x.
#define ZKNTT_FFT_SMALL(LOG_N)                                                                      \
    extern "C" __global__ void __launch_bounds__(256, 4) fft_tc_f16_small_forward_##LOG_N(        \
        const uint32_t* in, uint32_t* out, const float2*, const uint4* images, uint32_t,           \
        uint64_t total) {                                                                          \
        ZKNTT_STATIC_SHARED(zkntt::fft::TileConsts, sm, );                                         \
        zkntt::fft::fft_small<false, LOG_N>(sm, in, out, images, total);                           \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256, 4) fft_tc_f16_small_inverse_##LOG_N(        \
        const uint32_t* in, uint32_t* out, const float2*, const uint4* images, uint32_t,           \
        uint64_t total) {                                                                          \
        ZKNTT_STATIC_SHARED(zkntt::fft::TileConsts, sm, );                                         \
        zkntt::fft::fft_small<true, LOG_N>(sm, in, out, images, total);                            \
    }
ZKNTT_FFT_SMALL(1)
ZKNTT_FFT_SMALL(2)
ZKNTT_FFT_SMALL(3)
ZKNTT_FFT_SMALL(4)
ZKNTT_FFT_SMALL(5)
ZKNTT_FFT_SMALL(6)
ZKNTT_FFT_SMALL(7)
ZKNTT_FFT_SMALL(8)
#undef ZKNTT_FFT_SMALL

// fft_tc_f16_large_{forward,inverse}_<log_n>, log_n = 9..12. Launch: block 256 (a 4096-point
// chunk per step of its loop), 47 KiB static shared memory. In/out: as the small kernels', total
// a multiple of 4 (it is: 2^log_n divides it).
#define ZKNTT_FFT_LARGE(LOG_N)                                                                      \
    extern "C" __global__ void __launch_bounds__(256, 4) fft_tc_f16_large_forward_##LOG_N(        \
        const uint4* in, uint32_t* out, const float2* tw, const uint4* images, uint32_t,           \
        uint64_t total) {                                                                          \
        ZKNTT_STATIC_SHARED(zkntt::fft::LargeSmem, sm, );                                          \
        zkntt::fft::fft_large<false, LOG_N>(sm, sm.out, in, out, tw, images, total);               \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256, 4) fft_tc_f16_large_inverse_##LOG_N(        \
        const uint4* in, uint32_t* out, const float2* tw, const uint4* images, uint32_t,           \
        uint64_t total) {                                                                          \
        ZKNTT_STATIC_SHARED(zkntt::fft::LargeSmem, sm, );                                          \
        zkntt::fft::fft_large<true, LOG_N>(sm, sm.out, in, out, tw, images, total);                \
    }
ZKNTT_FFT_LARGE(9)
ZKNTT_FFT_LARGE(10)
ZKNTT_FFT_LARGE(11)
ZKNTT_FFT_LARGE(12)
#undef ZKNTT_FFT_LARGE

// fft_tc_f16_whole_{forward,inverse}_<log_n>, log_n = 13..15: one block per transform (fft_whole).
// Launch: block 256, dynamic shared memory whole_smem_bytes(log_n) (crates/zkntt-small/src/fft/
// gpu.rs: the WholeHead, then pad_whole(N - 1) + 1 words; 52, 93 and 173 KiB), any grid. In/out: as
// the one-launch kernels' (total a multiple of 2^log_n), in != out.
#define ZKNTT_FFT_WHOLE(LOG_N, LOG_N1, MIN_BLOCKS, REGS)                                             \
    extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) fft_tc_f16_whole_forward_##LOG_N( \
        const uint4* in, uint32_t* out, const float2* tw, const uint4* images, uint32_t,            \
        uint64_t total) {                                                                           \
        zkntt::fft::fft_whole<false, LOG_N1, LOG_N - LOG_N1, REGS>(in, out, tw, images, total);     \
    }                                                                                               \
    extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) fft_tc_f16_whole_inverse_##LOG_N( \
        const uint4* in, uint32_t* out, const float2* tw, const uint4* images, uint32_t,            \
        uint64_t total) {                                                                           \
        zkntt::fft::fft_whole<true, LOG_N1, LOG_N - LOG_N1, REGS>(in, out, tw, images, total);      \
    }
// (log N1 as model::split gives it.) 2^13 holds the tile images in registers (REGS: a third of
// its shared-memory wavefronts gone; it was L1-bound), so 80 registers and 3 blocks a
// multiprocessor: at 64 (4 blocks) that spills and measured slower than without REGS; 2^14 with
// REGS measured level, so it and 2^15 read the images a tile (benches/NOTES.md, "tile images in
// registers").
ZKNTT_FFT_WHOLE(13, 7, 3, true)
ZKNTT_FFT_WHOLE(14, 7, 2, false)
ZKNTT_FFT_WHOLE(15, 8, 1, false)
#undef ZKNTT_FFT_WHOLE

// Launch: block 256 (a slab of 4096 points = N1 rows of 4096 / N1 adjacent columns per step of
// its loop), 27 KiB static shared memory; log_n1 = 7 or 8 (model::split; others do nothing),
// 12 <= log_n - log_n1, 13 <= log_n <= 20. In/out: total = batch * 2^log_n (re, im) half2 words,
// transforms contiguous, in natural order; out in the same layout, row k1 = w_N^{n2 k1} DFT_N1 of
// column n2 (pass 1 of the four-step split, see fft_columns). in != out.
// 80 registers, 3 blocks a multiprocessor (at 64, 4 blocks, it spills 152 B and measured 6-8%
// slower: benches/NOTES.md, "three sincospif a tile").
extern "C" __global__ void __launch_bounds__(256, 3)
    fft_tc_f16_columns_forward(const uint4* in, uint32_t* out, const float2*, const uint4* images,
                               uint32_t log_n1, uint32_t log_n, uint64_t total) {
    zkntt::fft::fft_columns_any<false>(in, out, images, log_n1, log_n, total);
}

// Launch: as fft_tc_f16_columns_forward. In/out: as there, + in the exponents (the inverse's pass 1).
extern "C" __global__ void __launch_bounds__(256, 3)
    fft_tc_f16_columns_inverse(const uint4* in, uint32_t* out, const float2*, const uint4* images,
                               uint32_t log_n1, uint32_t log_n, uint64_t total) {
    zkntt::fft::fft_columns_any<true>(in, out, images, log_n1, log_n, total);
}

// Launch: block 256 (a 4096-word chunk = 4096 / N2 rows per step of its loop), 23 KiB static
// shared memory; 6 <= log_n2 <= 8, log_n1 + log_n2 = log N, 13..16. In: total = batch * N words,
// row k1 of each transform (N1 rows of N2) at k1 N2; out: X[k1 + N1 k2] (the N2-point DFT of row
// k1, output k2: the four-step split's rows and transpose). in != out.
extern "C" __global__ void __launch_bounds__(256, 4)
    fft_tc_f16_rows_small_forward(const uint32_t* in, uint32_t* out, const float2*,
                                  const uint4* images, uint32_t log_n2, uint32_t log_n1,
                                  uint64_t total) {
    zkntt::fft::fft_rows_any<false>(in, out, images, log_n2, log_n1, total);
}

// Launch: as fft_tc_f16_rows_small_forward. In/out: as there, + in the exponents.
extern "C" __global__ void __launch_bounds__(256, 4)
    fft_tc_f16_rows_small_inverse(const uint32_t* in, uint32_t* out, const float2*,
                                  const uint4* images, uint32_t log_n2, uint32_t log_n1,
                                  uint64_t total) {
    zkntt::fft::fft_rows_any<true>(in, out, images, log_n2, log_n1, total);
}

// Launch: block 256 (a 4096-word chunk = 4096 / N2 rows per step of its loop), 47 KiB static
// shared memory; log_n2 = 9, log_n1 = 8 (N = 2^17; others do nothing). In/out: as
// fft_tc_f16_rows_small_forward (output runs of 4096 / N2 = 8 words).
extern "C" __global__ void __launch_bounds__(256, 4)
    fft_tc_f16_rows_large_forward(const uint4* in, uint32_t* out, const float2* tw,
                                  const uint4* images, uint32_t log_n2, uint32_t log_n1,
                                  uint64_t total) {
    zkntt::fft::fft_large_fold_any<false>(in, out, tw, images, log_n2, log_n1, total);
}

// Launch: as fft_tc_f16_rows_large_forward. In/out: as there, + in the exponents.
extern "C" __global__ void __launch_bounds__(256, 4)
    fft_tc_f16_rows_large_inverse(const uint4* in, uint32_t* out, const float2* tw,
                                  const uint4* images, uint32_t log_n2, uint32_t log_n1,
                                  uint64_t total) {
    zkntt::fft::fft_large_fold_any<true>(in, out, tw, images, log_n2, log_n1, total);
}

// Launch: block 256 (a band of 2^log_band rows = 2^log_band / (4096 / N2) 4096-word chunks per
// step of its loop), dynamic shared memory band_smem_bytes (crates/zkntt-small/src/fft/gpu.rs:
// BandHead, then 2^log_band x band_stride words); (log_n2, log_band) = (10, 3), (11, 3), (12, 3)
// with log_n1 = 8 (N = 2^18..2^20; others do nothing). In/out: as
// fft_tc_f16_rows_small_forward (output runs of 2^log_band words).
extern "C" __global__ void __launch_bounds__(256, 3)
    fft_tc_f16_rows_band_forward(const uint4* in, uint32_t* out, const float2* tw,
                                 const uint4* images, uint32_t log_n2, uint32_t log_n1,
                                 uint32_t log_band, uint64_t total) {
    zkntt::fft::fft_large_band_any<false>(in, out, tw, images, log_n2, log_n1, log_band, total);
}

// Launch: as fft_tc_f16_rows_band_forward. In/out: as there, + in the exponents.
extern "C" __global__ void __launch_bounds__(256, 3)
    fft_tc_f16_rows_band_inverse(const uint4* in, uint32_t* out, const float2* tw,
                                 const uint4* images, uint32_t log_n2, uint32_t log_n1,
                                 uint32_t log_band, uint64_t total) {
    zkntt::fft::fft_large_band_any<true>(in, out, tw, images, log_n2, log_n1, log_band, total);
}
