//! A single transform of the three-stage plan, cut by columns: its data is a P x R matrix
//! (element a*R + c) whose first and last launches work down the columns, so range j is a range
//! of columns, every row's segment of it. The crew copies those segments into pinned memory (the
//! image, same layout, or a streamed call's packed slot), one 2-D DMA (`cuMemcpy2DAsync`) takes
//! them to the device, and the first column launch runs on those columns while the next range
//! crosses; after the middle launches, the last column launch runs by the same ranges and each
//! range goes back (2-D DMA into a packed ring slot, then the crew scatters its segments) while
//! the next is computed. Only the middle launches and one range of each column launch are not
//! under a copy.

use super::Job;
use super::copy::{Side, copy_2d, copy_rows};
use super::cut::ColumnCut;
use super::cut::WORDS_PER_ELEMENT;
use super::input::{Failure, Input, Keep, failed};
use crate::Result;
use crate::error::DriverContext;
use crate::ntt::Prepared;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as MemOrder};
use zkntt_core::GpuField;

/// Words per item of the crew (64 KiB; an item copies whole segments).
const SEGMENT_TASK_WORDS: usize = 8 * 1024;

/// The CPU copies of one column-range call, done by a crew: every worker of the pipeline's copy
/// pool but the pipeline thread spins (then yields) for the whole call and claims items in order,
/// so that no range waits for sleeping workers to wake (a wake-up per range costs more than a
/// small range's copy; benches/NOTES.md). Items are blocks of rows of one range; ranges
/// `0..chunks` are the copies in (ready at once), `chunks..2*chunks` the copies out (ready once
/// the pipeline thread has seen the range's DMA complete). The pipeline thread helps with the
/// range it is waiting for and never claims past it, so the copies progress even when no worker
/// is free (other calls, a small pool).
struct Crew<'a> {
    next: AtomicUsize,
    blocks: usize,
    items: usize,
    ready: Vec<AtomicBool>,
    done: Vec<AtomicUsize>,
    stop: AtomicBool,
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
                // Spin, then yield, then nap: a range is ready within microseconds while the
                // copies stream, but a worker waiting out a transform should leave its core to
                // the caller's other threads.
                idle = idle.saturating_add(1);
                if idle < 256 {
                    std::hint::spin_loop();
                } else if idle < 320 {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(std::time::Duration::from_micros(20));
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
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, MemOrder::Relaxed);
    }
}

