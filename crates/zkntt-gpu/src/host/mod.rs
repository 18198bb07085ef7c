//! Host memory in, host memory out: the pinned staging pipeline above the engine.
//!
//! A transform of caller memory (`&mut [F]`, a `Vec<Fr>` as a prover has it) runs as:
//!
//! 1. **In**: the data is cut into chunks (1-16 MiB). For each chunk, the pipeline's copy workers
//!    copy it from the caller's memory into pinned (page-locked) memory, then its DMA to the
//!    device is queued; the CPU copy of chunk i+1 runs while chunk i crosses PCIe.
//! 2. **Transform**: the engine's launches, on the GPU's stream, once the chunks are in.
//! 3. **Out**: chunks come back by DMA into a ring of pinned slots; the copy workers copy each
//!    into the caller's memory while the next chunks cross PCIe.
//!
//! A batch of row-major transforms is cut into units of whole transforms (at least 4 MiB each) on
//! up to three device slots and two copy streams: unit k+1 comes in while unit k is transformed
//! and unit k-1 goes out, so both PCIe directions work at once ([`chunks`]). A single transform of
//! the three-stage plan goes by ranges of columns instead, its first and last launches under the
//! copies ([`columns`]).
//!
//! **Nothing is lost on an error.** The caller's memory is overwritten only from the first
//! result chunk on, and the input is kept until the result is complete: if anything fails after
//! that (a driver fault during the copy back), the part already written is restored, so on `Err`
//! the caller's memory holds exactly the input. Where the data and the copy-back ring fit under
//! the pinned limit ([`HostPipeline::set_pinned_limit`], default 2 GiB), the input is staged whole
//! in pinned memory, which is also the kept copy. A larger call is **streamed**: its input passes
//! through a bounded ring of pinned slots (tens of MiB, kept across calls like any buffer), and
//! the copy workers write the kept copy into pageable memory on the same pass (held between calls
//! for the next large call; [`HostPipeline::release_host`] frees it).
//!
//! Where a streamed call keeps its input is a choice ([`HostPipeline::set_input_copy`]):
//! - [`InputCopy::Host`] (the default): the pageable copy above. It costs host memory bandwidth
//!   beside the DMAs, and host memory of the call's size, held between calls.
//! - [`InputCopy::Device`]: no host copy. The input is kept in a second device buffer of the
//!   call's size, in the caller's layout, filled by device-to-device copies on the compute
//!   stream, each part as soon as its DMA has landed and before any kernel touches it (by
//!   column ranges: each range before its first column launch; in units: each unit before its
//!   transform). A failure after the copy back began is undone by reading the overwritten part
//!   back from that device copy. What it does not cover: a device that is lost during the call
//!   (the driver fails, the context dies) takes the device copy with it, so the input cannot be
//!   restored; the call then returns [`Error::InputLost`] with how many leading elements may
//!   hold result instead of input (with `Host` the input survives any device failure). When the
//!   device has no memory for the copy at the start of the call, that call keeps its input on the
//!   host as `Host` does, and frees that memory afterwards ([`HostProfile::input_copy`] says
//!   which was used). The device copy goes back to the device-slot pool, under the same limit
//!   ([`HostPipeline::set_device_limit`]); calls that are not streamed are unchanged.
//!
//! No element is converted on the way: `F` is stored as its Montgomery limbs, which is what the
//! kernels read (`zkntt-core` asserts at compile time that the field types with kernels are
//! exactly four `u64` with alignment 8).
//!
//! The copies run on the pipeline's own threads ([`HostPipeline::set_copy_threads`]), never on
//! the caller's rayon pool: a prover's own parallel work keeps its workers during a call.
//!
//! For device-resident work on vectors the caller computes, [`HostPipeline::upload_with`] lets the
//! caller write a vector straight into pinned memory and queues its upload without waiting, and
//! [`HostPipeline::download`] brings a device vector back through pinned memory.

mod chunks;
mod columns;
mod copy;
mod cut;
mod input;
mod pinned;
mod staged;

