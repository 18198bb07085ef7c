//! Host memory in, host memory out: the pinned staging pipeline under [`NttEngine::ntt`].
//!
//! A transform of caller memory (`&mut [F]`, a `Vec<Fr>` as a prover has it) runs as:
//!
//! 1. **In**: the data is cut into chunks (1-16 MiB). For each chunk, the CPU copies it from the
//!    caller's memory into a pinned (page-locked) buffer on all cores (rayon), then queues its DMA
//!    to the device; the CPU copy of chunk i+1 runs while chunk i crosses PCIe.
//! 2. **Transform**: the engine's kernels, on the GPU's stream, once the last chunk is in.
//! 3. **Out**: chunks come back by DMA into a ring of pinned slots; the CPU copies each into the
//!    caller's memory, on all cores, while the next chunks cross PCIe.
//!
//! A batch of row-major transforms is cut into units of whole transforms (at least 4 MiB each) on
//! up to three device slots and two copy streams: unit k+1 comes in while unit k is transformed
//! and unit k-1 goes out, so both PCIe directions work at once.
//!
//! The pinned buffers are kept across calls in a pool (see [`HostPipeline::set_pinned_limit`]).
//! Each call's input stays in its pinned buffer until the result is complete: if anything fails
//! after the caller's memory has started to be overwritten (a driver fault during the copy back),
//! the part already written is restored from there, so on `Err` the caller's memory holds exactly
//! the input. No element is converted on the way: `F` is stored as its Montgomery limbs, which is
//! what the kernels read (`zkntt-core` asserts at compile time that the field types with kernels
//! are exactly four `u64` with alignment 8).
//!
//! A single transform of the three-stage plan (2^12 and up, natural order) is cut by columns
//! instead: its data is a P x R matrix (element a*R + c) whose first and last launches work down
//! the columns, so chunk j is a range of columns, every row's segment of it. The CPU copies those
//! segments into the pinned image, one 2-D DMA (`cuMemcpy2DAsync`, the row length as the pitch)
//! takes them to the device, and stage A runs on those columns while the next chunk crosses; after
//! the middle stage, stage C runs by the same ranges and each range goes back (2-D DMA into a
//! packed ring slot, then the CPU scatters its segments) while the next is computed. Only the
//! middle stage and one range of each column stage are not under a copy. The CPU copies of such a
//! call are done by a crew of the pool's workers that spin for the call's length and take the
//! pieces in order (no wake-up per range).

use crate::device_vec::{field_of, words, words_mut};
use crate::error::DriverContext;
use crate::ntt::Staged;
use crate::{DeviceVec, Error, Gpu, NttEngine, Result};
use ark_ff::FftField;
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream};
use rayon::prelude::*;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering as MemOrder};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use zkntt_core::{BatchLayout, NttConfig};

/// u64 words per element: the field types with kernels are four 64-bit limbs (asserted in
/// `zkntt-core`; [`words`] refuses any other type).
const WORDS_PER_ELEMENT: usize = 4;
/// Pinned slots of the copy-back ring: chunks in flight device-to-host while the CPU empties one.
const RING_SLOTS: usize = 4;
/// Column-range calls: ring slots for at least this many bytes in flight (small ranges need more
/// than four slots, or each range's wait and queueing latency shows: 2^23 in 1 MiB ranges spent
/// 15 ms in the copy back with four slots).
const RING_BYTES: usize = 64 << 20;
/// Device slots of a batch: one unit coming in, one being transformed, one going out.
const DEVICE_SLOTS: usize = 3;
/// Automatic chunk size, between these bounds: each chunk costs a fixed 50-100 us on the host
/// (measured: 2^23 in 1 MiB chunks took 42 ms, in 16 MiB chunks 15.5 ms), while the first chunk
/// in and the last one out are not overlapped. A single transform: half the data, at most 16 MiB
/// (the best of the sweep at 2^20 and 2^23, H100). A batch: 1/8 of a unit, at most 8 MiB, so
/// that the units' two directions interleave finely (measured there).
const MIN_AUTO_CHUNK_BYTES: usize = 1 << 20;
const MAX_AUTO_CHUNK_BYTES: usize = 16 << 20;
const MAX_AUTO_BATCH_CHUNK_BYTES: usize = 8 << 20;
/// A batch unit holds whole transforms and at least this many bytes.
const MIN_UNIT_BYTES: usize = 4 << 20;
/// At most this many units per call (each has three events).
const MAX_UNITS: usize = 1024;
/// Words per rayon task of a CPU copy (256 KiB).
const COPY_PIECE_WORDS: usize = 32 * 1024;
/// Words per item of a column-range call's copy crew (64 KiB; an item copies whole segments).
const SEGMENT_TASK_WORDS: usize = 8 * 1024;
/// Column ranges of a single staged transform: automatically 1/8 of the data, 1-8 MiB (2^20:
/// 4 MiB, 2^23: 8 MiB). H100 sweep with the copy crew, ms: 2^20 1 / 2 / 4 / 8 / 16 MiB 2.07 /
/// 2.03 / 1.98 / 1.99 / 2.11; 2^23 25.2 / 19.5 / 15.2 / 13.0 / 13.8 (below 8 MiB the 2-D DMAs'
/// rows get short: 1024 rows of the range's width). Never more than MAX_COLUMN_CHUNKS ranges
/// (small chunk settings are for the tests).
const MAX_AUTO_RANGE_BYTES: usize = 8 << 20;
const MAX_COLUMN_CHUNKS: usize = 256;
/// Pinned bytes the pool keeps idle between calls unless told otherwise.
const DEFAULT_PINNED_LIMIT: usize = 2 << 30;
/// Device bytes of slots kept idle between calls unless told otherwise.
const DEFAULT_DEVICE_LIMIT: usize = 1 << 30;

/// Page-locked host memory from `cuMemHostAlloc`, zeroed once, freed on drop.
#[derive(Debug)]
struct PinnedBuffer {
    ptr: NonNull<u64>,
    words: usize,
    ctx: Arc<CudaContext>,
}

// SAFETY: the buffer is plain host memory owned by this value (no thread affinity); shared access
// goes through `&self`/`&mut self` like a `Box<[u64]>`.
unsafe impl Send for PinnedBuffer {}
// SAFETY: as above.
unsafe impl Sync for PinnedBuffer {}

