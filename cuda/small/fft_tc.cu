// The Tensor Core FFT (seed 000_1717c90dfab45294): batched complex FFTs of 2^1..2^12 points in fp16,
// the size-N DFT decomposed (in-place decimation in frequency) into 16-point DFT matrix products on
// Tensor Cores (WMMA fp16 16x16x16, fp32 accumulation), one scalar radix-2/4/8 step first where N is
// not a power of 16, twiddles (fp32) between the steps, shared memory between the steps. The CPU
// model of the same stages, order and twiddles is crates/zkntt-small/src/fft/model.rs.
//
// Precision: inputs, outputs and the data between steps are fp16; products accumulate in fp32; the
// twiddles are applied in fp32 and rounded to fp16 once per step.
#include <cstdint>
#include <cuda_fp16.h>
#include <mma.h>
#include <type_traits>

namespace zkntt {
namespace fft {
// Complex elements per block: one 2^12 transform or 2^(12 - log_n) smaller ones.
constexpr uint32_t CHUNK = 4096;
constexpr uint32_t THREADS = 256;
constexpr uint32_t WARPS = THREADS / 32;
// The twiddle table holds e^{-2 pi i j / TABLE} for j < TABLE (float2, built on the host).
constexpr uint32_t TABLE = 4096;

struct alignas(32) Smem {
    __half re[CHUNK];
    __half im[CHUNK];
    __half f_re[256];   // DFT_16[k][n] = w_16^{kn}, real part, row-major
    __half f_im[256];   // imaginary part
    __half f_nim[256];  // minus the imaginary part (so Re(F X) is two accumulating products)
    float acc[WARPS][2][256];
};

// w_L^j (j < L, L a power of two dividing TABLE), conjugated for the inverse.
template <bool INV>
__device__ __forceinline__ float2 root(const float2* tw, uint32_t j, uint32_t log_l) {
    float2 w = __ldg(tw + (j << (12 - log_l)));
    if (INV) w.y = -w.y;
    return w;
}

// Where output k of a 2^log_n transform sits after the steps (model.rs: digit_reversed_index).
__device__ __forceinline__ uint32_t digit_reversed(uint32_t k, uint32_t log_n) {
    uint32_t p = 0, log_stride = log_n;
    const uint32_t log_r = log_n & 3;
    if (log_r) {
        log_stride -= log_r;
        p += (k & ((1u << log_r) - 1)) << log_stride;
        k >>= log_r;
    }
    while (log_stride) {
        log_stride -= 4;
        p += (k & 15) << log_stride;
        k >>= 4;
    }
    return p;
}

// One tile: 16 columns of 16 points, B[n1][c] at base + n1 * ld + c (row-major, ld = m >= 16)
// or base + c * 16 + n1 (col-major, L = 16). Y = F B; Y[k1][c] * w_L^{n2 k1} back to where
// B[k1][c] was.
template <bool INV, typename Layout>
__device__ __forceinline__ void tile(Smem& s, const float2* tw, uint32_t warp, uint32_t lane,
                                     uint32_t base, uint32_t ld, uint32_t n2_0, uint32_t log_l,
                                     const nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16,
                                                                  __half, nvcuda::wmma::row_major>& a_re,
                                     const nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16,
                                                                  __half, nvcuda::wmma::row_major>& a_im,
                                     const nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16,
                                                                  __half, nvcuda::wmma::row_major>& a_nim) {
    using namespace nvcuda;
    constexpr bool ROW = std::is_same<Layout, wmma::row_major>::value;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, Layout> b_re, b_im;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c_re, c_im;
    wmma::load_matrix_sync(b_re, s.re + base, ld);
    wmma::load_matrix_sync(b_im, s.im + base, ld);
    wmma::fill_fragment(c_re, 0.0f);
    wmma::fill_fragment(c_im, 0.0f);
    // (F_re + i F_im)(B_re + i B_im): four real products.
    wmma::mma_sync(c_re, a_re, b_re, c_re);
    wmma::mma_sync(c_re, a_nim, b_im, c_re);
    wmma::mma_sync(c_im, a_re, b_im, c_im);
    wmma::mma_sync(c_im, a_im, b_re, c_im);
    wmma::store_matrix_sync(s.acc[warp][0], c_re, 16, wmma::mem_row_major);
    wmma::store_matrix_sync(s.acc[warp][1], c_im, 16, wmma::mem_row_major);
    __syncwarp();
    for (uint32_t e = lane; e < 256; e += 32) {
        const uint32_t k1 = e >> 4, c = e & 15;
        float yr = s.acc[warp][0][e], yi = s.acc[warp][1][e];
        uint32_t addr;
        if (ROW) {
            const float2 w = root<INV>(tw, ((n2_0 + c) * k1) & ((1u << log_l) - 1), log_l);
            const float r = yr * w.x - yi * w.y;
            yi = yr * w.y + yi * w.x;
            yr = r;
            addr = base + k1 * ld + c;
        } else {
            addr = base + c * 16 + k1;  // L = 16: the twiddle is 1
        }
        s.re[addr] = __float2half_rn(yr);
        s.im[addr] = __float2half_rn(yi);
    }
    __syncwarp();
}

template <bool INV>
__device__ __forceinline__ void fft_tc(const __half2* in, __half2* out, const float2* tw,
                                       uint32_t log_n, uint64_t total) {
    using namespace nvcuda;
    __shared__ Smem s;
    const uint32_t n = 1u << log_n;
    const uint64_t base = (uint64_t)blockIdx.x * CHUNK;
    const uint32_t valid = (uint32_t)min((uint64_t)CHUNK, total - base);  // a multiple of n
    const uint32_t tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;

    for (uint32_t i = tid; i < 256; i += THREADS) {
        const float2 w = root<INV>(tw, ((i >> 4) * (i & 15)) & 15, 4);
        s.f_re[i] = __float2half_rn(w.x);
        s.f_im[i] = __float2half_rn(w.y);
        s.f_nim[i] = __float2half_rn(-w.y);
    }
    // Zeros past the last transform: the padding transforms stay zero and are not stored.
    for (uint32_t i = tid; i < CHUNK; i += THREADS) {
        const __half2 v = i < valid ? in[base + i] : __floats2half2_rn(0.0f, 0.0f);
        s.re[i] = __low2half(v);
        s.im[i] = __high2half(v);
    }
    __syncthreads();

    // The radix-2/4/8 step on whole transforms (L = n, m = n / r), scalar in fp32.
    const uint32_t log_r = log_n & 3;
    if (log_r) {
        const uint32_t r = 1u << log_r, log_m = log_n - log_r, m = 1u << log_m;
        for (uint32_t col = tid; col < (CHUNK >> log_r); col += THREADS) {
            const uint32_t sub = col >> log_m, n2 = col & (m - 1), at = sub * n + n2;
            float xr[8], xi[8];
#pragma unroll
            for (uint32_t j = 0; j < 8; j++) {
                if (j < r) {
                    xr[j] = __half2float(s.re[at + j * m]);
                    xi[j] = __half2float(s.im[at + j * m]);
                }
            }
#pragma unroll
            for (uint32_t k1 = 0; k1 < 8; k1++) {
                if (k1 >= r) break;
                float yr = 0.0f, yi = 0.0f;
#pragma unroll
                for (uint32_t j = 0; j < 8; j++) {
                    if (j < r) {
                        const float2 w = root<INV>(tw, (j * k1) & (r - 1), log_r);
                        yr += w.x * xr[j] - w.y * xi[j];
                        yi += w.x * xi[j] + w.y * xr[j];
                    }
                }
                const float2 w = root<INV>(tw, (n2 * k1) & (n - 1), log_n);
                s.re[at + k1 * m] = __float2half_rn(yr * w.x - yi * w.y);
                s.im[at + k1 * m] = __float2half_rn(yr * w.y + yi * w.x);
            }
        }
        __syncthreads();
    }

    // The 16-point steps: L = 16^j down to 16, CHUNK / 256 tiles each, two per warp.
    if (log_n >= 4) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a_re, a_im, a_nim;
        wmma::load_matrix_sync(a_re, s.f_re, 16);
        wmma::load_matrix_sync(a_im, s.f_im, 16);
        wmma::load_matrix_sync(a_nim, s.f_nim, 16);
        for (uint32_t log_l = log_n - log_r; log_l >= 4; log_l -= 4) {
            const uint32_t log_m = log_l - 4, m = 1u << log_m;
            for (uint32_t t = warp; t < CHUNK / 256; t += WARPS) {
                if (m == 1) {
                    tile<INV, wmma::col_major>(s, tw, warp, lane, t * 256, 16, 0, log_l, a_re, a_im,
                                               a_nim);
                } else {
                    // Tiles per sub-problem: m / 16; a tile is 16 consecutive n2 of one sub-problem.
                    const uint32_t per = m >> 4, sub = t / per, n2_0 = (t % per) * 16;
                    tile<INV, wmma::row_major>(s, tw, warp, lane, (sub << log_l) + n2_0, m, n2_0,
                                               log_l, a_re, a_im, a_nim);
                }
            }
            __syncthreads();
        }
    }

