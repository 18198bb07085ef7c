//! The host API of the Tensor Core fp16 FFT (`cuda/small/fft_tc.cu`): batched complex FFTs of
//! 2^1..2^20 points on device-resident data, 2^1..2^12 in one launch, 2^13..2^20 by the four-step
//! split of [`model::split`]: the N1-point column transforms with the twiddle `w_N^{n2 k1}`, then
//! the N2-point row transforms. 2^13..2^15: both in one launch, one block per transform in shared
//! memory (where the GPU lets a block have 52..173 KiB of it: [`whole_smem_bytes`]); otherwise the
//! columns in one launch and the rows writing `X[k1 + N1 k2]` directly (the transpose folded in,
//! through shared memory: two launches, 2^13..2^17; 2^18..2^20 in bands of 8 rows a block, where
//! the GPU lets a block have 63..164 KiB of shared memory: [`band_smem_bytes`]), otherwise (or
//! with [`TcFft::set_fused`] off) the one-launch kernel on the rows and a transpose (three
//! launches); fp16 data between the launches in a scratch buffer of the output's size, kept for
//! the next call.
//!
//! Layout: interleaved complex fp16, `(re, im)` pairs of binary16 bits in a `CudaSlice<u16>`
//! (cuFFT's `half2` layout), transforms contiguous, natural order in and out. A batch of B
//! transforms of 2^log_n points is `2 * B << log_n` `u16`s.

use crate::error::{DriverContext, oom};
use crate::fft::model;
use crate::transpose::transpose_words;
use crate::{Direction, Error, Result};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
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
/// The constant images `fft_tc_f16_consts` writes: 2 directions x 13, each `sizeof(LargeConsts)`
/// = 9 KiB (`cuda/small/fft_tc.cu`).
const IMAGES: u64 = 26;
const IMAGE_BYTES: u64 = 9 << 10;
/// Pieces of work per block by kernel (small, large, columns, rows small, rows large, one block
/// per transform at 2^14/2^15, rows in bands, one block per transform at 2^13), chosen by sweeps
/// of `zkntt bench fft --work-per-block` (benches/NOTES.md, "grid"; the large kernel's, the column
/// kernel's and one block per transform's again in the eleventh session, 2^13's in the
/// fifty-ninth, its kernel holding its tile images in registers; the bands' not swept apart):
/// see [`TcFft::set_work_per_block`].
pub const DEFAULT_WORK_PER_BLOCK: [u32; 8] = [2, 2, 4, 2, 4, 1, 2, 2];
/// The slot of DEFAULT_WORK_PER_BLOCK of one block per transform at 2^log_n.
const fn whole_slot(log_n: u32) -> usize {
    if log_n == TcFft::ONE_LAUNCH_MAX_LOG + 1 {
        7
    } else {
        5
    }
}
/// `work_per_block` when no override is set.
const NO_OVERRIDE: u32 = u32::MAX;

/// The kernel that builds the constant images from the twiddle table, once per [`TcFft`].
pub const CONSTS_KERNEL_NAME: &str = "fft_tc_f16_consts";

/// The column kernel (pass 1 of the four-step split) for a direction.
pub const fn column_kernel_name(dir: Direction) -> &'static str {
    match dir {
        Direction::Forward => "fft_tc_f16_columns_forward",
        Direction::Inverse => "fft_tc_f16_columns_inverse",
    }
}

/// The row kernel with the transpose folded in (pass 2 of the four-step split) for log N2 = 6..9.
pub const fn rows_kernel_name(log_n2: u32, dir: Direction) -> &'static str {
    match (log_n2 <= SMALL_MAX_LOG, dir) {
        (true, Direction::Forward) => "fft_tc_f16_rows_small_forward",
        (true, Direction::Inverse) => "fft_tc_f16_rows_small_inverse",
        (false, Direction::Forward) => "fft_tc_f16_rows_large_forward",
        (false, Direction::Inverse) => "fft_tc_f16_rows_large_inverse",
    }
}

/// The row kernel in bands (pass 2 of the four-step split at 2^18..2^20, the transpose folded).
pub const fn band_kernel_name(dir: Direction) -> &'static str {
    match dir {
        Direction::Forward => "fft_tc_f16_rows_band_forward",
        Direction::Inverse => "fft_tc_f16_rows_band_inverse",
    }
}