impl PinnedBuffer {
    fn new(ctx: &Arc<CudaContext>, words: usize) -> Result<Self> {
        ctx.bind_to_thread().during("cuCtxSetCurrent")?;
        let bytes = words.checked_mul(8).ok_or(Error::OutOfMemory {
            needed: usize::MAX,
            free: 0,
        })?;
        // SAFETY: a plain allocation; the memory is zeroed below before any reference to it.
        let raw = unsafe { cudarc::driver::result::malloc_host(bytes.max(8), 0) }
            .during("cuMemHostAlloc (pinned staging buffer)")?;
        let ptr = NonNull::new(raw.cast::<u64>()).ok_or(Error::Driver {
            op: "cuMemHostAlloc (pinned staging buffer)",
            source: cudarc::driver::DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY),
        })?;
        // SAFETY: `ptr` addresses `bytes` writable bytes, suitably aligned (page-aligned).
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, words) };
        Ok(Self {
            ptr,
            words,
            ctx: ctx.clone(),
        })
    }

    fn bytes(&self) -> usize {
        self.words * 8
    }

    fn as_mut_slice(&mut self) -> &mut [u64] {
        // SAFETY: `words` initialised u64 (zeroed at allocation), owned by `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.words) }
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        // Errors are ignored: there is nothing to do about a failed free, and a context that is
        // gone has released the memory with it.
        let _ = self.ctx.bind_to_thread();
        // SAFETY: `ptr` came from cuMemHostAlloc and is freed once, here.
        let _ = unsafe { cudarc::driver::result::free_host(self.ptr.as_ptr().cast()) };
    }
}

/// `dst = src` on all cores (rayon), in pieces of 256 KiB.
fn par_copy(dst: &mut [u64], src: &[u64]) {
    debug_assert_eq!(dst.len(), src.len());
    if dst.len() <= COPY_PIECE_WORDS {
        copy_streaming(dst, src);
        return;
    }
    dst.par_chunks_mut(COPY_PIECE_WORDS)
        .zip(src.par_chunks(COPY_PIECE_WORDS))
        .for_each(|(d, s)| copy_streaming(d, s));
}

/// `dst = src`, large copies with non-temporal stores on x86-64: the destination lines are not
/// read first (a plain store reads each line before writing it), which leaves more of the host's
/// memory bandwidth to the DMA running at the same time. The data is larger than the caches
/// anyway. The fence at the end makes the stores visible before the caller signals anyone.
fn copy_streaming(dst: &mut [u64], src: &[u64]) {
    assert_eq!(dst.len(), src.len(), "copy of unequal lengths");
    #[cfg(target_arch = "x86_64")]
    if dst.len() >= 1024 {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        // One word first if `dst` is not 16-byte aligned (words are 8-byte aligned).
        let head = (dst.as_ptr() as usize / 8) & 1;
        dst[..head].copy_from_slice(&src[..head]);
        let pairs = (dst.len() - head) / 2;
        // SAFETY: SSE2 is part of x86-64. `d` is 16-byte aligned (after `head`); `d` and `s`
        // address `pairs` 16-byte blocks inside `dst` and `src`, which do not overlap (`&mut`).
        unsafe {
            let d = dst.as_mut_ptr().add(head).cast::<__m128i>();
            let s = src.as_ptr().add(head).cast::<__m128i>();
            for k in 0..pairs {
                _mm_stream_si128(d.add(k), _mm_loadu_si128(s.add(k)));
            }
            _mm_sfence();
        }
        let done = head + 2 * pairs;
        dst[done..].copy_from_slice(&src[done..]);
        return;
    }
    dst.copy_from_slice(src);
}

/// Row segments: segment `a < rows` is the `seg` words at `src + a * src_stride`, copied to
/// `dst + a * dst_stride` (non-temporal stores where long enough, as [`copy_streaming`]). One
/// item of a [`Crew`].
///
/// # Safety
/// Every source segment must be readable and every destination segment writable for the whole
/// call, and no destination segment may overlap another segment or a source.
unsafe fn copy_rows(
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
enum Side {
    Host(*mut u64, usize),
    Device(u64, usize),
}

/// Queues `height` rows of `width` bytes from `src` to `dst` on `stream` (`cuMemcpy2DAsync`;
/// host memory must be pinned for the copy to be asynchronous).
///
/// # Safety
/// Both sides must address `height` rows of `width` bytes at their pitch, alive and untouched by
/// anything else until the copy has completed on the stream.
unsafe fn copy_2d(
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

/// How a single staged transform is cut: `chunks` ranges of `width` columns of its `rows` x
/// `columns` matrix (element a*columns + c). Chunk j is row a's words
/// `segment(j, a) .. + segment_words()` for every row a.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ColumnCut {
    rows: usize,
    columns: usize,
    width: usize,
    chunks: usize,
}

impl ColumnCut {
    /// Chunks of about `chunk_bytes` (0: automatic), a power of two of them, each a multiple of
    /// `per_block` columns (the column stage's block width).
    fn new(log_rows: u32, columns: usize, per_block: usize, chunk_bytes: usize) -> Self {
        let rows = 1usize << log_rows;
        let total = rows * columns * WORDS_PER_ELEMENT * 8;
        let wanted = if chunk_bytes != 0 {
            chunk_bytes
        } else {
            (total / 8).clamp(MIN_AUTO_CHUNK_BYTES, MAX_AUTO_RANGE_BYTES)
        };
        let most = (columns / per_block).clamp(1, MAX_COLUMN_CHUNKS);
        let chunks = (1usize << (total / wanted).max(1).ilog2()).min(most);
        Self {
            rows,
            columns,
            width: columns / chunks,
            chunks,
        }
    }

    fn segment_words(&self) -> usize {
        self.width * WORDS_PER_ELEMENT
    }

    fn row_words(&self) -> usize {
        self.columns * WORDS_PER_ELEMENT
    }

    fn chunk_words(&self) -> usize {
        self.rows * self.segment_words()
    }

    /// Slots of the copy-back ring: RING_BYTES in flight, at least RING_SLOTS, at most a slot
    /// per range.
    fn ring_slots(&self) -> usize {
        (RING_BYTES / (self.chunk_words() * 8))
            .max(RING_SLOTS)
            .min(self.chunks)
    }

    /// Word offset of row `a`'s segment of chunk `j`.
    fn segment(&self, j: usize, a: usize) -> usize {
        a * self.row_words() + j * self.segment_words()
    }
}

/// How one call is cut up: `units` units of `unit_words` words (`rows` transforms each), moved in
/// chunks of at most `chunk_words`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    units: usize,
    rows: usize,
    unit_words: usize,
    chunk_words: usize,
}