pub use copy::{COPY_PIECE_BYTES, copy_streaming_raw, default_copy_threads};
pub use input::InputCopy;
pub use pinned::{PinnedBuffer, PinnedWord};

use input::{Failure, Input, Keep};

use crate::device_vec::words_mut;
use crate::{DeviceVec, Error, Gpu, NttEngine, Result};
use copy::{CopyStreams, CopyWorkers};
use cudarc::driver::{CudaSlice, CudaStream};
use cut::{ColumnCut, Cut, RING_SLOTS, WORDS_PER_ELEMENT};
use pinned::PinnedPool;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as MemOrder};
use std::sync::{Arc, Mutex, MutexGuard};
use zkntt_core::{GpuField, NttConfig};

/// Device slots of a batch: one unit coming in, one being transformed, one going out.
const DEVICE_SLOTS: usize = 3;
/// Pinned bytes the pool keeps idle between calls unless told otherwise; calls larger than this
/// are streamed.
const DEFAULT_PINNED_LIMIT: usize = 2 << 30;
/// Device bytes of slots kept idle between calls unless told otherwise.
const DEFAULT_DEVICE_LIMIT: usize = 1 << 30;

/// Where the last call's time went, measured on the host (wall clock). For tuning and for the
/// benches' notes; [`HostPipeline::last_profile`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HostProfile {
    /// Elements moved each way, chunk size in bytes, chunks each way, batch units.
    pub elements: usize,
    pub chunk_bytes: usize,
    pub chunks: usize,
    pub units: usize,
    /// Whether the input went through the bounded pinned ring (see the module docs).
    pub streamed: bool,
    /// Where a streamed call kept its input ([`HostPipeline::set_input_copy`]): `Host` also when
    /// `Device` was set but the device had no room for the copy. `None` when not streamed (the
    /// pinned image of the input is the kept copy).
    pub input_copy: Option<InputCopy>,
    /// The whole call, from entry to the result in place.
    pub total: std::time::Duration,
    /// Spent copying into pinned memory and out of it. For a call by column ranges (copies by a
    /// crew, overlapping everything): the whole in-phase, until the last range is queued, and the
    /// whole out-phase, from the first range's wait.
    pub copy_in: std::time::Duration,
    pub copy_out: std::time::Duration,
    /// Spent waiting for the device (nothing else to do).
    pub waiting: std::time::Duration,
    /// From entry until the last chunk was queued to the device, and until the first chunk of the
    /// result was back.
    pub inputs_queued: std::time::Duration,
    pub first_result: std::time::Duration,
}

/// Host-to-host NTTs on one engine: its pinned buffer pool, copy streams and copy workers, its
/// settings. Data flows caller -> pipeline -> engine; the engine knows nothing of the pipeline.
///
/// ```no_run
/// use ark_bn254::Fr;
/// use std::sync::Arc;
/// use zkntt_gpu::{Gpu, HostPipeline, NttConfig, NttEngine};
///
/// let host = HostPipeline::new(Arc::new(NttEngine::new(Gpu::new(0)?)));
/// let mut polys = vec![Fr::from(7u64); 8 << 20];
/// host.ntt(&mut polys, &NttConfig::forward().with_batch(8))?; // eight 2^20 transforms
/// host.set_pinned_limit(512 << 20); // keep at most 512 MiB pinned between calls
/// # Ok::<(), zkntt_gpu::Error>(())
/// ```
#[derive(Debug)]
pub struct HostPipeline {
    engine: Arc<NttEngine>,
    pinned: PinnedPool,
    /// A streamed call's kept copy of its input (pageable), reused by the next one.
    keep: Mutex<Vec<u64>>,
    /// Streamed calls keep their input on the device ([`InputCopy::Device`]).
    input_on_device: AtomicBool,
    /// Device slots kept between calls (allocating and freeing them costs more than a small
    /// transform), at most `device_limit` bytes.
    device_pool: Mutex<Vec<CudaSlice<u64>>>,
    device_limit: AtomicUsize,
    chunk_bytes: AtomicUsize,
    workers: CopyWorkers,
    last: Mutex<Option<HostProfile>>,
    /// Host-to-device and device-to-host streams (the compute stream is the GPU's).
    copy_streams: CopyStreams,
    /// Pinned buffers of `upload_with` calls whose copies may still be in flight.
    uploads: Mutex<Vec<staged::PendingUpload>>,
    #[cfg(feature = "testing")]
    switches: crate::testing::Switches,
}

