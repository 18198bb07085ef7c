//! For tests of crates built on zkntt-gpu: get a GPU or skip, the project's one way.
//!
//! Without a GPU, a GPU test prints one `SKIP` line and passes, so CI on GPU-less machines stays
//! green; with `ZKNTT_REQUIRE_GPU=1` (set on the GPU machine by `.gpu/run.sh`) it fails instead,
//! so nothing skips silently where a GPU is expected.

use crate::Gpu;
use std::cell::Cell;
use std::io::Write;

thread_local! {
    static FAIL_COPY_BACK_AT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Test hook: the next host-to-host transform on this thread ([`crate::NttEngine::ntt`]) fails
/// as a driver fault would, just before copying chunk `chunk` of its result into the caller's
/// memory (chunks 0..chunk are then already there; a `chunk` past the last fails after the whole
/// result is written). The call must return the error with the caller's memory holding its input.
pub fn fail_next_copy_back_at(chunk: usize) {
    FAIL_COPY_BACK_AT.with(|c| c.set(Some(chunk)));
}

/// Takes the hook set by [`fail_next_copy_back_at`], if any.
pub(crate) fn take_copy_back_failure() -> Option<usize> {
    FAIL_COPY_BACK_AT.with(Cell::take)
}

/// Whether `ZKNTT_REQUIRE_GPU=1` is set.
pub fn gpu_required() -> bool {
    std::env::var("ZKNTT_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Device 0 with its kernels, or `None` after printing a skip line naming `test`.
///
/// # Panics
/// When no GPU (or no kernels) is available and `ZKNTT_REQUIRE_GPU=1`.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    let reason = match Gpu::new(0) {
        Ok(gpu) if zkntt_kernels::built() => return Some(gpu),
        Ok(_) => format!("kernels not built ({})", zkntt_kernels::BUILD_NOTE),
        Err(e) => e.to_string(),
    };
    if gpu_required() {
        panic!("{test}: ZKNTT_REQUIRE_GPU=1 but {reason}");
    }
    // Straight to stderr: libtest captures print!/eprint! but not direct writes, so the skip line
    // shows in the test log without --nocapture.
    let _ = writeln!(std::io::stderr(), "SKIP {test}: {reason}");
    None
}
