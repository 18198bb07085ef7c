//! Several GPUs: the split transform (one rank on device 0 always; every GPU where there are
//! several) and the batch pool, against ark-poly, both fields, every direction and coset.
//! The split needs NCCL: without it the split tests skip with one line, and fail instead under
//! ZKNTT_REQUIRE_NCCL=1 (the GPU machine's scripts set it).

use super::ntt::large_allocations;
use ark_ff::{FftField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use std::io::Write;
use std::sync::Arc;
use zkntt_gpu::multi::{GpuPool, Nccl, SplitChoice, SplitEngine, SplitPolicy};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::{DeviceVec, Direction, Error, Gpu, GpuField, NttConfig, NttEngine, Ordering};

fn nccl_or_skip(test: &str) -> bool {
    match Nccl::load() {
        Ok(n) => {
            println!("{test}: NCCL {:?} from {}", n.version(), n.path());
            true
        }
        Err(e) if std::env::var("ZKNTT_REQUIRE_NCCL").is_ok_and(|v| v == "1") => {
            panic!("{test}: ZKNTT_REQUIRE_NCCL=1 but {e}")
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "SKIP {test}: {e}");
            false
        }
    }
}

/// ark-poly's answer for `cfg` (NN, one transform).
fn ark<F: FftField>(x: &[F], cfg: &NttConfig<F>) -> Vec<F> {
    let mut d = Radix2EvaluationDomain::<F>::new(x.len()).unwrap();
    if let Some(g) = cfg.coset {
        d = d.get_coset(g).unwrap();
    }
    match cfg.direction {
        Direction::Forward => d.fft(x),
        Direction::Inverse => d.ifft(x),
    }
}

fn configs<F: FftField>(rng: &mut StdRng) -> Vec<(&'static str, NttConfig<F>)> {
    let g = F::rand(rng);
    vec![
        ("forward", NttConfig::forward()),
        ("inverse", NttConfig::inverse()),
        ("coset forward", NttConfig::forward().with_coset(g)),
        ("coset inverse", NttConfig::inverse().with_coset(g)),
    ]
}

/// Host-to-host and device-resident (scatter, transform, gather) at each size, against ark-poly.
fn check_split<F: GpuField>(split: &SplitEngine, label: &str, logs: &[u32]) {
    let mut rng = StdRng::seed_from_u64(22 + logs.len() as u64);
    let k = split.ranks();
    split.set_policy(SplitPolicy::Always);
    for &log_n in logs {
        if (1usize << log_n) < k * k {
            continue;
        }
        let n = 1usize << log_n;
        let x: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
        for (name, cfg) in configs::<F>(&mut rng) {
            let want = ark(&x, &cfg);
            let mut host = x.clone();
            split.ntt(&mut host, &cfg).unwrap();
            if let Some(i) = (0..n).find(|&i| host[i] != want[i]) {
                panic!("{label} {k} ranks 2^{log_n} {name} host: element {i} differs");
            }
            if k > 1 {
                assert_eq!(split.last_choice(), Some(SplitChoice::Split { ranks: k }));
            }
            let mut blocks = split.scatter(&x).unwrap();
            split.ntt_distributed(&mut blocks, log_n, &cfg).unwrap();
            let mut got = vec![F::ZERO; n];
            split.gather(&blocks, &mut got).unwrap();
            if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
                panic!("{label} {k} ranks 2^{log_n} {name} device: element {i} differs");
            }
        }
    }
    // A batch of three, host to host: each transform as ark-poly's.
    let n = 1usize << 12;
    let x: Vec<F> = (0..3 * n).map(|_| F::rand(&mut rng)).collect();
    let cfg = NttConfig::<F>::inverse().with_batch(3);
    let mut got = x.clone();
    split.ntt(&mut got, &cfg).unwrap();
    for (b, (xb, gb)) in x.chunks(n).zip(got.chunks(n)).enumerate() {
        assert_eq!(
            gb,
            ark(xb, &NttConfig::inverse()),
            "{label} batch transform {b}"
        );
    }
    println!(
        "{label}: split over {k} rank(s) equals ark-poly at 2^{logs:?}, 4 forms, host and device"
    );
}

#[test]
fn split_one_rank_matches_ark_poly() {
    let Some(gpu) = gpu_or_skip("split_one_rank_matches_ark_poly") else {
        return;
    };
    if !nccl_or_skip("split_one_rank_matches_ark_poly") {
        return;
    }
    let _large = large_allocations();
    let split = SplitEngine::new(vec![Arc::new(NttEngine::new(gpu))]).unwrap();
    let logs: Vec<u32> = (1..=16).chain([19, 22]).collect();
    check_split::<ark_bn254::Fr>(&split, "bn254_fr", &logs);
    check_split::<ark_bls12_381::Fr>(&split, "bls12_381_fr", &[1, 2, 7, 12, 17, 20]);
}

