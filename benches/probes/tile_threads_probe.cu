// Probe (issue 20): does a 4096-point tile run faster on 512 threads (8 words a thread, four
// register groups of three layers) than on 256 (16 words, three groups of four)? The WSX tile is
// 256 x 16, and a lone tile takes ~5.5 us on the H100 with eight warps a multiprocessor, ~8.5
// cycles between a warp's instructions (benches/NOTES.md, forty-seventh session): if the time is
// the chain, halving each thread's chain and doubling the warps should show here first.
//
// Both kernels run the same radix-2 DIF of 4096 BabyBear words (natural order in, output g at
// position g in the DIF's order, i.e. X[rev(g)]), the same twiddle table in global memory
// (entry h + j = w_2h^j in Montgomery form, as the library's), the same Montgomery product, and the
// same shared-memory exchanges (padded by one word in 32); they differ only in the threads a tile
// and the layers a register group. The output is checked against a CPU DIF, bit for bit.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o tile_threads_probe tile_threads_probe.cu
// Run:   ./tile_threads_probe   (prints us per launch for one block and for 528 blocks)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr uint32_t P = 2013265921u;  // BabyBear, 15 * 2^27 + 1
constexpr uint32_t N = 4096, LOG_N = 12;

__host__ __device__ constexpr uint32_t pinv() {  // -p^-1 mod 2^32 by Newton
    uint32_t x = 1;
    for (int i = 0; i < 5; i++) x *= 2 - P * x;
    return 0u - x;
}
constexpr uint32_t PINV = pinv();

__host__ __device__ __forceinline__ uint32_t mont_mul(uint32_t a, uint32_t b) {
    const uint64_t prod = (uint64_t)a * b;
    const uint32_t m = (uint32_t)prod * PINV;
    const uint32_t r = (uint32_t)((prod + (uint64_t)m * P) >> 32);
    return r >= P ? r - P : r;
}
__host__ __device__ __forceinline__ uint32_t add_p(uint32_t a, uint32_t b) {
    const uint32_t s = a + b;
    return s >= P ? s - P : s;
}
__host__ __device__ __forceinline__ void butterfly(uint32_t& a, uint32_t& b, uint32_t w) {
    const uint32_t u = add_p(a, b), v = mont_mul(a + P - b, w);
    a = u;
    b = v;
}
__device__ __forceinline__ uint32_t pad(uint32_t i) { return i + (i >> 5); }

// One tile a block, THREADS x REGS = 4096. Register groups of G = log2 REGS layers from bit 11
// down; in the group whose register bits are [lo, lo + G), thread t holds positions
// (t mod 2^lo) | r << lo | (t >> lo) << (lo + G). Exchanges through shared memory between groups.
template <uint32_t THREADS, uint32_t REGS, uint32_t G>
__global__ void __launch_bounds__(THREADS) tile(const uint32_t* __restrict__ in, uint32_t* __restrict__ out,
                                                const uint32_t* __restrict__ tw) {
    static_assert(THREADS * REGS == N && (1u << G) == REGS, "shape");
    __shared__ uint32_t s[N + N / 32];
    const uint32_t t = threadIdx.x;
    const uint32_t* src = in + (uint64_t)blockIdx.x * N;
    uint32_t v[REGS];
    // First group: register bits [12 - G, 12): position t + r * THREADS, coalesced.
#pragma unroll
    for (uint32_t r = 0; r < REGS; r++) v[r] = src[t + r * THREADS];
#pragma unroll
    for (int grp = (int)(LOG_N / G) - 1; grp >= 0; grp--) {
        const uint32_t lo = grp * G;
        const uint32_t tl = t & ((1u << lo) - 1), th = t >> lo;
        if (grp != (int)(LOG_N / G) - 1) {
            // Into this group's layout from the previous one's (positions in `s`).
            __syncthreads();
#pragma unroll
            for (uint32_t r = 0; r < REGS; r++) v[r] = s[pad(tl | r << lo | th << (lo + G))];
        }
#pragma unroll
        for (int rb = G - 1; rb >= 0; rb--) {
            const uint32_t h = 1u << (lo + rb);
#pragma unroll
            for (uint32_t r = 0; r < REGS; r++) {
                if (r & (1u << rb)) continue;
                const uint32_t j = (tl | r << lo) & (h - 1);  // position mod h (t's high bits are above)
                butterfly(v[r], v[r | 1u << rb], tw[h + j]);
            }
        }
        if (grp != 0) {
            __syncthreads();  // the previous group's reads are done
#pragma unroll
            for (uint32_t r = 0; r < REGS; r++) s[pad(tl | r << lo | th << (lo + G))] = v[r];
        }
    }
    // Last group (lo = 0): thread t holds positions r | t << G; out through shared memory, coalesced.
    __syncthreads();
#pragma unroll
    for (uint32_t r = 0; r < REGS; r++) s[pad(r | t << G)] = v[r];
    __syncthreads();
    uint32_t* dst = out + (uint64_t)blockIdx.x * N;
#pragma unroll
    for (uint32_t r = 0; r < REGS; r++) dst[t + r * THREADS] = s[pad(t + r * THREADS)];
}

