/// Errors of the small-word kernels. Library code returns these; it never panics on bad input.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The transform size is not supported for this field (or by this entry point).
    #[error("NTT of 2^{log_n} unsupported for {field}: at most 2^{max}")]
    SizeUnsupported {
        field: &'static str,
        log_n: u32,
        max: u32,
    },
    /// The buffer's length is not a whole number of transforms.
    #[error("buffer of {len} elements is not a whole number of transforms of 2^{log_n}")]
    NotWholeTransforms { len: usize, log_n: u32 },
    /// Two buffers that must have equal lengths do not.
    #[error("length mismatch: expected {expected} elements, got {got}")]
    LengthMismatch { expected: usize, got: usize },
    /// An input element is not below the bound the operation accepts.
    #[error("element {index} is {value}, not below {bound}")]
    ValueOutOfRange {
        index: usize,
        value: u64,
        bound: u64,
    },
    /// A modulus the modmul forms cannot take (they need an odd modulus below 2^31).
    #[error("modulus {0} unsupported: must be odd, at least 3 and below 2^31")]
    BadModulus(u64),
    /// The modmul form has no kernel for this modulus.
    #[error("no {form} kernel for modulus {q} (kernels exist for {available})")]
    NoKernel {
        form: &'static str,
        q: u32,
        available: &'static str,
    },
    /// The NTT kernel variant has no instance in this modmul form (the ablations exist in one).
    #[error("no {kernel} NTT kernel in the {form} form (it exists in {available})")]
    NoFormKernel {
        kernel: &'static str,
        form: &'static str,
        available: &'static str,
    },
    /// A device address that is null or not 4-byte aligned (`SmallNtt::run_raw`).
    #[error("device address {address:#x} unusable: it must be non-null and 4-byte aligned")]
    BadAddress { address: u64 },
    /// The ordering is not built for this kernel or entry point.
    #[error("{ordering:?} ordering unsupported here: {reason}")]
    OrderingUnsupported {
        ordering: zkntt_gpu::Ordering,
        reason: &'static str,
    },
    /// A stream count of zero (or too many).
    /// One transform's length must be a power of two (the reference NTTs take a whole buffer).
    #[error("length {len} is not a power of two")]
    NotPowerOfTwo { len: usize },

    /// The size is outside what this entry point takes (below its smallest, or above its largest).
    #[error("2^{log_n} is outside {what}'s sizes 2^{min}..2^{max}")]
    SizeOutOfRange {
        what: &'static str,
        log_n: u32,
        min: u32,
        max: u32,
    },

    /// A coset expansion's output must be at least as long as its input.
    #[error("expansion from 2^{log_in} rows to 2^{log_out}: the output must be at least as long")]
    ExpansionShrinks { log_in: u32, log_out: u32 },

    /// A table given to a CPU twin is encoded in another form than the twin's.
    #[error("the {table} table is in the {got} form, the twin runs in {expected}")]
    TableForm {
        table: &'static str,
        got: &'static str,
        expected: &'static str,
    },

    /// `TcFft::run_pass` was asked for a launch that the size does not make.
    #[error("no launch {pass} in a 2^{log_n}-point FFT: it has {passes}")]
    NoSuchPass { pass: u32, passes: u32, log_n: u32 },

    #[error("stream count {0} unsupported: use 1..=64")]
    Streams(usize),
    /// Host memory for the result could not be had.
    #[error("no host memory for a result of {words} words")]
    HostMemory { words: usize },
    /// The GPU runtime: no device, kernels not built, out of memory, a failed driver call.
    #[error(transparent)]
    Gpu(#[from] zkntt_gpu::Error),
}

/// Attaches the operation's name to a driver error, as the runtime's own errors do.
pub(crate) trait DriverContext<T> {
    fn during(self, op: &'static str) -> Result<T, Error>;
}

impl<T> DriverContext<T> for Result<T, cudarc::driver::DriverError> {
    fn during(self, op: &'static str) -> Result<T, Error> {
        self.map_err(|source| zkntt_gpu::Error::Driver { op, source }.into())
    }
}

/// A failed device allocation of `elements` 32-bit words: out of memory where the driver says so.
pub(crate) fn oom(e: cudarc::driver::DriverError, elements: usize) -> Error {
    if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        zkntt_gpu::Error::OutOfMemory {
            needed: elements * 4,
            free: 0,
        }
        .into()
    } else {
        zkntt_gpu::Error::Driver {
            op: "cuMemAlloc",
            source: e,
        }
        .into()
    }
}