/// Sizes whose rows run in bands: 2^18..=2^20 (N2 = 1024..4096 with N1 = 256).
pub const BAND_LOGS: std::ops::RangeInclusive<u32> = 18..=20;
/// `sizeof(BandHead)` of `cuda/small/fft_tc.cu`: the large kernel's radix-R buffer and constants.
const BAND_HEAD_BYTES: u32 = 30640;

/// Rows a block of the band kernel takes (log2): 8 at every band size, so that the transposed
/// output goes out in 32-byte runs (a sector) from a band that fits beside a second block at 2^19.
pub const BAND_LOG: u32 = 3;

/// `band_stride<LOG_N2, LOG_BAND>` of `cuda/small/fft_tc.cu`: a band's row stride in words (the
/// padded row, rounded to 32 / B mod 32 so that a warp's reads of B rows are conflict-free).
const fn band_stride(log_n2: u32, log_band: u32) -> u32 {
    let a = (1u32 << log_n2) - 1;
    // pad_out_r<log_n2 - 8>: a + a / 64 at log_r = 2, else pad_out.
    let base = if log_n2 == 10 {
        a + (a >> 6)
    } else {
        a + (a >> 5) + 2 * (a >> 7)
    } + 1;
    let want = 32 >> log_band;
    base + (want + 32 - base % 32) % 32
}

/// Dynamic shared memory of the band kernel at 2^log_n ([`BAND_LOGS`]): the `BandHead`, then the
/// band's 2^[`BAND_LOG`] rows (63, 97 and 164 KiB).
pub const fn band_smem_bytes(log_n: u32) -> u32 {
    let (_, log_n2) = model::split(log_n);
    let log_band = BAND_LOG;
    BAND_HEAD_BYTES + 4 * (band_stride(log_n2, log_band) << log_band)
}

/// Largest log2 size of one block per transform (`fft_tc_f16_whole_*`, 2^13..=2^15).
pub const WHOLE_MAX_LOG: u32 = 15;
/// `sizeof(WholeHead)` of `cuda/small/fft_tc.cu`: two tile images and 16 fine twiddles.
const WHOLE_HEAD_BYTES: u32 = 12416;

/// `pad_whole<LOG_N1>` of `cuda/small/fft_tc.cu`: the padded shared-memory word of a transform's
/// word `a` (column-major, N1 words a column).
const fn pad_whole(a: u32, log_n1: u32) -> u32 {
    a + 8 * (a >> 5) + (a >> log_n1) + 8 * (a >> (log_n1 + 5))
}

/// Dynamic shared memory of one block per transform at 2^log_n (13..=[`WHOLE_MAX_LOG`]): the
/// kernel's `WholeHead`, then the padded transform (52, 93 and 173 KiB).
pub const fn whole_smem_bytes(log_n: u32) -> u32 {
    let (log_n1, _) = model::split(log_n);
    WHOLE_HEAD_BYTES + 4 * (pad_whole((1 << log_n) - 1, log_n1) + 1)
}

/// One block per transform, `[forward, inverse]` for log N = 13..=15 (a kernel per size, each its
/// own register allocation).
const WHOLE_KERNELS: [[&str; 2]; 3] = [
    ["fft_tc_f16_whole_forward_13", "fft_tc_f16_whole_inverse_13"],
    ["fft_tc_f16_whole_forward_14", "fft_tc_f16_whole_inverse_14"],
    ["fft_tc_f16_whole_forward_15", "fft_tc_f16_whole_inverse_15"],
];

/// The one-block-per-transform kernel's name for a size and direction; `None` outside 2^13..2^15.
pub const fn whole_kernel_name(log_n: u32, dir: Direction) -> Option<&'static str> {
    if log_n <= TcFft::ONE_LAUNCH_MAX_LOG || log_n > WHOLE_MAX_LOG {
        return None;
    }
    let d = match dir {
        Direction::Forward => 0,
        Direction::Inverse => 1,
    };
    Some(WHOLE_KERNELS[(log_n - TcFft::ONE_LAUNCH_MAX_LOG - 1) as usize][d])
}