    for (uint32_t i = tid; i < valid; i += THREADS) {
        const uint32_t p = (i & ~(n - 1)) + digit_reversed(i & (n - 1), log_n);
        out[base + i] = __halves2half2(s.re[p], s.im[p]);
    }
}
}  // namespace fft
}  // namespace zkntt

// Launch: grid ceil(total / 4096), block 256, 34 KiB static shared memory; 1 <= log_n <= 12.
// In/out: total = batch * 2^log_n complex fp16 as (re, im) half2, transforms contiguous, natural order.
extern "C" __global__ void __launch_bounds__(256)
    fft_tc_f16_forward(const __half2* in, __half2* out, const float2* tw, uint32_t log_n,
                       uint64_t total) {
    zkntt::fft::fft_tc<false>(in, out, tw, log_n, total);
}

// Launch: as fft_tc_f16_forward. In/out: as fft_tc_f16_forward; the unnormalised inverse
// (+ in the exponent, no 1/N), so inverse(forward(x)) = N x. in == out is allowed for both.
extern "C" __global__ void __launch_bounds__(256)
    fft_tc_f16_inverse(const __half2* in, __half2* out, const float2* tw, uint32_t log_n,
                       uint64_t total) {
    zkntt::fft::fft_tc<true>(in, out, tw, log_n, total);
}
