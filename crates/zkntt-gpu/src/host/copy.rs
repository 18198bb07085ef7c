//! The host side of the copies: the pipeline's own copy workers, CPU copies with non-temporal
//! stores, and 2-D DMAs between pinned and device memory.

use super::pinned::PinnedWord;
use crate::error::DriverContext;
use crate::{Error, Result};
use cudarc::driver::CudaStream;
use cudarc::driver::sys;
use rayon::prelude::*;
use std::sync::{Mutex, OnceLock};

/// Bytes per task of a CPU copy (256 KiB): the pipeline's copies and the Plonky3 backend's.
pub const COPY_PIECE_BYTES: usize = 256 * 1024;
/// 8-byte words per task of a CPU copy.
pub(crate) const COPY_PIECE_WORDS: usize = COPY_PIECE_BYTES / 8;

/// The pipeline's copy workers: a thread pool of its own, so that a call never runs on (or spins)
/// the workers of the caller's rayon pool, whose jobs keep running beside it; idle workers nap.
#[derive(Debug)]
pub(crate) struct CopyWorkers {
    threads: Mutex<usize>,
    pool: Mutex<Option<std::sync::Arc<rayon::ThreadPool>>>,
}

/// Default copy threads: one per core, at most 16 (at least 2). The copies are bound by how fast
/// each thread streams host memory, so fewer threads cost speed (the sweep is in benches/NOTES.md).
/// The Plonky3 backend's copy crew is sized from it too.
pub fn default_copy_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(4, |n| n.get());
    cores.clamp(2, 16)
}

impl CopyWorkers {
    pub fn new() -> Self {
        Self {
            threads: Mutex::new(default_copy_threads()),
            pool: Mutex::new(None),
        }
    }

