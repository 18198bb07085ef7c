//! The batched 32-bit word transpose (`cuda/small/transpose.cu`), shared by the small-word NTTs'
//! and the fp16 FFT's 2-D decompositions, and by the Plonky3 backend's row-major <-> column-major moves.

use crate::Result;
use crate::error::DriverContext;
use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};
use std::sync::Arc;
use zkntt_gpu::Gpu;

/// The transpose kernel's symbol.
pub const KERNEL: &str = "small_transpose_u32";

/// Transposes `batch` row-major `rows x cols` matrices of 32-bit words from `input` to `output`
/// (device pointers, distinct, each holding `batch * rows * cols` words), on `stream`.
pub(crate) fn transpose_words(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    input: u64,
    output: u64,
    rows: u32,
    cols: u32,
    batch: u64,
) -> Result<()> {
    let f = gpu.function(KERNEL)?;
    let mut done = 0u64;
    while done < batch {
        // grid.z is at most 65535 matrices per launch.
        let count = (batch - done).min(65_535);
        let offset = done * rows as u64 * cols as u64 * 4;
        let (i, o) = (input + offset, output + offset);
        let cfg = LaunchConfig {
            // Blocks step over row tiles beyond grid.y's limit (65535), so any row count fits.
            grid_dim: (
                cols.div_ceil(32),
                rows.div_ceil(32).min(65_535),
                count as u32,
            ),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = stream.launch_builder(&f);
        launch.arg(&i).arg(&o).arg(&rows).arg(&cols);
        // SAFETY: (const u32*, u32*, u32 rows, u32 cols); both hold count matrices of
        // rows x cols from the offsets.
        unsafe { launch.launch(cfg) }.during(KERNEL)?;
        done += count;
    }
    Ok(())
}
