//! Interop: a buffer allocated by raw driver calls (as another CUDA library would), borrowed,
//! transformed in place and compared with ark-poly; ours handed out and read back by raw calls;
//! borrows that cannot be made are errors, not undefined behaviour.

use ark_ff::UniformRand;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use cudarc::driver::result::{self, stream::StreamKind};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::{DeviceVec, Error, NttConfig, NttEngine};

type Fr = ark_bn254::Fr;

fn input(n: usize) -> Vec<Fr> {
    let mut rng = StdRng::seed_from_u64(21);
    (0..n).map(|_| Fr::rand(&mut rng)).collect()
}

/// The elements as the u64 limbs the device holds.
fn limbs(x: &[Fr]) -> Vec<u64> {
    x.iter().flat_map(|v| v.0.0).collect()
}

#[test]
fn interop_borrowed_buffer_is_transformed_in_place() {
    let Some(gpu) = gpu_or_skip("interop_borrowed_buffer_is_transformed_in_place") else {
        return;
    };
    let engine = NttEngine::new(gpu.clone());
    for log_n in [1u32, 10, 18] {
        let n = 1usize << log_n;
        let x = input(n);
        let want = Radix2EvaluationDomain::<Fr>::new(n).unwrap().fft(&x);
        gpu.context().bind_to_thread().unwrap();
        // The other library: its own allocation and its own stream.
        // SAFETY: raw driver calls in the bound primary context; sizes match the slices.
        let (ptr, stream) = unsafe {
            let ptr = result::malloc_sync(n * 32).unwrap();
            result::memcpy_htod_sync(ptr, &limbs(&x)).unwrap();
            (
                ptr,
                result::stream::create(StreamKind::NonBlocking).unwrap(),
            )
        };
        {
            // SAFETY: ptr holds n elements in device 0's primary context; nothing else touches it
            // while borrowed; the stream outlives the borrow.
            let mut d = unsafe { DeviceVec::<Fr>::borrow_raw(&gpu, ptr, n, stream.cast()) }
                .expect("a valid buffer is borrowed");
            assert_eq!(d.len(), n);
            assert!(d.is_borrowed());
            engine.ntt_in_place(&mut d, &NttConfig::forward()).unwrap();
        }
        let mut got = vec![0u64; 4 * n];
        // SAFETY: the borrow's drop made `stream` wait for the transform; then a synchronous copy.
        unsafe {
            result::stream::synchronize(stream).unwrap();
            result::memcpy_dtoh_sync(&mut got, ptr).unwrap();
            result::stream::destroy(stream).unwrap();
            result::free_sync(ptr).unwrap();
        }
        assert!(
            got == limbs(&want),
            "2^{log_n}: borrowed buffer differs from ark-poly"
        );
    }
    eprintln!("interop: borrowed buffers at 2^1, 2^10, 2^18 equal ark-poly after the transform");
}

#[test]
fn interop_our_buffer_is_read_by_raw_calls() {
    let Some(gpu) = gpu_or_skip("interop_our_buffer_is_read_by_raw_calls") else {
        return;
    };
    let engine = NttEngine::new(gpu.clone());
    let n = 1 << 12;
    let x = input(n);
    let mut d = DeviceVec::from_host(&gpu, &x).unwrap();
    engine.ntt_in_place(&mut d, &NttConfig::forward()).unwrap();
    let raw = d.as_raw(&gpu).unwrap();
    assert_eq!((raw.len, raw.bytes, raw.ordinal), (n, n * 32, 0));
    let mut got = vec![0u64; 4 * n];
    // SAFETY: the other library's side: wait on the stream it was given, then read the memory.
    unsafe {
        result::stream::synchronize(raw.stream.cast()).unwrap();
        result::memcpy_dtoh_sync(&mut got, raw.ptr).unwrap();
    }
    let want = Radix2EvaluationDomain::<Fr>::new(n).unwrap().fft(&x);
    assert!(
        got == limbs(&want),
        "our buffer read raw differs from ark-poly"
    );
}

#[test]
fn interop_bad_borrows_are_errors() {
    let Some(gpu) = gpu_or_skip("interop_bad_borrows_are_errors") else {
        return;
    };
    gpu.context().bind_to_thread().unwrap();
    let n = 64;
    // SAFETY: a raw allocation of n elements, freed below.
    let ptr = unsafe { result::malloc_sync(n * 32).unwrap() };
    let null = std::ptr::null_mut();
    let host = vec![0u64; 4 * n];
    for (what, p, len) in [
        ("longer than the allocation", ptr, n + 1),
        ("misaligned", ptr + 8, 1),
        ("host memory", host.as_ptr() as u64, n),
    ] {
        // SAFETY: the borrows are refused before anything uses the memory.
        let r = unsafe { DeviceVec::<Fr>::borrow_raw(&gpu, p, len, null) };
        assert!(
            matches!(r, Err(Error::InvalidBuffer(_))),
            "{what}: {:?}",
            r.map(|_| ())
        );
    }
    // SAFETY: allocated above, no longer used.
    unsafe { result::free_sync(ptr).unwrap() };
}
