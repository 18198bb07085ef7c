//! The host API of the small-word NTT kernels: device-resident batches on the GPU's stream, the
//! 2-D decomposition beyond one tile, and host-to-host batches over several CUDA streams.

use crate::error::DriverContext;
use crate::field::TILE_LOG;
use crate::tables::{self, Encoded};
use crate::{Direction, Error, ModMulForm, Result, SmallField};
use cudarc::driver::{
    CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use zkntt_gpu::Gpu;

/// Which kernel computes the transforms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Warp-shuffle butterflies, shared memory only between warps (`cuda/small/ntt_wsx.cu`).
    Wsx,
    /// The baseline: shared memory and `__syncthreads` every layer (`cuda/small/ntt_block.cu`).
    BlockSync,
    /// Ablation of [`Kernel::Wsx`] for the benches: the same kernel with the first design's
    /// shuffle layers (every register shuffled, a half butterfly in both lanes). Montgomery lazy form only;
    /// other forms return the driver's not-found error.
    WsxHalf,
}

impl Kernel {
    /// The kernels every field and form has.
    pub const ALL: [Kernel; 2] = [Kernel::Wsx, Kernel::BlockSync];
    /// The ablations of [`Kernel::Wsx`], for the Montgomery lazy form only.
    pub const ABLATIONS: [Kernel; 1] = [Kernel::WsxHalf];

    pub const fn name(self) -> &'static str {
        match self {
            Kernel::Wsx => "wsx",
            Kernel::BlockSync => "block",
            Kernel::WsxHalf => "wsx_half",
        }
    }
}

/// The kernels' parameter struct (`NttParams` in `cuda/small/ntt.cuh`), byte for byte.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct NttParams {
    data: u64,
    twiddles: u64,
    post_lo: u64,
    post_hi: u64,
    batch: u64,
    log_n: u32,
    q: u32,
    scale_w: u32,
    scale_w_shoup: u32,
    has_scale: u32,
    post_log_rows: u32,
}

// SAFETY: plain-old-data with the C layout the kernels declare (checked by size in a test).
unsafe impl DeviceRepr for NttParams {}

const THREADS: u32 = 256;
/// Resident blocks per multiprocessor (the kernels' `__launch_bounds__(256, 4)`): the grid is one
/// wave of them, each looping over tiles, so per-block setup is paid once per block, not per tile.
const BLOCKS_PER_SM: u64 = 4;
/// Host-to-host chunks: at most this many elements (64 MiB) per copy.
const MAX_CHUNK: usize = 1 << 24;

/// Page-locked host memory for [`SmallNtt::run_pinned`]: copies from and to it run
/// asynchronously, so transfers in both directions overlap the kernels.
#[derive(Debug)]
pub struct PinnedBuffer {
    inner: PinnedHostSlice<u32>,
}

impl PinnedBuffer {
    /// `len` zeroed elements. Not write-combined: the CPU reads results back from it.
    pub fn new(gpu: &Gpu, len: usize) -> Result<Self> {
        // SAFETY: zeroed right below before anything reads it.
        let mut inner = unsafe { gpu.context().alloc_pinned_with_flags::<u32>(len, 0) }
            .during("cuMemHostAlloc")?;
        inner.as_mut_slice().during("pinned slice")?.fill(0);
        Ok(Self { inner })
    }

