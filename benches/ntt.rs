//! `ntt/bn254_fr/*`: the GPU engine beside sppark (same GPU, same run, device-resident, CUDA
//! events) and the CPU (ark-poly on all cores, the zkntt reference on one). After criterion, a
//! table of medians with the ratio sppark / zkntt per size, batched throughput and the peak
//! device memory of an in-place 2^23 transform.
//!
//! sppark is compiled in with `--features sppark` (what `make gpu-build` does); without it the
//! sppark columns say so.

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::time::Duration;
use zkntt_benches::{median_f32, random_elements, sppark_bn254_ms};
use zkntt_core::{NttConfig, Ordering, reference};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::timing::median_ms;
use zkntt_gpu::{DeviceVec, NttEngine};

fn log_sizes() -> std::ops::RangeInclusive<u32> {
    let max = std::env::var("ZKNTT_BENCH_MAX_LOG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    16..=max
}

fn gpu_criterion(c: &mut Criterion, engine: &NttEngine) {
    let gpu = engine.gpu();
    let mut g = c.benchmark_group("ntt/bn254_fr/gpu-device-NN");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for log_n in log_sizes() {
        let n = 1usize << log_n;
        let mut d = DeviceVec::from_host(gpu, &random_elements::<Fr>(n, log_n as u64)).unwrap();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::new("zkntt", log_n), |b| {
            b.iter_custom(|iters| {
                let ms = median_ms(gpu.stream(), 0, 1, || {
                    (0..iters).try_for_each(|_| engine.ntt_in_place(&mut d, &NttConfig::forward()))
                })
                .unwrap();
                Duration::from_secs_f64(ms / 1e3)
            })
        });
        if sppark_bn254_ms(&d, gpu, log_n, Ordering::NN, false, false, 1).is_some() {
            g.bench_function(BenchmarkId::new("sppark", log_n), |b| {
                b.iter_custom(|iters| {
                    let ms: f32 =
                        sppark_bn254_ms(&d, gpu, log_n, Ordering::NN, false, false, iters as usize)
                            .unwrap()
                            .into_iter()
                            .sum();
                    Duration::from_secs_f64(ms as f64 / 1e3)
                })
            });
        }
    }
    g.finish();
}

fn cpu_criterion(c: &mut Criterion) {
    let mut g = c.benchmark_group("ntt/bn254_fr/cpu");
    g.sample_size(10);
    for log_n in [16u32, 20] {
        let n = 1usize << log_n;
        let input: Vec<Fr> = random_elements(n, log_n as u64);
        g.throughput(Throughput::Elements(n as u64));
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        g.bench_with_input(
            BenchmarkId::new("ark-poly-all-cores", log_n),
            &input,
            |b, x| {
                let mut data = x.clone();
                b.iter(|| domain.fft_in_place(&mut data))
            },
        );
        if log_n <= 16 {
            g.bench_with_input(
                BenchmarkId::new("zkntt-reference-1-core", log_n),
                &input,
                |b, x| {
                    let mut data = x.clone();
                    b.iter(|| reference::ntt(&mut data, &NttConfig::forward()).unwrap())
                },
            );
        }
    }
    g.finish();
}

/// The table printed after criterion: medians of 20 by CUDA events, one run, one GPU.
fn summary(engine: &NttEngine) {
    let gpu = engine.gpu();
    let reps = 20;
    let info = gpu.info().unwrap();
    println!(
        "\n## ntt/bn254_fr on {} (driver CUDA {}.{}), medians of {reps}, ms",
        info.name,
        info.driver_version / 1000,
        info.driver_version % 1000 / 10
    );
    println!(
        "| log2 N | zkntt fwd NN | sppark fwd NN | ratio sppark/zkntt | zkntt inv | sppark inv | ratio | zkntt coset fwd | sppark coset fwd | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let fmt = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:.3}"));
    let ratio = |s: Option<f64>, z: f64| s.map_or("n/a".to_string(), |s| format!("{:.2}", s / z));
    for log_n in log_sizes() {
        let n = 1usize << log_n;
        let mut d = DeviceVec::from_host(gpu, &random_elements::<Fr>(n, 7)).unwrap();
        let g = Fr::from(5u64);
        let mut row = format!("| {log_n} |");
        for (cfg, inverse, coset) in [
            (NttConfig::forward(), false, false),
            (NttConfig::inverse(), true, false),
            (NttConfig::forward().with_coset(g), false, true),
        ] {
            let z = median_ms(gpu.stream(), 1, reps, || engine.ntt_in_place(&mut d, &cfg)).unwrap();
            let s =
                sppark_bn254_ms(&d, gpu, log_n, Ordering::NN, inverse, coset, reps).map(median_f32);
            row += &format!(" {z:.3} | {} | {} |", fmt(s), ratio(s, z));
        }
        println!("{row}");
    }
    // Batched throughput: 64 x 2^16 rows.
    let (batch, log_n) = (64usize, 16u32);
    let mut d = DeviceVec::from_host(gpu, &random_elements::<Fr>(batch << log_n, 9)).unwrap();
    let cfg = NttConfig::forward().with_batch(batch);
    let z = median_ms(gpu.stream(), 1, reps, || engine.ntt_in_place(&mut d, &cfg)).unwrap();
    let single = DeviceVec::from_host(gpu, &random_elements::<Fr>(1 << log_n, 9)).unwrap();
    let s = sppark_bn254_ms(&single, gpu, log_n, Ordering::NN, false, false, reps).map(median_f32);
    println!(
        "\nbatch {batch} x 2^{log_n} forward: zkntt {z:.3} ms ({:.2} G elements/s); sppark one 2^{log_n} {} ms, x{batch} = {}",
        (batch << log_n) as f64 / (z * 1e6),
        fmt(s),
        fmt(s.map(|v| v * batch as f64))
    );
    // Peak device memory of an in-place 2^23 transform, twiddles included.
    drop((d, single));
    engine.clear_cache();
    gpu.synchronize().unwrap();
    let (free0, _) = gpu.memory().unwrap();
    let mut d = DeviceVec::from_host(gpu, &random_elements::<Fr>(1 << 23, 3)).unwrap();
    engine
        .ntt_in_place(&mut d, &NttConfig::forward().with_coset(Fr::from(5u64)))
        .unwrap();
    gpu.synchronize().unwrap();
    let (free1, _) = gpu.memory().unwrap();
    let used = free0.saturating_sub(free1);
    println!(
        "2^23 in place (coset forward): {:.1} MiB device memory for 256 MiB of data = {:.3}x (twiddles {} KiB)",
        used as f64 / (1u64 << 20) as f64,
        used as f64 / (256u64 << 20) as f64,
        engine.twiddle_bytes() >> 10
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    cpu_criterion(&mut c);
    if let Some(gpu) = gpu_or_skip("bench ntt/bn254_fr/gpu") {
        let engine = NttEngine::new(gpu);
        gpu_criterion(&mut c, &engine);
        c.final_summary();
        summary(&engine);
    } else {
        c.final_summary();
    }
}
