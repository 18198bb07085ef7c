//! Device buffers shared with other CUDA libraries without a host round trip: a buffer another
//! library owns, borrowed as a [`DeviceVec`] so the engine transforms it in place
//! ([`DeviceVec::borrow_raw`]), and ours handed out as a raw pointer, a length and the stream its
//! work is ordered on ([`DeviceVec::as_raw`]).
//!
//! ```no_run
//! use ark_bn254::Fr;
//! use zkntt_gpu::{DeviceVec, Gpu, NttConfig, NttEngine};
//!
//! # fn other_library_buffer() -> (u64, usize, *mut std::ffi::c_void) { unimplemented!() }
//! let engine = NttEngine::new(Gpu::new(0)?);
//! // A buffer of n BN254 elements (Montgomery form) that another library allocated with
//! // cudaMalloc on device 0, with its work queued on `stream`.
//! let (ptr, n, stream) = other_library_buffer();
//! {
//!     // SAFETY: the contract of `borrow_raw`: ptr holds n elements in device 0's primary
//!     // context, and nothing touches it but through `stream` until the borrow is dropped.
//!     let mut data = unsafe { DeviceVec::<Fr>::borrow_raw(engine.gpu(), ptr, n, stream)? };
//!     engine.ntt_in_place(&mut data, &NttConfig::forward())?;
//! } // dropped: `stream` now waits for the transform; the memory stays the owner's
//! # Ok::<(), zkntt_gpu::Error>(())
//! ```

use crate::error::DriverContext;
use crate::{DeviceVec, Error, Gpu, Result};
use cudarc::driver::sys::{self, CUpointer_attribute};
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use zkntt_core::GpuField;

/// A [`DeviceVec`] over device memory another library owns (see [`DeviceVec::borrow_raw`]). It
/// derefs to the `DeviceVec`, so every engine and field operation takes it. Dropping it frees
/// nothing: it makes the owner's stream wait for the work queued on the buffer, and gives the
/// memory back.
#[derive(Debug)]
pub struct BorrowedDeviceVec<'a, F: GpuField> {
    /// Marked foreign: its drop leaks the memory instead of freeing it.
    inner: DeviceVec<F>,
    /// The borrow stands for exclusive access to the owner's memory for `'a`.
    _owner: PhantomData<&'a mut [F]>,
}

impl<F: GpuField> Deref for BorrowedDeviceVec<'_, F> {
    type Target = DeviceVec<F>;
    fn deref(&self) -> &DeviceVec<F> {
        &self.inner
    }
}

impl<F: GpuField> DerefMut for BorrowedDeviceVec<'_, F> {
    fn deref_mut(&mut self) -> &mut DeviceVec<F> {
        &mut self.inner
    }
}

/// A buffer of ours as other CUDA code sees it ([`DeviceVec::as_raw`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawDeviceBuffer {
    /// Device address of element 0 (a `CUdeviceptr`; a `void*` for the runtime API), in the
    /// primary context of device `ordinal`.
    pub ptr: u64,
    /// Number of field elements.
    pub len: usize,
    /// Bytes: `len` x 32.
    pub bytes: usize,
    /// The CUDA device.
    pub ordinal: usize,
    /// The stream (`CUstream` / `cudaStream_t`) on which every use of the buffer so far is queued.
    pub stream: *mut c_void,
}

