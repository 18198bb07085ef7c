// The copy-grid probe (benches/NOTES.md, "fp16 TC FFT v3"): which grid shapes and access patterns
// reach cudaMemcpy's device-to-device speed on this GPU (512 MiB each way, CUDA-event medians of
// 21). A standalone measurement, not part of the library or its tests. `ZKNTT_BUNDLE_PROBES=1
// make gpu-build` builds it into the bundle; on the GPU machine `.gpu/run.sh probe copy_grid_probe`
// (benches/probes/README.md).
// copy16: 16-byte words, grid-stride loop over persistent grids of 2..16 blocks per SM (U words
// per thread per step, cs: streaming hints), or one block per 4 KiB ("full grid"); tile4: the
// small FFT kernel's pattern (a warp per 1 KiB tile, 4-byte words, each instruction four whole
// sectors), D tiles prefetched; copyK / copyKs: K 4 KiB chunks per block, contiguous / strided;
// copyRange: a contiguous range per resident block; copyAtomic: resident blocks taking chunks
// from a counter; tileK: the tile pattern, K consecutive tiles per warp, full grid.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while(0)

template <int U, int HINT>
__global__ void copy16(const uint4* __restrict__ in, uint4* __restrict__ out, uint64_t n) {
  uint64_t stride = (uint64_t)gridDim.x * blockDim.x * U;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x * U + threadIdx.x; i < n; i += stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = HINT ? __ldcs(in + i + u * blockDim.x) : __ldg(in + i + u * blockDim.x);
#pragma unroll
    for (int u = 0; u < U; u++) { if (HINT) __stcs(out + i + u * blockDim.x, v[u]); else out[i + u * blockDim.x] = v[u]; }
  }
}

// The small FFT kernel's pattern: per warp a 256-word tile (1 KiB), lane (g, q) loads words
// 16q + g + 16*(8kb+4j) + 8nt (8 words), stores words g + 16 q + 4*...(same shape); D tiles prefetched.
template <int D, int HINT>
__global__ void __launch_bounds__(256, 4) tile4(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, uint64_t tiles) {
  const uint32_t lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const uint32_t lane_ld = 16 * q + g;
  uint64_t stride = (uint64_t)gridDim.x * 8;
  uint64_t tile = (uint64_t)blockIdx.x * 8 + (threadIdx.x >> 5);
  uint32_t x[D][8];
  auto load = [&](uint32_t (&r)[8], uint64_t t) {
    const uint32_t* p = in + t * 256 + lane_ld;
#pragma unroll
    for (int k = 0; k < 8; k++) {  // rows q + 4 (k / 2), columns g + 8 (k % 2)
      const uint32_t a2 = 16 * (4 * (k >> 1)) + 8 * (k & 1);
      r[k] = t < tiles ? (HINT ? __ldcs(p + a2) : __ldg(p + a2)) : 0; }
  };
#pragma unroll
  for (int d = 0; d < D; d++) load(x[d], tile + d * stride);
  for (; tile < tiles; tile += stride) {
    uint32_t v[8];
#pragma unroll
    for (int k = 0; k < 8; k++) v[k] = x[0][k];
#pragma unroll
    for (int d = 0; d + 1 < D; d++)
#pragma unroll
      for (int k = 0; k < 8; k++) x[d][k] = x[d + 1][k];
    load(x[D - 1], tile + D * stride);
    uint32_t* o = out + tile * 256 + lane_ld;
#pragma unroll
    for (int k = 0; k < 8; k++) { const uint32_t a2 = 16 * (4 * (k >> 1)) + 8 * (k & 1);
      if (HINT) __stcs(o + a2, v[k] ^ 1u); else o[a2] = v[k] ^ 1u; }
  }
}