impl Cut {
    /// `len` elements, transforms of `n` points, `chunk_bytes` as set (0: automatic).
    fn new<F>(len: usize, n: usize, cfg: &NttConfig<F>, chunk_bytes: usize) -> Self {
        let transform_bytes = n * WORDS_PER_ELEMENT * 8;
        let rows = if cfg.batch > 1 && cfg.layout == BatchLayout::Rows {
            // The fewest transforms per unit that divide the batch and fill MIN_UNIT_BYTES.
            (1..=cfg.batch)
                .find(|&d| {
                    cfg.batch % d == 0
                        && (d * transform_bytes >= MIN_UNIT_BYTES || d == cfg.batch)
                        && cfg.batch / d <= MAX_UNITS
                })
                .unwrap_or(cfg.batch)
        } else {
            cfg.batch
        };
        let unit_words = rows * n * WORDS_PER_ELEMENT;
        let units = len * WORDS_PER_ELEMENT / unit_words;
        let wanted = if chunk_bytes != 0 {
            chunk_bytes
        } else if units == 1 {
            (unit_words * 8 / 2).clamp(MIN_AUTO_CHUNK_BYTES, MAX_AUTO_CHUNK_BYTES)
        } else {
            (unit_words * 8 / 8).clamp(MIN_AUTO_CHUNK_BYTES, MAX_AUTO_BATCH_CHUNK_BYTES)
        };
        // Whole elements, at least one, at most a unit.
        let chunk_words = (wanted / 8 / WORDS_PER_ELEMENT * WORDS_PER_ELEMENT)
            .clamp(WORDS_PER_ELEMENT, unit_words);
        Self {
            units,
            rows,
            unit_words,
            chunk_words,
        }
    }

    fn chunks_per_unit(&self) -> usize {
        self.unit_words.div_ceil(self.chunk_words)
    }

    fn total_chunks(&self) -> usize {
        self.units * self.chunks_per_unit()
    }

    /// (unit, offset of the chunk in its unit, words, offset in the whole buffer) of chunk `j`.
    fn chunk(&self, j: usize) -> (usize, usize, usize, usize) {
        let per = self.chunks_per_unit();
        let (unit, k) = (j / per, j % per);
        let off = k * self.chunk_words;
        let len = self.chunk_words.min(self.unit_words - off);
        (unit, off, len, unit * self.unit_words + off)
    }

    fn is_last_of_unit(&self, j: usize) -> bool {
        j % self.chunks_per_unit() == self.chunks_per_unit() - 1
    }
}

/// Where the last call's time went, measured on the host (wall clock). For tuning and for the
/// benches' notes; [`HostPipeline::last_profile`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HostProfile {
    /// Elements moved each way, chunk size in bytes, chunks each way, batch units.
    pub elements: usize,
    pub chunk_bytes: usize,
    pub chunks: usize,
    pub units: usize,
    /// The whole call, from entry to the result in place.
    pub total: std::time::Duration,
    /// Spent copying into pinned memory (CPU, all cores) and out of it. For a call by column
    /// ranges (copies by a crew, overlapping everything): the whole in-phase, until the last range
    /// is queued, and the whole out-phase, from the first range's wait.
    pub copy_in: std::time::Duration,
    pub copy_out: std::time::Duration,
    /// Spent waiting for the device (nothing else to do).
    pub waiting: std::time::Duration,
    /// From entry until the last chunk was queued to the device, and until the first chunk of the
    /// result was back.
    pub inputs_queued: std::time::Duration,
    pub first_result: std::time::Duration,
}

/// The host-to-host pipeline of one engine: its pinned buffer pool, its copy streams, its settings.
/// Reached through [`NttEngine::host_pipeline`]; [`NttEngine::ntt`] runs on it.
#[derive(Debug)]
pub struct HostPipeline {
    gpu: Gpu,
    pool: Mutex<Vec<PinnedBuffer>>,
    pinned_limit: AtomicUsize,
    /// Device slots kept between calls (allocating and freeing them costs more than a small
    /// transform), at most `device_limit` bytes.
    device_pool: Mutex<Vec<CudaSlice<u64>>>,
    device_limit: AtomicUsize,
    chunk_bytes: AtomicUsize,
    /// Single staged transforms by column ranges (default); off: by contiguous chunks, the
    /// transform after the last chunk is in (for comparisons).
    column_ranges: std::sync::atomic::AtomicBool,
    last: Mutex<Option<HostProfile>>,
    /// Host-to-device and device-to-host streams of batches (a single transform uses the GPU's
    /// stream for everything: its phases run one after the other anyway).
    copy_streams: OnceLock<std::result::Result<[Arc<CudaStream>; 2], String>>,
}

impl HostPipeline {
    pub(crate) fn new(gpu: Gpu) -> Self {
        Self {
            gpu,
            pool: Mutex::new(Vec::new()),
            pinned_limit: AtomicUsize::new(DEFAULT_PINNED_LIMIT),
            device_pool: Mutex::new(Vec::new()),
            device_limit: AtomicUsize::new(DEFAULT_DEVICE_LIMIT),
            chunk_bytes: AtomicUsize::new(0),
            column_ranges: std::sync::atomic::AtomicBool::new(true),
            last: Mutex::new(None),
            copy_streams: OnceLock::new(),
        }
    }

    /// Bytes per copy chunk; `None` restores the automatic choice (half of a single transform's
    /// data, 1-16 MiB; 1/8 of a batch unit, 1-8 MiB). Rounded down to whole elements, at least one.
    pub fn set_chunk_bytes(&self, bytes: Option<usize>) {
        self.chunk_bytes
            .store(bytes.map_or(0, |b| b.max(1)), MemOrder::Relaxed);
    }

    /// Whether a single transform of 2^12 or more points (natural order) goes by column ranges,
    /// its first and last launches overlapping the copies (default `true`, see the module docs);
    /// `false` moves it in contiguous chunks and transforms it once all of it is in. For
    /// comparisons; the results are the same.
    pub fn set_column_ranges(&self, on: bool) {
        self.column_ranges.store(on, MemOrder::Relaxed);
    }

    /// Most pinned bytes kept idle in the pool between calls (default 2 GiB). A call takes what
    /// it needs (its data plus the copy-back ring) and returns it; beyond this limit the smallest
    /// idle buffers are freed. 0 frees every buffer after its call.
    pub fn set_pinned_limit(&self, bytes: usize) {
        self.pinned_limit.store(bytes, MemOrder::Relaxed);
        self.trim(&mut self.lock_pool());
    }

    /// Pinned bytes held idle in the pool.
    pub fn pinned_bytes(&self) -> usize {
        self.lock_pool().iter().map(PinnedBuffer::bytes).sum()
    }

    /// Frees every idle pinned buffer.
    pub fn release_pinned(&self) {
        self.lock_pool().clear();
    }

    /// Most device bytes of slots kept idle between calls (default 1 GiB); 0 frees them after
    /// each call.
    pub fn set_device_limit(&self, bytes: usize) {
        self.device_limit.store(bytes, MemOrder::Relaxed);
        self.trim_device(&mut self.lock_device());
    }

    /// Device bytes held idle in the slot pool.
    pub fn device_bytes(&self) -> usize {
        self.lock_device().iter().map(|b| b.len() * 8).sum()
    }