    pub fn len(&self) -> usize {
        self.inner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// The contents (waits for pending copies into it).
    pub fn as_slice(&self) -> Result<&[u32]> {
        self.inner.as_slice().during("pinned slice")
    }

    pub fn as_mut_slice(&mut self) -> Result<&mut [u32]> {
        self.inner.as_mut_slice().during("pinned slice")
    }
}

/// The 2-D twiddles (lo, hi) of one size and direction, on the device.
type PostTables = (CudaSlice<u32>, CudaSlice<u32>);

#[derive(Debug)]
struct Twiddles {
    forward: CudaSlice<u32>,
    inverse: CudaSlice<u32>,
}

/// Per-stream resources of the host-to-host path.
#[derive(Debug)]
struct Lane {
    stream: Arc<CudaStream>,
    buf: Option<CudaSlice<u32>>,
    staging: Option<PinnedHostSlice<u32>>,
}

/// Small-word NTTs of one field in one modmul form on one GPU. Twiddle tables are built once;
/// the 2-D twiddles once per size; scratch and stream resources on first use, then reused.
#[derive(Debug)]
pub struct SmallNtt {
    gpu: Gpu,
    field: SmallField,
    form: ModMulForm,
    twiddles: Twiddles,
    /// Blocks of one full wave on this GPU.
    max_grid: u64,
    post: Mutex<HashMap<(u32, Direction), PostTables>>,
    scratch: Mutex<Option<CudaSlice<u32>>>,
    lanes: Mutex<Vec<Lane>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl SmallNtt {
    /// Uploads the twiddle tables. Errors where the GPU or its kernels are missing.
    pub fn new(gpu: &Gpu, field: SmallField, form: ModMulForm) -> Result<Self> {
        if !zkntt_kernels::built() {
            return Err(zkntt_gpu::Error::KernelsNotBuilt {
                note: zkntt_kernels::BUILD_NOTE,
            }
            .into());
        }
        let upload = |dir| -> Result<CudaSlice<u32>> {
            let words = tables::dif_twiddles(field, form, dir)?.device_words();
            gpu.stream().clone_htod(&words).during("twiddle upload")
        };
        let twiddles = Twiddles {
            forward: upload(Direction::Forward)?,
            inverse: upload(Direction::Inverse)?,
        };
        // Resolve the kernels now, so a missing one is an error here rather than mid-batch.
        for k in Kernel::ALL {
            gpu.function(&kernel_name(k, field, form))?;
        }
        let sms = gpu
            .context()
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .during("multiprocessor count")?;
        Ok(Self {
            gpu: gpu.clone(),
            field,
            form,
            twiddles,
            max_grid: (sms.max(1) as u64) * BLOCKS_PER_SM,
            post: Mutex::new(HashMap::new()),
            scratch: Mutex::new(None),
            lanes: Mutex::new(Vec::new()),
        })
    }

    pub fn field(&self) -> SmallField {
        self.field
    }

    pub fn form(&self) -> ModMulForm {
        self.form
    }

    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    fn check(&self, len: usize, log_n: u32) -> Result<u64> {
        self.field.check_log_n(log_n)?;
        if len % (1usize << log_n) != 0 {
            return Err(Error::NotWholeTransforms { len, log_n });
        }
        Ok((len >> log_n) as u64)
    }

    /// One launch over `batch` transforms of 2^log_n (<= 2^12) at `data` on `stream`.
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        stream: &Arc<CudaStream>,
        kernel: Kernel,
        data: u64,
        batch: u64,
        log_n: u32,
        direction: Direction,
        scale_log_n: Option<u32>,
        post: Option<(u64, u64, u32)>,
    ) -> Result<()> {
        let f = self
            .gpu
            .function(&kernel_name(kernel, self.field, self.form))?;
        let tw = match direction {
            Direction::Forward => &self.twiddles.forward,
            Direction::Inverse => &self.twiddles.inverse,
        };
        let (tw_ptr, _tw_guard) = tw.device_ptr(stream);
        let scale = match scale_log_n {
            Some(l) => Some(tables::inverse_scale(self.field, self.form, l)?),
            None => None,
        };
        let (post_lo, post_hi, post_log_rows) = post.unwrap_or((0, 0, 0));
        let params = NttParams {
            data,
            twiddles: tw_ptr,
            post_lo,
            post_hi,
            batch,
            log_n,
            q: self.field.modulus(),
            scale_w: scale.map_or(0, |s| s[0]),
            scale_w_shoup: scale.map_or(0, |s| s[1]),
            has_scale: scale.is_some() as u32,
            post_log_rows,
        };
        let tiles = ((batch << log_n) + (1 << TILE_LOG) - 1) >> TILE_LOG;
        if tiles == 0 {
            return Ok(());
        }
        let cfg = LaunchConfig {
            grid_dim: (tiles.min(self.max_grid) as u32, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = stream.launch_builder(&f);
        launch.arg(&params);
        // SAFETY: the kernel takes one NttParams by value; `data` holds batch << log_n elements
        // (checked by the callers) and the tables hold the entries the kernel indexes.
        unsafe { launch.launch(cfg) }.during("small NTT launch")?;
        Ok(())
    }

    /// Transforms every consecutive 2^log_n elements of `data` in place, asynchronously on the
    /// GPU's stream. Elements must be canonical (below q; the lazy forms on Q28 also take
    /// [0, 2q)); others give unspecified values, never memory errors. Sizes above 2^12 use the
    /// 2-D decomposition with an internal scratch buffer and a final copy back
    /// ([`SmallNtt::run_into`] avoids the copy).
    pub fn run(
        &self,
        data: &mut CudaSlice<u32>,
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
    ) -> Result<()> {
        let batch = self.check(data.len(), log_n)?;
        let stream = self.gpu.stream().clone();
        if log_n <= TILE_LOG {
            let (ptr, _g) = data.device_ptr_mut(&stream);
            return self.launch(
                &stream,
                kernel,
                ptr,
                batch,
                log_n,
                direction,
                (direction == Direction::Inverse).then_some(log_n),
                None,
            );
        }
        let mut scratch = self.scratch(data.len())?;
        let out = scratch.as_mut().ok_or(Error::LengthMismatch {
            expected: data.len(),
            got: 0,
        })?;
        let mut view = out.slice_mut(0..data.len());
        self.two_d(&stream, data, &mut view, log_n, batch, direction, kernel)?;
        stream.memcpy_dtod(&view, data).during("copy back")?;
        Ok(())
    }

    /// Like [`SmallNtt::run`] but out of place: the transforms of `input` land in `output`
    /// (same length). `input` is overwritten (it is the 2-D decomposition's scratch).
    pub fn run_into(
        &self,
        input: &mut CudaSlice<u32>,
        output: &mut CudaSlice<u32>,
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
    ) -> Result<()> {
        let batch = self.check(input.len(), log_n)?;
        if output.len() != input.len() {
            return Err(Error::LengthMismatch {
                expected: input.len(),
                got: output.len(),
            });
        }
        let stream = self.gpu.stream().clone();
        if log_n <= TILE_LOG {
            stream.memcpy_dtod(input, output).during("copy")?;
            return self.run(output, log_n, direction, kernel);
        }
        let mut view = output.slice_mut(..);
        self.two_d(&stream, input, &mut view, log_n, batch, direction, kernel)
    }

    fn scratch(&self, len: usize) -> Result<MutexGuard<'_, Option<CudaSlice<u32>>>> {
        let mut s = lock(&self.scratch);
        if s.as_ref().is_none_or(|b| b.len() < len) {
            *s = None;
            // SAFETY: scratch is always written (by a transpose) before it is read.
            let buf = unsafe { self.gpu.stream().alloc::<u32>(len) }.map_err(|e| oom(e, len))?;
            *s = Some(buf);
        }
        Ok(s)
    }

    /// N = N1 x N2 (x[n1 N2 + n2]); out[k1 + N1 k2] = X. Five passes: transpose, N1-point
    /// NTTs with the twiddle w_N^(n2 k1) fused, transpose back, N2-point NTTs, transpose.
    #[allow(clippy::too_many_arguments)]
    fn two_d(
        &self,
        stream: &Arc<CudaStream>,
        data: &mut CudaSlice<u32>,
        out: &mut cudarc::driver::CudaViewMut<'_, u32>,
        log_n: u32,
        batch: u64,
        direction: Direction,
        kernel: Kernel,
    ) -> Result<()> {
        let log1 = log_n / 2;
        let log2 = log_n - log1;
        let mut post = lock(&self.post);
        let (lo, hi) = match post.entry((log_n, direction)) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let (lo, hi) = tables::post_twiddles(self.field, self.form, direction, log_n)?;
                let up = |t: &Encoded| stream.clone_htod(&t.device_words()).during("2-D twiddles");
                e.insert((up(&lo)?, up(&hi)?))
            }
        };
        let (lo_ptr, _g1) = lo.device_ptr(stream);
        let (hi_ptr, _g2) = hi.device_ptr(stream);
        let (d, _g3) = data.device_ptr_mut(stream);
        let (o, _g4) = out.device_ptr_mut(stream);
        let (n1, n2) = (1u32 << log1, 1u32 << log2);
        let scale = (direction == Direction::Inverse).then_some(log_n);
        // x (N1 x N2) -> out (N2 x N1): row n2 holds the column n2 of x.
        self.transpose(stream, d, o, n1, n2, batch)?;
        self.launch(
            stream,
            kernel,
            o,
            batch << log2,
            log1,
            direction,
            None,
            Some((lo_ptr, hi_ptr, log2)),
        )?;
        self.transpose(stream, o, d, n2, n1, batch)?;
        self.launch(
            stream,
            kernel,
            d,
            batch << log1,
            log2,
            direction,
            scale,
            None,
        )?;
        self.transpose(stream, d, o, n1, n2, batch)
    }

