//! Page-locked host memory: [`PinnedBuffer`], and the pool that keeps buffers across calls.

use crate::error::DriverContext;
use crate::{Error, Gpu, Result};
use cudarc::driver::CudaContext;
use cudarc::driver::sys;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Element types a [`PinnedBuffer`] holds: plain words for which every bit pattern (zero
/// included) is a valid value.
///
/// # Safety
/// Implementors must be `Copy` plain data with no padding and no invalid bit patterns.
pub unsafe trait PinnedWord: Copy + Send + Sync + 'static {}

// SAFETY: unsigned integers: every bit pattern is a value, no padding.
unsafe impl PinnedWord for u8 {}
// SAFETY: as above.
unsafe impl PinnedWord for u16 {}
// SAFETY: as above.
unsafe impl PinnedWord for u32 {}
// SAFETY: as above.
unsafe impl PinnedWord for u64 {}

/// Page-locked host memory from `cuMemHostAlloc` (not write-combined: the CPU reads results back
/// from it), zeroed once, freed on drop. Copies between it and the device run asynchronously, so
/// transfers can overlap kernels and each other.
#[derive(Debug)]
pub struct PinnedBuffer<T: PinnedWord = u64> {
    ptr: NonNull<T>,
    len: usize,
    ctx: Arc<CudaContext>,
}

// SAFETY: the buffer is plain host memory owned by this value (no thread affinity); shared access
// goes through `&self`/`&mut self` like a `Box<[T]>`.
unsafe impl<T: PinnedWord> Send for PinnedBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: PinnedWord> Sync for PinnedBuffer<T> {}

impl<T: PinnedWord> PinnedBuffer<T> {
    /// `len` zeroed elements, page-locked for `gpu`'s context.
    pub fn new(gpu: &Gpu, len: usize) -> Result<Self> {
        Self::in_context(gpu.context(), len)
    }

    pub(crate) fn in_context(ctx: &Arc<CudaContext>, len: usize) -> Result<Self> {
        ctx.bind_to_thread().during("cuCtxSetCurrent")?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(Error::OutOfMemory {
                needed: usize::MAX,
                free: 0,
            })?;
        // SAFETY: a plain allocation; the memory is zeroed below before any reference to it.
        let raw = unsafe { cudarc::driver::result::malloc_host(bytes.max(8), 0) }
            .during("cuMemHostAlloc (pinned buffer)")?;
        let ptr = NonNull::new(raw.cast::<T>()).ok_or(Error::Driver {
            op: "cuMemHostAlloc (pinned buffer)",
            source: cudarc::driver::DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY),
        })?;
        // SAFETY: `ptr` addresses `bytes` writable bytes, page-aligned; zero is a valid T.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, len) };
        Ok(Self {
            ptr,
            len,
            ctx: ctx.clone(),
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// The contents. Asynchronous copies into the buffer that are still queued are not waited
    /// for: synchronize their stream first.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `len` initialised T (zeroed at allocation), owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The contents, to fill. Asynchronous copies from the buffer that are still queued must
    /// have completed first.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`, borrowed mutably through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: PinnedWord> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // Errors are ignored: there is nothing to do about a failed free, and a context that is
        // gone has released the memory with it.
        let _ = self.ctx.bind_to_thread();
        // SAFETY: `ptr` came from cuMemHostAlloc and is freed once, here.
        let _ = unsafe { cudarc::driver::result::free_host(self.ptr.as_ptr().cast()) };
    }
}

/// Pinned word buffers kept between calls, at most `limit` bytes of them idle.
#[derive(Debug)]
pub(crate) struct PinnedPool {
    ctx: Arc<CudaContext>,
    idle: Mutex<Vec<PinnedBuffer>>,
    limit: AtomicUsize,
}

impl PinnedPool {
    pub fn new(gpu: &Gpu, limit: usize) -> Self {
        Self {
            ctx: gpu.context().clone(),
            idle: Mutex::new(Vec::new()),
            limit: AtomicUsize::new(limit),
        }
    }

    pub fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    pub fn set_limit(&self, bytes: usize) {
        self.limit.store(bytes, Ordering::Relaxed);
        self.trim(&mut self.lock());
    }

    /// Bytes held idle.
    pub fn bytes(&self) -> usize {
        self.lock().iter().map(PinnedBuffer::bytes).sum()
    }

    pub fn release(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> MutexGuard<'_, Vec<PinnedBuffer>> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn trim(&self, idle: &mut Vec<PinnedBuffer>) {
        let limit = self.limit();
        idle.sort_by_key(|b| std::cmp::Reverse(b.len()));
        let mut kept = 0usize;
        idle.retain(|b| {
            kept += b.bytes();
            kept <= limit
        });
    }

    /// The smallest idle buffer of at least `words`, or a new one (2 MiB multiples, so that calls
    /// of nearly equal sizes share buffers). A failed allocation frees the idle buffers and tries
    /// once more.
    pub fn take(&self, words: usize) -> Result<PinnedBuffer> {
        {
            let mut idle = self.lock();
            if let Some(i) = (0..idle.len())
                .filter(|&i| idle[i].len() >= words)
                .min_by_key(|&i| idle[i].len())
            {
                return Ok(idle.swap_remove(i));
            }
        }
        let rounded = words.div_ceil(1 << 18) << 18;
        PinnedBuffer::in_context(&self.ctx, rounded).or_else(|_| {
            self.release();
            PinnedBuffer::in_context(&self.ctx, rounded)
        })
    }

    pub fn give(&self, buf: PinnedBuffer) {
        let mut idle = self.lock();
        idle.push(buf);
        self.trim(&mut idle);
    }
}
