//! Shared helpers of the zkntt benches.

use ark_ff::UniformRand;
use ark_std::rand::{SeedableRng, rngs::StdRng};

/// `n` random elements from a fixed seed (never zeros: they hide unwritten outputs and can run
/// faster than real data).
pub fn random_elements<F: UniformRand>(n: usize, seed: u64) -> Vec<F> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| F::rand(&mut rng)).collect()
}

/// The log2 size in environment variable `name` (ZKNTT_BENCH_MIN_LOG and the like), or `default`
/// where it is unset or not a number.
pub fn env_log(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// sppark's BN254 NTT on `d` (2^log_n elements), in place: `reps` runs after a warm-up, each
/// one's milliseconds (CUDA events, inside the bridge). `None` without the `sppark` feature or
/// when sppark fails. The benches' one way to time sppark's big-field NTT.
#[cfg(feature = "sppark")]
pub fn sppark_bn254_ms(
    d: &zkntt_gpu::DeviceVec<ark_bn254::Fr>,
    gpu: &zkntt_gpu::Gpu,
    log_n: u32,
    order: zkntt_core::Ordering,
    inverse: bool,
    coset: bool,
    reps: usize,
) -> Option<Vec<f32>> {
    use zkntt_core::Ordering;
    use zkntt_sppark::{Order, bn254::ntt_device};
    let order = match order {
        Ordering::NN => Order::NN,
        Ordering::NR => Order::NR,
        Ordering::RN => Order::RN,
    };
    gpu.synchronize().ok()?;
    // SAFETY: `d` holds 2^log_n BN254 elements in the primary context sppark also uses.
    unsafe { ntt_device(d.device_ptr(gpu).ok()?, log_n, order, inverse, coset, reps) }
        .ok()
        .map(|runs| runs.ms)
}

#[cfg(not(feature = "sppark"))]
pub fn sppark_bn254_ms(
    _: &zkntt_gpu::DeviceVec<ark_bn254::Fr>,
    _: &zkntt_gpu::Gpu,
    _: u32,
    _: zkntt_core::Ordering,
    _: bool,
    _: bool,
    _: usize,
) -> Option<Vec<f32>> {
    None
}

/// Median of per-run milliseconds.
pub fn median_f32(v: Vec<f32>) -> f64 {
    zkntt_gpu::timing::median(&mut v.into_iter().map(f64::from).collect::<Vec<_>>())
}