    /// Frees every idle device slot.
    pub fn release_device(&self) {
        self.lock_device().clear();
    }

    /// Where the time of the last completed call (of any thread) went.
    pub fn last_profile(&self) -> Option<HostProfile> {
        *self.last.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_device(&self) -> MutexGuard<'_, Vec<CudaSlice<u64>>> {
        self.device_pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn trim_device(&self, pool: &mut Vec<CudaSlice<u64>>) {
        let limit = self.device_limit.load(MemOrder::Relaxed);
        let mut kept = 0usize;
        pool.retain(|b| {
            kept += b.len() * 8;
            kept <= limit
        });
    }

    /// `count` device slots of `len` elements: idle ones of exactly that size, new ones otherwise.
    fn take_slots<F: 'static + Copy>(&self, count: usize, len: usize) -> Result<Vec<DeviceVec<F>>> {
        let field = field_of::<F>()?;
        let words = len * WORDS_PER_ELEMENT;
        let mut slots = Vec::with_capacity(count);
        {
            let mut pool = self.lock_device();
            while slots.len() < count {
                match pool.iter().position(|b| b.len() == words) {
                    Some(i) => slots.push(DeviceVec::from_parts(pool.swap_remove(i), len, field)),
                    None => break,
                }
            }
        }
        while slots.len() < count {
            match DeviceVec::uninit(&self.gpu, len) {
                Ok(s) => slots.push(s),
                Err(Error::OutOfMemory { .. }) if self.device_bytes() > 0 => {
                    // Idle slots of other sizes stand in the way: free them and try again.
                    self.release_device();
                }
                Err(e) => return Err(e),
            }
        }
        Ok(slots)
    }

