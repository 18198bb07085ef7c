use crate::error::DriverContext;
use crate::{Error, Gpu, Result};
use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaSlice, CudaStream, DriverError};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::sync::{Arc, Mutex};
use zkntt_core::{FieldId, GpuField};

/// Device memory holding `len` elements of the field `F`, freed on drop.
///
/// The bytes are the elements' in-memory representation (Montgomery limbs for ark-ff fields), so
/// copies in and out need no conversion. Only fields with kernels ([`GpuField`]: BN254 Fr and
/// BLS12-381 Fr) can be stored; any other element type is a compile error:
///
/// ```compile_fail
/// use zkntt_gpu::{DeviceVec, Gpu};
///
/// let gpu = Gpu::new(0)?;
/// let fq = vec![ark_bn254::Fq::from(1u64); 4]; // the base field: no kernels
/// let d: DeviceVec<ark_bn254::Fq> = DeviceVec::from_host(&gpu, &fq)?;
/// # Ok::<(), zkntt_gpu::Error>(())
/// ```
///
/// ```compile_fail
/// use zkntt_gpu::{DeviceVec, Gpu};
///
/// let gpu = Gpu::new(0)?;
/// let words = DeviceVec::<u64>::zeros(&gpu, 4)?; // not a field
/// # Ok::<(), zkntt_gpu::Error>(())
/// ```
///
/// A buffer remembers the streams of the work queued on it. Every use through a [`Gpu`] handle
/// whose stream is another (a second `Gpu::new` of the same device, or a clone's engine) first
/// makes that stream wait for them, so a transform queued through one handle is always seen by a
/// read through another: uses are ordered as they are made, whatever the handles. Reads through
/// several handles at once (threads sharing `&DeviceVec`) all stay remembered until a use that
/// holds the buffer alone (`&mut`), which waits for every one of them.
#[derive(Debug)]
pub struct DeviceVec<F: GpuField> {
    /// Taken out in `Drop` (freed, or leaked when `foreign`) and in `into_buf`.
    pub(crate) buf: ManuallyDrop<CudaSlice<u64>>,
    /// `buf`'s device address, read once: kernel launches take it without cudarc's per-use event
    /// calls (a wait and a record on every call), the order being `users`'.
    ptr: u64,
    len: usize,
    /// The streams that may have work queued on the buffer: since the last use through `&mut`
    /// (which leaves its own alone), every stream a shared use came from. A shared use cannot
    /// drop another's stream: that use may not have queued its work yet.
    users: Mutex<Vec<Arc<CudaStream>>>,
    /// Memory another library owns (`DeviceVec::borrow_raw`): never freed here, wherever the
    /// value ends up.
    foreign: bool,
    _f: PhantomData<F>,
}

/// `F`'s elements as 64-bit words: zkntt-core's `GpuField` impls assert at compile time that
/// those types are exactly their four limbs.
pub(crate) fn words<F: GpuField>(s: &[F]) -> &[u64] {
    debug_assert_eq!(std::mem::size_of::<F>(), F::ID.element_bytes());
    // SAFETY: F is a GpuField (sealed: one of the field types whose size (32) and alignment (8)
    // are asserted in zkntt-core); its bytes are four initialised u64 limbs. The slice covers
    // `s`'s elements and borrows `s`.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u64>(), s.len() * 4) }
}

/// `words` for writing. The words are derived from the one pointer `s.as_mut_ptr()`, and borrow
/// `s` mutably: pointers taken from the result (the host pipeline reads its input and writes its
/// result through one) stay valid until `s` is used again.
pub(crate) fn words_mut<F: GpuField>(s: &mut [F]) -> &mut [u64] {
    // SAFETY: as in `words`; every u64 bit pattern written back came from a valid element of the
    // same field (the kernels write canonical Montgomery form).
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u64>(), s.len() * 4) }
}

