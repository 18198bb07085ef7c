//! `GpuDomain` against `Radix2EvaluationDomain`: one conformance suite, stamped by
//! `conformance_suite!` onto the CPU fallback (runs everywhere, CI included) and onto the GPU (one
//! SKIP line per test without a GPU; fails instead under `ZKNTT_REQUIRE_GPU=1`), for BN254 and
//! BLS12-381. Every comparison is bit for bit (field elements are canonical).
//!
//! Sizes: 2^0..2^16 on the CPU, 2^0..2^24 on the GPU; `ZKNTT_ARK_MAX_LOG=k` sets both.

use ark_bls12_381::Fr as Bls12_381Fr;
use ark_bn254::{Fr as Bn254Fr, G1Projective as Bn254G1};
use ark_ff::{FftField, Field, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{RwLock, RwLockReadGuard};
use zkntt_ark::{Backend, CpuReason, GpuDomain, Placement, last_placement, with_backend};

include!("common/conformance.rs");

/// Without a GPU (CI), the default backend gives ark's results and says why it used the CPU.
#[test]
fn auto_without_gpu_falls_back_and_says_why() {
    use ark_bn254::Fr;
    if zkntt_ark::gpu_pipeline().is_some() {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"SKIP auto_without_gpu_falls_back_and_says_why: a GPU is present\n",
        );
        return;
    }
    let mut rng = StdRng::seed_from_u64(6);
    let log_n = zkntt_ark::gpu_min_log_size().max(1);
    let ark = Radix2EvaluationDomain::<Fr>::new(1 << log_n).unwrap();
    let ours = GpuDomain::<Fr>::new(1 << log_n).unwrap();
    let input: Vec<Fr> = rand_vec(&mut rng, 1 << log_n);
    assert_eq!(ours.fft(&input), ark.fft(&input));
    match last_placement() {
        Some(Placement::Cpu(CpuReason::NoGpu { kind, message })) => {
            assert!(!kind.is_empty() && !message.is_empty())
        }
        Some(Placement::Cpu(CpuReason::Forced)) => {} // ZKNTT_FORCE_CPU=1 in the environment
        other => panic!("expected the CPU for want of a GPU, got {other:?}"),
    }
    // Below the threshold the reason is the size, GPU or not.
    let small = GpuDomain::<Fr>::new(1).unwrap();
    let _ = small.fft(&input[..1]);
    assert!(matches!(
        last_placement(),
        Some(Placement::Cpu(
            CpuReason::BelowThreshold | CpuReason::Forced
        ))
    ));
}

/// A field with no kernels (BN254's base field has two-adicity 1) runs on the CPU.
#[test]
fn field_without_kernels_runs_on_the_cpu() {
    use ark_bn254::Fq;
    let mut rng = StdRng::seed_from_u64(7);
    let ours = GpuDomain::<Fq>::new(2).unwrap();
    let ark = Radix2EvaluationDomain::<Fq>::new(2).unwrap();
    let input: Vec<Fq> = rand_vec(&mut rng, 2);
    with_backend(Backend::Gpu, || {
        assert_eq!(ours.fft(&input), ark.fft(&input));
        assert_eq!(
            last_placement(),
            Some(Placement::Cpu(CpuReason::FieldWithoutKernels))
        );
    });
    assert!(GpuDomain::<Fq>::new(4).is_none(), "above Fq's two-adicity");
}

/// A GPU failure after the kernels ran, in the middle of the call: the result is ark's, from
/// the CPU, and the placement says so. Then the GPU serves the next call again.
#[test]
fn gpu_failure_mid_call_completes_on_the_cpu() {
    use ark_bn254::Fr;
    if !gpu_present("gpu_failure_mid_call_completes_on_the_cpu") {
        return;
    }
    let _g = pipeline_shared();
    let mut rng = StdRng::seed_from_u64(8);
    let log_n = zkntt_ark::gpu_min_log_size().max(16);
    let ark = Radix2EvaluationDomain::<Fr>::new(1 << log_n)
        .unwrap()
        .get_coset(Fr::GENERATOR)
        .unwrap();
    let ours = GpuDomain::<Fr>::from(ark);
    let input: Vec<Fr> = rand_vec(&mut rng, (1 << log_n) - 3);
    for inverse in [false, true] {
        zkntt_ark::testing::inject_gpu_failure_on_this_thread();
        let mut got = input.clone();
        let mut want = input.clone();
        if inverse {
            ours.ifft_in_place(&mut got);
            ark.ifft_in_place(&mut want);
        } else {
            ours.fft_in_place(&mut got);
            ark.fft_in_place(&mut want);
        }
        assert!(
            matches!(
                last_placement(),
                Some(Placement::Cpu(CpuReason::GpuFailed { .. }))
            ),
            "{:?}",
            last_placement()
        );
        assert_same(&got, &want, "after an injected GPU failure");
    }
    let mut got = input.clone();
    ours.fft_in_place(&mut got);
    assert_eq!(last_placement(), Some(Placement::Gpu));
    assert_same(&got, &ark.fft(&input), "the GPU after a failure");
}

