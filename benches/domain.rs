//! `domain/bn254/*`: `fft_in_place` on a host `Vec<Fr>`, in and out of host memory, wall clock.
//! zkntt's `GpuDomain` (as a prover gets it, and pinned to the GPU at every size, which shows the
//! CPU/GPU crossover that `zkntt_ark::DEFAULT_GPU_MIN_LOG_SIZE` should sit at), ark-poly's
//! `Radix2EvaluationDomain` on all cores, and, with `--features sppark`, sppark's NTT behind the
//! same pageable copies in and out that its `NTT::Base` host entry point makes.
//!
//! Sizes 2^6..2^24 (`ZKNTT_BENCH_MAX_LOG` caps them); ark-poly to 2^23 (`ZKNTT_BENCH_ARK_MAX_LOG`).

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::time::Duration;
use zkntt_ark::{Backend, GpuDomain, Placement, last_placement, with_backend};
use zkntt_benches::random_elements;

fn env_log(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn log_sizes() -> Vec<u32> {
    let max = env_log("ZKNTT_BENCH_MAX_LOG", 24);
    [6u32, 8, 10, 12, 14, 16, 18, 20, 22, 23, 24]
        .into_iter()
        .filter(|&l| l <= max)
        .collect()
}

#[cfg(feature = "sppark")]
mod sppark_host {
    use ark_bn254::Fr;
    use zkntt_gpu::{DeviceVec, Gpu};

    /// sppark's host path: allocate, pageable copy in, NTT (NN), pageable copy out, wait.
    /// The bridge runs one warm-up NTT before each timed one: one extra device-resident NTT
    /// (a few ms at 2^23 against tens of ms of copies) counted against sppark.
    pub fn fft(gpu: &Gpu, data: &mut [Fr], log_n: u32) -> bool {
        let Ok(d) = DeviceVec::from_host(gpu, data) else {
            return false;
        };
        // SAFETY: `d` holds 2^log_n BN254 elements in the primary context sppark also uses.
        let ok = unsafe {
            zkntt_sppark_bn254::ntt_device(
                d.device_ptr(gpu),
                log_n,
                zkntt_sppark_bn254::Order::NN,
                false,
                false,
                1,
            )
        }
        .is_ok();
        ok && d.copy_to_host(gpu, data).is_ok()
    }
}

fn domain_bench(c: &mut Criterion) {
    let gpu = zkntt_ark::gpu_engine();
    match gpu {
        Some(e) => println!(
            "domain/bn254: {} ; GpuDomain threshold 2^{}",
            e.gpu()
                .info()
                .map_or_else(|e| e.to_string(), |i| i.to_string()),
            zkntt_ark::gpu_min_log_size()
        ),
        None => println!("domain/bn254: no GPU; GpuDomain runs on the CPU (the fallback)"),
    }
    let ark_max = env_log("ZKNTT_BENCH_ARK_MAX_LOG", 23);
    let mut g = c.benchmark_group("domain/bn254/fft_in_place");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for log_n in log_sizes() {
        let n = 1usize << log_n;
        let input: Vec<Fr> = random_elements(n, log_n as u64);
        g.throughput(Throughput::Elements(n as u64));
        let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let ours = GpuDomain::<Fr>::from(ark);

        // Each iteration transforms the previous output: the data stay random, nothing is copied
        // beside the call itself.
        let mut data = input.clone();
        g.bench_function(BenchmarkId::new("zkntt-domain", log_n), |b| {
            b.iter(|| ours.fft_in_place(&mut data))
        });
        if gpu.is_some() {
            let mut data = input.clone();
            with_backend(Backend::Gpu, || {
                ours.fft_in_place(&mut data);
                assert_eq!(last_placement(), Some(Placement::Gpu));
                g.bench_function(BenchmarkId::new("zkntt-gpu-always", log_n), |b| {
                    b.iter(|| ours.fft_in_place(&mut data))
                });
            });
        }
        if log_n <= ark_max {
            let mut data = input.clone();
            g.bench_function(BenchmarkId::new("ark-poly-all-cores", log_n), |b| {
                b.iter(|| ark.fft_in_place(&mut data))
            });
        }
        #[cfg(feature = "sppark")]
        if let Some(e) = gpu {
            let mut data = input.clone();
            if sppark_host::fft(e.gpu(), &mut data, log_n) {
                g.bench_function(BenchmarkId::new("sppark-host", log_n), |b| {
                    b.iter(|| assert!(sppark_host::fft(e.gpu(), &mut data, log_n)))
                });
            }
        }
    }
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    domain_bench(&mut c);
    c.final_summary();
}
