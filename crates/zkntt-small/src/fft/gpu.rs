//! The host API of the Tensor Core fp16 FFT (`cuda/small/fft_tc.cu`): batched complex FFTs of
//! 2^1..2^12 points on device-resident data.
//!
//! Layout: interleaved complex fp16, `(re, im)` pairs of binary16 bits in a `CudaSlice<u16>`
//! (cuFFT's `half2` layout), transforms contiguous, natural order in and out. A batch of B
//! transforms of 2^log_n points is `2 * B << log_n` `u16`s.

use crate::error::DriverContext;
use crate::fft::model;
use crate::{Direction, Error, Result};
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use zkntt_gpu::Gpu;

/// Twiddle table length (e^{-2 pi i j / 4096}).
const TABLE: u64 = 4096;
/// Complex elements one block of the large kernel takes per step of its loop.
const CHUNK: u64 = 4096;
/// Complex elements one warp of the small kernel takes per step of its loop.
const TILE: u64 = 256;
const THREADS: u32 = 256;
/// Largest log2 size of the small kernel (registers only); the large one takes 9..=12.
const SMALL_MAX_LOG: u32 = 8;

/// The kernel's name for a size and direction.
pub const fn kernel_name(log_n: u32, dir: Direction) -> &'static str {
    match (log_n <= SMALL_MAX_LOG, dir) {
        (true, Direction::Forward) => "fft_tc_f16_small_forward",
        (true, Direction::Inverse) => "fft_tc_f16_small_inverse",
        (false, Direction::Forward) => "fft_tc_f16_large_forward",
        (false, Direction::Inverse) => "fft_tc_f16_large_inverse",
    }
}

/// The fp16 Tensor Core FFT on one GPU: the twiddle table (e^{-2 pi i j / 4096}, f32, computed
/// in f64) is uploaded once; the kernels are persistent (grid = resident blocks, at most one per
/// piece of work), sized once from the occupancy the driver reports.
#[derive(Debug)]
pub struct TcFft {
    gpu: Gpu,
    twiddles: CudaSlice<f32>,
    /// Resident blocks on the whole GPU: small kernel, large kernel.
    resident: [u64; 2],
}

impl TcFft {
    /// Smallest and largest log2 size one launch takes.
    pub const MIN_LOG: u32 = 1;
    pub const MAX_LOG: u32 = 12;

    /// Uploads the twiddles, resolves the four kernels and sizes their persistent grids. Errors
    /// where the GPU or kernels are missing.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        if !zkntt_kernels::built() {
            return Err(zkntt_gpu::Error::KernelsNotBuilt {
                note: zkntt_kernels::BUILD_NOTE,
            }
            .into());
        }
        let table: Vec<f32> = (0..TABLE)
            .flat_map(|j| {
                let (re, im) = model::root(j, TABLE, Direction::Forward);
                [re as f32, im as f32]
            })
            .collect();
        let twiddles = gpu
            .stream()
            .clone_htod(&table)
            .during("FFT twiddle upload")?;
        let sms = gpu.info()?.multiprocessors.max(1) as u64;
        let mut resident = [0u64; 2];
        for (slot, log_n) in [(0, SMALL_MAX_LOG), (1, Self::MAX_LOG)] {
            for dir in [Direction::Forward, Direction::Inverse] {
                let f = gpu.function(kernel_name(log_n, dir))?;
                let per_sm = f
                    .occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)
                    .during("FFT kernel occupancy")?;
                let r = sms * per_sm.max(1) as u64;
                resident[slot] = if resident[slot] == 0 {
                    r
                } else {
                    resident[slot].min(r)
                };
            }
        }
        Ok(Self {
            gpu: gpu.clone(),
            twiddles,
            resident,
        })
    }

    /// Transforms every 2^log_n consecutive complex elements of `input` into `output`,
    /// asynchronously on the GPU's stream. Forward is e^{-2 pi i nk/N}; inverse is e^{+...}
    /// without 1/N. Values whose transforms exceed fp16's range (65504) come out infinite.
    pub fn run(
        &self,
        input: &CudaSlice<u16>,
        output: &mut CudaSlice<u16>,
        log_n: u32,
        dir: Direction,
    ) -> Result<()> {
        if !(Self::MIN_LOG..=Self::MAX_LOG).contains(&log_n) {
            return Err(Error::SizeUnsupported {
                field: "the fp16 Tensor Core FFT (2^1..2^12 per launch)",
                log_n,
                max: Self::MAX_LOG,
            });
        }
        if input.len() != output.len() {
            return Err(Error::LengthMismatch {
                expected: input.len(),
                got: output.len(),
            });
        }
        let len = input.len();
        if len % (2 << log_n) != 0 {
            return Err(Error::NotWholeTransforms { len, log_n });
        }
        let total = (len / 2) as u64;
        if total == 0 {
            return Ok(());
        }
        let f = self.gpu.function(kernel_name(log_n, dir))?;
        let blocks = if log_n <= SMALL_MAX_LOG {
            total
                .div_ceil(TILE)
                .div_ceil((THREADS / 32) as u64)
                .min(self.resident[0])
        } else {
            total.div_ceil(CHUNK).min(self.resident[1])
        };
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let stream = self.gpu.stream();
        let mut launch = stream.launch_builder(&f);
        launch
            .arg(input)
            .arg(output)
            .arg(&self.twiddles)
            .arg(&log_n)
            .arg(&total);
        // SAFETY: (const u32* in, u32* out, const float2* tw, u32 log_n, u64 total), in and out
        // `total` (re, im) half2 words each (checked above; distinct buffers, as `&` and `&mut`
        // guarantee; device allocations are 256-byte aligned for the 16-byte loads), tw the 4096
        // float2 the kernels index; any grid size is valid (the kernels stride over the work).
        unsafe { launch.launch(cfg) }.during("fft_tc_f16 launch")?;
        Ok(())
    }

    /// The GPU this FFT runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
}