    fn transpose(
        &self,
        stream: &Arc<CudaStream>,
        input: u64,
        output: u64,
        rows: u32,
        cols: u32,
        batch: u64,
    ) -> Result<()> {
        transpose_words(&self.gpu, stream, input, output, rows, cols, batch)
    }

    /// Host-to-host: transforms `data` (pageable memory) through page-locked staging buffers on
    /// `streams` CUDA streams, chunk i on stream i mod streams, so one chunk's copies overlap
    /// another's kernel. Sizes up to 2^12. Returns when the results are in `data`.
    pub fn run_host(
        &self,
        data: &mut [u32],
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
        streams: usize,
    ) -> Result<()> {
        let (chunk, mut lanes) = self.host_setup(data.len(), log_n, streams, true)?;
        let mut pending: Vec<Option<std::ops::Range<usize>>> = vec![None; streams];
        for (i, start) in (0..data.len()).step_by(chunk).enumerate() {
            let s = i % streams;
            let range = start..(start + chunk).min(data.len());
            let Lane {
                stream,
                buf,
                staging,
            } = &mut lanes[s];
            let (Some(buf), Some(staging)) = (buf.as_mut(), staging.as_mut()) else {
                return Err(Error::Streams(streams));
            };
            if let Some(prev) = pending[s].take() {
                stream.synchronize().during("stream synchronize")?;
                let staged = staging.as_slice().during("pinned")?;
                data[prev.clone()].copy_from_slice(&staged[..prev.len()]);
            }
            let staged = &mut staging.as_mut_slice().during("pinned")?[..range.len()];
            staged.copy_from_slice(&data[range.clone()]);
            self.enqueue_chunk(stream, buf, staged, log_n, direction, kernel)?;
            pending[s] = Some(range);
        }
        for (s, lane) in lanes.iter_mut().enumerate().take(streams) {
            if let (Some(prev), Some(staging)) = (pending[s].take(), lane.staging.as_ref()) {
                lane.stream.synchronize().during("stream synchronize")?;
                let staged = staging.as_slice().during("pinned")?;
                data[prev.clone()].copy_from_slice(&staged[..prev.len()]);
            }
        }
        Ok(())
    }