/// The pipeline of one prepared transform cut by columns (see the module docs). `job.ring` holds
/// the copy-back slots; a streamed call's input goes through the same slots (every input DMA has
/// completed before the last column launch, which the copies back wait for).
pub(crate) fn run<F: GpuField>(
    job: Job<'_>,
    call: &Prepared,
    data: &mut [F],
    cut: &ColumnCut,
    slot: u64,
) -> std::result::Result<(), Failure> {
    let Job {
        gpu,
        engine,
        input,
        ring,
        streams,
        fail_at,
        fail_restore,
        profile,
    } = job;
    let started = std::time::Instant::now();
    let [comp, s_in, s_out] = streams;
    let (seg, row, j_max) = (cut.segment_words(), cut.row_words(), cut.chunks);
    let slots = cut.ring_slots();
    let last = call.launches().len() - 1;
    // Addresses as integers (the crew's closure is shared between threads). Source and result
    // both from one pointer: the input is read and the result written through it.
    let base = super::words_of(data) as usize;
    let streamed = matches!(input, Input::Streamed { .. });
    // The image, or a streamed call's kept copy on the host (0: none); a device copy's address.
    let (img_at, keep_at) = match &input {
        Input::Image(image) => (image.as_ptr() as usize, 0),
        Input::Streamed {
            keep: Keep::Host(keep),
            ..
        } => (0, keep.as_ptr() as usize),
        Input::Streamed { .. } => (0, 0),
    };
    let device_keep = input.device_copy();
    let ring_at = ring.as_mut_ptr() as usize;
    // Items of about 64 KiB: whole row segments.
    let rows_per_block = (SEGMENT_TASK_WORDS / seg).clamp(1, cut.rows);
    let blocks = cut.rows.div_ceil(rows_per_block);
    let copy = move |r: usize, b: usize| {
        let first = b * rows_per_block;
        let rows = rows_per_block.min(cut.rows - first);
        // SAFETY: range r < j_max is copied in: `data`, the image and the kept copy have the same
        // layout and a range's segments are disjoint from every other range's; a streamed call's
        // range goes packed into ring slot r % slots, whose previous DMA has completed (the range
        // is made ready only then). Range j = r - j_max is copied out of ring slot j % slots
        // (packed segments), whose DMA is complete and which is not reused before every block of
        // it is done, into `data`'s segments of range j, which nothing else touches. Each item is
        // its own rows.
        unsafe {
            let ring_rows =
                |j: usize| (ring_at as *mut u64).add((j % slots) * cut.chunk_words() + first * seg);
            if r < j_max {
                let at = cut.segment(r, first);
                let from = (base as *const u64).add(at);
                if streamed {
                    copy_rows(ring_rows(r), seg, from, row, seg, rows);
                    if keep_at != 0 {
                        copy_rows((keep_at as *mut u64).add(at), row, from, row, seg, rows);
                    }
                } else {
                    copy_rows((img_at as *mut u64).add(at), row, from, row, seg, rows);
                }
            } else {
                let j = r - j_max;
                let to = (base as *mut u64).add(cut.segment(j, first));
                copy_rows(to, row, ring_rows(j), seg, seg, rows);
            }
        }
    };
    // A streamed call's ranges beyond the first `slots` wait for their slot.
    let crew = Crew {
        next: AtomicUsize::new(0),
        blocks,
        items: 2 * j_max * blocks,
        ready: (0..2 * j_max)
            .map(|r| AtomicBool::new(r < j_max && (!streamed || r < slots)))
            .collect(),
        done: (0..2 * j_max).map(|_| AtomicUsize::new(0)).collect(),
        stop: AtomicBool::new(false),
        copy: &copy,
    };
    let written = AtomicBool::new(false);
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

            // In: once range j is staged, its DMA, then the first column launch on its columns.
            for (j, arrived_j) in arrived.iter().enumerate() {
                if streamed && j >= slots {
                    // Range j's slot is free once range j - slots has arrived.
                    arrived[j - slots]
                        .synchronize()
                        .during("host-to-device copy")?;
                    crew.ready[j].store(true, MemOrder::Release);
                }
                crew.finish(j);
                let at = cut.segment(j, 0);
                let from = if streamed {
                    Side::Host(
                        (ring_at as *mut u64).wrapping_add((j % slots) * cut.chunk_words()),
                        seg * 8,
                    )
                } else {
                    Side::Host((img_at as *mut u64).wrapping_add(at), row * 8)
                };
                // SAFETY: the staged range is complete and stays untouched until its DMA has
                // completed (the image until the call ends; a slot until `arrived[j]`, waited
                // for above before reuse); the device slot holds the data.
                unsafe {
                    copy_2d(
                        from,
                        Side::Device(slot + at as u64 * 8, row * 8),
                        seg * 8,
                        cut.rows,
                        &s_in,
                    )
                }?;
                arrived_j.record(&s_in).during("cuEventRecord")?;
                comp.wait(arrived_j).during("cuStreamWaitEvent")?;
                if let Some(keep) = device_keep {
                    // The range's input into the device copy (same layout), on the compute
                    // stream: after its DMA (the wait above), before its first column launch.
                    // SAFETY: range j's segments are in the slot and no kernel has touched them
                    // (launches on them follow on this stream); the device copy has the slot's
                    // size and layout, and range j's segments of it are written only here.
                    unsafe {
                        copy_2d(
                            Side::Device(slot + at as u64 * 8, row * 8),
                            Side::Device(keep + at as u64 * 8, row * 8),
                            seg * 8,
                            cut.rows,
                            &comp,
                        )
                    }?;
                }
                engine.launch_independent(call, 0, j * cut.width..(j + 1) * cut.width)?;
            }
            profile.inputs_queued = started.elapsed();
            profile.copy_in = profile.inputs_queued;
            for index in 1..last {
                engine.launch(call, index, 0..1, None)?;
            }
            for (j, done_j) in done.iter().enumerate() {
                let columns = j * cut.width..(j + 1) * cut.width;
                if j == 0 {
                    engine.launch(call, last, 0..1, Some(columns))?;
                } else {
                    engine.launch_independent(call, last, columns)?;
                }
                done_j.record(&comp).during("cuEventRecord")?;
            }

            // Out: each range into a ring slot once computed, then scattered by the crew.
            let queue_out = |j: usize| -> Result<()> {
                let r = j % slots;
                s_out.wait(&done[j]).during("cuStreamWaitEvent")?;
                let at = cut.segment(j, 0);
                // SAFETY: ring slot r is free (its previous range was scattered completely
                // before this is queued, and a streamed call's input DMAs from it completed
                // before the last column launch); it is read only after its event.
                unsafe {
                    copy_2d(
                        Side::Device(slot + at as u64 * 8, row * 8),
                        Side::Host(
                            (ring_at as *mut u64).wrapping_add(r * cut.chunk_words()),
                            seg * 8,
                        ),
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
                    return Err(super::input::injected());
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
                return Err(super::input::injected());
            }
            Ok(())
        })()
    });

    match result {
        Ok(()) => Ok(()),
        // Ranges already scattered: put the input back from the image or the kept copy (which
        // hold all of it once anything has been written, since the result needs every range in).
        Err(error) => {
            let restore = if written.load(MemOrder::Relaxed) {
                data.len() * WORDS_PER_ELEMENT
            } else {
                0
            };
            Err(failed(
                error,
                data,
                &input,
                restore,
                [&s_in, &s_out, &comp],
                fail_restore,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