    fn give_slots<F: 'static + Copy>(&self, slots: Vec<DeviceVec<F>>) {
        let mut pool = self.lock_device();
        // Newest first: the trim keeps the slots of the latest sizes.
        for s in slots {
            pool.insert(0, s.into_buf());
        }
        self.trim_device(&mut pool);
    }

    fn lock_pool(&self) -> MutexGuard<'_, Vec<PinnedBuffer>> {
        self.pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn trim(&self, pool: &mut Vec<PinnedBuffer>) {
        let limit = self.pinned_limit.load(MemOrder::Relaxed);
        pool.sort_by_key(|b| std::cmp::Reverse(b.words));
        let mut kept = 0usize;
        pool.retain(|b| {
            kept += b.bytes();
            kept <= limit
        });
    }

    /// The smallest idle buffer of at least `words`, or a new one (2 MiB multiples, so that calls
    /// of nearly equal sizes share buffers). A failed allocation frees the idle buffers and tries
    /// once more.
    fn take(&self, words: usize) -> Result<PinnedBuffer> {
        {
            let mut pool = self.lock_pool();
            if let Some(i) = (0..pool.len())
                .filter(|&i| pool[i].words >= words)
                .min_by_key(|&i| pool[i].words)
            {
                return Ok(pool.swap_remove(i));
            }
        }
        let rounded = words.div_ceil(1 << 18) << 18;
        PinnedBuffer::new(self.gpu.context(), rounded).or_else(|_| {
            self.release_pinned();
            PinnedBuffer::new(self.gpu.context(), rounded)
        })
    }

    fn give(&self, buf: PinnedBuffer) {
        let mut pool = self.lock_pool();
        pool.push(buf);
        self.trim(&mut pool);
    }

    fn copy_streams(&self) -> Result<[Arc<CudaStream>; 2]> {
        self.copy_streams
            .get_or_init(|| {
                let ctx = self.gpu.context();
                ctx.new_stream()
                    .and_then(|a| Ok([a, ctx.new_stream()?]))
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(|e| Error::NoDevice(format!("cannot create the copy streams: {e}")))
    }

    /// `cfg`'s transforms of `data` in caller memory, through the pinned pipeline. On `Err`,
    /// `data` holds its input unchanged.
    pub(crate) fn transform<F: FftField>(
        &self,
        engine: &NttEngine,
        data: &mut [F],
        cfg: &NttConfig<F>,
    ) -> Result<()> {
        field_of::<F>()?;
        let log_n = cfg.log_size(data.len())?;
        if log_n == 0 {
            // One-point transforms are the identity (cosets and 1/N included); nothing to move.
            return Ok(());
        }
        let cut = Cut::new(
            data.len(),
            1 << log_n,
            cfg,
            self.chunk_bytes.load(MemOrder::Relaxed),
        );
        let total_words = data.len() * WORDS_PER_ELEMENT;
        let started = std::time::Instant::now();
        let mut slots = self.take_slots::<F>(
            cut.units.min(DEVICE_SLOTS),
            cut.unit_words / WORDS_PER_ELEMENT,
        )?;
        // A single transform of the three-stage plan goes by column ranges (module docs).
        let staged =
            if cut.units == 1 && cfg.batch == 1 && self.column_ranges.load(MemOrder::Relaxed) {
                engine.staged(&slots[0], cfg)?
            } else {
                None
            };
        let columns = staged.as_ref().map(|s| {
            ColumnCut::new(
                s.log_rows(),
                s.columns(),
                s.columns_per_block(),
                self.chunk_bytes.load(MemOrder::Relaxed),
            )
        });
        let ring_words = match &columns {
            Some(c) => c.ring_slots() * c.chunk_words(),
            None => RING_SLOTS.min(cut.total_chunks()) * cut.chunk_words,
        };
        let mut pinned = match self.take(total_words + ring_words) {
            Ok(p) => p,
            // No page-locked memory to be had: the same transform through pageable copies.
            Err(_) => {
                drop(slots);
                return self.transform_pageable(engine, data, cfg);
            }
        };
        // Read on this thread: the pipeline itself runs on a rayon worker.
        let fail_at = crate::test_support::take_copy_back_failure();
        let mut profile = HostProfile {
            elements: data.len(),
            chunk_bytes: columns.map_or(cut.chunk_words, |c| c.chunk_words()) * 8,
            chunks: columns.map_or(cut.total_chunks(), |c| c.chunks),
            units: cut.units,
            ..HostProfile::default()
        };
        let buffer = pinned.as_mut_slice();
        // On a rayon worker, so that the copies' pieces go to the other workers directly rather
        // than through the pool's cold entry (a wake-up and a blocking latch per copy).
        let out = rayon::scope(|_| match (&staged, &columns) {
            (Some(staged), Some(columns)) => run_columns(
                &self.gpu,
                engine,
                staged,
                data,
                columns,
                buffer,
                slots[0].device_ptr(&self.gpu),
                || self.copy_streams(),
                fail_at,
                &mut profile,
            ),
            _ => run(
                &self.gpu,
                engine,
                data,
                cfg,
                &cut,
                buffer,
                &mut slots,
                || self.copy_streams(),
                fail_at,
                &mut profile,
            ),
        });
        match out {
            Ok(()) => {
                self.give(pinned);
                self.give_slots(slots);
                profile.total = started.elapsed();
                *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(profile);
                Ok(())
            }
            Err(Failure { error, quiet }) => {
                if quiet {
                    self.give(pinned);
                } else {
                    // The device did not settle: a DMA may still touch the buffer. Never reuse
                    // or free it (a context in that state is lost anyway).
                    std::mem::forget(pinned);
                }
                Err(error)
            }
        }
    }

    /// The same transform without pinned memory: pageable copies in and out, the result staged in
    /// a host vector so that `data` is written only once the result is complete.
    fn transform_pageable<F: FftField>(
        &self,
        engine: &NttEngine,
        data: &mut [F],
        cfg: &NttConfig<F>,
    ) -> Result<()> {
        let mut d = DeviceVec::from_host(&self.gpu, data)?;
        engine.ntt_in_place(&mut d, cfg)?;
        let result = d.to_host(&self.gpu)?;
        data.copy_from_slice(&result);
        Ok(())
    }
}

/// A failed pipeline run: the error, and whether every stream was seen idle afterwards (only then
/// may the pinned buffer be used again).
struct Failure {
    error: Error,
    quiet: bool,
}

/// The pipeline proper (see the module docs). `pinned` holds the input image (all of `data`) and
/// then the copy-back ring; `slots` are the device slots (one per unit, up to three).
#[allow(clippy::too_many_arguments)]
fn run<F: FftField>(
    gpu: &Gpu,
    engine: &NttEngine,
    data: &mut [F],
    cfg: &NttConfig<F>,
    cut: &Cut,
    pinned: &mut [u64],
    slots: &mut [DeviceVec<F>],
    copy_streams: impl FnOnce() -> Result<[Arc<CudaStream>; 2]>,
    fail_at: Option<usize>,
    profile: &mut HostProfile,
) -> std::result::Result<(), Failure> {
    let started = std::time::Instant::now();
    let fail = |error| Failure { error, quiet: true };
    let total_words = data.len() * WORDS_PER_ELEMENT;
    let (image, ring) = pinned.split_at_mut(total_words);
    let comp = gpu.stream().clone();
    let [s_in, s_out] = if cut.units == 1 {
        [comp.clone(), comp.clone()]
    } else {
        copy_streams().map_err(fail)?
    };
    let unit_cfg = cfg.with_batch(cut.rows);
    let slot_count = slots.len();
    let slot_ptrs: Vec<u64> = slots.iter().map(|s| s.device_ptr(gpu)).collect();

    let written = std::cell::Cell::new(0usize);
    let result = (|| -> Result<()> {
        let ctx = gpu.context();
        let event = || ctx.new_event(None).during("cuEventCreate");
        // The slots are allocated on the GPU's stream: the copy streams start after that.
        let slots_ready = event()?;
        slots_ready.record(&comp).during("cuEventRecord")?;
        s_in.wait(&slots_ready).during("cuStreamWaitEvent")?;
        let per_unit = |_| -> Result<[CudaEvent; 3]> { Ok([event()?, event()?, event()?]) };
        let unit_events = (0..cut.units).map(per_unit).collect::<Result<Vec<_>>>()?;
        let ring_events = (0..RING_SLOTS)
            .map(|_| event())
            .collect::<Result<Vec<_>>>()?;
        ctx.bind_to_thread().during("cuCtxSetCurrent")?;

        let src = words(data)?.as_ptr();
        let dst = words_mut(data)?.as_mut_ptr();
        let total = cut.total_chunks();
        let (mut next_in, mut out_queued, mut out_done) = (0usize, 0usize, 0usize);
        let (mut computed, mut out_units) = (0usize, 0usize);
        while out_done < total {
            // 1. A chunk that has come back: into the caller's memory.
            if out_done < out_queued {
                let slot = out_done % RING_SLOTS;
                if ring_events[slot]
                    .try_is_complete()
                    .during("device-to-host copy")?
                {
                    if fail_at == Some(out_done) {
                        return Err(injected());
                    }
                    let (_, _, len, at) = cut.chunk(out_done);
                    let from = &ring[slot * cut.chunk_words..][..len];
                    let t = std::time::Instant::now();
                    // SAFETY: `dst` is `data`'s words; chunks are disjoint and in bounds.
                    par_copy(
                        unsafe { std::slice::from_raw_parts_mut(dst.add(at), len) },
                        from,
                    );
                    profile.copy_out += t.elapsed();
                    if out_done == 0 {
                        profile.first_result = started.elapsed();
                    }
                    written.set(at + len);
                    out_done += 1;
                    continue;
                }
            }
            // 2. A chunk of a transformed unit, into a free ring slot.
            if out_queued < total && out_queued - out_done < RING_SLOTS {
                let (unit, off, len, _) = cut.chunk(out_queued);
                if unit < computed {
                    let [_, done, gone] = &unit_events[unit];
                    if off == 0 {
                        s_out.wait(done).during("cuStreamWaitEvent")?;
                    }
                    let slot = out_queued % RING_SLOTS;
                    let to = &mut ring[slot * cut.chunk_words..][..len];
                    // SAFETY: the slot holds `unit_words` words; the ring slot is free (its
                    // previous chunk was consumed in step 1) and is read only after its event.
                    unsafe {
                        sys::cuMemcpyDtoHAsync_v2(
                            to.as_mut_ptr().cast(),
                            slot_ptrs[unit % slot_count] + off as u64 * 8,
                            len * 8,
                            s_out.cu_stream(),
                        )
                    }
                    .result()
                    .during("cuMemcpyDtoHAsync")?;
                    ring_events[slot].record(&s_out).during("cuEventRecord")?;
                    if cut.is_last_of_unit(out_queued) {
                        gone.record(&s_out).during("cuEventRecord")?;
                        out_units += 1;
                    }
                    out_queued += 1;
                    continue;
                }
            }
            // 3. The next chunk in, once its device slot has been emptied.
            if next_in < total {
                let (unit, off, len, at) = cut.chunk(next_in);
                if unit < slot_count || unit - slot_count < out_units {
                    if off == 0 && unit >= slot_count {
                        let [_, _, gone] = &unit_events[unit - slot_count];
                        s_in.wait(gone).during("cuStreamWaitEvent")?;
                    }
                    let staged = &mut image[at..at + len];
                    let t = std::time::Instant::now();
                    // SAFETY: `src` is `data`'s words, in bounds; nothing writes `data` in the
                    // range of a chunk not yet copied in.
                    par_copy(staged, unsafe {
                        std::slice::from_raw_parts(src.add(at), len)
                    });
                    profile.copy_in += t.elapsed();
                    // SAFETY: the image chunk stays untouched until the call ends; the device
                    // slot holds `unit_words` words and is free (waited for above).
                    unsafe {
                        sys::cuMemcpyHtoDAsync_v2(
                            slot_ptrs[unit % slot_count] + off as u64 * 8,
                            staged.as_ptr().cast(),
                            len * 8,
                            s_in.cu_stream(),
                        )
                    }
                    .result()
                    .during("cuMemcpyHtoDAsync")?;
                    next_in += 1;
                    if next_in == total {
                        profile.inputs_queued = started.elapsed();
                    }
                    if cut.is_last_of_unit(next_in - 1) {
                        let [arrived, done, _] = &unit_events[unit];
                        arrived.record(&s_in).during("cuEventRecord")?;
                        comp.wait(arrived).during("cuStreamWaitEvent")?;
                        engine.ntt_in_place(&mut slots[unit % slot_count], &unit_cfg)?;
                        done.record(&comp).during("cuEventRecord")?;
                        computed += 1;
                    }
                    continue;
                }
            }
            // 4. Nothing to do but wait for the oldest chunk on its way back.
            if out_done < out_queued {
                let t = std::time::Instant::now();
                ring_events[out_done % RING_SLOTS]
                    .synchronize()
                    .during("device-to-host copy")?;
                profile.waiting += t.elapsed();
            } else {
                return Err(Error::Runtime {
                    code: -2,
                    message: format!(
                        "host pipeline stalled (in {next_in}, out {out_queued}/{out_done} of {total})"
                    ),
                });
            }
        }
        if fail_at.is_some_and(|a| a >= total) {
            return Err(injected());
        }
        Ok(())
    })();

    match result {
        Ok(()) => Ok(()),
        // Put back what the copy back overwrote: the input is still in the pinned image.
        Err(error) => Err(failed(
            error,
            data,
            &image[..written.get()],
            [&s_in, &s_out, &comp],
        )),
    }
}

/// The CPU copies of one column-range call, done by a crew: every worker of the pool but the
/// pipeline's own thread spins for the whole call and claims items in order, so that no range waits
/// for sleeping workers to wake (a `par_iter` per range cost about 50 us per range: 1 MiB ranges
/// took 36 ms at 2^23 against 14 for 16 MiB). Items are blocks of rows of one range; ranges
/// `0..chunks` are the copies in (ready at once), `chunks..2*chunks` the copies out (ready once
/// the pipeline thread has seen the range's DMA complete). The pipeline thread helps with the
/// range it is waiting for and never claims past it, so the copies progress even when no worker
/// is free (other calls, a small pool).
struct Crew<'a> {
    next: AtomicUsize,
    blocks: usize,
    items: usize,
    ready: Vec<std::sync::atomic::AtomicBool>,
    done: Vec<AtomicUsize>,
    stop: std::sync::atomic::AtomicBool,
    copy: &'a (dyn Fn(usize, usize) + Sync),
}

