#![doc = include_str!("../README.md")]

include!(concat!(env!("OUT_DIR"), "/kernels.rs"));

pub mod names;

/// Whether the kernels were compiled into this build.
pub fn built() -> bool {
    FATBIN.is_some()
}

/// The host shim (`cuda/**/*.host.cu`): CUB's device-wide algorithms, called from the host on the
/// caller's stream. Present when the kernels were built; otherwise every call says so.
pub mod host {
    use std::ffi::{CStr, c_char, c_void};

    #[cfg(zkntt_host_built)]
    unsafe extern "C" {
        fn zkntt_powers_bn254_fr(
            out: *mut c_void,
            c: *const c_void,
            x: *const c_void,
            n: u64,
            stream: *mut c_void,
        ) -> i32;
        fn zkntt_powers_bls12_381_fr(
            out: *mut c_void,
            c: *const c_void,
            x: *const c_void,
            n: u64,
            stream: *mut c_void,
        ) -> i32;
        fn zkntt_host_last_error() -> *const c_char;
    }

    /// A failed shim call: the CUDA runtime's error code (0 = the shim is not built) and which call
    /// failed, where.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct HostError {
        pub code: i32,
        pub message: String,
    }

    /// `out[i] = c * x^i` for `i < n`, on `stream`: `[c, x, x, ..., x]` by
    /// `cub::DeviceCopy::Batched`, then `cub::DeviceScan::InclusiveScan` with Montgomery
    /// multiplication.
    ///
    /// # Safety
    /// `out` is device memory of `n` elements of the field `field` (`"bn254_fr"` or
    /// `"bls12_381_fr"`), `c` and `x` point to one element of it each in host memory (Montgomery
    /// form), and `stream` is a live CUDA stream of the current context.
    pub unsafe fn powers(
        field: &str,
        out: *mut c_void,
        c: *const c_void,
        x: *const c_void,
        n: u64,
        stream: *mut c_void,
    ) -> Result<(), HostError> {
        #[cfg(zkntt_host_built)]
        {
            // SAFETY: the caller's contract is the shim's.
            let code = unsafe {
                match field {
                    "bn254_fr" => zkntt_powers_bn254_fr(out, c, x, n, stream),
                    "bls12_381_fr" => zkntt_powers_bls12_381_fr(out, c, x, n, stream),
                    other => {
                        return Err(HostError {
                            code: -1,
                            message: format!("no shim for field {other}"),
                        });
                    }
                }
            };
            if code == 0 {
                return Ok(());
            }
            // SAFETY: the shim returns a NUL-terminated thread-local buffer.
            let message = unsafe { CStr::from_ptr(zkntt_host_last_error()) }
                .to_string_lossy()
                .into_owned();
            Err(HostError { code, message })
        }
        #[cfg(not(zkntt_host_built))]
        {
            let _ = (field, out, c, x, n, stream);
            let _: Option<&CStr> = None;
            let _: *const c_char = std::ptr::null();
            Err(HostError {
                code: 0,
                message: crate::BUILD_NOTE.to_string(),
            })
        }
    }
}
