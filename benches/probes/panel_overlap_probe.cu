// Probe (issue 20): would the columns pass gain from a pipeline over its panel's two groups? The
// pass at 2^24 (`small_ntt_panel`, 8-tile panels, one 1024-thread block a multiprocessor) loads a
// panel, runs its two groups' layers, stores it, and DRAM and the SMs are each under half busy
// (benches/NOTES.md, fifty-second session): memory and arithmetic take turns.
//
// Both kernels here move the pass's words the same way (a 4096 x 4096 matrix of words, panel p =
// columns 8p..8p+7, so a panel row is one 32-byte sector; the panel in shared memory at stride 9,
// 147,456 bytes; 132 blocks over 512 panels) and stand in for the layers with M dependent
// Montgomery products a word, group by group (1024 threads on 4 columns, 16 words a thread), so
// their outputs are equal word for word:
// - `seq`: today's order. Load all 8 columns (16 loads in flight a thread, then the shared
//   stores), group 0's layers, group 1's, store all 8 columns.
// - `pipe`: group 0's layers; store group 0 (4 columns, 16-byte runs); `cp.async` of the next
//   panel's group 0 into the freed columns; group 1's layers while it lands; store group 1;
//   `cp.async` of the next panel's group 1 while the next group 0's layers run.
// The open questions are whether the overlap pays for the half-sector traffic, and whether L2
// keeps each sector's other half from group 0's load until group 1's (ncu's DRAM bytes say).
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -o panel_overlap_probe panel_overlap_probe.cu
// Run:   ./panel_overlap_probe [M ...]   (us per launch, median of 21, for each M; default a sweep)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr uint32_t P = 2013265921u;  // BabyBear
constexpr uint32_t ROWS = 4096, COLS = 4096, TILES = 8, STRIDE = TILES + 1;
constexpr uint32_t THREADS = 1024, BLOCKS = 132, PANELS = COLS / TILES;
constexpr uint32_t SMEM = ROWS * STRIDE * 4;