impl Crew<'_> {
    /// Claims item `i` if it is next, below `limit` and its range is ready; runs it.
    fn try_one(&self, limit: usize) -> bool {
        let i = self.next.load(MemOrder::Acquire);
        if i >= limit.min(self.items) || !self.ready[i / self.blocks].load(MemOrder::Acquire) {
            return false;
        }
        if self
            .next
            .compare_exchange(i, i + 1, MemOrder::AcqRel, MemOrder::Relaxed)
            .is_err()
        {
            return true; // someone else took it: try again at once
        }
        (self.copy)(i / self.blocks, i % self.blocks);
        self.done[i / self.blocks].fetch_add(1, MemOrder::Release);
        true
    }

    /// A worker: items in order until all are claimed or the call stops.
    fn work(&self) {
        let mut idle = 0u32;
        while !self.stop.load(MemOrder::Relaxed) && self.next.load(MemOrder::Relaxed) < self.items {
            if self.try_one(usize::MAX) {
                idle = 0;
            } else {
                idle += 1;
                if idle < 256 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }

    /// The pipeline thread: until range `r` is copied, helping with it.
    fn finish(&self, r: usize) {
        let limit = (r + 1) * self.blocks;
        while self.done[r].load(MemOrder::Acquire) < self.blocks {
            if !self.try_one(limit) {
                std::hint::spin_loop();
            }
        }
    }
}

/// Sets the crew's stop flag when the pipeline thread leaves (error or panic included), so that
/// the scope's workers return.
struct StopOnDrop<'a>(&'a std::sync::atomic::AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, MemOrder::Relaxed);
    }
}

