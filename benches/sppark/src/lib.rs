//! sppark's BN254 and BabyBear NTTs, device-resident, timed with CUDA events on sppark's stream.
//! Bench-only.

// sppark's `sppark_cuda` library (select_gpu, gpu_props) is linked only if the crate is used.
use sppark as _;

#[cfg(zkntt_sppark)]
unsafe extern "C" {
    fn zkntt_sppark_bn254_ntt(
        d_inout: *mut std::ffi::c_void,
        lg_n: u32,
        order: i32,
        inverse: i32,
        coset: i32,
        ms: *mut f32,
        host_ms: *mut f32,
        reps: i32,
    ) -> i32;
    fn zkntt_sppark_babybear_ntt(
        d_inout: *mut std::ffi::c_void,
        lg_n: u32,
        order: i32,
        ms: *mut f32,
        reps: i32,
    ) -> i32;
}

/// Input/output order, as sppark names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    NN = 0,
    NR = 1,
    RN = 2,
}

fn result<T>(code: i32, ok: T) -> Result<T, i32> {
    if code == 0 { Ok(ok) } else { Err(code) }
}

/// sppark's BN254 Fr NTT.
pub mod bn254 {
    use super::{Order, result};

    /// Per-run milliseconds of [`ntt_device`]: by CUDA events on sppark's stream (`ms`), and the
    /// host's wall clock for the call that queues the run (`host_ms`: near `ms`, the run was
    /// bound by its launches, not by the GPU).
    #[derive(Debug, Clone, PartialEq)]
    pub struct Runs {
        pub ms: Vec<f32>,
        pub host_ms: Vec<f32>,
    }

    /// Runs `reps` NTTs of 2^lg_n on the device buffer after a warm-up; each one's milliseconds by
    /// events and on the host ([`Runs`]). `Err(-1)` when the bridge was built without sppark
    /// (ZKNTT_SPPARK unset at build time), else the CUDA error code.
    ///
    /// # Safety
    /// `d_inout` is device memory of the current (primary) context holding 2^lg_n BN254 Fr
    /// elements.
    pub unsafe fn ntt_device(
        d_inout: u64,
        lg_n: u32,
        order: Order,
        inverse: bool,
        coset: bool,
        reps: usize,
    ) -> Result<Runs, i32> {
        let mut runs = Runs {
            ms: vec![0f32; reps],
            host_ms: vec![0f32; reps],
        };
        // SAFETY: the caller's contract; both vectors hold `reps` floats.
        let code = unsafe {
            run(
                d_inout,
                lg_n,
                [order as i32, inverse as i32, coset as i32],
                &mut runs,
            )
        };
        result(code, runs)
    }

    #[cfg(zkntt_sppark)]
    unsafe fn run(d: u64, lg_n: u32, [order, inverse, coset]: [i32; 3], runs: &mut Runs) -> i32 {
        // SAFETY: forwarded from `ntt_device`.
        unsafe {
            super::zkntt_sppark_bn254_ntt(
                d as *mut std::ffi::c_void,
                lg_n,
                order,
                inverse,
                coset,
                runs.ms.as_mut_ptr(),
                runs.host_ms.as_mut_ptr(),
                runs.ms.len() as i32,
            )
        }
    }

    #[cfg(not(zkntt_sppark))]
    unsafe fn run(_: u64, _: u32, _: [i32; 3], _: &mut Runs) -> i32 {
        -1
    }
}

/// sppark's BabyBear NTT.
pub mod babybear {
    use super::{Order, result};

    /// Runs `reps` forward NTTs of 2^lg_n on the device buffer after a warm-up; each one's
    /// milliseconds. `Err(-1)` when the bridge was built without sppark (ZKNTT_SPPARK unset at
    /// build time), else the CUDA error code.
    ///
    /// # Safety
    /// `d_inout` is device memory of the current (primary) context holding 2^lg_n 32-bit words.
    pub unsafe fn ntt_device(
        d_inout: u64,
        lg_n: u32,
        order: Order,
        reps: usize,
    ) -> Result<Vec<f32>, i32> {
        let mut ms = vec![0f32; reps];
        // SAFETY: the caller's contract; `ms` holds `reps` floats.
        let code = unsafe { run(d_inout, lg_n, order as i32, &mut ms) };
        result(code, ms)
    }

    #[cfg(zkntt_sppark)]
    unsafe fn run(d: u64, lg_n: u32, order: i32, ms: &mut [f32]) -> i32 {
        // SAFETY: forwarded from `ntt_device`.
        unsafe {
            super::zkntt_sppark_babybear_ntt(
                d as *mut std::ffi::c_void,
                lg_n,
                order,
                ms.as_mut_ptr(),
                ms.len() as i32,
            )
        }
    }

    #[cfg(not(zkntt_sppark))]
    unsafe fn run(_: u64, _: u32, _: i32, _: &mut [f32]) -> i32 {
        -1
    }
}