#[test]
fn split_every_gpu_matches_ark_poly() {
    let Some(_) = gpu_or_skip("split_every_gpu_matches_ark_poly") else {
        return;
    };
    if Gpu::device_count() < 2 {
        let _ = writeln!(
            std::io::stderr(),
            "SKIP split_every_gpu_matches_ark_poly: one GPU (the one-rank test covers the path)"
        );
        return;
    }
    if !nccl_or_skip("split_every_gpu_matches_ark_poly") {
        return;
    }
    let _large = large_allocations();
    let split = SplitEngine::all_devices().unwrap();
    println!("{split:?}");
    let logs: Vec<u32> = (2..=16).chain([18, 21, 22, 24]).collect();
    check_split::<ark_bn254::Fr>(&split, "bn254_fr", &logs);
    check_split::<ark_bls12_381::Fr>(&split, "bls12_381_fr", &[2, 3, 9, 14, 20]);
}

#[test]
fn split_bad_input_is_an_error() {
    let Some(gpu) = gpu_or_skip("split_bad_input_is_an_error") else {
        return;
    };
    let engine = Arc::new(NttEngine::new(gpu.clone()));
    // Checked before NCCL is needed.
    assert!(matches!(
        SplitEngine::new(vec![engine.clone(), engine.clone()]),
        Err(Error::BadDevices(_))
    ));
    assert!(matches!(
        SplitEngine::new(vec![]),
        Err(Error::BadDevices(_))
    ));
    if !nccl_or_skip("split_bad_input_is_an_error") {
        return;
    }
    type Fr = ark_bn254::Fr;
    let split = SplitEngine::new(vec![engine]).unwrap();
    let x = vec![Fr::from(3u64); 1 << 10];
    let mut y = x.clone();
    for cfg in [
        NttConfig::<Fr>::forward().with_ordering(Ordering::NR),
        NttConfig::<Fr>::forward().with_ordering(Ordering::RN),
        NttConfig::<Fr>::forward().with_batch(3),
        NttConfig::<Fr>::forward().with_coset(Fr::from(0u64)),
    ] {
        assert!(split.ntt(&mut y, &cfg).is_err(), "{cfg:?}");
        assert_eq!(y, x, "data untouched after {cfg:?}");
    }
    // Wrong block count or lengths for the device-resident call.
    let mut blocks = split.scatter(&x).unwrap();
    assert!(
        split
            .ntt_distributed(&mut blocks, 11, &NttConfig::forward())
            .is_err()
    );
    // Sizes no shift can take: an error, not an overflow.
    for log_n in [64, u32::MAX] {
        assert!(
            split
                .ntt_distributed(&mut blocks, log_n, &NttConfig::forward())
                .is_err()
        );
    }
    assert!(
        split
            .ntt_distributed(&mut Vec::<DeviceVec<Fr>>::new(), 10, &NttConfig::forward())
            .is_err()
    );
    assert!(
        split
            .ntt_distributed(&mut blocks, 29, &NttConfig::forward())
            .is_err()
    );
    let mut short = vec![DeviceVec::<Fr>::zeros(&gpu, 8).unwrap()];
    assert!(
        split
            .ntt_distributed(&mut short, 10, &NttConfig::forward())
            .is_err()
    );
    let mut out = vec![Fr::from(0u64); 1 << 10];
    split.gather(&blocks, &mut out).unwrap();
    assert_eq!(out, x, "the blocks are untouched by the rejected calls");
}

#[test]
fn pool_spreads_a_batch_over_every_gpu() {
    let Some(_) = gpu_or_skip("pool_spreads_a_batch_over_every_gpu") else {
        return;
    };
    type Fr = ark_bn254::Fr;
    let pool = GpuPool::all_devices().unwrap();
    let k = pool.devices().len();
    assert_eq!(pool.shares(7).iter().sum::<usize>(), 7);
    assert!(pool.shares(7).iter().all(|&s| s == 7 / k || s == 7 / k + 1));
    let mut rng = StdRng::seed_from_u64(2222);
    for (batch, log_n) in [(7usize, 12u32), (1, 14), (2 * k + 1, 16), (k - 1, 10)] {
        if batch == 0 {
            continue;
        }
        let n = 1usize << log_n;
        let x: Vec<Fr> = (0..batch * n).map(|_| Fr::rand(&mut rng)).collect();
        for (name, one) in configs::<Fr>(&mut rng) {
            let mut got = x.clone();
            pool.ntt(&mut got, &one.with_batch(batch)).unwrap();
            for (b, (xb, gb)) in x.chunks(n).zip(got.chunks(n)).enumerate() {
                assert!(
                    gb == ark(xb, &one),
                    "{batch} x 2^{log_n} {name}: transform {b} differs"
                );
            }
        }
    }
    assert!(matches!(
        GpuPool::with_devices(&[0, 0]),
        Err(Error::BadDevices(_))
    ));
    assert!(GpuPool::with_devices(&[Gpu::device_count()]).is_err());
    println!("pool over {k} GPU(s): batches equal ark-poly, 4 forms");
}
