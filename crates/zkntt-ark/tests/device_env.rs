//! A `ZKNTT_DEVICE` that is not a device ordinal: transforms run on the CPU with ark's results
//! and say why, with no panic under `Backend::Auto`. Its own test binary, so its own process: the
//! variable is read once, when the GPU context is first set up.

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use zkntt_ark::{Backend, CpuReason, GpuDomain, Placement, last_placement, with_backend};

#[test]
fn a_bad_device_value_runs_on_the_cpu_and_says_why() {
    // SAFETY: the only test of this binary: no other thread reads the environment meanwhile.
    unsafe { std::env::set_var(zkntt_ark::DEVICE_ENV, "gpu1") };
    zkntt_ark::set_gpu_min_log_size(zkntt_ark::DEFAULT_GPU_MIN_LOG_SIZE);
    let input: Vec<Fr> = (0..1u64 << 12).map(|i| Fr::from(3 * i + 1)).collect();
    let ark = Radix2EvaluationDomain::<Fr>::new(input.len()).unwrap();
    let ours = GpuDomain::<Fr>::from(ark);
    assert_eq!(ours.fft(&input), ark.fft(&input));
    match last_placement() {
        Some(Placement::Cpu(CpuReason::NoGpu { kind, message })) => {
            assert_eq!(kind, "device-env");
            assert!(message.contains("ZKNTT_DEVICE=\"gpu1\""), "{message}");
        }
        Some(Placement::Cpu(CpuReason::Forced)) => {} // ZKNTT_FORCE_CPU=1 in the environment
        other => panic!("expected the CPU for want of a device, got {other:?}"),
    }
    assert!(zkntt_ark::gpu_pipeline().is_none());
    // Backend::Gpu never falls back silently.
    let r = std::panic::catch_unwind(|| with_backend(Backend::Gpu, || ours.fft(&input)));
    assert!(r.is_err());
}