/// Out of device memory (the pipeline's memory budget set to nothing): ark's result from the CPU.
#[test]
fn gpu_out_of_memory_completes_on_the_cpu() {
    use ark_bls12_381::Fr;
    if !gpu_present("gpu_out_of_memory_completes_on_the_cpu") {
        return;
    }
    // Every pipeline of the context (one per GPU under ZKNTT_DEVICES): transforms take turns.
    let pipelines = zkntt_ark::gpu_pipelines();
    assert!(!pipelines.is_empty(), "a GPU is present");
    let _exclusive = PIPELINE_STATE.write().unwrap_or_else(|p| p.into_inner());
    struct LiftBudget(Vec<std::sync::Arc<zkntt_ark::zkntt_gpu::HostPipeline>>);
    impl Drop for LiftBudget {
        fn drop(&mut self) {
            self.0.iter().for_each(|p| p.gpu().set_memory_budget(None));
        }
    }
    // Device slots the host pipeline keeps from earlier calls would serve this one: let go of them
    // so that the call has to allocate.
    for pipeline in &pipelines {
        pipeline.release_device();
        pipeline.gpu().set_memory_budget(Some(1024));
    }
    let _lift = LiftBudget(pipelines);
    let mut rng = StdRng::seed_from_u64(9);
    let log_n = zkntt_ark::gpu_min_log_size().max(14);
    let ark = Radix2EvaluationDomain::<Fr>::new(1 << log_n).unwrap();
    let ours = GpuDomain::<Fr>::from(ark);
    let input: Vec<Fr> = rand_vec(&mut rng, 1 << log_n);
    let mut got = input.clone();
    ours.fft_in_place(&mut got);
    match last_placement() {
        Some(Placement::Cpu(CpuReason::GpuFailed { kind, message })) => {
            assert_eq!(kind, "out-of-memory", "{message}")
        }
        other => panic!("expected an out-of-memory fallback, got {other:?}"),
    }
    assert_same(&got, &ark.fft(&input), "fft after out of memory");
    ours.ifft_in_place(&mut got);
    assert_same(&got, &input, "ifft after out of memory");
}

/// `Backend::Gpu` never falls back silently: a missing GPU panics.
#[test]
fn backend_gpu_without_a_gpu_panics() {
    use ark_bn254::Fr;
    if zkntt_ark::gpu_pipeline().is_some() {
        return; // with a GPU there is nothing to refuse
    }
    let d = GpuDomain::<Fr>::new(4).unwrap();
    let r = std::panic::catch_unwind(|| with_backend(Backend::Gpu, || d.fft(&[Fr::from(1u64); 4])));
    assert!(r.is_err());
}

/// The context is set by the first use: a later `install` is an error value, and changes nothing.
#[test]
fn install_after_first_use_is_an_error() {
    if !gpu_present("install_after_first_use_is_an_error") {
        return;
    }
    let pipeline = zkntt_ark::gpu_pipeline().expect("a GPU is present");
    let device = pipeline.gpu().ordinal();
    let other = std::sync::Arc::new(zkntt_gpu::HostPipeline::new(pipeline.engine().clone()));
    assert_eq!(
        zkntt_ark::install(other),
        Err(zkntt_ark::Error::AlreadyInitialized {
            device: Some(device)
        })
    );
    let still = zkntt_ark::gpu_pipeline().expect("a GPU is present");
    assert!(std::sync::Arc::ptr_eq(&still, &pipeline));
}

#[test]
fn field_inverse_round_trip_sanity() {
    // The suite's inputs are random; this pins one known answer: the FFT of the all-ones vector
    // is (n, 0, ..., 0) on the subgroup.
    use ark_bn254::Fr;
    let d = GpuDomain::<Fr>::new(8).unwrap();
    let out = d.fft(&[Fr::ONE; 8]);
    assert_eq!(out[0], Fr::from(8u64));
    assert!(out[1..].iter().all(ark_ff::Zero::is_zero));
}

/// Under `ZKNTT_DEVICES=all` on a machine with several GPUs (the GPU machine's issue 22 script):
/// transforms called from several threads at once equal ark-poly's and every GPU ran some.
/// Skips with one line with fewer than two pipelines in the context.
#[test]
fn several_devices_take_turns() {
    use ark_bn254::Fr;
    let pipelines = zkntt_ark::gpu_pipelines();
    if pipelines.len() < 2 {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!(
                "SKIP several_devices_take_turns: {} GPU pipeline(s) (set ZKNTT_DEVICES=all on a machine with several)\n",
                pipelines.len()
            )
            .as_bytes(),
        );
        return;
    }
    let n = 1 << 18;
    let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let ours = GpuDomain::<Fr>::new(n).unwrap();
    std::thread::scope(|s| {
        for t in 0..2 * pipelines.len() {
            let (ark, ours) = (&ark, &ours);
            s.spawn(move || {
                let mut rng = StdRng::seed_from_u64(900 + t as u64);
                let input: Vec<Fr> = rand_vec(&mut rng, n);
                assert_eq!(ours.fft(&input), ark.fft(&input), "thread {t}");
                assert!(
                    matches!(last_placement(), Some(Placement::Gpu)),
                    "thread {t}"
                );
            });
        }
    });
    for p in &pipelines {
        assert!(
            p.last_profile().is_some(),
            "device {} ran no transform",
            p.gpu().ordinal()
        );
    }
    println!("{} GPUs took turns", pipelines.len());
}