    /// Host-to-host from page-locked memory (the paper's section V): chunk i is copied in,
    /// transformed and copied out on stream i mod `streams`, with no staging copy.
    pub fn run_pinned(
        &self,
        data: &mut PinnedBuffer,
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
        streams: usize,
    ) -> Result<()> {
        let len = data.len();
        let (chunk, mut lanes) = self.host_setup(len, log_n, streams, false)?;
        let host = data.as_mut_slice()?;
        for (i, part) in host.chunks_mut(chunk).enumerate() {
            let Lane { stream, buf, .. } = &mut lanes[i % streams];
            let buf = buf.as_mut().ok_or(Error::Streams(streams))?;
            self.enqueue_chunk(stream, buf, part, log_n, direction, kernel)?;
        }
        for lane in lanes.iter().take(streams) {
            lane.stream.synchronize().during("stream synchronize")?;
        }
        Ok(())
    }

    fn host_setup(
        &self,
        len: usize,
        log_n: u32,
        streams: usize,
        staging: bool,
    ) -> Result<(usize, MutexGuard<'_, Vec<Lane>>)> {
        self.check(len, log_n)?;
        if log_n > TILE_LOG {
            return Err(Error::SizeUnsupported {
                field: self.field.name(),
                log_n,
                max: TILE_LOG,
            });
        }
        if streams == 0 || streams > 64 {
            return Err(Error::Streams(streams));
        }
        // At least two chunks per stream so that every stream has a copy to overlap; whole
        // transforms; at most MAX_CHUNK elements.
        let n = 1usize << log_n;
        let chunk = (len.div_ceil(2 * streams).div_ceil(n) * n).clamp(n, MAX_CHUNK.max(n));
        let mut lanes = lock(&self.lanes);
        while lanes.len() < streams {
            let stream = self.gpu.context().new_stream().during("cuStreamCreate")?;
            lanes.push(Lane {
                stream,
                buf: None,
                staging: None,
            });
        }
        for lane in lanes.iter_mut().take(streams) {
            if lane.buf.as_ref().is_none_or(|b| b.len() < chunk) {
                lane.buf = None;
                // SAFETY: every chunk is copied in before the kernel reads it.
                let b = unsafe { lane.stream.alloc::<u32>(chunk) }.map_err(|e| oom(e, chunk))?;
                lane.buf = Some(b);
            }
            if staging && lane.staging.as_ref().is_none_or(|b| b.len() < chunk) {
                lane.staging = None;
                // SAFETY: only the part a chunk has written is ever read back.
                let p = unsafe { self.gpu.context().alloc_pinned_with_flags::<u32>(chunk, 0) }
                    .during("cuMemHostAlloc")?;
                lane.staging = Some(p);
            }
        }
        Ok((chunk, lanes))
    }