/// The pipeline of one staged transform, cut by columns (see the module docs): range j's row
/// segments in, stage A on its columns while range j+1 comes in; the middle stage; stage C by the
/// same ranges, each range out (2-D DMA into a packed ring slot, the CPU scatters it) while the
/// next is computed. `pinned` holds the input image (all of `data`, same layout) and the ring.
/// The CPU copies are a [`Crew`]'s.
#[allow(clippy::too_many_arguments)]
fn run_columns<F: FftField>(
    gpu: &Gpu,
    engine: &NttEngine,
    staged: &Staged,
    data: &mut [F],
    cut: &ColumnCut,
    pinned: &mut [u64],
    slot: u64,
    copy_streams: impl FnOnce() -> Result<[Arc<CudaStream>; 2]>,
    fail_at: Option<usize>,
    profile: &mut HostProfile,
) -> std::result::Result<(), Failure> {
    let started = std::time::Instant::now();
    let fail = |error| Failure { error, quiet: true };
    let total_words = data.len() * WORDS_PER_ELEMENT;
    let (image, ring) = pinned.split_at_mut(total_words);
    let comp = gpu.stream().clone();
    let [s_in, s_out] = copy_streams().map_err(fail)?;
    let (seg, row, j_max) = (cut.segment_words(), cut.row_words(), cut.chunks);
    let slots = cut.ring_slots();
    // Addresses as integers (the crew's closure is shared between threads).
    let src_at = words(data).map_err(fail)?.as_ptr() as usize;
    let dst_at = words_mut(data).map_err(fail)?.as_mut_ptr() as usize;
    let (img_at, ring_at) = (image.as_mut_ptr() as usize, ring.as_mut_ptr() as usize);
    // Items of about 64 KiB: whole row segments.
    let rows_per_block = (SEGMENT_TASK_WORDS / seg).clamp(1, cut.rows);
    let blocks = cut.rows.div_ceil(rows_per_block);
    let copy = move |r: usize, b: usize| {
        let first = b * rows_per_block;
        let rows = rows_per_block.min(cut.rows - first);
        // SAFETY: range r < j_max is copied in: `data` and the image have the same layout and a
        // range's segments are disjoint from every other range's. Range j = r - j_max is copied
        // out of ring slot j % slots (packed segments), whose DMA is complete and which is
        // not reused before every block of it is done, into `data`'s segments of range j, which
        // nothing else touches. Each item is its own rows.
        unsafe {
            if r < j_max {
                let at = cut.segment(r, first);
                copy_rows(
                    (img_at as *mut u64).add(at),
                    row,
                    (src_at as *const u64).add(at),
                    row,
                    seg,
                    rows,
                );
            } else {
                let j = r - j_max;
                let from =
                    (ring_at as *const u64).add((j % slots) * cut.chunk_words() + first * seg);
                copy_rows(
                    (dst_at as *mut u64).add(cut.segment(j, first)),
                    row,
                    from,
                    seg,
                    seg,
                    rows,
                );
            }
        }
    };
    let crew = Crew {
        next: AtomicUsize::new(0),
        blocks,
        items: 2 * j_max * blocks,
        ready: (0..2 * j_max)
            .map(|r| std::sync::atomic::AtomicBool::new(r < j_max))
            .collect(),
        done: (0..2 * j_max).map(|_| AtomicUsize::new(0)).collect(),
        stop: std::sync::atomic::AtomicBool::new(false),
        copy: &copy,
    };
    let written = std::sync::atomic::AtomicBool::new(false);
    let workers = rayon::current_num_threads().saturating_sub(1);
    let result = rayon::scope(|s| {
        for _ in 0..workers {
            s.spawn(|_| crew.work());
        }
        let _stop = StopOnDrop(&crew.stop);
        (|| -> Result<()> {
            let ctx = gpu.context();
            let event = || ctx.new_event(None).during("cuEventCreate");
            // The slot is allocated on the GPU's stream: the copy streams start after that.
            let slot_ready = event()?;
            slot_ready.record(&comp).during("cuEventRecord")?;
            s_in.wait(&slot_ready).during("cuStreamWaitEvent")?;
            let events = |count| (0..count).map(|_| event()).collect::<Result<Vec<_>>>();
            let (arrived, done, ring_events) = (events(j_max)?, events(j_max)?, events(slots)?);
            ctx.bind_to_thread().during("cuCtxSetCurrent")?;

            // In: once range j is in the image, its DMA, then stage A on its columns.
            for (j, arrived) in arrived.iter().enumerate() {
                crew.finish(j);
                let at = cut.segment(j, 0);
                // SAFETY: the image's range j is complete and stays untouched until the call
                // ends; the slot holds the data.
                unsafe {
                    copy_2d(
                        Side::Host((img_at as *mut u64).add(at), row * 8),
                        Side::Device(slot + at as u64 * 8, row * 8),
                        seg * 8,
                        cut.rows,
                        &s_in,
                    )
                }?;
                arrived.record(&s_in).during("cuEventRecord")?;
                comp.wait(arrived).during("cuStreamWaitEvent")?;
                engine.launch_staged(staged, 0, j * cut.width, cut.width, false)?;
            }
            profile.inputs_queued = started.elapsed();
            profile.copy_in = profile.inputs_queued;
            engine.launch_staged(staged, 1, 0, 0, true)?;
            for (j, done) in done.iter().enumerate() {
                engine.launch_staged(staged, 2, j * cut.width, cut.width, j == 0)?;
                done.record(&comp).during("cuEventRecord")?;
            }

            // Out: each range into a ring slot once computed, then scattered by the crew.
            let queue_out = |j: usize| -> Result<()> {
                let r = j % slots;
                s_out.wait(&done[j]).during("cuStreamWaitEvent")?;
                let at = cut.segment(j, 0);
                // SAFETY: ring slot r is free (its previous range was scattered completely
                // before this is queued); it is read only after its event.
                unsafe {
                    copy_2d(
                        Side::Device(slot + at as u64 * 8, row * 8),
                        Side::Host((ring_at as *mut u64).add(r * cut.chunk_words()), seg * 8),
                        seg * 8,
                        cut.rows,
                        &s_out,
                    )
                }?;
                ring_events[r].record(&s_out).during("cuEventRecord")
            };
            for j in 0..slots {
                queue_out(j)?;
            }
            let out_started = std::time::Instant::now();
            for j in 0..j_max {
                let t = std::time::Instant::now();
                ring_events[j % slots]
                    .synchronize()
                    .during("device-to-host copy")?;
                profile.waiting += t.elapsed();
                if fail_at == Some(j) {
                    return Err(injected());
                }
                written.store(true, MemOrder::Relaxed);
                crew.ready[j_max + j].store(true, MemOrder::Release);
                crew.finish(j_max + j);
                if j == 0 {
                    profile.first_result = started.elapsed();
                }
                if j + slots < j_max {
                    queue_out(j + slots)?;
                }
            }
            profile.copy_out = out_started.elapsed();
            if fail_at.is_some_and(|a| a >= j_max) {
                return Err(injected());
            }
            Ok(())
        })()
    });

    match result {
        Ok(()) => Ok(()),
        // Ranges already scattered: put the input back from the image (which holds all of it once
        // anything has been written, since the result needs every range in).
        Err(error) => {
            let restore = if written.load(MemOrder::Relaxed) {
                total_words
            } else {
                0
            };
            Err(failed(
                error,
                data,
                &image[..restore],
                [&s_in, &s_out, &comp],
            ))
        }
    }
}

/// A failed run: `restore` (the pinned image's copy of the words of `data` that were overwritten,
/// a prefix) is put back into `data`, then the streams are waited for; the [`Failure`] is quiet
/// when all of them settle (only then may the pinned buffer be used again).
fn failed<F: FftField>(
    error: Error,
    data: &mut [F],
    restore: &[u64],
    streams: [&Arc<CudaStream>; 3],
) -> Failure {
    if let (false, Ok(dst)) = (restore.is_empty(), words_mut(data)) {
        par_copy(&mut dst[..restore.len()], restore);
    }
    let quiet = streams.iter().all(|s| s.synchronize().is_ok());
    Failure { error, quiet }
}