static uint32_t pow_mod(uint32_t b, uint64_t e) {
    uint64_t r = 1, x = b;
    while (e) {
        if (e & 1) r = r * x % P;
        x = x * x % P;
        e >>= 1;
    }
    return (uint32_t)r;
}

#define CK(x)                                                                                 \
    do {                                                                                      \
        cudaError_t e_ = (x);                                                                 \
        if (e_ != cudaSuccess) {                                                              \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                                     \
        }                                                                                     \
    } while (0)

template <class K>
static void time_kernel(const char* name, K k, uint32_t threads, uint32_t blocks, const uint32_t* din, uint32_t* dout,
                        const uint32_t* dtw) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 20; i++) k<<<blocks, threads>>>(din, dout, dtw);
    CK(cudaDeviceSynchronize());
    // Single launches (event, launch, event, wait): median of 101.
    std::vector<float> one;
    for (int i = 0; i < 101; i++) {
        CK(cudaEventRecord(a));
        k<<<blocks, threads>>>(din, dout, dtw);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        one.push_back(ms * 1000);
    }
    std::sort(one.begin(), one.end());
    // 200 queued launches: time per launch.
    CK(cudaEventRecord(a));
    for (int i = 0; i < 200; i++) k<<<blocks, threads>>>(din, dout, dtw);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    std::printf("%-26s blocks %4u: single launch %6.2f us (median; min %6.2f), queued %6.2f us a launch\n", name, blocks,
                one[50], one[0], ms * 1000 / 200);
}

int main() {
    // Twiddles: entry h + j = w_2h^j (Montgomery form: times 2^32 mod p), w_2h = g^((p - 1) / 2h), g = 31.
    std::vector<uint32_t> tw(N, 0), tw_plain(N, 0);
    for (uint32_t h = 1; h < N; h <<= 1) {
        const uint32_t w = pow_mod(31, (uint64_t)(P - 1) / (2 * h));
        uint32_t x = 1;
        for (uint32_t j = 0; j < h; j++) {
            tw_plain[h + j] = x;
            tw[h + j] = (uint32_t)(((uint64_t)x << 32) % P);
            x = (uint32_t)((uint64_t)x * w % P);
        }
    }
    const uint32_t blocks_max = 528;
    std::vector<uint32_t> in((size_t)N * blocks_max);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (auto& x : in) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x = (uint32_t)(s % P);
    }
    // CPU DIF of the first three blocks.
    std::vector<uint32_t> want(in.begin(), in.begin() + 3 * N);
    for (uint32_t blk = 0; blk < 3; blk++) {
        uint32_t* x = want.data() + blk * N;
        for (uint32_t h = N / 2; h >= 1; h >>= 1)
            for (uint32_t i = 0; i < N; i += 2 * h)
                for (uint32_t j = 0; j < h; j++) {
                    const uint32_t a = x[i + j], b = x[i + j + h];
                    x[i + j] = add_p(a, b);
                    x[i + j + h] = (uint32_t)((uint64_t)(a + P - b) % P * tw_plain[h + j] % P);
                }
    }
    uint32_t *din, *dout, *dtw;
    CK(cudaMalloc(&din, in.size() * 4));
    CK(cudaMalloc(&dout, in.size() * 4));
    CK(cudaMalloc(&dtw, N * 4));
    CK(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dtw, tw.data(), N * 4, cudaMemcpyHostToDevice));
    int bad = 0;
    auto check = [&](const char* name, auto k, uint32_t threads) {
        CK(cudaMemset(dout, 0, in.size() * 4));
        k<<<3, threads>>>(din, dout, dtw);
        CK(cudaDeviceSynchronize());
        std::vector<uint32_t> got(3 * N);
        CK(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
        const bool ok = got == want;
        std::printf("%-26s %s\n", name, ok ? "equal to the CPU DIF (3 blocks)" : "DIFFERENT from the CPU DIF");
        bad += !ok;
    };
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    check("256 threads x 16 words", tile<256, 16, 4>, 256);
    check("512 threads x 8 words", tile<512, 8, 3>, 512);
    for (int round = 0; round < 2; round++) {
        for (uint32_t blocks : {1u, 132u, blocks_max}) {
            time_kernel("256 threads x 16 words", tile<256, 16, 4>, 256, blocks, din, dout, dtw);
            time_kernel("512 threads x 8 words", tile<512, 8, 3>, 512, blocks, din, dout, dtw);
        }
    }
    return bad;
}
