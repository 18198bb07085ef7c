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
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<f64, E> {
    for _ in 0..warmup {
        f()?;
    }
    stream
        .synchronize()
        .during("stream synchronize")
        .map_err(E::from)?;
    let mut samples = Vec::with_capacity(iters.max(1));
    for _ in 0..iters.max(1) {
        let start = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .during("cuEventRecord")
            .map_err(E::from)?;
        f()?;
        let end = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
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
    Ok(median(&mut samples))
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