impl HostPipeline {
    pub fn new(engine: Arc<NttEngine>) -> Self {
        Self {
            pinned: PinnedPool::new(engine.gpu(), DEFAULT_PINNED_LIMIT),
            engine,
            keep: Mutex::new(Vec::new()),
            input_on_device: AtomicBool::new(false),
            device_pool: Mutex::new(Vec::new()),
            device_limit: AtomicUsize::new(DEFAULT_DEVICE_LIMIT),
            chunk_bytes: AtomicUsize::new(0),
            workers: CopyWorkers::new(),
            last: Mutex::new(None),
            copy_streams: CopyStreams::new(),
            uploads: Mutex::new(Vec::new()),
            #[cfg(feature = "testing")]
            switches: Default::default(),
        }
    }

    pub fn engine(&self) -> &Arc<NttEngine> {
        &self.engine
    }

    pub fn gpu(&self) -> &Gpu {
        self.engine.gpu()
    }

    /// Bytes per copy chunk; `None` restores the automatic choice (half of a single transform's
    /// data, 1-16 MiB; 1/8 of a batch unit, 1-8 MiB; column ranges 1/8 of the data, 1-8 MiB).
    /// Rounded down to whole elements, at least one.
    pub fn set_chunk_bytes(&self, bytes: Option<usize>) {
        self.chunk_bytes
            .store(bytes.map_or(0, |b| b.max(1)), MemOrder::Relaxed);
    }

    /// Threads of the pipeline's own copy pool; `None` restores the default (one per core, 2 to
    /// 16). The caller's rayon pool is never used.
    pub fn set_copy_threads(&self, threads: Option<usize>) {
        self.workers.set_threads(threads);
    }

    /// Threads of the pipeline's copy pool.
    pub fn copy_threads(&self) -> usize {
        self.workers.threads()
    }

    /// Most pinned bytes kept idle in the pool between calls (default 2 GiB). A call whose data
    /// and copy-back ring fit under it stages its input whole in pinned memory; a larger one is
    /// streamed through bounded pinned slots (module docs). 0 frees every buffer after its call.
    pub fn set_pinned_limit(&self, bytes: usize) {
        self.pinned.set_limit(bytes);
    }

    /// Pinned bytes held idle in the pool.
    pub fn pinned_bytes(&self) -> usize {
        self.pinned.bytes()
    }

    /// Pageable bytes held for the next streamed call's kept copy of its input.
    pub fn kept_bytes(&self) -> usize {
        self.lock_keep().len() * 8
    }

    /// Where streamed calls keep their input until their result is complete (default
    /// [`InputCopy::Host`]; module docs). Choosing `Device` frees the pageable kept copy held for
    /// the next call, and none is held after `Device` calls.
    pub fn set_input_copy(&self, copy: InputCopy) {
        self.input_on_device
            .store(copy == InputCopy::Device, MemOrder::Relaxed);
        if copy == InputCopy::Device {
            *self.lock_keep() = Vec::new();
        }
    }

    /// Where streamed calls keep their input ([`Self::set_input_copy`]).
    pub fn input_copy(&self) -> InputCopy {
        if self.input_on_device.load(MemOrder::Relaxed) {
            InputCopy::Device
        } else {
            InputCopy::Host
        }
    }

