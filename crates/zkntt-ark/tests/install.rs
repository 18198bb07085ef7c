//! `install` before the first transform. Its own test binary, so its own process: the GPU context
//! is set once per process.

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use std::sync::Arc;
use zkntt_ark::zkntt_gpu::{HostPipeline, NttEngine};
use zkntt_ark::{Backend, Error, GpuDomain, Placement, last_placement, with_backend};

#[test]
fn an_installed_pipeline_serves_both_domains() {
    let Some(gpu) = zkntt_gpu::testing::gpu_or_skip("an_installed_pipeline_serves_both_domains")
    else {
        return;
    };
    let device = gpu.ordinal();
    let pipeline = Arc::new(HostPipeline::new(Arc::new(NttEngine::new(gpu))));
    zkntt_ark::install(pipeline.clone()).expect("nothing used the context before");
    assert!(Arc::ptr_eq(&zkntt_ark::gpu_pipeline().unwrap(), &pipeline));

    let input: Vec<Fr> = (0..1u64 << 12).map(|i| Fr::from(i * i + 7)).collect();
    let ark = Radix2EvaluationDomain::<Fr>::new(input.len()).unwrap();
    let ours = GpuDomain::<Fr>::from(ark);
    assert_eq!(
        with_backend(Backend::Gpu, || ours.fft(&input)),
        ark.fft(&input)
    );
    assert_eq!(last_placement(), Some(Placement::Gpu));
    assert!(
        pipeline.last_profile().is_some(),
        "ran on the installed pipeline"
    );

    // The ark-poly 0.5 domain goes through the same transform, on the same pipeline.
    use ark_poly_05::EvaluationDomain as _;
    let input05: Vec<ark_bn254_05::Fr> = (0..1u64 << 12)
        .map(|i| ark_bn254_05::Fr::from(i * i + 7))
        .collect();
    let ark05 =
        ark_poly_05::Radix2EvaluationDomain::<ark_bn254_05::Fr>::new(input05.len()).unwrap();
    let ours05 = zkntt_ark::v05::GpuDomain05::from(ark05);
    assert_eq!(
        with_backend(Backend::Gpu, || ours05.fft(&input05)),
        ark05.fft(&input05)
    );
    assert_eq!(last_placement(), Some(Placement::Gpu));

    assert_eq!(
        zkntt_ark::install(pipeline),
        Err(Error::AlreadyInitialized {
            device: Some(device)
        })
    );
}
