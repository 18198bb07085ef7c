// The large-kernel probe (benches/NOTES.md, "fp16 TC FFT v4", "v6"): times fft_large (N = 2^9..2^12, one kernel per size as the library's)
// of whichever cuda/small/fft_tc.cu it is compiled against, at a given __launch_bounds__ minimum
// of blocks per SM, with the library's grid (4 chunks of 4096 points per block; argv[1] another count, argv[2] one
// log_n only), 512 MiB each way,
// CUDA-event medians of 21 beside cudaMemcpy's; prints an FNV-1a hash of every output, so builds
// of two versions of the kernel file can be checked bit for bit against each other. A standalone
// measurement, not part of the library or its tests (those check correctness). `ZKNTT_BUNDLE_PROBES=1
// make gpu-build` builds it into the bundle against this tree's cuda/ (another MINB:
// ZKNTT_PROBE_NVCCFLAGS=-DMINB=3); on the GPU machine `.gpu/run.sh probe fft_large_probe [chunks
// per block] [log_n]`. A/B of two kernel versions: one bundle of each (benches/probes/README.md).
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "small/fft_tc.cu"
#ifndef MINB
#define MINB 4
#endif
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while(0)

// One kernel per size, as the library's fft_tc_f16_large_*_<log_n> (v6) but with MINB.
template <bool INV, uint32_t LOG_N>
__global__ void __launch_bounds__(256, MINB) probe_large_n(const uint4* in, uint32_t* out, const float2* tw,
                                                           const uint4* images, uint64_t total) {
    __shared__ zkntt::fft::LargeSmem sm;
    zkntt::fft::fft_large<INV, LOG_N>(sm, in, out, tw, images, total);
}

template <bool INV>
void launch(uint64_t blocks, const uint4* in, uint32_t* out, const float2* tw, const uint4* images,
            uint32_t log_n, uint64_t total) {
    switch (log_n) {
        case 9: probe_large_n<INV, 9><<<blocks, 256>>>(in, out, tw, images, total); break;
        case 10: probe_large_n<INV, 10><<<blocks, 256>>>(in, out, tw, images, total); break;
        case 11: probe_large_n<INV, 11><<<blocks, 256>>>(in, out, tw, images, total); break;
        case 12: probe_large_n<INV, 12><<<blocks, 256>>>(in, out, tw, images, total); break;
    }
}

int main(int argc, char** argv) {
    const uint64_t per_block = argc > 1 ? (uint64_t)atoi(argv[1]) : 4;  // chunks per block
    const uint32_t only = argc > 2 ? (uint32_t)atoi(argv[2]) : 0;  // one log_n (for profilers)
    using namespace zkntt::fft;
    const uint64_t words = (512ull << 20) / 4;
    std::vector<float2> tw(4096);
    for (int j = 0; j < 4096; j++) {
        const double a = -2.0 * M_PI * j / 4096.0;
        tw[j] = make_float2((float)cos(a), (float)sin(a));
    }
    std::vector<uint32_t> host(words);
    uint64_t st = 0x9e3779b97f4a7c15ull;
    for (auto& w : host) {  // random halves in [-1, 1): sign, exponent 0x0e.. 0x0f region
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        const uint32_t r = (uint32_t)(st >> 32);
        w = ((r & 0x83ffu) | 0x3800u) | (((r >> 16) & 0x83ffu) | 0x3800u) << 16;
    }
    float2* dtw; uint4* images; uint32_t *in, *out;
    CK(cudaMalloc(&dtw, 4096 * sizeof(float2)));
    CK(cudaMalloc(&images, 2 * IMAGES * sizeof(LargeConsts)));
    CK(cudaMalloc(&in, words * 4));
    CK(cudaMalloc(&out, words * 4));
    CK(cudaMemcpy(dtw, tw.data(), 4096 * sizeof(float2), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(in, host.data(), words * 4, cudaMemcpyHostToDevice));
    fft_tc_f16_consts<<<2 * IMAGES, 32>>>(dtw, reinterpret_cast<LargeConsts*>(images));
    CK(cudaDeviceSynchronize());
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    auto median = [&](auto&& f) {
        std::vector<float> t;
        for (int i = 0; i < 24; i++) {
            CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
            float ms; CK(cudaEventElapsedTime(&ms, a, b));
            if (i >= 3) t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    };
    const float copy = median([&] { CK(cudaMemcpyAsync(out, in, words * 4, cudaMemcpyDeviceToDevice)); });
    printf("MINB %d  chunks per block %llu  copy %.4f ms\n", MINB, (unsigned long long)per_block, copy);
    const uint64_t blocks = (words / CHUNK + per_block - 1) / per_block;
    for (int inv = 0; inv < 2; inv++)
        for (uint32_t log_n = 9; log_n <= 12; log_n++) {
            if (only && log_n != only) continue;
            auto go = [&] {
                if (inv) launch<true>(blocks, reinterpret_cast<uint4*>(in), out, dtw, images, log_n, words);
                else launch<false>(blocks, reinterpret_cast<uint4*>(in), out, dtw, images, log_n, words);
            };
            CK(cudaMemset(out, 0xff, words * 4));
            go();
            CK(cudaDeviceSynchronize());
            std::vector<uint32_t> res(words);
            CK(cudaMemcpy(res.data(), out, words * 4, cudaMemcpyDeviceToHost));
            uint64_t h = 1469598103934665603ull;
            for (uint32_t w : res) { h ^= w; h *= 1099511628211ull; }
            const float ms = median(go);
            CK(cudaGetLastError());
            printf("%s N=2^%u  %.4f ms  copy/this %.3f  hash %016llx\n", inv ? "inv" : "fwd", log_n, ms, copy / ms,
                   (unsigned long long)h);
        }
    return 0;
}