    /// Frees every idle pinned buffer and the streamed calls' kept-copy memory.
    pub fn release_host(&self) {
        self.pinned.release();
        *self.lock_keep() = Vec::new();
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

    /// Frees what the pipeline and its engine keep between calls: pinned and kept-copy host
    /// memory, device slots, twiddles.
    pub fn clear_cache(&self) {
        self.release_host();
        self.release_device();
        self.engine.clear_cache();
    }

    /// Where the time of the last completed call (of any thread) went.
    pub fn last_profile(&self) -> Option<HostProfile> {
        *self.last.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_keep(&self) -> MutexGuard<'_, Vec<u64>> {
        self.keep.lock().unwrap_or_else(|p| p.into_inner())
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
    fn take_slots<F: GpuField>(&self, count: usize, len: usize) -> Result<Vec<DeviceVec<F>>> {
        let words = len * WORDS_PER_ELEMENT;
        let mut slots = Vec::with_capacity(count);
        {
            let mut pool = self.lock_device();
            while slots.len() < count {
                match pool.iter().position(|b| b.len() == words) {
                    Some(i) => {
                        slots.push(DeviceVec::from_parts(self.gpu(), pool.swap_remove(i), len))
                    }
                    None => break,
                }
            }
        }
        while slots.len() < count {
            match DeviceVec::uninit(self.gpu(), len) {
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

    fn give_slots<F: GpuField>(&self, slots: Vec<DeviceVec<F>>) {
        let mut pool = self.lock_device();
        // Newest first: the trim keeps the slots of the latest sizes.
        for s in slots {
            pool.insert(0, s.into_buf());
        }
        self.trim_device(&mut pool);
    }

    fn copy_streams(&self) -> Result<[Arc<CudaStream>; 2]> {
        self.copy_streams
            .get_or_init(|| {
                let ctx = self.gpu().context();
                ctx.new_stream()
                    .and_then(|a| Ok([a, ctx.new_stream()?]))
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(|e| Error::NoDevice(format!("cannot create the copy streams: {e}")))
    }

    /// `cfg`'s transforms of `data` in caller memory, through the pinned pipeline; waits for the
    /// result. On `Err`, `data` holds its input unchanged. `F` is a field with kernels
    /// ([`GpuField`]); a slice of any other is a compile error:
    ///
    /// ```compile_fail
    /// use ark_bn254::Fq;
    /// use std::sync::Arc;
    /// use zkntt_gpu::{Gpu, HostPipeline, NttConfig, NttEngine};
    ///
    /// let host = HostPipeline::new(Arc::new(NttEngine::new(Gpu::new(0)?)));
    /// let mut fq = vec![Fq::from(1u64); 1 << 10]; // the base field: no kernels
    /// host.ntt(&mut fq, &NttConfig::forward())?;
    /// # Ok::<(), zkntt_gpu::Error>(())
    /// ```
    pub fn ntt<F: GpuField>(&self, data: &mut [F], cfg: &NttConfig<F>) -> Result<()> {
        let log_n = cfg.log_size(data.len())?;
        if log_n == 0 {
            // One-point transforms are the identity (cosets and 1/N included); nothing to move.
            return Ok(());
        }
        let chunk_bytes = self.chunk_bytes.load(MemOrder::Relaxed);
        let cut = Cut::new(data.len(), 1 << log_n, cfg, chunk_bytes);
        let total_words = data.len() * WORDS_PER_ELEMENT;
        let started = std::time::Instant::now();
        let mut slots = self.take_slots::<F>(
            cut.units.min(DEVICE_SLOTS),
            cut.unit_words / WORDS_PER_ELEMENT,
        )?;
        // A single transform whose first and last launches go by columns: by column ranges.
        let hooks = self.hooks();
        let call = if cut.units == 1 && cfg.batch == 1 && hooks.column_ranges {
            self.engine
                .prepare(&slots[0], cfg)?
                .filter(|c| c.by_columns())
        } else {
            None
        };
        let columns = call.as_ref().map(|c| {
            ColumnCut::new(
                c.log_rows(),
                c.columns(),
                c.columns_per_block(0),
                chunk_bytes,
            )
        });
        let ring_words = match &columns {
            Some(c) => c.ring_slots() * c.chunk_words(),
            None => RING_SLOTS.min(cut.total_chunks()) * cut.chunk_words,
        };
        let limit = self.pinned.limit();
        let streamed = (total_words + ring_words) * 8 > limit;
        // A streamed call's ring within half the limit (its pinned memory stays bounded).
        let columns = columns.map(|c| if streamed { c.cap_ring(limit / 2) } else { c });
        let ring_words = match &columns {
            Some(c) => c.ring_slots() * c.chunk_words(),
            None => ring_words,
        };
        // Streamed: column ranges share one ring for both directions; chunks have one each way.
        let pinned_words = match (streamed, &columns) {
            (false, _) => total_words + ring_words,
            (true, Some(_)) => ring_words,
            (true, None) => 2 * RING_SLOTS * cut.chunk_words,
        };
        let input_copy = self.input_copy();
        // InputCopy::Device: a device buffer of the call's size for the input, or none when the
        // device has no room (this call then keeps its input on the host).
        let device_keep = if streamed && input_copy == InputCopy::Device {
            // The transform's tables first, so that the copy does not take their memory.
            if call.is_none() {
                self.engine.prepare(&slots[0], &cfg.with_batch(cut.rows))?;
            }
            match self.take_slots::<F>(1, data.len()) {
                Ok(mut keep) => keep.pop(),
                Err(Error::OutOfMemory { .. }) => None,
                Err(e) => return Err(e),
            }
        } else {
            None
        };
        let mut pinned = match self.pinned.take(pinned_words) {
            Ok(p) => p,
            // No page-locked memory to be had: the same transform through pageable copies.
            Err(_) => {
                drop((slots, device_keep));
                return self.ntt_pageable(data, cfg);
            }
        };
        let keep_on_host = streamed && device_keep.is_none();
        let mut keep = if keep_on_host {
            let mut keep = std::mem::take(&mut *self.lock_keep());
            if keep.len() < total_words {
                // Zeroed pages from the system: faulted in by the first call's copy only.
                keep = vec![0u64; total_words];
            }
            keep
        } else {
            Vec::new()
        };
        let mut profile = HostProfile {
            elements: data.len(),
            chunk_bytes: columns.map_or(cut.chunk_words, |c| c.chunk_words()) * 8,
            chunks: columns.map_or(cut.total_chunks(), |c| c.chunks),
            units: cut.units,
            streamed,
            input_copy: streamed.then_some(if keep_on_host {
                InputCopy::Host
            } else {
                InputCopy::Device
            }),
            ..HostProfile::default()
        };
        let comp = self.gpu().stream().clone();
        let out = (|| {
            let fail = |error| Failure { error, quiet: true };
            let [s_in, s_out] = match (&columns, cut.units) {
                // One contiguous unit: its phases run one after the other on one stream.
                (None, 1) => [comp.clone(), comp.clone()],
                _ => self.copy_streams().map_err(fail)?,
            };
            let buffer = &mut pinned.as_mut_slice()[..pinned_words];
            let keep = match &device_keep {
                Some(d) => Keep::Device(d.raw_ptr()),
                None => Keep::Host(&mut keep[..]),
            };
            let (input, ring) = match (streamed, &columns) {
                (false, _) => {
                    let (image, ring) = buffer.split_at_mut(total_words);
                    (Input::Image(image), ring)
                }
                (true, Some(_)) => (
                    Input::Streamed {
                        slots: &mut [],
                        keep: keep.prefix(total_words),
                    },
                    buffer,
                ),
                (true, None) => {
                    let (slots, ring) = buffer.split_at_mut(RING_SLOTS * cut.chunk_words);
                    let keep = keep.prefix(total_words);
                    (Input::Streamed { slots, keep }, ring)
                }
            };
            let job = Job {
                gpu: self.gpu(),
                engine: &self.engine,
                input,
                ring,
                streams: [comp.clone(), s_in, s_out],
                fail_at: hooks.fail_at,
                fail_restore: hooks.fail_restore,
                profile: &mut profile,
            };
            let run = || match (&call, &columns) {
                (Some(call), Some(columns)) => {
                    columns::run(job, call, data, columns, slots[0].raw_ptr())
                }
                _ => chunks::run(job, data, cfg, &cut, &mut slots),
            };
            if hooks.on_caller_pool {
                run()
            } else {
                self.workers.install(run).map_err(fail)?
            }
        })();
        // Held for the next call, unless the input is to be kept on the device (this call had no
        // device memory for it): then no host memory is held between calls.
        if keep_on_host && input_copy == InputCopy::Host {
            let mut kept = self.lock_keep();
            if kept.len() < keep.len() {
                *kept = keep;
            }
        }
        match out {
            Ok(()) => {
                self.pinned.give(pinned);
                // The device copy goes back to the slot pool under the device limit, like the
                // slots (reused where the limit allows; given first, so trimmed before them).
                if let Some(d) = device_keep {
                    self.give_slots(vec![d]);
                }
                self.give_slots(slots);
                profile.total = started.elapsed();
                *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(profile);
                Ok(())
            }
            Err(Failure { error, quiet }) => {
                if quiet {
                    self.pinned.give(pinned);
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
    fn ntt_pageable<F: GpuField>(&self, data: &mut [F], cfg: &NttConfig<F>) -> Result<()> {
        let gpu = self.gpu();
        let mut d = DeviceVec::from_host(gpu, data)?;
        self.engine.ntt_in_place(&mut d, cfg)?;
        let result = d.to_host(gpu)?;
        data.copy_from_slice(&result);
        Ok(())
    }

    /// The test hooks of this call. Without the `testing` feature: no failures, column ranges,
    /// own workers.
    #[cfg(feature = "testing")]
    fn hooks(&self) -> Hooks {
        let s = &self.switches;
        Hooks {
            fail_at: crate::testing::take_copy_back_failure(),
            fail_restore: crate::testing::take_restore_failure(),
            column_ranges: s.column_ranges(),
            on_caller_pool: s.caller_pool(),
        }
    }

    #[cfg(not(feature = "testing"))]
    fn hooks(&self) -> Hooks {
        Hooks {
            fail_at: None,
            fail_restore: false,
            column_ranges: true,
            on_caller_pool: false,
        }
    }

    #[cfg(feature = "testing")]
    pub(crate) fn switches(&self) -> &crate::testing::Switches {
        &self.switches
    }
}

/// The test hooks of one call.
#[derive(Debug, Clone, Copy)]
struct Hooks {
    /// Fail before copying result chunk `n` into the caller's memory.
    fail_at: Option<usize>,
    /// Fail the restore from a device copy of the input, as a lost device would.
    fail_restore: bool,
    /// A single transform goes by column ranges (else in contiguous chunks).
    column_ranges: bool,
    /// The copies run on the caller's rayon pool.
    on_caller_pool: bool,
}

/// What a run needs besides its data and cut.
pub(crate) struct Job<'a> {
    gpu: &'a Gpu,
    engine: &'a NttEngine,
    input: Input<'a>,
    /// The copy-back ring.
    ring: &'a mut [u64],
    /// Compute (the GPU's stream), host-to-device, device-to-host.
    streams: [Arc<CudaStream>; 3],
    /// Test hook: fail before copying result chunk `n` into the caller's memory.
    fail_at: Option<usize>,
    /// Test hook: fail the restore from a device copy of the input.
    fail_restore: bool,
    profile: &'a mut HostProfile,
}

/// `data`'s words, as one pointer for reading the input and writing the result (derived from
/// `data.as_mut_ptr()` alone; valid until `data` is used again).
fn words_of<F: GpuField>(data: &mut [F]) -> *mut u64 {
    words_mut(data).as_mut_ptr()
}
