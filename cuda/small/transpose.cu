// Batched matrix transpose of 32-bit words through shared memory, for the 2-D (four-step)
// decomposition of small-word NTTs larger than one tile and for the Plonky3 backend's
// row-major <-> column-major moves.
#include <cstdint>

#include "shared_memory.cuh"

namespace zkntt {
namespace small {
constexpr uint32_t TRANSPOSE_TILE = 32;
}  // namespace small
}  // namespace zkntt

// Launch: block (32, 8), grid (ceil(cols / 32), min(ceil(rows / 32), 65535), batch): blocks step
// over row tiles by gridDim.y, so a matrix of up to 2^32 - 1 rows fits one launch. In: `batch`
// row-major rows x cols matrices; out: the cols x rows transposes, same batch order. Out of place.
// rev_log > 0 (cols = 2^rev_log): in column c goes to out row rev(c) (its rev_log bits reversed),
// which undoes a bit-reversed order along the rows at no cost.
__device__ __forceinline__ uint32_t transpose_out_row(uint32_t c, uint32_t rev_log) {
    return rev_log ? __brev(c) >> (32 - rev_log) : c;
}
extern "C" __global__ void small_transpose_u32(const uint32_t* in, uint32_t* out, uint32_t rows,
                                               uint32_t cols, uint32_t rev_log) {
    using zkntt::small::TRANSPOSE_TILE;
    ZKNTT_STATIC_SHARED(uint32_t, t, [TRANSPOSE_TILE][TRANSPOSE_TILE + 1]);
    const uint64_t matrix = (uint64_t)blockIdx.z * rows * cols;
    const uint32_t c0 = blockIdx.x * TRANSPOSE_TILE;
    for (uint64_t r0 = (uint64_t)blockIdx.y * TRANSPOSE_TILE; r0 < rows;
         r0 += (uint64_t)gridDim.y * TRANSPOSE_TILE) {
        for (uint32_t dy = threadIdx.y; dy < TRANSPOSE_TILE; dy += blockDim.y) {
            uint64_t r = r0 + dy;
            uint32_t c = c0 + threadIdx.x;
            if (r < rows && c < cols) t[dy][threadIdx.x] = in[matrix + r * cols + c];
        }
        __syncthreads();
        for (uint32_t dy = threadIdx.y; dy < TRANSPOSE_TILE; dy += blockDim.y) {
            uint32_t c = c0 + dy;  // out row c, out column r
            uint64_t r = r0 + threadIdx.x;
            if (r < rows && c < cols) out[matrix + (uint64_t)transpose_out_row(c, rev_log) * rows + r] = t[threadIdx.x][dy];
        }
        __syncthreads();  // the tile is rewritten by the next row step
    }
}

// The same transpose for matrices whose sides are multiples of 64 words (the 2-D NTT's 2^12 x
// 2^13/2^14 rows): 64 x 64 tiles moved as 16-byte words, four in flight a thread each way, so a
// multiprocessor keeps four times the bytes of the 32 x 32 kernel in flight (that one holds the
// copy at about half the memory's bandwidth). Each block walks several row tiles (the host
// gives grid.y a quarter of them), its next tile's loads issued before the current tile's
// stores: one tile a block left blocks too short to keep the multiprocessors full (47% of the
// warps active, 55% of DRAM's peak at 2^12 x 2^13: benches/NOTES.md). Launch: block (16, 16),
// grid (cols / 64, any y, batch); `in` and `out` 16-byte aligned; rev_log as above.
extern "C" __global__ void __launch_bounds__(256) small_transpose_u32_x4(const uint32_t* in, uint32_t* out,
                                                                         uint32_t rows, uint32_t cols,
                                                                         uint32_t rev_log) {
    constexpr uint32_t T = 64;
    ZKNTT_STATIC_SHARED(uint32_t, t, [T][T + 1]);
    const uint64_t matrix = (uint64_t)blockIdx.z * rows * cols;
    const uint32_t c0 = blockIdx.x * T, x = threadIdx.x, y = threadIdx.y;
    uint32_t r0 = blockIdx.y * T;  // rows < 2^32
    if (r0 >= rows) return;
    const uint32_t step = gridDim.y * T;
    // This thread's input word of row r0 + y (its rows i: + 16 i cols) and output word of out
    // row (c0 + y + 16 i) at column r0 (+ 4x): pointers advanced a row tile at a time.
    const uint4* src = reinterpret_cast<const uint4*>(in + matrix + (uint64_t)(r0 + y) * cols + c0 + 4 * x);
    const uint64_t src_i = 4ull * cols;                       // 16 rows, in uint4
    const uint64_t src_step = (uint64_t)step * cols / 4;       // a row tile, in uint4
    uint4* dst[4];
#pragma unroll
    for (uint32_t i = 0; i < 4; i++)
        dst[i] = reinterpret_cast<uint4*>(out + matrix + (uint64_t)transpose_out_row(c0 + y + 16 * i, rev_log) * rows + r0 + 4 * x);
    uint4 v[4];
#pragma unroll
    for (uint32_t i = 0; i < 4; i++) v[i] = src[i * src_i];
    while (true) {
#pragma unroll
        for (uint32_t i = 0; i < 4; i++) {
            uint32_t* row = t[y + 16 * i] + 4 * x;
            row[0] = v[i].x;
            row[1] = v[i].y;
            row[2] = v[i].z;
            row[3] = v[i].w;
        }
        __syncthreads();
        // Out row c0 + y + 16 i, words r0 + 4x .. r0 + 4x + 3: column y + 16 i of the tile.
        uint4 w[4];
#pragma unroll
        for (uint32_t i = 0; i < 4; i++) {
            const uint32_t c = y + 16 * i;
            w[i] = make_uint4(t[4 * x][c], t[4 * x + 1][c], t[4 * x + 2][c], t[4 * x + 3][c]);
        }
        __syncthreads();  // the tile is rewritten by the next row step
        const bool more = rows - r0 > step;  // (r0 < rows: no wrap)
        r0 += step;
        if (more) {
            src += src_step;
#pragma unroll
            for (uint32_t i = 0; i < 4; i++) v[i] = src[i * src_i];
        }
#pragma unroll
        for (uint32_t i = 0; i < 4; i++) {
            *dst[i] = w[i];
            dst[i] += step / 4;
        }
        if (!more) break;
    }
}
