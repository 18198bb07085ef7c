// Batched matrix transpose of 32-bit words through shared memory, for the 2-D (four-step)
// decomposition of small-word NTTs larger than one tile and for the Plonky3 backend's
// row-major <-> column-major moves.
#include <cstdint>

namespace zkntt {
namespace small {
constexpr uint32_t TRANSPOSE_TILE = 32;
}  // namespace small
}  // namespace zkntt

// Launch: block (32, 8), grid (ceil(cols / 32), min(ceil(rows / 32), 65535), batch): blocks step
// over row tiles by gridDim.y, so a matrix of up to 2^32 - 1 rows fits one launch. In: `batch`
// row-major rows x cols matrices; out: the cols x rows transposes, same batch order. Out of place.
extern "C" __global__ void small_transpose_u32(const uint32_t* in, uint32_t* out, uint32_t rows,
                                               uint32_t cols) {
    using zkntt::small::TRANSPOSE_TILE;
    __shared__ uint32_t t[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
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
            if (r < rows && c < cols) out[matrix + (uint64_t)c * rows + r] = t[threadIdx.x][dy];
        }
        __syncthreads();  // the tile is rewritten by the next row step
    }
}
