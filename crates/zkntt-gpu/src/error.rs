use cudarc::driver::DriverError;

/// Errors of the GPU runtime. Library code returns these; it never panics on bad input. (An element
/// type without kernels is no error here: the API takes only [`GpuField`](crate::GpuField) types,
/// so it does not compile.)
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No usable GPU: no driver library, no device with that ordinal, or the driver refused.
    #[error("no GPU: {0}")]
    NoDevice(String),
    /// This build has no kernels (nvcc was not found when it was compiled).
    #[error("zkntt kernels were not built into this binary ({note})")]
    KernelsNotBuilt { note: &'static str },
    /// Buffers of different lengths where equal lengths are needed.
    #[error("length mismatch: expected {expected} elements, got {got}")]
    LengthMismatch { expected: usize, got: usize },
    /// Not enough free device memory; nothing was launched.
    #[error("out of device memory: {needed} bytes needed, {free} free")]
    OutOfMemory { needed: usize, free: usize },
    /// A device buffer used with a GPU handle of another device.
    #[error("device buffer belongs to device {buffer}, used with device {gpu}")]
    ContextMismatch { buffer: usize, gpu: usize },
    /// A device buffer of another library that cannot be borrowed (not device memory of this
    /// device, shorter than asked, misaligned): see `DeviceVec::borrow_raw`.
    #[error("device buffer cannot be borrowed: {0}")]
    InvalidBuffer(String),
    /// A configuration the NTT cannot run (length, size, offset).
    #[error(transparent)]
    Config(#[from] zkntt_core::Error),
    /// A CUDA runtime call of the host shim (CUB) failed: its error code and which call, where.
    #[error("CUDA runtime error {code} in the host shim: {message}")]
    Runtime { code: i32, message: String },
    /// A failure injected by a test hook (`testing` feature only), where a driver fault would be.
    #[cfg(feature = "testing")]
    #[error("failure injected by zkntt_gpu::testing: {0}")]
    Injected(&'static str),
    /// A host-to-host call failed after its result had begun to overwrite the caller's memory, and
    /// the input could not be put back: its kept copy was on the device
    /// ([`InputCopy::Device`](crate::host::InputCopy)) and reading it back failed too (the device
    /// was lost). The caller's first `overwritten_elements` elements may hold result (or a mix of
    /// result and input) instead of input; the elements after them hold the input. `error` is the
    /// failure of the call, `restore` that of reading the input back.
    #[error(
        "the input could not be restored: its first {overwritten_elements} elements may hold result \
         instead of input (the call failed: {error}; reading the input back from its device copy \
         failed: {restore})"
    )]
    InputLost {
        overwritten_elements: usize,
        #[source]
        error: Box<Error>,
        restore: Box<Error>,
    },
    /// NCCL (for one transform across several GPUs) could not be loaded: where it was looked
    /// for, and the command that installs it.
    #[error("NCCL is not available: {0}")]
    NcclUnavailable(String),
    /// An NCCL call failed: which, its result code and NCCL's text for it.
    #[error("NCCL error {code} in {op}: {text}")]
    Nccl {
        op: &'static str,
        code: i32,
        text: String,
    },
    /// A set of GPUs that cannot run a job together (none, one listed twice, a count that is not
    /// a power of two for a split transform).
    #[error("unusable set of GPUs: {0}")]
    BadDevices(String),
    /// A call this path does not run (a split transform's batch or layout): what to do instead.
    #[error("not supported here: {0}")]
    Unsupported(String),
    /// A state the library should never reach (a bug): please report it with the message.
    #[error("internal error in zkntt-gpu (a bug, please report): {0}")]
    Internal(String),
    /// Any other driver error, with the operation that hit it.
    #[error("CUDA driver error in {op}: {source}")]
    Driver {
        op: &'static str,
        #[source]
        source: DriverError,
    },
}

impl Error {
    /// A short stable name of the kind of error (`"out-of-memory"`, `"driver:cuMemAlloc"`), for
    /// keys of logs and metrics: equal for errors a caller handles alike.
    pub fn kind(&self) -> String {
        match self {
            Error::NoDevice(_) => "no-device".into(),
            Error::KernelsNotBuilt { .. } => "kernels-not-built".into(),
            Error::LengthMismatch { .. } => "length-mismatch".into(),
            Error::OutOfMemory { .. } => "out-of-memory".into(),
            Error::ContextMismatch { .. } => "context-mismatch".into(),
            Error::InvalidBuffer(_) => "invalid-buffer".into(),
            Error::Config(_) => "config".into(),
            Error::Runtime { code, .. } => format!("runtime:{code}"),
            #[cfg(feature = "testing")]
            Error::Injected(_) => "injected".into(),
            Error::InputLost { .. } => "input-lost".into(),
            Error::NcclUnavailable(_) => "nccl-unavailable".into(),
            Error::Nccl { op, .. } => format!("nccl:{op}"),
            Error::BadDevices(_) => "bad-devices".into(),
            Error::Unsupported(_) => "unsupported".into(),
            Error::Internal(_) => "internal".into(),
            Error::Driver { op, .. } => format!("driver:{op}"),
        }
    }
}

/// Attaches the operation's name to a driver error.
pub(crate) trait DriverContext<T> {
    fn during(self, op: &'static str) -> Result<T, Error>;
}

impl<T> DriverContext<T> for Result<T, DriverError> {
    fn during(self, op: &'static str) -> Result<T, Error> {
        self.map_err(|source| Error::Driver { op, source })
    }
}
