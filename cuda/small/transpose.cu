// Batched matrix transpose of 32-bit words through shared memory, for the 2-D (four-step)
// decomposition of small-word NTTs larger than one tile.
#include <cstdint>

namespace zkntt {
namespace small {
constexpr uint32_t TRANSPOSE_TILE = 32;
}  // namespace small
}  // namespace zkntt

// Launch: block (32, 8), grid (ceil(cols / 32), ceil(rows / 32), batch). In: `batch` row-major
// rows x cols matrices; out: the cols x rows transposes, same batch order. Out of place.
extern "C" __global__ void small_transpose_u32(const uint32_t* in, uint32_t* out, uint32_t rows,
                                               uint32_t cols) {
    using zkntt::small::TRANSPOSE_TILE;
    __shared__ uint32_t t[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
    const uint64_t matrix = (uint64_t)blockIdx.z * rows * cols;
    const uint32_t c0 = blockIdx.x * TRANSPOSE_TILE, r0 = blockIdx.y * TRANSPOSE_TILE;
    for (uint32_t dy = threadIdx.y; dy < TRANSPOSE_TILE; dy += blockDim.y) {
        uint32_t r = r0 + dy, c = c0 + threadIdx.x;
        if (r < rows && c < cols) t[dy][threadIdx.x] = in[matrix + (uint64_t)r * cols + c];
    }
    __syncthreads();
    for (uint32_t dy = threadIdx.y; dy < TRANSPOSE_TILE; dy += blockDim.y) {
        uint32_t c = c0 + dy, r = r0 + threadIdx.x;  // out row c, out column r
        if (r < rows && c < cols) out[matrix + (uint64_t)c * rows + r] = t[threadIdx.x][dy];
    }
}