/// `len` elements from their `4 * len` words, reusing the allocation.
pub(crate) fn words_into_elements<F: GpuField>(words_vec: Vec<u64>, len: usize) -> Vec<F> {
    debug_assert_eq!(words_vec.len(), len * 4);
    if words_vec.capacity() != len * 4 {
        // A vector with spare capacity: read element by element.
        let words = words_vec.as_slice();
        return (0..len)
            // SAFETY: four initialised words per element; F is exactly four u64 limbs for which
            // every bit pattern is a value (as in `words`).
            .map(|i| unsafe { std::ptr::read_unaligned(words[i * 4..].as_ptr().cast::<F>()) })
            .collect();
    }
    let mut w = std::mem::ManuallyDrop::new(words_vec);
    // SAFETY: the allocation holds exactly `len` x 32 bytes with alignment 8 (u64's), which is
    // F's size x capacity and F's alignment; every element's four words are initialised; the
    // vector `w` is never dropped, so the allocation has one owner.
    unsafe { Vec::from_raw_parts(w.as_mut_ptr().cast::<F>(), len, len) }
}

/// `OutOfMemory` before asking the driver when the device plainly lacks the room (a failed
/// allocation is an API error that tools such as compute-sanitizer report).
pub(crate) fn check_room(gpu: &Gpu, needed: usize) -> Result<()> {
    let (free, _) = gpu.memory()?;
    if needed > free {
        return Err(Error::OutOfMemory { needed, free });
    }
    Ok(())
}

/// Turns an allocation failure into `OutOfMemory` with the sizes.
pub(crate) fn alloc_error(gpu: &Gpu, needed: usize, e: DriverError) -> Error {
    if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        let free = gpu.memory().map(|(free, _)| free).unwrap_or(0);
        Error::OutOfMemory { needed, free }
    } else {
        Error::Driver {
            op: "cuMemAlloc",
            source: e,
        }
    }
}

impl<F: GpuField> DeviceVec<F> {
    /// `len` zero elements (all-zero bytes are zero in Montgomery form).
    pub fn zeros(gpu: &Gpu, len: usize) -> Result<Self> {
        let words = len.checked_mul(4).ok_or(Error::OutOfMemory {
            needed: usize::MAX,
            free: 0,
        })?;
        check_room(gpu, words * 8)?;
        let buf = gpu
            .stream()
            .alloc_zeros::<u64>(words)
            .map_err(|e| alloc_error(gpu, words * 8, e))?;
        Ok(Self {
            ptr: address(&buf),
            buf: ManuallyDrop::new(buf),
            len,
            users: Mutex::new(vec![gpu.stream().clone()]),
            foreign: false,
            _f: PhantomData,
        })
    }

    /// `len` elements whose contents are unspecified until written: for buffers that a copy or a
    /// kernel fills completely before anything reads them (the host pipeline's device slots).
    pub(crate) fn uninit(gpu: &Gpu, len: usize) -> Result<Self> {
        let words = len.checked_mul(4).ok_or(Error::OutOfMemory {
            needed: usize::MAX,
            free: 0,
        })?;
        let buf = unsafe_alloc(gpu, words)?;
        Ok(Self {
            ptr: address(&buf),
            buf: ManuallyDrop::new(buf),
            len,
            users: Mutex::new(vec![gpu.stream().clone()]),
            foreign: false,
            _f: PhantomData,
        })
    }

    /// A buffer of `len` elements around device memory of `4 * len` words, last used on `gpu`'s
    /// stream (the host pipeline's pool of device slots hands them from call to call).
    pub(crate) fn from_parts(gpu: &Gpu, buf: CudaSlice<u64>, len: usize) -> Self {
        debug_assert_eq!(buf.len(), len * 4);
        Self {
            ptr: address(&buf),
            buf: ManuallyDrop::new(buf),
            len,
            users: Mutex::new(vec![gpu.stream().clone()]),
            foreign: false,
            _f: PhantomData,
        }
    }

    /// A buffer around `buf` at `ptr`, memory another library allocated, last used on `stream`
    /// (which `buf` was upgraded on, so `settle` orders that stream after our work). See `interop`.
    pub(crate) fn from_foreign(
        buf: CudaSlice<u64>,
        ptr: u64,
        len: usize,
        stream: Arc<CudaStream>,
    ) -> Self {
        debug_assert_eq!(buf.len(), len * 4);
        Self {
            ptr,
            buf: ManuallyDrop::new(buf),
            len,
            users: Mutex::new(vec![stream]),
            foreign: true,
            _f: PhantomData,
        }
    }

