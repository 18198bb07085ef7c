//! Where a call keeps its input until its result is complete ([`InputCopy`], [`Input`]), and how
//! a failed run puts it back ([`failed`]).

use super::copy::par_copy;
use super::cut::WORDS_PER_ELEMENT;
use crate::device_vec::words_mut;
use crate::error::DriverContext;
use crate::{Error, Result};
use cudarc::driver::CudaStream;
use cudarc::driver::sys;
use std::sync::Arc;
use zkntt_core::GpuField;

/// Where a streamed call (one larger than the pinned limit) keeps its input until its result is
/// complete, to put it back if the call fails while writing the result (module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum InputCopy {
    /// In pageable host memory, written by the copy workers beside the pinned staging (host memory
    /// of the call's size, held for the next streamed call until
    /// [`HostPipeline::release_host`](super::HostPipeline::release_host)).
    #[default]
    Host,
    /// In device memory of the call's size, filled by device-to-device copies: no host memory and
    /// no second host copy, but a device lost during the call loses the input
    /// ([`Error::InputLost`]). Falls back to `Host` for a call when the device has no room.
    Device,
}

/// Where a call's input is staged, and kept until its result is complete.
pub(crate) enum Input<'a> {
    /// All of the input in pinned memory, in the caller's layout: staging and kept copy at once.
    Image(&'a mut [u64]),
    /// A streamed call: pinned staging `slots` (chunked calls; column-range calls stage in the
    /// ring), and the kept copy, in the caller's layout.
    Streamed {
        slots: &'a mut [u64],
        keep: Keep<'a>,
    },
}

/// Where a streamed call keeps its input ([`InputCopy`]).
pub(crate) enum Keep<'a> {
    /// Pageable memory, written by the copy workers beside the staging.
    Host(&'a mut [u64]),
    /// Device memory of the call's size (its address), written by device-to-device copies on
    /// the compute stream once each part has arrived and before any kernel touches that part.
    Device(u64),
}

impl<'a> Keep<'a> {
    /// The first `words` words (a device copy is exactly the call's size).
    pub(super) fn prefix(self, words: usize) -> Self {
        match self {
            Keep::Host(keep) => Keep::Host(&mut keep[..words]),
            device => device,
        }
    }
}

impl Input<'_> {
    /// The address of the device copy of the input, if it is kept there.
    pub(super) fn device_copy(&self) -> Option<u64> {
        match self {
            Input::Streamed {
                keep: Keep::Device(at),
                ..
            } => Some(*at),
            _ => None,
        }
    }

    /// Puts the input's first `dst.len()` words back into `dst` (the caller's memory). From a
    /// device copy: one download on `comp`, the stream that wrote the copy (so it is ordered after
    /// it), waited for; it fails if the device is lost (`fail`: the test hook's injected failure).
    fn restore(&self, dst: &mut [u64], comp: &CudaStream, fail: bool) -> Result<()> {
        let words = dst.len();
        match self {
            Input::Image(image) => par_copy(dst, &image[..words]),
            Input::Streamed {
                keep: Keep::Host(keep),
                ..
            } => par_copy(dst, &keep[..words]),
            &Input::Streamed {
                keep: Keep::Device(at),
                ..
            } => {
                if fail {
                    return Err(injected_restore());
                }
                comp.context().bind_to_thread().during("cuCtxSetCurrent")?;
                // SAFETY: the device copy holds at least `words` words (the call's size) and is
                // alive until the call returns; `dst` is the caller's memory, which nothing else
                // touches now, and the copy has completed when `synchronize` returns.
                unsafe {
                    sys::cuMemcpyDtoHAsync_v2(
                        dst.as_mut_ptr().cast(),
                        at,
                        words * 8,
                        comp.cu_stream(),
                    )
                }
                .result()
                .during("cuMemcpyDtoHAsync (the input from its device copy)")?;
                comp.synchronize()
                    .during("the input from its device copy")?;
            }
        }
        Ok(())
    }
}

/// A failed pipeline run: the error, and whether every stream was seen idle afterwards (only then
/// may the pinned buffer be used again).
pub(crate) struct Failure {
    pub(super) error: Error,
    pub(super) quiet: bool,
}

/// A failed run: the first `restore` words of `data` (those overwritten, a prefix) are put back
/// from the input's kept copy, then the streams (`[in, out, compute]`) are waited for; the
/// [`Failure`] is quiet when all of them settle (only then may the pinned buffer be used again).
/// When the input cannot be put back (its device copy is lost with the device), the error is
/// [`Error::InputLost`].
pub(super) fn failed<F: GpuField>(
    error: Error,
    data: &mut [F],
    input: &Input<'_>,
    restore: usize,
    streams: [&Arc<CudaStream>; 3],
    fail_restore: bool,
) -> Failure {
    let mut error = error;
    if restore > 0 {
        let dst = words_mut(data);
        if let Err(lost) = input.restore(&mut dst[..restore], streams[2], fail_restore) {
            error = Error::InputLost {
                overwritten_elements: restore.div_ceil(WORDS_PER_ELEMENT),
                error: Box::new(error),
                restore: Box::new(lost),
            };
        }
    }
    let quiet = streams.iter().all(|s| s.synchronize().is_ok());
    Failure { error, quiet }
}

#[cfg(feature = "testing")]
pub(super) fn injected() -> Error {
    Error::Injected("a failure while copying the result back")
}

#[cfg(not(feature = "testing"))]
pub(super) fn injected() -> Error {
    Error::Internal("a copy-back failure was injected without the testing feature".into())
}

#[cfg(feature = "testing")]
fn injected_restore() -> Error {
    Error::Injected("a failure while restoring the input from its device copy")
}

#[cfg(not(feature = "testing"))]
fn injected_restore() -> Error {
    Error::Internal("a restore failure was injected without the testing feature".into())
}