    /// Copy in, transform, copy out, all queued on the lane's stream; `host` must be page-locked
    /// and stay untouched until the stream is synchronized.
    #[allow(clippy::too_many_arguments)]
    fn enqueue_chunk(
        &self,
        stream: &Arc<CudaStream>,
        buf: &mut CudaSlice<u32>,
        host: &mut [u32],
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
    ) -> Result<()> {
        let (ptr, _g) = buf.device_ptr_mut(stream);
        // SAFETY: `buf` holds at least host.len() elements (host_setup); `host` is page-locked
        // and the callers synchronize the stream before touching it again.
        unsafe { cudarc::driver::result::memcpy_htod_async(ptr, host, stream.cu_stream()) }
            .during("cuMemcpyHtoDAsync")?;
        let batch = (host.len() >> log_n) as u64;
        let scale = (direction == Direction::Inverse).then_some(log_n);
        self.launch(stream, kernel, ptr, batch, log_n, direction, scale, None)?;
        // SAFETY: as above.
        unsafe { cudarc::driver::result::memcpy_dtoh_async(host, ptr, stream.cu_stream()) }
            .during("cuMemcpyDtoHAsync")?;
        Ok(())
    }
}

/// Transposes `batch` row-major `rows x cols` matrices of 32-bit words from `input` to `output`
/// (device pointers, distinct, each holding `batch * rows * cols` words), on `stream`. Shared by
/// the small-word NTTs' and the fp16 FFT's 2-D decompositions.
pub(crate) fn transpose_words(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    input: u64,
    output: u64,
    rows: u32,
    cols: u32,
    batch: u64,
) -> Result<()> {
    let f = gpu.function("small_transpose_u32")?;
    let mut done = 0u64;
    while done < batch {
        // grid.z is at most 65535 matrices per launch.
        let count = (batch - done).min(65_535);
        let offset = done * rows as u64 * cols as u64 * 4;
        let (i, o) = (input + offset, output + offset);
        let cfg = LaunchConfig {
            grid_dim: (cols.div_ceil(32), rows.div_ceil(32), count as u32),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = stream.launch_builder(&f);
        launch.arg(&i).arg(&o).arg(&rows).arg(&cols);
        // SAFETY: (const u32*, u32*, u32 rows, u32 cols); both hold count matrices of
        // rows x cols from the offsets.
        unsafe { launch.launch(cfg) }.during("small_transpose_u32")?;
        done += count;
    }
    Ok(())
}

pub(crate) fn oom(e: cudarc::driver::DriverError, elements: usize) -> Error {
    if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        Error::Gpu(zkntt_gpu::Error::OutOfMemory {
            needed: elements * 4,
            free: 0,
        })
    } else {
        Error::Driver {
            op: "cuMemAlloc",
            source: e,
        }
    }
}

/// `small_ntt_{kernel}_{field}_{form}`.
pub fn kernel_name(kernel: Kernel, field: SmallField, form: ModMulForm) -> String {
    format!(
        "small_ntt_{}_{}_{}",
        kernel.name(),
        field.name(),
        form.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_match_the_c_struct() {
        // 4 pointers + u64 + 6 x u32, no padding: 64 bytes, as in ntt.cuh.
        assert_eq!(std::mem::size_of::<NttParams>(), 64);
        assert_eq!(std::mem::align_of::<NttParams>(), 8);
    }
}