    /// Whether the memory is another library's (`DeviceVec::borrow_raw`).
    pub fn is_borrowed(&self) -> bool {
        self.foreign
    }

    /// The device memory, for the pool (its own stream ordered after the buffer's last use).
    /// Only for buffers we own: the pool frees what it holds.
    pub(crate) fn into_buf(self) -> CudaSlice<u64> {
        debug_assert!(!self.foreign);
        self.settle();
        let mut this = ManuallyDrop::new(self);
        // SAFETY: each field is taken out once and `this` is never dropped; `len`, `foreign` and
        // the PhantomData need no drop.
        unsafe {
            drop(std::ptr::read(&this.users));
            ManuallyDrop::take(&mut this.buf)
        }
    }

    /// A copy of `host` on the device.
    pub fn from_host(gpu: &Gpu, host: &[F]) -> Result<Self> {
        let words = words(host);
        let mut buf = unsafe_alloc(gpu, words.len())?;
        gpu.stream()
            .memcpy_htod(words, &mut buf)
            .during("memcpy host to device")?;
        Ok(Self {
            ptr: address(&buf),
            buf: ManuallyDrop::new(buf),
            len: host.len(),
            users: Mutex::new(vec![gpu.stream().clone()]),
            foreign: false,
            _f: PhantomData,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of device memory held.
    pub fn num_bytes(&self) -> usize {
        self.len * 32
    }

    /// The device this buffer lives on.
    pub fn ordinal(&self) -> usize {
        self.buf.ordinal()
    }

    /// Overwrites the buffer with `host`, which must have the same length.
    pub fn copy_from_host(&mut self, gpu: &Gpu, host: &[F]) -> Result<()> {
        self.check_host(gpu, host.len())?;
        self.order_on(gpu)?;
        gpu.stream()
            .memcpy_htod(words(host), &mut *self.buf)
            .during("memcpy host to device")
    }

    /// Copies the buffer into `host`, which must have the same length. Waits for the copy.
    pub fn copy_to_host(&self, gpu: &Gpu, host: &mut [F]) -> Result<()> {
        self.check_host(gpu, host.len())?;
        self.order_on(gpu)?;
        gpu.stream()
            .memcpy_dtoh(&*self.buf, words_mut(host))
            .during("memcpy device to host")?;
        gpu.synchronize()
    }

    /// The buffer's contents as a new vector.
    pub fn to_host(&self, gpu: &Gpu) -> Result<Vec<F>> {
        self.check(gpu, self.len)?;
        self.order_on(gpu)?;
        let words = gpu
            .stream()
            .clone_dtoh(&*self.buf)
            .during("memcpy device to host")?;
        gpu.synchronize()?;
        Ok(words_into_elements(words, self.len))
    }

    /// The field of the elements (`F::ID`).
    pub fn field(&self) -> FieldId {
        F::ID
    }

    /// The raw device address of element 0: for kernel parameters, and for handing the buffer to
    /// other CUDA code in the same context (benchmarks against other libraries). The buffer must
    /// outlive that use, and the other code must run on `gpu`'s stream (which waits here for the
    /// work other handles queued on the buffer) and be queued before the buffer's next use
    /// through `&mut` (which waits only for what `gpu`'s stream holds by then).
    pub fn device_ptr(&self, gpu: &Gpu) -> Result<u64> {
        self.check(gpu, self.len)?;
        self.order_on(gpu)?;
        Ok(self.raw_ptr())
    }

    /// The address without ordering: for launches on a stream already ordered after the buffer
    /// ([`Self::order_on`]).
    pub(crate) fn raw_ptr(&self) -> u64 {
        self.ptr
    }

    /// Makes `gpu`'s stream wait for the work queued on this buffer on the other streams that
    /// used it, and adds `gpu`'s stream to them. Uses on one stream need no wait.
    pub(crate) fn order_on(&self, gpu: &Gpu) -> Result<()> {
        let mut users = self.users.lock().unwrap_or_else(|p| p.into_inner());
        wait_for_others(&users, gpu.stream())?;
        if !users.iter().any(|s| Arc::ptr_eq(s, gpu.stream())) {
            users.push(gpu.stream().clone());
        }
        Ok(())
    }

    /// [`order_on`](Self::order_on) for a use that holds the buffer alone: every earlier use has
    /// queued its work, so after the wait `gpu`'s stream is the only one to remember.
    pub(crate) fn order_on_exclusive(&mut self, gpu: &Gpu) -> Result<()> {
        let users = self.users.get_mut().unwrap_or_else(|p| p.into_inner());
        wait_for_others(users, gpu.stream())?;
        users.clear();
        users.push(gpu.stream().clone());
        Ok(())
    }

    /// Checks that this buffer can be used with `gpu` and that a host slice of `host_len`
    /// elements matches it (the buffer's length is the one expected of the slice).
    fn check_host(&self, gpu: &Gpu, host_len: usize) -> Result<()> {
        self.check(gpu, self.len)?;
        if host_len != self.len {
            return Err(Error::LengthMismatch {
                expected: self.len,
                got: host_len,
            });
        }
        Ok(())
    }

    /// Checks that this buffer can be used with `gpu` and has `expected` elements.
    pub(crate) fn check(&self, gpu: &Gpu, expected: usize) -> Result<()> {
        if self.ordinal() != gpu.ordinal() {
            return Err(Error::ContextMismatch {
                buffer: self.ordinal(),
                gpu: gpu.ordinal(),
            });
        }
        if self.len != expected {
            return Err(Error::LengthMismatch {
                expected,
                got: self.len,
            });
        }
        Ok(())
    }
}

impl<F: GpuField> DeviceVec<F> {
    /// Makes the stream the memory was allocated on (where it is freed) wait for the buffer's last
    /// use on another stream, so that the free never overtakes work queued through another handle.
    fn settle(&self) {
        let users = self.users.lock().unwrap_or_else(|p| p.into_inner());
        // Errors are ignored: a context that fails here has failed the work it waits for.
        let _ = wait_for_others(&users, self.buf.stream());
    }
}

impl<F: GpuField> Drop for DeviceVec<F> {
    fn drop(&mut self) {
        self.settle();
        // SAFETY: taken once, here; the field is not used again.
        let buf = unsafe { ManuallyDrop::take(&mut self.buf) };
        if self.foreign {
            // Another library's memory: its stream now waits for our work (`settle`); not freed.
            let _ = buf.leak();
        } else {
            drop(buf); // freed, stream-ordered, on the stream it was allocated on
        }
    }
}

/// Makes `stream` wait for the work queued so far on each of `users` that is not `stream`.
fn wait_for_others(users: &[Arc<CudaStream>], stream: &Arc<CudaStream>) -> Result<()> {
    for other in users.iter().filter(|s| !Arc::ptr_eq(s, stream)) {
        let done = other.record_event(None).during("cuEventRecord")?;
        stream.wait(&done).during("cuStreamWaitEvent")?;
    }
    Ok(())
}

/// A slice's device address. cudarc records a read on the slice's own stream here, once; later
/// launches through [`DeviceVec::raw_ptr`] are ordered by the buffer's `users` (and the
/// slice's own stream waits for it before a free or a return to a pool: `settle`).
fn address(buf: &CudaSlice<u64>) -> u64 {
    use cudarc::driver::DevicePtr;
    let (ptr, _record) = buf.device_ptr(buf.stream());
    ptr
}

fn unsafe_alloc(gpu: &Gpu, words: usize) -> Result<CudaSlice<u64>> {
    check_room(gpu, words * 8)?;
    // SAFETY: the memory is fully overwritten by the copy that follows before anything reads it.
    unsafe { gpu.stream().alloc::<u64>(words) }.map_err(|e| alloc_error(gpu, words * 8, e))
}

#[cfg(test)]
mod words_tests {
    use super::*;
    use ark_bn254::Fr;

    // `words_into_elements` is the inverse of `words`.
    #[test]
    fn words_become_the_same_elements() {
        let v: Vec<Fr> = (0..37u64).map(|i| Fr::from(i * i + 5)).collect();
        let w = words(&v).to_vec();
        assert_eq!(words_into_elements::<Fr>(w.clone(), v.len()), v);
        let mut spare = Vec::with_capacity(w.len() + 8);
        spare.extend_from_slice(&w);
        assert_eq!(words_into_elements::<Fr>(spare, v.len()), v);
    }
}
