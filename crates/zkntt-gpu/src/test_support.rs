//! For tests of crates built on zkntt-gpu: get a GPU or skip, the project's one way.
//!
//! Without a GPU, a GPU test prints one `SKIP` line and passes, so CI on GPU-less machines stays
//! green; with `ZKNTT_REQUIRE_GPU=1` (set on the GPU machine by `.gpu/run.sh`) it fails instead,
//! so nothing skips silently where a GPU is expected.

use crate::Gpu;
use std::io::Write;

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