// Block b takes K consecutive 4 KiB chunks (contiguous per block), one uint4 per thread per chunk,
// the next chunk's load issued before this one's store.
template <int K>
__global__ void copyK(const uint4* __restrict__ in, uint4* __restrict__ out, uint64_t n) {
  uint64_t base = (uint64_t)blockIdx.x * blockDim.x * K + threadIdx.x;
  uint4 v = __ldg(in + base);
#pragma unroll 1
  for (int k = 0; k < K; k++) {
    uint4 w = v;
    if (k + 1 < K) v = __ldg(in + base + (k + 1) * blockDim.x);
    out[base + k * blockDim.x] = w;
  }
}
// Grid-stride with a grid of n / (256 K) blocks (interleaved chunks).
template <int K>
__global__ void copyKs(const uint4* __restrict__ in, uint4* __restrict__ out, uint64_t n) {
  uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  uint64_t base = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  uint4 v = __ldg(in + base);
#pragma unroll 1
  for (int k = 0; k < K; k++) {
    uint4 w = v;
    if (k + 1 < K) v = __ldg(in + base + (k + 1) * stride);
    out[base + k * stride] = w;
  }
}
// Persistent, each block a contiguous range.
__global__ void copyRange(const uint4* __restrict__ in, uint4* __restrict__ out, uint64_t n) {
  uint64_t per = n / gridDim.x;
  uint64_t lo = blockIdx.x * per, hi = lo + per;
  for (uint64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) out[i] = __ldg(in + i);
}
// Persistent with a work counter: chunks of 4 KiB handed out in order.
__global__ void copyAtomic(const uint4* __restrict__ in, uint4* __restrict__ out, uint64_t chunks, unsigned long long* ctr) {
  __shared__ unsigned long long c[2];
  int s = 0;
  if (threadIdx.x == 0) c[0] = atomicAdd(ctr, 1ull);
  __syncthreads();
  uint64_t cur = c[0];
  while (cur < chunks) {
    uint4 v = __ldg(in + cur * blockDim.x + threadIdx.x);
    if (threadIdx.x == 0) c[s ^ 1] = atomicAdd(ctr, 1ull);
    out[cur * blockDim.x + threadIdx.x] = v;
    __syncthreads();
    s ^= 1; cur = c[s];
  }
}
// tile4 with a warp per K consecutive tiles and a full grid.
template <int K>
__global__ void __launch_bounds__(256, 4) tileK(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, uint64_t tiles) {
  const uint32_t lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const uint32_t lane_ld = 16 * q + g;
  uint64_t tile = ((uint64_t)blockIdx.x * 8 + (threadIdx.x >> 5)) * K;
  uint32_t x[8];
  auto load = [&](uint32_t (&r)[8], uint64_t t) {
    const uint32_t* p = in + t * 256 + lane_ld;
#pragma unroll
    for (int k = 0; k < 8; k++) r[k] = __ldg(p + 16 * (4 * (k >> 1)) + 8 * (k & 1));
  };
  load(x, tile);
#pragma unroll 1
  for (int k = 0; k < K; k++, tile++) {
    uint32_t v[8];
#pragma unroll
    for (int j = 0; j < 8; j++) v[j] = x[j];
    if (k + 1 < K) load(x, tile + 1);
    uint32_t* o = out + tile * 256 + lane_ld;
#pragma unroll
    for (int j = 0; j < 8; j++) o[16 * (4 * (j >> 1)) + 8 * (j & 1)] = v[j] ^ 1u;
  }
}
int main() {
  const uint64_t bytes = 512ull << 20;
  uint8_t *a, *b; CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 1, bytes)); CK(cudaMemset(b, 0, bytes));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](const char* name, auto f) {
    for (int i = 0; i < 3; i++) f();
    std::vector<float> ts;
    for (int i = 0; i < 21; i++) { cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms); }
    CK(cudaGetLastError());
    std::sort(ts.begin(), ts.end());
    printf("%-40s %.4f ms  %.3f TB/s\n", name, ts[10], 2.0 * bytes / ts[10] / 1e9);
  };
  time("cudaMemcpy D2D", [&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
  uint64_t n16 = bytes / 16;
  for (int bps : {2, 4, 8, 16}) {
    char nm[64];
    int grid = sms * bps;
    sprintf(nm, "copy16 U1 grid %d/SM", bps); time(nm, [&] { copy16<1,0><<<grid, 256>>>((uint4*)a, (uint4*)b, n16); });
    sprintf(nm, "copy16 U2 grid %d/SM", bps); time(nm, [&] { copy16<2,0><<<grid, 256>>>((uint4*)a, (uint4*)b, n16); });
    sprintf(nm, "copy16 U4 grid %d/SM", bps); time(nm, [&] { copy16<4,0><<<grid, 256>>>((uint4*)a, (uint4*)b, n16); });
    sprintf(nm, "copy16 U4 cs grid %d/SM", bps); time(nm, [&] { copy16<4,1><<<grid, 256>>>((uint4*)a, (uint4*)b, n16); });
  }
  time("copy16 U1 full grid", [&] { copy16<1,0><<<(unsigned)(n16 / 256), 256>>>((uint4*)a, (uint4*)b, n16); });
  time("copy16 U4 full grid", [&] { copy16<4,0><<<(unsigned)(n16 / 1024), 256>>>((uint4*)a, (uint4*)b, n16); });
  uint64_t tiles = bytes / 1024;
  for (int bps : {2, 3, 4}) {
    char nm[64]; int grid = sms * bps;
    sprintf(nm, "tile4 D1 %d/SM", bps); time(nm, [&] { tile4<1,0><<<grid, 256>>>((uint32_t*)a, (uint32_t*)b, tiles); });
    sprintf(nm, "tile4 D2 %d/SM", bps); time(nm, [&] { tile4<2,0><<<grid, 256>>>((uint32_t*)a, (uint32_t*)b, tiles); });
    sprintf(nm, "tile4 D3 %d/SM", bps); time(nm, [&] { tile4<3,0><<<grid, 256>>>((uint32_t*)a, (uint32_t*)b, tiles); });
    sprintf(nm, "tile4 D2 cs %d/SM", bps); time(nm, [&] { tile4<2,1><<<grid, 256>>>((uint32_t*)a, (uint32_t*)b, tiles); });
  }

  time("cudaMemcpy D2D again", [&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
  time("copyK 1", [&] { copyK<1><<<(unsigned)(n16 / 256), 256>>>((uint4*)a, (uint4*)b, n16); });
  time("copyK 4", [&] { copyK<4><<<(unsigned)(n16 / 1024), 256>>>((uint4*)a, (uint4*)b, n16); });
  time("copyK 16", [&] { copyK<16><<<(unsigned)(n16 / 4096), 256>>>((uint4*)a, (uint4*)b, n16); });
  time("copyK 64", [&] { copyK<64><<<(unsigned)(n16 / 16384), 256>>>((uint4*)a, (uint4*)b, n16); });
  time("copyK 256", [&] { copyK<256><<<(unsigned)(n16 / 65536), 256>>>((uint4*)a, (uint4*)b, n16); });
  time("copyKs 4", [&] { copyKs<4><<<(unsigned)(n16 / 1024), 256>>>((uint4*)a, (uint4*)b, n16); });
  time("copyKs 16", [&] { copyKs<16><<<(unsigned)(n16 / 4096), 256>>>((uint4*)a, (uint4*)b, n16); });
  time("copyKs 64", [&] { copyKs<64><<<(unsigned)(n16 / 16384), 256>>>((uint4*)a, (uint4*)b, n16); });
  for (int bps : {4, 8}) { char nm[64];
    sprintf(nm, "copyRange %d/SM", bps); time(nm, [&] { copyRange<<<sms * bps, 256>>>((uint4*)a, (uint4*)b, n16); }); }
  unsigned long long* ctr; CK(cudaMalloc(&ctr, 8));
  for (int bps : {4, 8}) { char nm[64];
    sprintf(nm, "copyAtomic %d/SM", bps); time(nm, [&] { cudaMemsetAsync(ctr, 0, 8); copyAtomic<<<sms * bps, 256>>>((uint4*)a, (uint4*)b, n16 / 256, ctr); }); }
  time("tileK 1", [&] { tileK<1><<<(unsigned)(tiles / 8), 256>>>((uint32_t*)a, (uint32_t*)b, tiles); });
  time("tileK 4", [&] { tileK<4><<<(unsigned)(tiles / 32), 256>>>((uint32_t*)a, (uint32_t*)b, tiles); });
  time("tileK 16", [&] { tileK<16><<<(unsigned)(tiles / 128), 256>>>((uint32_t*)a, (uint32_t*)b, tiles); });
  time("tileK 64", [&] { tileK<64><<<(unsigned)(tiles / 512), 256>>>((uint32_t*)a, (uint32_t*)b, tiles); });
  return 0;
}