/// The one-launch kernels, `[forward, inverse]` for log N = 1..=12: one per size (each its own
/// register allocation: one kernel switching on log N spilled where no single size does;
/// benches/NOTES.md, "one kernel per size").
const ONE_LAUNCH_KERNELS: [[&str; 2]; 12] = [
    ["fft_tc_f16_small_forward_1", "fft_tc_f16_small_inverse_1"],
    ["fft_tc_f16_small_forward_2", "fft_tc_f16_small_inverse_2"],
    ["fft_tc_f16_small_forward_3", "fft_tc_f16_small_inverse_3"],
    ["fft_tc_f16_small_forward_4", "fft_tc_f16_small_inverse_4"],
    ["fft_tc_f16_small_forward_5", "fft_tc_f16_small_inverse_5"],
    ["fft_tc_f16_small_forward_6", "fft_tc_f16_small_inverse_6"],
    ["fft_tc_f16_small_forward_7", "fft_tc_f16_small_inverse_7"],
    ["fft_tc_f16_small_forward_8", "fft_tc_f16_small_inverse_8"],
    ["fft_tc_f16_large_forward_9", "fft_tc_f16_large_inverse_9"],
    ["fft_tc_f16_large_forward_10", "fft_tc_f16_large_inverse_10"],
    ["fft_tc_f16_large_forward_11", "fft_tc_f16_large_inverse_11"],
    ["fft_tc_f16_large_forward_12", "fft_tc_f16_large_inverse_12"],
];

/// The one-launch kernel's name for a size and direction; `None` outside 2^1..2^12.
pub const fn kernel_name(log_n: u32, dir: Direction) -> Option<&'static str> {
    if log_n < TcFft::MIN_LOG || log_n > TcFft::ONE_LAUNCH_MAX_LOG {
        return None;
    }
    let d = match dir {
        Direction::Forward => 0,
        Direction::Inverse => 1,
    };
    Some(ONE_LAUNCH_KERNELS[(log_n - 1) as usize][d])
}

/// The fp16 Tensor Core FFT on one GPU: the twiddle table (e^{-2 pi i j / 4096}, f32, computed
/// in f64) is uploaded once and every kernel's constants built from it once on the GPU; grids of
/// [`set_work_per_block`](TcFft::set_work_per_block) pieces of work per block (or the resident
/// blocks, sized once from the occupancy the driver reports).
#[derive(Debug)]
pub struct TcFft {
    gpu: Gpu,
    twiddles: CudaSlice<f32>,
    /// Every kernel's constant fragments and twiddles, built once from `twiddles` on the GPU.
    images: CudaSlice<u8>,
    /// Pieces of work per block for every kernel (0: persistent grids of `resident` blocks), or
    /// NO_OVERRIDE for DEFAULT_WORK_PER_BLOCK.
    work_per_block: AtomicU32,
    /// Resident blocks on the whole GPU: small kernel, large kernel, column kernel, row kernels
    /// (small, large) with the transpose folded in, one block per transform at 2^14/2^15, rows in
    /// bands, one block per transform at 2^13 (DEFAULT_WORK_PER_BLOCK's slots).
    resident: [u64; 8],
    /// Largest log2 size run as one block per transform: the largest of 13..=WHOLE_MAX_LOG whose
    /// shared memory the GPU lets a block opt into (12: none).
    whole_max_log: u32,
    /// Largest log2 size whose rows run in bands: the largest of BAND_LOGS whose shared memory
    /// the GPU lets a block opt into (17: none).
    band_max_log: u32,
    /// Whether `run` takes the fused launches where the GPU allows them (one block per
    /// transform, rows in bands), else the plain launches of the four-step split
    /// ([`set_fused`](TcFft::set_fused)).
    fused: AtomicBool,
    /// The four-step split's intermediate (fp16 words), as long as the last such call's output.
    scratch: Mutex<Option<CudaSlice<u16>>>,
}

impl TcFft {
    /// Smallest and largest log2 size.
    pub const MIN_LOG: u32 = 1;
    pub const MAX_LOG: u32 = model::MAX_LOG;
    /// Largest log2 size one launch takes.
    pub const ONE_LAUNCH_MAX_LOG: u32 = model::ONE_LAUNCH_MAX_LOG;