__host__ __device__ constexpr uint32_t pinv() {
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

// The layers' stand-in: M dependent products a word (the word's own row as the other factor).
__host__ __device__ __forceinline__ uint32_t work(uint32_t x, uint32_t row, uint32_t m) {
    const uint32_t w = row + 12345u;
    for (uint32_t j = 0; j < m; j++) x = mont_mul(x, w);
    return x;
}

// Group g's layers: thread tid takes column 4g + tid / 256, rows tid mod 256 + 256 r.
__device__ __forceinline__ void group(uint32_t* panel, uint32_t g, uint32_t m) {
    const uint32_t c = 4 * g + (threadIdx.x >> 8), r0 = threadIdx.x & 255;
    uint32_t v[16];
#pragma unroll
    for (uint32_t r = 0; r < 16; r++) v[r] = panel[(r0 + 256 * r) * STRIDE + c];
#pragma unroll
    for (uint32_t r = 0; r < 16; r++) v[r] = work(v[r], r0 + 256 * r, m);
#pragma unroll
    for (uint32_t r = 0; r < 16; r++) panel[(r0 + 256 * r) * STRIDE + c] = v[r];
}

__global__ void __launch_bounds__(THREADS, 1) seq(const uint32_t* in, uint32_t* out, uint32_t m) {
    extern __shared__ uint32_t panel[];
    const uint32_t tid = threadIdx.x, uo = tid & 7, e0 = tid >> 3;  // 8 columns, 128 rows a k
    for (uint32_t p = blockIdx.x; p < PANELS; p += gridDim.x) {
        const uint32_t* src = in + (size_t)e0 * COLS + 8 * p + uo;
#pragma unroll
        for (uint32_t k0 = 0; k0 < 32; k0 += 16) {
            uint32_t x[16];
#pragma unroll
            for (uint32_t k = 0; k < 16; k++) x[k] = src[(size_t)(k0 + k) * 128 * COLS];
#pragma unroll
            for (uint32_t k = 0; k < 16; k++) panel[(e0 + 128 * (k0 + k)) * STRIDE + uo] = x[k];
        }
        __syncthreads();
        group(panel, 0, m);
        group(panel, 1, m);
        __syncthreads();
        uint32_t* dst = out + (size_t)e0 * COLS + 8 * p + uo;
#pragma unroll
        for (uint32_t k = 0; k < 32; k++) dst[(size_t)k * 128 * COLS] = panel[(e0 + 128 * k) * STRIDE + uo];
        __syncthreads();
    }
}

__device__ __forceinline__ void cp_async4(uint32_t* smem, const uint32_t* gmem) {
    const uint32_t s = (uint32_t)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_groups() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// Half panels: group g's 4 columns, thread tid column 4g + tid mod 4, rows tid / 4 + 256 k.
__device__ __forceinline__ void load_half(const uint32_t* in, uint32_t* panel, uint32_t p, uint32_t g) {
    const uint32_t tid = threadIdx.x, c = 4 * g + (tid & 3), e0 = tid >> 2;
    const uint32_t* src = in + (size_t)e0 * COLS + 8 * p + c;
#pragma unroll
    for (uint32_t k = 0; k < 16; k++) cp_async4(&panel[(e0 + 256 * k) * STRIDE + c], src + (size_t)k * 256 * COLS);
    commit();
}
__device__ __forceinline__ void store_half(uint32_t* out, const uint32_t* panel, uint32_t p, uint32_t g) {
    const uint32_t tid = threadIdx.x, c = 4 * g + (tid & 3), e0 = tid >> 2;
    uint32_t* dst = out + (size_t)e0 * COLS + 8 * p + c;
#pragma unroll
    for (uint32_t k = 0; k < 16; k++) dst[(size_t)k * 256 * COLS] = panel[(e0 + 256 * k) * STRIDE + c];
}

__global__ void __launch_bounds__(THREADS, 1) pipe(const uint32_t* in, uint32_t* out, uint32_t m) {
    extern __shared__ uint32_t panel[];
    uint32_t p = blockIdx.x;
    if (p >= PANELS) return;
    load_half(in, panel, p, 0);
    load_half(in, panel, p, 1);
    for (; p < PANELS; p += gridDim.x) {
        const uint32_t next = p + gridDim.x;
        wait_groups<1>();  // group 0 of p landed (group 1 of p may be in flight)
        __syncthreads();
        group(panel, 0, m);
        __syncthreads();
        store_half(out, panel, p, 0);
        __syncthreads();  // every thread read group 0's columns
        if (next < PANELS) {
            load_half(in, panel, next, 0);
            wait_groups<1>();  // group 1 of p landed (group 0 of next in flight)
        } else {
            wait_groups<0>();
        }
        __syncthreads();
        group(panel, 1, m);
        __syncthreads();
        store_half(out, panel, p, 1);
        __syncthreads();
        if (next < PANELS) load_half(in, panel, next, 1);
    }
    wait_groups<0>();
}

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

int main(int argc, char** argv) {
    std::vector<uint32_t> ms;
    for (int i = 1; i < argc; i++) ms.push_back((uint32_t)atoi(argv[i]));
    if (ms.empty()) ms = {0, 4, 8, 12, 16, 24, 32};
    const size_t words = (size_t)ROWS * COLS;
    std::vector<uint32_t> h(words);
    for (size_t i = 0; i < words; i++) h[i] = (uint32_t)((i * 2654435761u) % P);
    uint32_t *in, *a, *b;
    check(cudaMalloc(&in, words * 4), "malloc");
    check(cudaMalloc(&a, words * 4), "malloc");
    check(cudaMalloc(&b, words * 4), "malloc");
    check(cudaMemcpy(in, h.data(), words * 4, cudaMemcpyHostToDevice), "copy");
    check(cudaFuncSetAttribute(seq, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM), "attr");
    check(cudaFuncSetAttribute(pipe, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM), "attr");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    auto time = [&](auto kernel, uint32_t* out, uint32_t m) {
        std::vector<float> t;
        for (int i = 0; i < 21; i++) {
            cudaEventRecord(e0);
            kernel<<<BLOCKS, THREADS, SMEM>>>(in, out, m);
            cudaEventRecord(e1);
            check(cudaEventSynchronize(e1), "run");
            float ms_ = 0;
            cudaEventElapsedTime(&ms_, e0, e1);
            t.push_back(ms_ * 1000);
        }
        std::sort(t.begin(), t.end());
        return t[10];
    };
    std::vector<uint32_t> ha(words), hb(words);
    printf("M | seq us | pipe us | pipe / seq | outputs equal | spot check\n");
    for (uint32_t m : ms) {
        const float ts = time(seq, a, m), tp = time(pipe, b, m);
        check(cudaMemcpy(ha.data(), a, words * 4, cudaMemcpyDeviceToHost), "copy");
        check(cudaMemcpy(hb.data(), b, words * 4, cudaMemcpyDeviceToHost), "copy");
        const bool eq = ha == hb;
        bool spot = true;
        for (size_t i = 0; i < words; i += 9973) spot &= ha[i] == work(h[i], (uint32_t)(i / COLS), m);
        printf("%u | %.1f | %.1f | %.3f | %s | %s\n", m, ts, tp, tp / ts, eq ? "yes" : "NO", spot ? "ok" : "FAIL");
    }
    return 0;
}
