/// Errors of this crate's API. A transform never returns one: it falls back to the CPU and says
/// why in [`last_placement`](crate::last_placement).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// [`install`](crate::install) came after the process-wide GPU context was set: by an earlier
    /// `install`, or by the first GPU-eligible transform (or [`gpu_pipeline`](crate::gpu_pipeline)
    /// call), which opens the device of `ZKNTT_DEVICE`. The context in use stays; `device` is its
    /// ordinal, `None` when the process runs without a GPU. Install before the first transform.
    #[error(
        "zkntt-ark's GPU context is already set ({}); install() must come before the first transform",
        .device.map_or_else(|| "no GPU".to_string(), |d| format!("device {d}"))
    )]
    AlreadyInitialized { device: Option<usize> },
    /// [`install_devices`](crate::install_devices) with no pipeline: the context is left unset.
    #[error("install_devices() needs at least one pipeline")]
    NoPipelines,
}
