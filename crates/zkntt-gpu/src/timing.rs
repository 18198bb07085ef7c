//! Device-resident timing by CUDA events and wall-clock timing: medians after warm-up, the one
//! way the benches and `zkntt bench` time GPU work. Generic over the caller's error type.

use crate::Error;
use crate::error::DriverContext;
use cudarc::driver::CudaStream;
use cudarc::driver::sys::CUevent_flags;
use std::sync::Arc;

/// Runs `f` `warmup` times, then `iters` times each between two events on `stream`; returns the
/// median of the event-measured milliseconds. `f` must queue its work on `stream`.
pub fn median_ms<E: From<Error>>(
    stream: &Arc<CudaStream>,
    warmup: usize,
    iters: usize,
    f: impl FnMut() -> Result<(), E>,
) -> Result<f64, E> {
    medians(stream, warmup, iters, f).map(|m| m.ms)
}

/// The medians of [`medians`]' runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Medians {
    /// Milliseconds between the events before and after each run (the GPU's time, or the host's
    /// where queuing the run took longer than running it).
    pub ms: f64,
    /// Wall-clock milliseconds of the call to `f` alone: the host's time to queue one run. Near
    /// `ms` (it is inside the events' span), the run was bound by its launches, not by the GPU.
    pub host_ms: f64,
}

/// [`median_ms`], with the median host time of each call to `f` beside it. The two events are
/// created once and recorded around every run (as the sppark bridges' `time_runs` does), so no
/// event creation falls between them.
pub fn medians<E: From<Error>>(
    stream: &Arc<CudaStream>,
    warmup: usize,
    iters: usize,
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<Medians, E> {
    for _ in 0..warmup {
        f()?;
    }
    stream
        .synchronize()
        .during("stream synchronize")
        .map_err(E::from)?;
    let event = || {
        stream
            .context()
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .during("cuEventCreate")
            .map_err(E::from)
    };
    let (start, end) = (event()?, event()?);
    let mut samples = Vec::with_capacity(iters.max(1));
    let mut host = Vec::with_capacity(iters.max(1));
    for _ in 0..iters.max(1) {
        start
            .record(stream)
            .during("cuEventRecord")
            .map_err(E::from)?;
        let t = std::time::Instant::now();
        f()?;
        host.push(t.elapsed().as_secs_f64() * 1e3);
        end.record(stream)
            .during("cuEventRecord")
            .map_err(E::from)?;
        end.synchronize()
            .during("cuEventSynchronize")
            .map_err(E::from)?;
        samples.push(
            start
                .elapsed_ms(&end)
                .during("cuEventElapsedTime")
                .map_err(E::from)? as f64,
        );
    }
    Ok(Medians {
        ms: median(&mut samples),
        host_ms: median(&mut host),
    })
}

/// Wall-clock median of `f` (which must return only when its work is done).
pub fn median_wall_ms<E>(
    warmup: usize,
    iters: usize,
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<f64, E> {
    for _ in 0..warmup {
        f()?;
    }
    let mut samples = Vec::with_capacity(iters.max(1));
    for _ in 0..iters.max(1) {
        let t = std::time::Instant::now();
        f()?;
        samples.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(&mut samples))
}

pub fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    match samples.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => samples[n / 2],
        n => (samples[n / 2 - 1] + samples[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(super::median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(super::median(&mut []).is_nan());
    }
}