impl<F: GpuField> DeviceVec<F> {
    /// Borrows `len` elements of `F` at device address `ptr`, memory another CUDA library owns,
    /// as a `DeviceVec` whose first use waits for the work queued on `stream`, the owner's stream.
    /// The engine then transforms it in place, on `gpu`'s stream; when the borrow is dropped,
    /// `stream` waits for that work, so the owner's next call on `stream` sees the result. The
    /// memory is never freed here.
    ///
    /// Checked, with an error before anything is queued: the address is device memory of `gpu`'s
    /// device (the driver's pointer attributes), its allocation holds `len` elements from `ptr`,
    /// and `ptr` is 32-byte aligned (one element).
    ///
    /// # Safety
    /// - `ptr` is device memory in the primary context of `gpu`'s device (what the CUDA runtime
    ///   API, `cudaMalloc`, and most libraries use), valid for `len * 32` bytes for as long as the
    ///   returned borrow lives (its lifetime `'a` is the caller's to choose: keep the owner alive).
    /// - The bytes are `len` elements of `F` in ark-ff's layout (Montgomery form, four
    ///   little-endian u64 limbs each) whenever zkntt reads them.
    /// - `stream` is a live stream of that context (or null, the legacy default stream) that
    ///   outlives the borrow, and all other work on the memory is ordered through it: nothing
    ///   reads or writes the memory on another stream or from the host while the borrow lives,
    ///   unless it first synchronises with `gpu`'s stream.
    /// - The `DeviceVec` is not moved out of the borrow (`std::mem::swap` or `replace` through
    ///   its `&mut`), where it could outlive `'a`. (Wherever it goes, its memory is never freed
    ///   here.)
    pub unsafe fn borrow_raw<'a>(
        gpu: &Gpu,
        ptr: u64,
        len: usize,
        stream: *mut c_void,
    ) -> Result<BorrowedDeviceVec<'a, F>> {
        let bytes = len.checked_mul(F::ID.element_bytes()).ok_or_else(|| {
            Error::InvalidBuffer(format!("{len} elements do not fit in an address space"))
        })?;
        if ptr % 32 != 0 {
            return Err(Error::InvalidBuffer(format!(
                "address {ptr:#x} is not aligned to 32 bytes (one element)"
            )));
        }
        gpu.context().bind_to_thread().during("cuCtxSetCurrent")?;
        let ordinal = attribute(
            ptr,
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        )
        .map_err(|e| {
            Error::InvalidBuffer(format!("address {ptr:#x} is not device memory ({e})"))
        })?;
        if ordinal as usize != gpu.ordinal() {
            return Err(Error::ContextMismatch {
                buffer: ordinal as usize,
                gpu: gpu.ordinal(),
            });
        }
        let start = attribute(
            ptr,
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        )?;
        let size = attribute(ptr, CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_SIZE)?;
        let room = (start + size).saturating_sub(ptr);
        if (bytes as u64) > room {
            return Err(Error::InvalidBuffer(format!(
                "{len} elements ({bytes} bytes) from {ptr:#x}, but its allocation ends {room} bytes later"
            )));
        }
        // SAFETY: the caller guarantees the stream is live in this context and outlives the
        // wrapper (which never destroys it); ordering through it is what the contract says.
        let owner = unsafe { gpu.context().wrap_borrowed_stream(stream as sys::CUstream) };
        // SAFETY: the allocation holds the bytes (checked above, and the caller's contract for
        // the lifetime); the slice is leaked, never freed, in `into_foreign`.
        let buf = unsafe { owner.upgrade_device_ptr::<u64>(ptr, len * 4) };
        Ok(BorrowedDeviceVec {
            inner: DeviceVec::from_foreign(buf, ptr, len, owner),
            _owner: PhantomData,
        })
    }

    /// This buffer for other CUDA code: its address, length and the stream its work is queued on
    /// (`gpu`'s, which first waits for work other handles queued on it). Code that reads or
    /// writes the memory must queue on that stream, or synchronise with it first, and finish
    /// before the buffer is used through zkntt again or dropped (the memory is freed with it).
    pub fn as_raw(&self, gpu: &Gpu) -> Result<RawDeviceBuffer> {
        self.check(gpu, self.len())?;
        let ptr = self.device_ptr(gpu)?;
        Ok(RawDeviceBuffer {
            ptr,
            len: self.len(),
            bytes: self.num_bytes(),
            ordinal: gpu.ordinal(),
            stream: gpu.stream().cu_stream().cast(),
        })
    }
}

/// One `cuPointerGetAttribute` value that fits in a u64.
fn attribute(ptr: u64, attr: CUpointer_attribute) -> Result<u64> {
    let mut value = 0u64;
    // SAFETY: each attribute asked here is written as at most 8 bytes (an int or a CUdeviceptr
    // or a size_t) into the live local.
    unsafe { sys::cuPointerGetAttribute((&mut value as *mut u64).cast(), attr, ptr) }
        .result()
        .during("cuPointerGetAttribute")?;
    Ok(value)
}