    /// Threads of the pool (the next call builds it anew when this changes it).
    pub fn set_threads(&self, threads: Option<usize>) {
        let t = threads.map_or_else(default_copy_threads, |t| t.max(1));
        let mut cur = self.threads.lock().unwrap_or_else(|p| p.into_inner());
        if *cur != t {
            *cur = t;
            *self.pool.lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }

    pub fn threads(&self) -> usize {
        *self.threads.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on one of the workers; rayon calls inside it (the copies) stay in this pool.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> Result<R> {
        let pool = {
            let mut slot = self.pool.lock().unwrap_or_else(|p| p.into_inner());
            match &*slot {
                Some(p) => p.clone(),
                None => {
                    let p = rayon::ThreadPoolBuilder::new()
                        .num_threads(self.threads())
                        .thread_name(|i| format!("zkntt-copy-{i}"))
                        .build()
                        .map_err(|e| Error::NoDevice(format!("cannot start copy threads: {e}")))?;
                    let p = std::sync::Arc::new(p);
                    *slot = Some(p.clone());
                    p
                }
            }
        };
        Ok(pool.install(f))
    }
}

/// Lazily made copy streams, kept for the pipeline's life.
pub(crate) type CopyStreams =
    OnceLock<std::result::Result<[std::sync::Arc<CudaStream>; 2], String>>;

/// `dst = src` on the current rayon pool (the copy workers'), in pieces of 256 KiB, with
/// non-temporal stores ([`copy_streaming`]).
pub(crate) fn par_copy<T: PinnedWord>(dst: &mut [T], src: &[T]) {
    assert_eq!(dst.len(), src.len(), "copy of unequal lengths");
    let piece = (COPY_PIECE_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    if dst.len() <= piece {
        copy_streaming(dst, src);
        return;
    }
    dst.par_chunks_mut(piece)
        .zip(src.par_chunks(piece))
        .for_each(|(d, s)| copy_streaming(d, s));
}

/// `a = src` and `b = src` on the current rayon pool, reading `src` once: a streamed call's input
/// goes to its pinned staging slot and to the copy kept for restoring it.
pub(crate) fn par_copy_twice(a: &mut [u64], b: &mut [u64], src: &[u64]) {
    debug_assert!(a.len() == src.len() && b.len() == src.len());
    a.par_chunks_mut(COPY_PIECE_WORDS)
        .zip(b.par_chunks_mut(COPY_PIECE_WORDS))
        .zip(src.par_chunks(COPY_PIECE_WORDS))
        .for_each(|((a, b), s)| {
            copy_streaming(a, s);
            copy_streaming(b, s);
        });
}

/// `dst = src`, large copies with non-temporal stores on x86-64: the destination lines are not
/// read first (a plain store reads each line before writing it), which leaves more of the host's
/// memory bandwidth to the DMA running at the same time. The data is larger than the caches
/// anyway. The fence at the end makes the stores visible before the caller signals anyone.
pub(crate) fn copy_streaming<T: PinnedWord>(dst: &mut [T], src: &[T]) {
    assert_eq!(dst.len(), src.len(), "copy of unequal lengths");
    // SAFETY: two slices of equal length, which do not overlap (`&mut`).
    unsafe { copy_streaming_raw(dst.as_mut_ptr(), src.as_ptr(), dst.len()) }
}

/// [`copy_streaming`] on pointers, for callers that split a copy among threads of their own
/// (zkntt-small's Plonky3 backend) or write memory not yet initialised (a vector's spare
/// capacity: every word of the range is written).
///
/// # Safety
/// `dst` must be valid for `len` writes and `src` for `len` reads of `T`, both aligned for `T`,
/// the two ranges not overlapping.
pub unsafe fn copy_streaming_raw<T: PinnedWord>(dst: *mut T, src: *const T, len: usize) {
    // The 16-byte blocks below need words of 1, 2, 4 or 8 bytes aligned to their size (the
    // crate's own words are); any other `PinnedWord` takes the plain copy.
    #[cfg(target_arch = "x86_64")]
    if let size @ (1 | 2 | 4 | 8) = std::mem::size_of::<T>()
        && std::mem::align_of::<T>() == size
        && len * size >= 8192
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        // Words first up to `dst`'s next 16-byte boundary (`dst` is aligned to its word size).
        let head = ((16 - dst as usize % 16) % 16) / size;
        let per = 16 / size;
        let blocks = (len - head) / per;
        let done = head + per * blocks;
        // SAFETY: SSE2 is part of x86-64. The caller's ranges hold `len` words; `d` is 16-byte
        // aligned and `d`, `s` address `blocks` 16-byte blocks inside them; the words are plain
        // data (`PinnedWord`), so copying their bytes copies them.
        unsafe {
            std::ptr::copy_nonoverlapping(src, dst, head);
            let d = dst.add(head).cast::<__m128i>();
            let s = src.add(head).cast::<__m128i>();
            for k in 0..blocks {
                _mm_stream_si128(d.add(k), _mm_loadu_si128(s.add(k)));
            }
            _mm_sfence();
            std::ptr::copy_nonoverlapping(src.add(done), dst.add(done), len - done);
        }
        return;
    }
    // SAFETY: as the caller guarantees.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, len) }
}

/// Row segments: segment `a < rows` is the `seg` words at `src + a * src_stride`, copied to
/// `dst + a * dst_stride` (non-temporal stores where long enough, as [`copy_streaming`]). One
/// item of a column-range call's crew.
///
/// # Safety
/// Every source segment must be readable and every destination segment writable for the whole
/// call, and no destination segment may overlap another segment or a source.
pub(crate) unsafe fn copy_rows(
    dst: *mut u64,
    dst_stride: usize,
    src: *const u64,
    src_stride: usize,
    seg: usize,
    rows: usize,
) {
    for a in 0..rows {
        // SAFETY: the caller's contract, segment by segment.
        let (d, s) = unsafe {
            (
                std::slice::from_raw_parts_mut(dst.add(a * dst_stride), seg),
                std::slice::from_raw_parts(src.add(a * src_stride), seg),
            )
        };
        copy_streaming(d, s);
    }
}

/// One side of a 2-D copy: host or device memory, the first row, bytes between rows.
#[derive(Clone, Copy)]
pub(crate) enum Side {
    Host(*mut u64, usize),
    Device(u64, usize),
}

/// Queues `height` rows of `width` bytes from `src` to `dst` on `stream` (`cuMemcpy2DAsync`;
/// host memory must be pinned for the copy to be asynchronous).
///
/// # Safety
/// Both sides must address `height` rows of `width` bytes at their pitch, alive and untouched by
/// anything else until the copy has completed on the stream.
pub(crate) unsafe fn copy_2d(
    src: Side,
    dst: Side,
    width: usize,
    height: usize,
    stream: &CudaStream,
) -> Result<()> {
    use sys::CUmemorytype::{CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_HOST};
    // Every field spelled out: the memory-type enum has no zero value.
    let mut c = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: CU_MEMORYTYPE_HOST,
        srcHost: std::ptr::null(),
        srcDevice: 0,
        srcArray: std::ptr::null_mut(),
        srcPitch: 0,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: CU_MEMORYTYPE_HOST,
        dstHost: std::ptr::null_mut(),
        dstDevice: 0,
        dstArray: std::ptr::null_mut(),
        dstPitch: 0,
        WidthInBytes: width,
        Height: height,
    };
    match src {
        Side::Host(p, pitch) => (c.srcHost, c.srcPitch) = (p as *const std::ffi::c_void, pitch),
        Side::Device(p, pitch) => {
            (c.srcMemoryType, c.srcDevice, c.srcPitch) = (CU_MEMORYTYPE_DEVICE, p, pitch)
        }
    }
    match dst {
        Side::Host(p, pitch) => (c.dstHost, c.dstPitch) = (p.cast(), pitch),
        Side::Device(p, pitch) => {
            (c.dstMemoryType, c.dstDevice, c.dstPitch) = (CU_MEMORYTYPE_DEVICE, p, pitch)
        }
    }
    // SAFETY: the caller's contract; `c` describes exactly those rows.
    unsafe { sys::cuMemcpy2DAsync_v2(&c, stream.cu_stream()) }
        .result()
        .during("cuMemcpy2DAsync")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_segments_are_copied() {
        // 5 rows of 300 words, segments of 100 words at column word 120, into a packed buffer
        // and back into another image.
        let src: Vec<u64> = (0..1500u64).collect();
        let mut packed = vec![0u64; 500];
        let mut back = vec![7u64; 1500];
        // SAFETY: all segments in bounds, destinations disjoint.
        unsafe {
            copy_rows(packed.as_mut_ptr(), 100, src[120..].as_ptr(), 300, 100, 5);
            copy_rows(back[120..].as_mut_ptr(), 300, packed.as_ptr(), 100, 100, 5);
        }
        for a in 0..5 {
            assert_eq!(packed[a * 100..][..100], src[a * 300 + 120..][..100]);
            assert_eq!(back[a * 300 + 120..][..100], src[a * 300 + 120..][..100]);
            assert!(back[a * 300..a * 300 + 120].iter().all(|&w| w == 7));
        }
    }

    #[test]
    fn parallel_copy_copies() {
        let src: Vec<u64> = (0..(COPY_PIECE_WORDS * 5 + 17) as u64).collect();
        let mut dst = vec![0u64; src.len()];
        par_copy(&mut dst, &src);
        assert_eq!(dst, src);
        let mut short = vec![0u64; 3];
        par_copy(&mut short, &src[..3]);
        assert_eq!(short, [0, 1, 2]);
    }

    #[test]
    fn narrow_words_are_copied_at_every_alignment() {
        // 4-byte and 1-byte words from every offset into a 16-byte line: the head before the
        // first aligned block, the blocks and the tail.
        let src: Vec<u32> = (0..100_003u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        for off in 0..4 {
            let mut dst = vec![0u32; src.len()];
            par_copy(&mut dst[off..], &src[off..]);
            assert_eq!(dst[off..], src[off..], "u32 from word {off}");
            assert!(dst[..off].iter().all(|&w| w == 0));
        }
        let mut spare: Vec<u32> = Vec::with_capacity(src.len());
        // SAFETY: the spare capacity holds src.len() words; every one is written, then counted.
        unsafe {
            copy_streaming_raw(spare.as_mut_ptr(), src.as_ptr(), src.len());
            spare.set_len(src.len());
        }
        assert_eq!(spare, src, "into spare capacity");
        let bytes: Vec<u8> = (0..40_000u32).map(|i| (i * 7 + 3) as u8).collect();
        for off in 0..16 {
            let mut dst = vec![0u8; bytes.len()];
            copy_streaming(&mut dst[off..], &bytes[off..]);
            assert_eq!(dst[off..], bytes[off..], "u8 from byte {off}");
        }
    }
}
