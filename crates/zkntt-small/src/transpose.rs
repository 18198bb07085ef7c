//! The batched 32-bit word transpose (`cuda/small/transpose.cu`), shared by the small-word NTTs'
//! and the fp16 FFT's 2-D decompositions, and by the Plonky3 backend's row-major <-> column-major moves.

use crate::Result;
use crate::error::DriverContext;
use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};
use std::sync::Arc;
use zkntt_gpu::Gpu;

/// The transpose kernel's symbol.
pub const KERNEL: &str = "small_transpose_u32";

/// The transpose for sides that are multiples of 64 words and 16-byte aligned matrices: 64 x 64
/// tiles in 16-byte words.
pub const KERNEL_X4: &str = "small_transpose_u32_x4";

/// Row tiles each block of [`KERNEL_X4`] walks (grid.y is the rest).
const TILES_PER_BLOCK: u32 = 4;

/// Transposes `batch` row-major `rows x cols` matrices of 32-bit words from `input` to `output`
/// (device pointers, distinct, each holding `batch * rows * cols` words), on `stream`.
/// `rev_cols` (cols a power of two): input column c goes to output row rev(c), its log2 cols bits
/// reversed, undoing a bit-reversed order along the input's rows in the same pass.
#[allow(clippy::too_many_arguments)]
pub(crate) fn transpose_words(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    input: u64,
    output: u64,
    rows: u32,
    cols: u32,
    batch: u64,
    rev_cols: bool,
) -> Result<()> {
    debug_assert!(!rev_cols || cols.is_power_of_two());
    let rev_log = if rev_cols { cols.trailing_zeros() } else { 0 };
    // 64-word tiles in 16-byte words where the sides and addresses allow, else 32-word tiles.
    let x4 = rows % 64 == 0 && cols % 64 == 0 && input % 16 == 0 && output % 16 == 0;
    // The 16-byte kernel's blocks walk TILES_PER_BLOCK row tiles each (its loads of the next
    // tile under the stores of the current one).
    let (name, tile, block, tiles_per_block) = if x4 {
        (KERNEL_X4, 64, (16, 16, 1), TILES_PER_BLOCK)
    } else {
        (KERNEL, 32, (32, 8, 1), 1)
    };
    let f = gpu.function(name)?;
    let mut done = 0u64;
    while done < batch {
        // grid.z is at most 65535 matrices per launch.
        let count = (batch - done).min(65_535);
        let offset = done * rows as u64 * cols as u64 * 4;
        let (i, o) = (input + offset, output + offset);
        let cfg = LaunchConfig {
            // Blocks step over row tiles beyond grid.y's limit (65535), so any row count fits.
            grid_dim: (
                cols.div_ceil(tile),
                rows.div_ceil(tile).div_ceil(tiles_per_block).min(65_535),
                count as u32,
            ),
            block_dim: block,
            shared_mem_bytes: 0,
        };
        let mut launch = stream.launch_builder(&f);
        launch.arg(&i).arg(&o).arg(&rows).arg(&cols).arg(&rev_log);
        // SAFETY: (const u32*, u32*, u32 rows, u32 cols, u32 rev_log); both hold count matrices of
        // rows x cols from the offsets (x4: sides multiples of 64, addresses of 16 bytes).
        unsafe { launch.launch(cfg) }.during(name)?;
        done += count;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both kernels against a transpose on the CPU: sides multiples of 64 (16-byte tiles), other
    /// sides (32-word tiles), batches, and a matrix of 65,537 row tiles, which the 16-byte
    /// kernel's 16,385 blocks walk three to four tiles each. (The grid.y cap of 65,535 itself
    /// takes over 2^24 rows of 64 words, 4 GiB a buffer: not tested.)
    #[test]
    fn transposes_match_cpu() {
        let Some(gpu) = zkntt_gpu::testing::gpu_or_skip("transposes_match_cpu") else {
            return;
        };
        let s = gpu.stream();
        for (rows, cols, batch, rev) in [
            (64u32, 128u32, 2u64, false),
            (128, 64, 3, false),
            (4096, 8192, 1, false),
            (4096, 8192, 2, true),
            (3, 5, 2, false),
            (64, 96, 1, false),
            (100, 64, 2, false),
            (100, 64, 2, true),
            (65_536 * 64 + 64, 64, 1, false),
        ] {
            let n = (rows as u64 * cols as u64 * batch) as usize;
            let x: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            let input = s.clone_htod(&x).unwrap();
            let mut output = s.alloc_zeros::<u32>(n).unwrap();
            {
                use cudarc::driver::{DevicePtr, DevicePtrMut};
                let (i, _gi) = input.device_ptr(s);
                let (o, _go) = output.device_ptr_mut(s);
                transpose_words(&gpu, s, i, o, rows, cols, batch, rev).unwrap();
            }
            let got = s.clone_dtoh(&output).unwrap();
            let (r, c) = (rows as usize, cols as usize);
            for (m, (xm, gm)) in x.chunks(r * c).zip(got.chunks(r * c)).enumerate() {
                let log_c = cols.trailing_zeros();
                for i in 0..r {
                    for j in 0..c {
                        let row = if rev {
                            (j as u32).reverse_bits() as usize >> (32 - log_c)
                        } else {
                            j
                        };
                        assert_eq!(
                            gm[row * r + i],
                            xm[i * c + j],
                            "{rows} x {cols} matrix {m} ({i}, {j}), rev {rev}"
                        );
                    }
                }
            }
        }
    }
}
