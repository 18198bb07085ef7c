//! Calls moved in contiguous chunks: batches of row transforms in units over up to three device
//! slots and two copy streams (unit k+1 comes in while unit k is transformed and unit k-1 goes
//! out), and single transforms that do not go by column ranges.

use super::Job;
use super::copy::{par_copy, par_copy_twice};
use super::cut::{Cut, RING_SLOTS};
use super::input::{Failure, Input, Keep, failed};
use crate::error::DriverContext;
use crate::{DeviceVec, Error, Result};
use cudarc::driver::CudaEvent;
use cudarc::driver::sys;
use zkntt_core::{GpuField, NttConfig};

/// The call's chunks in, its units transformed, its chunks back through the ring; see the module
/// docs of [`super`]. On `Err`, `data` holds its input.
pub(crate) fn run<F: GpuField>(
    job: Job<'_>,
    data: &mut [F],
    cfg: &NttConfig<F>,
    cut: &Cut,
    slots: &mut [DeviceVec<F>],
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
    let unit_cfg = cfg.with_batch(cut.rows);
    let slot_count = slots.len();
    let slot_ptrs: Vec<u64> = slots.iter().map(|s| s.raw_ptr()).collect();
    // Both from one pointer: the input is read and the result written through it.
    let base = super::words_of(data);
    let (src, dst) = (base as *const u64, base);

    let written = std::cell::Cell::new(0usize);
    let mut input = input;
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
        // A streamed call's staging slots: free again once their DMA has completed.
        let in_events = (0..RING_SLOTS)
            .map(|_| event())
            .collect::<Result<Vec<_>>>()?;
        ctx.bind_to_thread().during("cuCtxSetCurrent")?;

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
                        return Err(super::input::injected());
                    }
                    let (_, _, len, at) = cut.chunk(out_done);
                    let from = &ring[slot * cut.chunk_words..][..len];
                    let t = std::time::Instant::now();
                    // SAFETY: `dst` is `data`'s words; chunks are disjoint and in bounds, and
                    // nothing reads a chunk of `data` once its input has been copied.
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
                    // SAFETY: `src` is `data`'s words, in bounds; nothing writes `data` in the
                    // range of a chunk not yet copied in.
                    let from = unsafe { std::slice::from_raw_parts(src.add(at), len) };
                    let t = std::time::Instant::now();
                    let staged: &[u64] = match &mut input {
                        Input::Image(image) => {
                            let staged = &mut image[at..at + len];
                            par_copy(staged, from);
                            staged
                        }
                        Input::Streamed { slots, keep } => {
                            let slot = next_in % RING_SLOTS;
                            if next_in >= RING_SLOTS {
                                in_events[slot]
                                    .synchronize()
                                    .during("host-to-device copy")?;
                            }
                            let staged = &mut slots[slot * cut.chunk_words..][..len];
                            match keep {
                                Keep::Host(keep) => {
                                    par_copy_twice(staged, &mut keep[at..at + len], from)
                                }
                                // Kept by a device-to-device copy once the unit is in.
                                Keep::Device(_) => par_copy(staged, from),
                            }
                            staged
                        }
                    };
                    profile.copy_in += t.elapsed();
                    // SAFETY: the staged chunk stays untouched until its DMA has completed (an
                    // image chunk until the call ends; a slot until its event, waited for above
                    // before reuse); the device slot holds `unit_words` words and is free.
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
                    if matches!(input, Input::Streamed { .. }) {
                        in_events[next_in % RING_SLOTS]
                            .record(&s_in)
                            .during("cuEventRecord")?;
                    }
                    next_in += 1;
                    if next_in == total {
                        profile.inputs_queued = started.elapsed();
                    }
                    if cut.is_last_of_unit(next_in - 1) {
                        let [arrived, done, _] = &unit_events[unit];
                        arrived.record(&s_in).during("cuEventRecord")?;
                        comp.wait(arrived).during("cuStreamWaitEvent")?;
                        if let Some(keep) = input.device_copy() {
                            // The unit's input into the device copy (same layout as `data`),
                            // after it has arrived and before its transform, on this stream.
                            let first = unit * cut.unit_words;
                            // SAFETY: the slot holds the whole unit (its DMAs completed before
                            // the wait above); the device copy holds the call's words, and this
                            // unit's range of it is written only here.
                            unsafe {
                                sys::cuMemcpyDtoDAsync_v2(
                                    keep + first as u64 * 8,
                                    slot_ptrs[unit % slot_count],
                                    cut.unit_words * 8,
                                    comp.cu_stream(),
                                )
                            }
                            .result()
                            .during("cuMemcpyDtoDAsync")?;
                        }
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
                return Err(Error::Internal(format!(
                    "host pipeline stalled (in {next_in}, out {out_queued}/{out_done} of {total})"
                )));
            }
        }
        if fail_at.is_some_and(|a| a >= total) {
            return Err(super::input::injected());
        }
        Ok(())
    })();

    match result {
        Ok(()) => Ok(()),
        // Put back what the copy back overwrote: the input is still in the image (or the kept
        // copy of a streamed call, on the host or the device).
        Err(error) => Err(failed(
            error,
            data,
            &input,
            written.get(),
            [&s_in, &s_out, &comp],
            fail_restore,
        )),
    }
}
