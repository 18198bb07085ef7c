//! Host-to-host batches (the paper's section V): chunks of whole transforms over several CUDA
//! streams, so one chunk's copies overlap another's kernel.
//!
//! zkntt-gpu's [`HostPipeline`](zkntt_gpu::HostPipeline) does this for the 256-bit fields only
//! (its plans, slots and chunking are in 32-byte elements); this is the 32-bit batch's own, on the
//! runtime's pinned memory.

use super::{Kernel, SmallNtt, lock};
use crate::error::{DriverContext, oom};
use crate::field::TILE_LOG;
use crate::{Direction, Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut};
use std::sync::{Arc, MutexGuard};

/// Page-locked host memory for [`SmallNtt::run_pinned`] (the runtime's, in 32-bit words): copies
/// from and to it run asynchronously, so transfers in both directions overlap the kernels.
pub type PinnedBuffer = zkntt_gpu::host::PinnedBuffer<u32>;

/// Host-to-host chunks: at most this many elements (64 MiB) per copy.
const MAX_CHUNK: usize = 1 << 24;

/// Per-stream resources of the host-to-host path.
#[derive(Debug)]
pub(super) struct Lane {
    stream: Arc<CudaStream>,
    buf: Option<CudaSlice<u32>>,
    staging: Option<PinnedBuffer>,
}

impl SmallNtt {
    /// Host-to-host: transforms `data` (pageable memory) through page-locked staging buffers on
    /// `streams` CUDA streams, chunk i on stream i mod streams, so one chunk's copies overlap
    /// another's kernel. Sizes up to 2^12. Returns when the results are in `data`. On an error
    /// found before any work is queued (size, length, form, streams) `data` is untouched; on a
    /// driver or kernel fault after that, some of its chunks may hold their results and the rest
    /// their inputs, and the call returns only once every stream has stopped.
    pub fn run_host(
        &self,
        data: &mut [u32],
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
        streams: usize,
    ) -> Result<()> {
        let (chunk, mut lanes) = self.host_setup(data.len(), log_n, streams, true, kernel)?;
        let result = self.host_chunks(data, &mut lanes, chunk, log_n, direction, kernel, streams);
        stop_after_error(&lanes, streams, result)
    }

    /// `run_host`'s chunks through the lanes' staging buffers.
    #[allow(clippy::too_many_arguments)]
    fn host_chunks(
        &self,
        data: &mut [u32],
        lanes: &mut [Lane],
        chunk: usize,
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
        streams: usize,
    ) -> Result<()> {
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
                data[prev.clone()].copy_from_slice(&staging.as_slice()[..prev.len()]);
            }
            let staged = &mut staging.as_mut_slice()[..range.len()];
            staged.copy_from_slice(&data[range.clone()]);
            self.enqueue_chunk(stream, buf, staged, log_n, direction, kernel)?;
            pending[s] = Some(range);
        }
        for (s, lane) in lanes.iter_mut().enumerate().take(streams) {
            if let (Some(prev), Some(staging)) = (pending[s].take(), lane.staging.as_ref()) {
                lane.stream.synchronize().during("stream synchronize")?;
                data[prev.clone()].copy_from_slice(&staging.as_slice()[..prev.len()]);
            }
        }
        Ok(())
    }

    /// Host-to-host from page-locked memory (the paper's section V): chunk i is copied in,
    /// transformed and copied out on stream i mod `streams`, with no staging copy. Errors as
    /// [`run_host`](Self::run_host): after a fault some chunks may hold their results, and no
    /// copy into `data` is still running when the call returns.
    pub fn run_pinned(
        &self,
        data: &mut PinnedBuffer,
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
        streams: usize,
    ) -> Result<()> {
        let len = data.len();
        let (chunk, mut lanes) = self.host_setup(len, log_n, streams, false, kernel)?;
        let mut queue = || -> Result<()> {
            for (i, part) in data.as_mut_slice().chunks_mut(chunk).enumerate() {
                let Lane { stream, buf, .. } = &mut lanes[i % streams];
                let buf = buf.as_mut().ok_or(Error::Streams(streams))?;
                self.enqueue_chunk(stream, buf, part, log_n, direction, kernel)?;
            }
            for lane in lanes.iter().take(streams) {
                lane.stream.synchronize().during("stream synchronize")?;
            }
            Ok(())
        };
        let result = queue();
        stop_after_error(&lanes, streams, result)
    }

    fn host_setup(
        &self,
        len: usize,
        log_n: u32,
        streams: usize,
        staging: bool,
        kernel: Kernel,
    ) -> Result<(usize, MutexGuard<'_, Vec<Lane>>)> {
        self.check(len, log_n)?;
        self.check_form(kernel)?;
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
                lane.staging = Some(PinnedBuffer::new(&self.gpu, chunk)?);
            }
        }
        Ok((chunk, lanes))
    }

    /// Copy in, transform, copy out, all queued on the lane's stream; `host` must be page-locked
    /// and stay untouched until the stream is synchronized.
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
        self.launch(
            stream,
            kernel,
            ptr,
            batch,
            log_n,
            direction,
            scale,
            None,
            zkntt_gpu::Ordering::NN,
            false,
        )?;
        // SAFETY: as above.
        unsafe { cudarc::driver::result::memcpy_dtoh_async(host, ptr, stream.cu_stream()) }
            .during("cuMemcpyDtoHAsync")?;
        Ok(())
    }
}

/// After an error, waits for every lane's stream (their own errors dropped: the first one is
/// returned), so that no copy still reads or writes the caller's memory or a staging buffer that
/// the next call reuses.
fn stop_after_error(lanes: &[Lane], streams: usize, result: Result<()>) -> Result<()> {
    if result.is_err() {
        for lane in lanes.iter().take(streams) {
            let _ = lane.stream.synchronize();
        }
    }
    result
}