    /// Uploads the twiddles, builds the kernels' constants, resolves the kernels and sizes
    /// their persistent grids. Errors where the GPU or kernels are missing.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        if !zkntt_gpu::kernels_built() {
            return Err(zkntt_gpu::Error::KernelsNotBuilt {
                note: zkntt_gpu::KERNELS_BUILD_NOTE,
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
        // SAFETY: fft_tc_f16_consts below writes every byte before any kernel reads one.
        let mut images = unsafe { gpu.stream().alloc::<u8>((IMAGES * IMAGE_BYTES) as usize) }
            .during("FFT constant images")?;
        {
            let f = gpu.function(CONSTS_KERNEL_NAME)?;
            let cfg = LaunchConfig {
                grid_dim: (IMAGES as u32, 1, 1),
                block_dim: (32, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut launch = gpu.stream().launch_builder(&f);
            launch.arg(&twiddles).arg(&mut images);
            // SAFETY: (const float2* tw, LargeConsts* images): tw the 4096 float2 uploaded above,
            // images IMAGES x IMAGE_BYTES bytes (256-byte aligned), one block per image.
            unsafe { launch.launch(cfg) }.during(CONSTS_KERNEL_NAME)?;
        }
        let sms = gpu.info()?.multiprocessors.max(1) as u64;
        // One block per transform where its shared memory fits a block: the kernels are allowed
        // it once here (a driver call per launch would cost host time).
        let optin = gpu
            .context()
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .map_or(0, |b| b.max(0) as u32);
        let mut whole_max_log = Self::ONE_LAUNCH_MAX_LOG;
        for log_n in Self::ONE_LAUNCH_MAX_LOG + 1..=WHOLE_MAX_LOG {
            if whole_smem_bytes(log_n) > optin {
                break;
            }
            for dir in [Direction::Forward, Direction::Inverse] {
                let name = whole_kernel_name(log_n, dir).unwrap_or_default();
                allow_smem(gpu, name, whole_smem_bytes(log_n))?;
            }
            whole_max_log = log_n;
        }
        let mut band_max_log = *BAND_LOGS.start() - 1;
        for log_n in BAND_LOGS {
            if band_smem_bytes(log_n) > optin {
                break;
            }
            band_max_log = log_n;
        }
        if band_max_log >= *BAND_LOGS.start() {
            for dir in [Direction::Forward, Direction::Inverse] {
                // The largest band that fits (each launch asks its own).
                allow_smem(gpu, band_kernel_name(dir), band_smem_bytes(band_max_log))?;
            }
        }
        let mut resident = [0u64; 8];
        for (slot, res) in resident.iter_mut().enumerate() {
            // Every kernel of the slot (the one-launch ones: every size), both directions, with
            // its dynamic shared memory.
            let names: Vec<(&'static str, u32)> = [Direction::Forward, Direction::Inverse]
                .into_iter()
                .flat_map(|dir| match slot {
                    0 => (Self::MIN_LOG..=SMALL_MAX_LOG)
                        .filter_map(|l| kernel_name(l, dir).map(|n| (n, 0)))
                        .collect(),
                    1 => (SMALL_MAX_LOG + 1..=Self::ONE_LAUNCH_MAX_LOG)
                        .filter_map(|l| kernel_name(l, dir).map(|n| (n, 0)))
                        .collect(),
                    2 => vec![(column_kernel_name(dir), 0)],
                    3 => vec![(rows_kernel_name(SMALL_MAX_LOG, dir), 0)],
                    4 => vec![(rows_kernel_name(SMALL_MAX_LOG + 1, dir), 0)],
                    5 | 7 => (Self::ONE_LAUNCH_MAX_LOG + 1..=whole_max_log)
                        .filter(|&l| whole_slot(l) == slot)
                        .filter_map(|l| whole_kernel_name(l, dir).map(|n| (n, whole_smem_bytes(l))))
                        .collect(),
                    _ => (*BAND_LOGS.start()..=band_max_log)
                        .map(|l| (band_kernel_name(dir), band_smem_bytes(l)))
                        .collect(),
                })
                .collect();
            for (name, smem) in names {
                let f = gpu.function(name)?;
                let smem = smem as usize;
                let per_sm = f
                    .occupancy_max_active_blocks_per_multiprocessor(THREADS, smem, None)
                    .during("FFT kernel occupancy")?;
                let r = sms * per_sm.max(1) as u64;
                *res = if *res == 0 { r } else { (*res).min(r) };
            }
        }
        Ok(Self {
            gpu: gpu.clone(),
            twiddles,
            images,
            work_per_block: AtomicU32::new(NO_OVERRIDE),
            resident,
            whole_max_log,
            band_max_log,
            fused: AtomicBool::new(true),
            scratch: Mutex::new(None),
        })
    }

    /// Whether [`run`](Self::run) takes the fused launches (the default, where the GPU gives a
    /// block the shared memory): 2^13..2^15 in one launch, one block per transform, and the rows
    /// of 2^18..2^20 in bands with the transpose folded (two launches); or the plain launches of
    /// the four-step split (two at 2^13..2^17, three above): for comparisons (`zkntt bench fft
    /// --passes` times both). The same arithmetic and fp16 roundings either way.
    pub fn set_fused(&self, on: bool) {
        self.fused.store(on, Ordering::Relaxed);
    }

    /// Whether [`run`](Self::run) computes a 2^log_n-point transform in one launch of one block
    /// per transform.
    pub fn one_block(&self, log_n: u32) -> bool {
        log_n > Self::ONE_LAUNCH_MAX_LOG
            && log_n <= self.whole_max_log
            && self.fused.load(Ordering::Relaxed)
    }

    /// Whether [`run`](Self::run) writes the rows of a 2^log_n-point transform in bands of
    /// 2^[`BAND_LOG`] rows, the transpose folded in (two launches, not three).
    pub fn banded(&self, log_n: u32) -> bool {
        log_n >= *BAND_LOGS.start()
            && log_n <= self.band_max_log
            && self.fused.load(Ordering::Relaxed)
    }

    /// How many pieces of work (a warp's 256-point tile up to 2^8, a block's 4096-point chunk
    /// otherwise) each block of every launch takes: the grid is the work divided by `k` (the
    /// kernels stride over the work, so any grid is correct); `Some(0)` makes the grids
    /// persistent (the resident blocks only), `None` restores the tuned
    /// [`DEFAULT_WORK_PER_BLOCK`]. Why it matters: a copy kernel loses bandwidth as its blocks
    /// live longer, while every block pays a copy of its constants (6-9 KiB from L2) and, with
    /// one piece, has nothing to prefetch (benches/NOTES.md, "grid").
    pub fn set_work_per_block(&self, k: Option<u32>) {
        // Any k is valid (more than the work: one block that loops); u32::MAX is kept for None.
        let k = k.map_or(NO_OVERRIDE, |k| k.min(NO_OVERRIDE - 1));
        self.work_per_block.store(k, Ordering::Relaxed);
    }

    /// The blocks of a launch over `pieces` pieces of work (kernel `slot` of `resident`).
    fn grid(&self, pieces: u64, slot: usize) -> u64 {
        let k = match self.work_per_block.load(Ordering::Relaxed) {
            NO_OVERRIDE => DEFAULT_WORK_PER_BLOCK[slot],
            k => k,
        } as u64;
        let blocks = if k == 0 {
            pieces.min(self.resident[slot])
        } else {
            pieces.div_ceil(k)
        };
        blocks.clamp(1, i32::MAX as u64)
    }

    /// Transforms every 2^log_n consecutive complex elements of `input` into `output`,
    /// asynchronously on the GPU's stream. Forward is e^{-2 pi i nk/N}; inverse is e^{+...}
    /// without 1/N. Values whose transforms exceed fp16's range (65504) come out infinite.
    /// Above 2^12 the intermediate between launches is fp16 too (so is every partial result
    /// whose magnitude passes 65504). Errors on a size outside 2^1..2^20, unequal lengths, or a
    /// length that is not a whole number of transforms; never panics.
    pub fn run(
        &self,
        input: &CudaSlice<u16>,
        output: &mut CudaSlice<u16>,
        log_n: u32,
        dir: Direction,
    ) -> Result<()> {
        // The scratch stays locked over every pass: another thread's call on this `TcFft` (it
        // is Sync) can neither reallocate nor overwrite the intermediate between two launches.
        let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        for pass in 0..self.passes(log_n) {
            self.pass_with(&mut scratch, input, output, log_n, dir, pass)?;
        }
        Ok(())
    }

    /// The launches [`run`](Self::run) makes for a size: 1 up to 2^12 and where
    /// [`one_block`](Self::one_block); else 2 where [`model::transpose_folded`] or
    /// [`banded`](Self::banded) (columns, rows written transposed); else 3 (columns, rows,
    /// transpose).
    pub fn passes(&self, log_n: u32) -> u32 {
        if log_n <= Self::ONE_LAUNCH_MAX_LOG || self.one_block(log_n) {
            1
        } else if model::transpose_folded(log_n) || self.banded(log_n) {
            2
        } else {
            3
        }
    }

    /// Launch `pass` (< [`passes`](Self::passes)) of [`run`](Self::run) alone, on the buffers
    /// `run` gives it, so each launch can be timed by itself (`zkntt bench fft --passes`); the
    /// passes in order are `run`. Errors as `run`.
    pub fn run_pass(
        &self,
        input: &CudaSlice<u16>,
        output: &mut CudaSlice<u16>,
        log_n: u32,
        dir: Direction,
        pass: u32,
    ) -> Result<()> {
        let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        self.pass_with(&mut scratch, input, output, log_n, dir, pass)
    }

    /// Launch `pass` of `run` with the scratch's lock held by the caller.
    fn pass_with(
        &self,
        scratch: &mut Option<CudaSlice<u16>>,
        input: &CudaSlice<u16>,
        output: &mut CudaSlice<u16>,
        log_n: u32,
        dir: Direction,
        pass: u32,
    ) -> Result<()> {
        if !(Self::MIN_LOG..=Self::MAX_LOG).contains(&log_n) {
            return Err(Error::SizeUnsupported {
                field: "the fp16 Tensor Core FFT (2^1..2^20)",
                log_n,
                max: Self::MAX_LOG,
            });
        }
        let passes = self.passes(log_n);
        if pass >= passes {
            return Err(Error::NoSuchPass {
                pass,
                passes,
                log_n,
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
        if log_n <= Self::ONE_LAUNCH_MAX_LOG || self.one_block(log_n) {
            return self.launch_one(input, output, log_n, dir, total);
        }
        let (log_n1, log_n2) = model::split(log_n);
        if scratch.as_ref().is_none_or(|b| b.len() != len) {
            *scratch = None;
            // SAFETY: each pass writes every word before the next reads it.
            let buf =
                unsafe { self.gpu.stream().alloc::<u16>(len) }.map_err(|e| oom(e, len / 2))?;
            *scratch = Some(buf);
        }
        let mid = scratch.as_mut().ok_or(Error::LengthMismatch {
            expected: len,
            got: 0,
        })?;
        if model::transpose_folded(log_n) || self.banded(log_n) {
            return match pass {
                // Pass 0: input -> scratch, columns with the twiddle; pass 1: scratch -> output,
                // rows written as X[k1 + N1 k2].
                0 => self.launch_columns(input, mid, log_n1, log_n, dir, total),
                _ if self.banded(log_n) => self.launch_band(mid, output, log_n, dir, total),
                _ => self.launch_rows(mid, output, log_n1, log_n2, dir, total),
            };
        }
        match pass {
            // Pass 0: input -> output, columns with the twiddle.
            0 => self.launch_columns(input, output, log_n1, log_n, dir, total),
            // Pass 1: output -> scratch, rows.
            1 => self.launch_one(output, mid, log_n2, dir, total),
            // Pass 2: scratch (N1 x N2 per transform) -> output (N2 x N1): X[k1 + N1 k2].
            _ => {
                let stream = self.gpu.stream();
                let (m, _gm) = mid.device_ptr(stream);
                let (o, _go) = output.device_ptr_mut(stream);
                transpose_words(
                    &self.gpu,
                    stream,
                    m,
                    o,
                    1 << log_n1,
                    1 << log_n2,
                    total >> log_n,
                    false,
                )
            }
        }
    }

    fn launch_columns(
        &self,
        input: &CudaSlice<u16>,
        output: &mut CudaSlice<u16>,
        log_n1: u32,
        log_n: u32,
        dir: Direction,
        total: u64,
    ) -> Result<()> {
        // Kernel: (const uint4* in, u32* out, const float2* tw, u32 log_n1, u32 log_n, u64 total);
        // total a multiple of 2^log_n >= 2^13 (so of the 4096-point slab; checked by the caller),
        // log_n1 = 7 or 8 and log_n - log_n1 <= 12 (model::split; the kernel instantiates those).
        let blocks = self.grid(total / CHUNK, 2);
        self.launch_pass(
            column_kernel_name(dir),
            blocks,
            0,
            input,
            output,
            &[log_n1, log_n],
            total,
        )
    }

    fn launch_rows(
        &self,
        input: &CudaSlice<u16>,
        output: &mut CudaSlice<u16>,
        log_n1: u32,
        log_n2: u32,
        dir: Direction,
        total: u64,
    ) -> Result<()> {
        // Kernel: (const u32*/uint4* in, u32* out, const float2* tw, u32 log_n2, u32 log_n1,
        // u64 total); total a multiple of 2^(log_n1 + log_n2) >= 2^13 (so of the 4096-word chunk),
        // (log_n1, log_n2) from model::split with log_n2 in 6..=9 (the pairs the kernels
        // instantiate; others do nothing, and the tests would see the poisoned output).
        let slot = if log_n2 <= SMALL_MAX_LOG { 3 } else { 4 };
        let blocks = self.grid(total / CHUNK, slot);
        let name = rows_kernel_name(log_n2, dir);
        self.launch_pass(name, blocks, 0, input, output, &[log_n2, log_n1], total)
    }

    fn launch_band(
        &self,
        input: &CudaSlice<u16>,
        output: &mut CudaSlice<u16>,
        log_n: u32,
        dir: Direction,
        total: u64,
    ) -> Result<()> {
        // Kernel: (const uint4* in, u32* out, const float2* tw, images, u32 log_n2, u32 log_n1,
        // u32 log_band, u64 total) with band_smem_bytes(log_n) of dynamic shared memory (allowed
        // in `new`, which set band_max_log only where it fits); total a multiple of 2^log_n,
        // log_n in BAND_LOGS (log_n1 = 8: model::split; the kernel instantiates those with
        // log_band = BAND_LOG).
        let (log_n1, log_n2) = model::split(log_n);
        let log_band = BAND_LOG;
        let blocks = self.grid(total >> (log_n2 + log_band), 6);
        self.launch_pass(
            band_kernel_name(dir),
            blocks,
            band_smem_bytes(log_n),
            input,
            output,
            &[log_n2, log_n1, log_band],
            total,
        )
    }

    /// One launch for the whole transform: the small or large kernel up to 2^12, one block per
    /// transform above (where [`one_block`](Self::one_block) says so; the caller checks).
    fn launch_one(
        &self,
        input: &CudaSlice<u16>,
        output: &mut CudaSlice<u16>,
        log_n: u32,
        dir: Direction,
        total: u64,
    ) -> Result<()> {
        // Kernel: (const u32* in, u32* out, const float2* tw, images, u32 log_n (its name's size,
        // unused), u64 total); above 2^12 with whole_smem_bytes(log_n) of dynamic shared memory
        // (allowed in `new`, which set whole_max_log only where it fits).
        // Small kernel: a piece is a warp's tile, so k pieces per warp; one block per transform:
        // a piece is a transform.
        let (blocks, smem) = if log_n <= SMALL_MAX_LOG {
            (
                self.grid(total.div_ceil(TILE).div_ceil((THREADS / 32) as u64), 0),
                0,
            )
        } else if log_n <= Self::ONE_LAUNCH_MAX_LOG {
            (self.grid(total.div_ceil(CHUNK), 1), 0)
        } else {
            (
                self.grid(total >> log_n, whole_slot(log_n)),
                whole_smem_bytes(log_n),
            )
        };
        let name = kernel_name(log_n, dir)
            .or(whole_kernel_name(log_n, dir))
            .ok_or(Error::SizeUnsupported {
                field: "one launch of the fp16 Tensor Core FFT (2^1..2^15)",
                log_n,
                max: WHOLE_MAX_LOG,
            })?;
        self.launch_pass(name, blocks, smem, input, output, &[log_n], total)
    }

    /// One launch of an FFT kernel: `(in, out, tw, images, logs..., total)`, `blocks` blocks of
    /// THREADS (the kernels stride over the work) with `smem` bytes of dynamic shared memory, on
    /// the GPU's stream.
    #[allow(clippy::too_many_arguments)]
    fn launch_pass(
        &self,
        name: &'static str,
        blocks: u64,
        smem: u32,
        input: &CudaSlice<u16>,
        output: &mut CudaSlice<u16>,
        logs: &[u32],
        total: u64,
    ) -> Result<()> {
        let f = self.gpu.function(name)?;
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: smem,
        };
        let mut launch = self.gpu.stream().launch_builder(&f);
        launch
            .arg(input)
            .arg(output)
            .arg(&self.twiddles)
            .arg(&self.images);
        for log in logs {
            launch.arg(log);
        }
        launch.arg(&total);
        // SAFETY: every FFT kernel takes (in, out, tw, images, the u32 sizes its caller above lists in
        // this order, u64 total); in and out hold `total` (re, im) half2 words each (checked by
        // `run`; distinct buffers, as `&` and `&mut` guarantee; device allocations are 256-byte
        // aligned for the 16-byte loads), tw the 4096 float2 the kernels index, images the
        // IMAGES images `new` built from it; the sizes meet
        // the caller's stated conditions; any grid size is valid.
        unsafe { launch.launch(cfg) }.during(name)?;
        Ok(())
    }

    /// The GPU this FFT runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
}

/// Lets kernel `name` take `bytes` of dynamic shared memory (at most the device's opt-in limit:
/// the callers check), once in `TcFft::new` (a driver call per launch would cost host time).
fn allow_smem(gpu: &Gpu, name: &'static str, bytes: u32) -> Result<()> {
    let f = gpu.function(name)?;
    // SAFETY: a valid function handle of this context; the attribute only raises a limit, to no
    // more than the device allows (checked by the callers).
    unsafe {
        cudarc::driver::result::function::set_function_attribute(
            f.cu_function(),
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    }
    .during("cuFuncSetAttribute (FFT shared memory)")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_block_per_transform_fits_and_pads_injectively() {
        for log_n in TcFft::ONE_LAUNCH_MAX_LOG + 1..=WHOLE_MAX_LOG {
            let (l1, l2) = model::split(log_n);
            // The kernels instantiate these (ZKNTT_FFT_WHOLE in cuda/small/fft_tc.cu).
            assert!([(7, 6), (7, 7), (8, 7)].contains(&(l1, l2)), "2^{log_n}");
            let n = 1u32 << log_n;
            let words = pad_whole(n - 1, l1) + 1;
            let mut seen = vec![false; words as usize];
            for a in 0..n {
                let p = pad_whole(a, l1) as usize;
                assert!(!seen[p], "2^{log_n}: word {a} padded onto another");
                seen[p] = true;
            }
            // H100: 227 KiB a block at most, 228 KiB a multiprocessor (1 KiB reserved a block):
            // 4, 2 and 1 blocks of 2^13, 2^14, 2^15 as far as shared memory goes (2^13's 80
            // registers allow 3: cuda/small/fft_tc.cu, ZKNTT_FFT_WHOLE).
            let bytes = whole_smem_bytes(log_n);
            assert_eq!(bytes, WHOLE_HEAD_BYTES + 4 * words);
            assert!(bytes <= 227 * 1024, "2^{log_n}: {bytes} B");
            let blocks = 228 * 1024 / (bytes + 1024);
            assert_eq!(blocks, [4, 2, 1][(log_n - 13) as usize], "2^{log_n}");
        }
        assert_eq!(whole_kernel_name(12, Direction::Forward), None);
        assert_eq!(whole_kernel_name(16, Direction::Inverse), None);
        assert_eq!(
            whole_kernel_name(14, Direction::Inverse),
            Some("fft_tc_f16_whole_inverse_14")
        );
    }

    /// The band layout (band_stride, the kernel's pad_out_r within a row): every (row, k2) its
    /// own word, the copy-out's warps conflict-free (lane: row = lane % B, k2 = lane / B + the
    /// warp's), and the blocks a multiprocessor the shared memory leaves on an H100.
    #[test]
    fn bands_fit_and_read_conflict_free() {
        for log_n in BAND_LOGS {
            let (l1, l2) = model::split(log_n);
            // The kernel instantiates these (fft_large_band_any in cuda/small/fft_tc.cu).
            assert_eq!(l1, 8, "2^{log_n}");
            let log_band = BAND_LOG;
            assert_eq!(log_band, 3, "2^{log_n}: the kernel instantiates bands of 8");
            let stride = band_stride(l2, log_band);
            assert_eq!(stride % 32, 32 >> log_band, "2^{log_n}");
            let pad = |a: u32| {
                if l2 == 10 {
                    a + (a >> 6)
                } else {
                    a + (a >> 5) + 2 * (a >> 7)
                }
            };
            let (rows, n2) = (1u32 << log_band, 1u32 << l2);
            let mut seen = vec![false; (rows * stride) as usize];
            for row in 0..rows {
                for k2 in 0..n2 {
                    assert!(pad(k2) < stride);
                    let w = (row * stride + pad(k2)) as usize;
                    assert!(!seen[w], "2^{log_n}: row {row} k2 {k2} on another word");
                    seen[w] = true;
                }
            }
            for first in (0..rows * n2).step_by(32) {
                let mut banks = 0u32;
                for w in first..first + 32 {
                    let (row, k2) = (w % rows, w / rows);
                    banks |= 1 << ((row * stride + pad(k2)) % 32);
                }
                assert_eq!(banks, u32::MAX, "2^{log_n}: copy-out words {first}..");
            }
            let bytes = band_smem_bytes(log_n);
            assert_eq!(bytes, BAND_HEAD_BYTES + 4 * rows * stride);
            assert!(bytes <= 227 * 1024, "2^{log_n}: {bytes} B");
            let blocks = 228 * 1024 / (bytes + 1024);
            assert_eq!(
                blocks,
                [3, 2, 1][(log_n - 18) as usize],
                "2^{log_n}: {bytes} B"
            );
        }
    }
}
