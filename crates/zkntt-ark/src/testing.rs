//! Test hooks (cargo feature `testing`, which enables `zkntt-gpu/testing`): for this crate's tests
//! and those of crates built on it. Nothing here exists without the feature, and the transform
//! path reads none of it: the hooks arm zkntt-gpu's own.

/// The next GPU transform on this thread fails part way through copying its result back into the
/// caller's vector (after the first chunk; after all of it when the result is one chunk), as a
/// driver fault there would. The call must then complete on the CPU from the restored input.
///
/// The hook is `zkntt_gpu::testing::fail_next_copy_back_at(1)`: it stays armed until a host
/// pipeline call on this thread reaches its copy back, so arm it just before the call it targets.
pub fn inject_gpu_failure_on_this_thread() {
    zkntt_gpu::testing::fail_next_copy_back_at(1);
}