fn injected() -> Error {
    Error::Runtime {
        code: -1,
        message: "failure injected by zkntt_gpu::test_support while copying the result back".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;

    #[test]
    fn single_transforms_are_one_unit() {
        let cfg = NttConfig::<Fr>::forward();
        let c = Cut::new(1 << 23, 1 << 23, &cfg, 0);
        assert_eq!((c.units, c.rows, c.unit_words), (1, 1, 1 << 25));
        assert_eq!(c.chunk_words * 8, 16 << 20, "256 MiB in 16 MiB chunks");
        assert_eq!(c.total_chunks(), 16);
        let c = Cut::new(1 << 20, 1 << 20, &cfg, 0);
        assert_eq!(c.chunk_words * 8, 16 << 20, "32 MiB in two chunks");
        let small = Cut::new(1 << 10, 1 << 10, &cfg, 0);
        assert_eq!((small.units, small.total_chunks()), (1, 1));
        assert_eq!(small.chunk_words, small.unit_words);
    }

    #[test]
    fn batches_are_cut_into_units_of_whole_transforms() {
        let cfg = NttConfig::<Fr>::forward().with_batch(8);
        let c = Cut::new(8 << 20, 1 << 20, &cfg, 0);
        assert_eq!(
            (c.units, c.rows),
            (8, 1),
            "8 x 2^20: one transform (32 MiB) per unit"
        );
        let cfg = NttConfig::<Fr>::forward().with_batch(64);
        let c = Cut::new(64 << 12, 1 << 12, &cfg, 0);
        assert_eq!(
            (c.units, c.rows),
            (2, 32),
            "2^12 points are 128 KiB: 32 per 4 MiB unit"
        );
        let cfg = NttConfig::<Fr>::forward().with_batch(7);
        let c = Cut::new(7 << 10, 1 << 10, &cfg, 0);
        assert_eq!(
            (c.units, c.rows),
            (1, 7),
            "a prime batch of small transforms: one unit"
        );
        let cols = NttConfig::<Fr>::forward()
            .with_batch(8)
            .with_layout(BatchLayout::Columns);
        assert_eq!(
            Cut::new(8 << 20, 1 << 20, &cols, 0).units,
            1,
            "columns interleave"
        );
    }

    #[test]
    fn chunks_cover_every_word_once() {
        let cfg = NttConfig::<Fr>::forward().with_batch(3);
        for chunk_bytes in [0usize, 1, 32, 100, 4096, 1 << 20] {
            let c = Cut::new(3 << 18, 1 << 18, &cfg, chunk_bytes);
            let mut next = 0;
            for j in 0..c.total_chunks() {
                let (unit, off, len, at) = c.chunk(j);
                assert_eq!(at, next, "chunk {j} of {c:?}");
                assert_eq!(at, unit * c.unit_words + off);
                assert!(len > 0 && len % WORDS_PER_ELEMENT == 0);
                assert_eq!(c.is_last_of_unit(j), off + len == c.unit_words);
                next += len;
            }
            assert_eq!(next, 3 << 20, "{c:?}");
        }
    }

    #[test]
    fn column_chunks_cover_every_word_once() {
        // 2^23 as the engine plans it: 2^10 rows of 2^13 columns, one column per block.
        let c = ColumnCut::new(10, 1 << 13, 1, 0);
        assert_eq!(
            (c.chunks, c.chunk_words() * 8),
            (32, 8 << 20),
            "2^23: 32 x 8 MiB"
        );
        // 2^20: 2^8 rows of 2^12 columns, four per block.
        let c = ColumnCut::new(8, 1 << 12, 4, 0);
        assert_eq!(
            (c.chunks, c.chunk_words() * 8),
            (8, 4 << 20),
            "2^20: 8 x 4 MiB"
        );
        // Tiny settings stop at one block's columns per chunk, and at MAX_COLUMN_CHUNKS.
        assert_eq!(ColumnCut::new(6, 1 << 8, 4, 1).chunks, 64);
        assert_eq!(ColumnCut::new(2, 1 << 12, 1, 32).chunks, MAX_COLUMN_CHUNKS);
        assert_eq!(ColumnCut::new(6, 1 << 8, 4, usize::MAX).chunks, 1);
        // The ring: 64 MiB in flight, four slots at least, one per range at most.
        assert_eq!(
            ColumnCut::new(10, 1 << 13, 1, 16 << 20).ring_slots(),
            4,
            "2^23, 16 MiB"
        );
        assert_eq!(
            ColumnCut::new(10, 1 << 13, 1, 0).ring_slots(),
            8,
            "2^23, 8 MiB"
        );
        assert_eq!(
            ColumnCut::new(10, 1 << 13, 1, 1 << 20).ring_slots(),
            64,
            "2^23, 1 MiB"
        );
        assert_eq!(
            ColumnCut::new(8, 1 << 12, 4, 1 << 20).ring_slots(),
            32,
            "2^20, 1 MiB"
        );
        assert_eq!(ColumnCut::new(6, 1 << 8, 4, usize::MAX).ring_slots(), 1);
        for (log_rows, columns, per, bytes) in [
            (3u32, 64usize, 2usize, 0usize),
            (4, 32, 1, 1000),
            (2, 16, 4, 96),
        ] {
            let c = ColumnCut::new(log_rows, columns, per, bytes);
            assert!(c.chunks.is_power_of_two() && c.width % per == 0, "{c:?}");
            let mut seen = vec![0u8; c.rows * c.row_words()];
            for j in 0..c.chunks {
                for a in 0..c.rows {
                    let at = c.segment(j, a);
                    seen[at..at + c.segment_words()]
                        .iter_mut()
                        .for_each(|s| *s += 1);
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{c:?}");
        }
    }

    /// The crew: every item once, each range complete when `finish` returns, ranges made ready
    /// late; also with no worker at all (the pipeline thread alone makes progress).
    #[test]
    fn crew_copies_every_item_once_in_any_pool() {
        use std::sync::atomic::AtomicBool;
        for threads in [1usize, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (ranges, blocks) = (6usize, 5usize);
            let hits: Vec<AtomicUsize> =
                (0..ranges * blocks).map(|_| AtomicUsize::new(0)).collect();
            let copy = |r: usize, b: usize| {
                hits[r * blocks + b].fetch_add(1, MemOrder::Relaxed);
            };
            let crew = Crew {
                next: AtomicUsize::new(0),
                blocks,
                items: ranges * blocks,
                ready: (0..ranges).map(|r| AtomicBool::new(r < 3)).collect(),
                done: (0..ranges).map(|_| AtomicUsize::new(0)).collect(),
                stop: AtomicBool::new(false),
                copy: &copy,
            };
            pool.install(|| {
                rayon::scope(|s| {
                    for _ in 0..rayon::current_num_threads() - 1 {
                        s.spawn(|_| crew.work());
                    }
                    let _stop = StopOnDrop(&crew.stop);
                    for r in 0..ranges {
                        crew.ready[r].store(true, MemOrder::Release);
                        crew.finish(r);
                        let first = r * blocks;
                        assert!(
                            hits[first..first + blocks]
                                .iter()
                                .all(|h| h.load(MemOrder::Relaxed) == 1),
                            "range {r} complete when finish returns ({threads} threads)"
                        );
                    }
                })
            });
            assert!(hits.iter().all(|h| h.load(MemOrder::Relaxed) == 1));
        }
    }

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
}
