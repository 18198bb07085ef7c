//! Test hooks (cargo feature `testing`): for the tests and benches of this workspace and of crates
//! built on zkntt-gpu. Nothing here exists in a build without the feature.
//!
//! Without a GPU, a GPU test prints one `SKIP` line and passes, so CI on GPU-less machines stays
//! green; with `ZKNTT_REQUIRE_GPU=1` (set on the GPU machine by `.gpu/run.sh`) it fails instead,
//! so nothing skips silently where a GPU is expected.

use crate::{Gpu, HostPipeline};
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Comparison switches of one [`HostPipeline`].
#[derive(Debug)]
pub(crate) struct Switches {
    by_contiguous_chunks: AtomicBool,
    caller_pool: AtomicBool,
}

impl Default for Switches {
    fn default() -> Self {
        Self {
            by_contiguous_chunks: AtomicBool::new(false),
            caller_pool: AtomicBool::new(false),
        }
    }
}

impl Switches {
    pub(crate) fn column_ranges(&self) -> bool {
        !self.by_contiguous_chunks.load(Ordering::Relaxed)
    }

    pub(crate) fn caller_pool(&self) -> bool {
        self.caller_pool.load(Ordering::Relaxed)
    }
}

/// Whether `host` moves a single transform by column ranges (the default, `true`) or in
/// contiguous chunks, transforming it once all of it is in. The results are the same.
pub fn set_column_ranges(host: &HostPipeline, on: bool) {
    host.switches()
        .by_contiguous_chunks
        .store(!on, Ordering::Relaxed);
}

/// Whether `host` runs its copies on the calling thread's rayon pool (the global pool, as before
/// the pipeline had workers of its own) instead of its own workers: for measuring what that costs
/// a prover's parallel work running beside the call.
pub fn set_copies_on_caller_pool(host: &HostPipeline, on: bool) {
    host.switches().caller_pool.store(on, Ordering::Relaxed);
}

/// The largest transform the GPU suites run: 2^ZKNTT_TEST_MAX_LOG, `default` where it is unset or
/// not a number (the sanitizer runs and `make emu-test` lower it).
pub fn test_max_log(default: u32) -> u32 {
    std::env::var("ZKNTT_TEST_MAX_LOG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Whether a GPU test runs its transforms of 2^log_n: those up to [`test_max_log`]`(default)`.
/// A size left out says so in one SKIP line naming `test`, the size and the bound, through the
/// test's captured stderr (shown with `--nocapture` or when the test fails: a bounded run leaves
/// out many sizes, unlike [`gpu_or_skip`]'s one line a test).
pub fn within_test_max_log(test: &str, log_n: u32, default: u32) -> bool {
    let bound = test_max_log(default);
    let fits = log_n <= bound;
    if !fits {
        eprintln!("SKIP {test}: 2^{log_n} above ZKNTT_TEST_MAX_LOG={bound}");
    }
    fits
}

thread_local! {
    static FAIL_COPY_BACK_AT: Cell<Option<usize>> = const { Cell::new(None) };
    static FAIL_RESTORE: Cell<bool> = const { Cell::new(false) };
}

/// The next host-to-host transform on this thread ([`crate::HostPipeline::ntt`]) fails as a
/// driver fault would, just before copying chunk `chunk` of its result into the caller's memory
/// (chunks 0..chunk are then already there; a `chunk` past the last fails after the whole result
/// is written). The call must return the error with the caller's memory holding its input.
pub fn fail_next_copy_back_at(chunk: usize) {
    FAIL_COPY_BACK_AT.with(|c| c.set(Some(chunk)));
}

/// Takes the hook set by [`fail_next_copy_back_at`], if any.
pub(crate) fn take_copy_back_failure() -> Option<usize> {
    FAIL_COPY_BACK_AT.with(Cell::take)
}

/// The next host-to-host transform on this thread, if it puts its input back from a device copy
/// ([`crate::InputCopy::Device`], after a failure during the copy back: set
/// [`fail_next_copy_back_at`] too), fails to read it back, as a lost device would: the call
/// returns [`crate::Error::InputLost`], and the caller's memory holds result where it was
/// overwritten. A restore from a host copy cannot fail and ignores this.
pub fn fail_next_input_restore() {
    FAIL_RESTORE.with(|c| c.set(true));
}

/// Takes the hook set by [`fail_next_input_restore`].
pub(crate) fn take_restore_failure() -> bool {
    FAIL_RESTORE.with(Cell::take)
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
