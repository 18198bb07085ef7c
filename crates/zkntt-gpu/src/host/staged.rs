//! Vectors computed on the host straight into pinned memory and uploaded on the GPU's stream, and
//! device vectors brought back through pinned memory: for callers that compute their inputs on
//! the host while the GPU works on the previous one (a prover's witness map), then chain device
//! work on them with no host round trip in between.

use super::HostPipeline;
use super::copy::par_copy;
use super::cut::WORDS_PER_ELEMENT;
use super::pinned::PinnedBuffer;
use crate::device_vec::words_into_elements;
use crate::error::DriverContext;
use crate::{DeviceVec, Result};
use cudarc::driver::{CudaEvent, sys};
use zkntt_core::GpuField;

/// A pinned buffer whose upload may still be in flight. Dropping it waits for the copy, so the
/// memory is never freed or refilled under the DMA.
#[derive(Debug)]
pub(crate) struct PendingUpload {
    buf: Option<PinnedBuffer>,
    done: CudaEvent,
}

impl PendingUpload {
    /// The buffer, once its copy has completed.
    fn finish(mut self) -> Option<PinnedBuffer> {
        // A failed wait (the context is broken) keeps the buffer here: dropping it would free
        // memory a copy may still read, so it is leaked with the event instead.
        if self.done.synchronize().is_err() {
            std::mem::forget(self);
            return None;
        }
        self.buf.take()
    }
}

impl Drop for PendingUpload {
    fn drop(&mut self) {
        if self.buf.is_some() && self.done.synchronize().is_err() {
            std::mem::forget(self.buf.take());
        }
    }
}

impl HostPipeline {
    /// A device vector of `len` elements that `fill` computes on the host. `fill` writes into
    /// pinned memory of the pipeline's pool (no staging copy) on the caller's thread, and may use
    /// the caller's rayon pool; the upload is then queued on the GPU's stream, so work queued
    /// after it sees the data, and the call returns without waiting for it: the next vector can be
    /// computed while this one is copied and transformed. `fill` must write every element
    /// (pinned memory is reused: an element left unwritten holds an unspecified value).
    ///
    /// ```no_run
    /// use ark_bn254::Fr;
    /// use std::sync::Arc;
    /// use zkntt_gpu::{Gpu, HostPipeline, NttConfig, NttEngine};
    ///
    /// let host = HostPipeline::new(Arc::new(NttEngine::new(Gpu::new(0)?)));
    /// let mut d = host.upload_with::<Fr>(1 << 20, |v| {
    ///     v.iter_mut().enumerate().for_each(|(i, x)| *x = Fr::from(i as u64))
    /// })?;
    /// host.engine().ntt_in_place(&mut d, &NttConfig::inverse())?;
    /// let coefficients: Vec<Fr> = host.download(&d)?;
    /// # Ok::<(), zkntt_gpu::Error>(())
    /// ```
    pub fn upload_with<F: GpuField>(
        &self,
        len: usize,
        fill: impl FnOnce(&mut [F]),
    ) -> Result<DeviceVec<F>> {
        let gpu = self.gpu();
        let words = len
            .checked_mul(WORDS_PER_ELEMENT)
            .ok_or(crate::Error::OutOfMemory {
                needed: usize::MAX,
                free: 0,
            })?;
        let dst = DeviceVec::<F>::uninit(gpu, len)?;
        self.reclaim_uploads(false);
        let mut buf = self.pinned.take(words)?;
        let staged = &mut buf.as_mut_slice()[..words];
        // SAFETY: `staged` is `len` x 32 bytes of initialised, 8-byte aligned (page-aligned)
        // words; F is a GpuField, exactly four u64 limbs with alignment 8 (asserted in zkntt-core)
        // for which every bit pattern is a value; the slice borrows `buf` mutably.
        let elements =
            unsafe { std::slice::from_raw_parts_mut(staged.as_mut_ptr().cast::<F>(), len) };
        fill(elements);
        let ptr = dst.device_ptr(gpu)?;
        // SAFETY: the destination holds `words` words, allocated on this stream; the pinned
        // buffer stays alive and untouched until the event recorded after the copy has completed
        // (`PendingUpload` waits for it before the buffer is freed or reused).
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                ptr,
                staged.as_ptr().cast(),
                words * 8,
                gpu.stream().cu_stream(),
            )
        }
        .result()
        .during("cuMemcpyHtoDAsync (upload_with)")?;
        let done = match gpu.stream().record_event(None) {
            Ok(done) => done,
            Err(e) => {
                // The copy may still read the pinned buffer: wait for the stream, and keep the
                // buffer alive (leaked) if even that fails, rather than free it under the DMA.
                if gpu.stream().synchronize().is_err() {
                    std::mem::forget(buf);
                }
                return Err(e).during("cuEventRecord");
            }
        };
        self.lock_uploads().push(PendingUpload {
            buf: Some(buf),
            done,
        });
        Ok(dst)
    }

    /// `d`'s contents as a new vector, through pinned memory of the pool: one asynchronous copy
    /// after the work queued on `d`, one wait, then the copy out on the pipeline's copy workers.
    pub fn download<F: GpuField>(&self, d: &DeviceVec<F>) -> Result<Vec<F>> {
        let gpu = self.gpu();
        let len = d.len();
        let words = len * WORDS_PER_ELEMENT;
        let ptr = d.device_ptr(gpu)?;
        let mut buf = self.pinned.take(words)?;
        // SAFETY: `buf` holds at least `words` words and is not read until the stream has been
        // synchronized below; `d` (borrowed for the call) holds `words` words.
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                buf.as_mut_slice().as_mut_ptr().cast(),
                ptr,
                words * 8,
                gpu.stream().cu_stream(),
            )
        }
        .result()
        .during("cuMemcpyDtoHAsync (download)")?;
        let waited = gpu.synchronize();
        // Every upload queued before is complete once the stream is (or the context is broken).
        self.reclaim_uploads(waited.is_ok());
        if let Err(e) = waited {
            // The copy may still be writing into `buf`: leak it rather than free it under the DMA.
            std::mem::forget(buf);
            return Err(e);
        }
        // Zeroed pages from the allocator, first touched by the parallel copy.
        let mut out = vec![0u64; words];
        self.workers
            .install(|| par_copy(&mut out, &buf.as_slice()[..words]))?;
        self.pinned.give(buf);
        Ok(words_into_elements(out, len))
    }

    /// Returns the pinned buffers of completed uploads to the pool: all of them after a
    /// synchronization (`all`), otherwise those whose event says so.
    fn reclaim_uploads(&self, all: bool) {
        let done: Vec<PendingUpload> = {
            let mut pending = self.lock_uploads();
            let (done, busy) = std::mem::take(&mut *pending)
                .into_iter()
                .partition(|u| all || u.done.is_complete());
            *pending = busy;
            done
        };
        for u in done {
            if let Some(buf) = u.finish() {
                self.pinned.give(buf);
            }
        }
    }

    fn lock_uploads(&self) -> std::sync::MutexGuard<'_, Vec<PendingUpload>> {
        self.uploads.lock().unwrap_or_else(|p| p.into_inner())
    }
}
