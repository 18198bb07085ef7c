//! `domain/bn254/*`: `fft_in_place` on a host `Vec<Fr>`, in and out of host memory, wall clock.
//! zkntt's `GpuDomain` (as a prover gets it, and pinned to the GPU at every size, which shows the
//! CPU/GPU crossover that `zkntt_ark::DEFAULT_GPU_MIN_LOG_SIZE` should sit at), ark-poly's
//! `Radix2EvaluationDomain` on all cores, and, with `--features sppark`, sppark's NTT behind the
//! same pageable copies in and out that its `NTT::Base` host entry point makes.
//!
//! Sizes 2^6..2^24 (`ZKNTT_BENCH_MIN_LOG` and `ZKNTT_BENCH_MAX_LOG` bound them); ark-poly to 2^23
//! (`ZKNTT_BENCH_ARK_MAX_LOG`).
//!
//! Beside them: `domain/bn254/ifft_in_place` and `coset_fft_in_place` (zkntt only: the host pipeline
//! is the same for every direction), `domain/bn254/batch_8x2^20` (eight 2^20 transforms of one
//! host buffer: the engine's batch, whose copies overlap across transforms in both directions,
//! against eight single calls, eight sppark host calls and eight ark-poly FFTs), and
//! `domain/bn254/copy_floor` (pinned DMA one way, and the CPU copy on all cores, of the same bytes),
//! which the host path cannot beat.

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use std::time::Duration;
use zkntt_ark::{Backend, GpuDomain, Placement, last_placement, with_backend};
use zkntt_benches::{env_log, random_elements};
use zkntt_gpu::NttConfig;

fn log_sizes() -> Vec<u32> {
    let min = env_log("ZKNTT_BENCH_MIN_LOG", 6);
    let max = env_log("ZKNTT_BENCH_MAX_LOG", 24);
    [6u32, 8, 10, 12, 14, 16, 18, 20, 22, 23, 24]
        .into_iter()
        .filter(|&l| min <= l && l <= max)
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
        let ok = zkntt_benches::sppark_bn254_ms(
            &d,
            gpu,
            log_n,
            zkntt_core::Ordering::NN,
            false,
            false,
            1,
        )
        .is_some();
        ok && d.copy_to_host(gpu, data).is_ok()
    }
}

fn domain_bench(c: &mut Criterion) {
    let gpu = zkntt_ark::gpu_pipeline();
    match &gpu {
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
    // Flat sampling: ten samples of equal iteration counts (ark-poly at 2^23 takes most of a
    // second per call; linear sampling would run it 55 times).
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
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
        if let Some(p) = gpu.as_ref().and_then(|e| e.last_profile()) {
            println!("profile 2^{log_n}: {p:?}");
        }
        if gpu.is_some() && log_n <= 14 {
            // Above 2^14 the default already runs on the GPU: this is the crossover's column.
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
        if let Some(e) = &gpu {
            let mut data = input.clone();
            if sppark_host::fft(e.gpu(), &mut data, log_n) {
                g.bench_function(BenchmarkId::new("sppark-host", log_n), |b| {
                    b.iter(|| assert!(sppark_host::fft(e.gpu(), &mut data, log_n)))
                });
            }
        }
    }
    g.finish();
    if gpu.is_none() {
        return;
    }

    // The other directions through the same pipeline, at the sizes of the bars.
    for (name, coset) in [("ifft_in_place", false), ("coset_fft_in_place", true)] {
        let mut g = c.benchmark_group(format!("domain/bn254/{name}"));
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1));
        for log_n in log_sizes().into_iter().filter(|l| [20, 23].contains(l)) {
            let n = 1usize << log_n;
            let mut data: Vec<Fr> = random_elements(n, 7 + log_n as u64);
            let mut d = GpuDomain::<Fr>::new(n).unwrap();
            if coset {
                d = d.get_coset(Fr::from(7u64)).unwrap();
            }
            g.throughput(Throughput::Elements(n as u64));
            g.bench_function(BenchmarkId::new("zkntt-domain", log_n), |b| {
                b.iter(|| {
                    if coset {
                        d.fft_in_place(&mut data)
                    } else {
                        d.ifft_in_place(&mut data)
                    }
                })
            });
        }
        g.finish();
    }

    batch_bench(c);
    copy_floor_bench(c);
    chunk_sweep_bench(c);
}

/// The host path at 2^20 and 2^23 with chunks of 1 to 16 MiB and one chunk for everything (column
/// ranges), the contiguous-chunk pipeline at its automatic chunk, and the device-resident
/// transform alone (wall clock, synchronised).
fn chunk_sweep_bench(c: &mut Criterion) {
    let Some(engine) = zkntt_ark::gpu_pipeline() else {
        return;
    };
    let mut g = c.benchmark_group("domain/bn254/chunk_sweep");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for log_n in [20u32, 23] {
        let n = 1usize << log_n;
        let mut data: Vec<Fr> = random_elements(n, 11);
        let cfg = NttConfig::forward();
        for chunk_mib in [1usize, 2, 4, 8, 16, 1 << 20] {
            engine.set_chunk_bytes(Some((chunk_mib << 20).min(n * 32)));
            let label = if chunk_mib == 1 << 20 {
                "one-chunk".to_string()
            } else {
                format!("{chunk_mib}MiB")
            };
            g.bench_function(BenchmarkId::new(label.clone(), log_n), |b| {
                b.iter(|| engine.ntt(&mut data, &cfg).unwrap())
            });
            // Only this bench's own call (a filtered-out bench leaves an older profile).
            let chunk = (chunk_mib << 20).min(n * 32);
            if let Some(p) = engine.last_profile()
                && p.elements == n
                && p.chunk_bytes == chunk
            {
                println!("profile 2^{log_n} {label}: {p:?}");
            }
        }
        engine.set_chunk_bytes(None);
        // The contiguous-chunk pipeline (the transform after the last chunk is in), same run.
        zkntt_gpu::testing::set_column_ranges(&engine, false);
        g.bench_function(BenchmarkId::new("contiguous-chunks", log_n), |b| {
            b.iter(|| engine.ntt(&mut data, &cfg).unwrap())
        });
        zkntt_gpu::testing::set_column_ranges(&engine, true);
        let mut d = zkntt_gpu::DeviceVec::from_host(engine.gpu(), &data).unwrap();
        g.bench_function(BenchmarkId::new("device-resident-ntt", log_n), |b| {
            b.iter(|| {
                engine.engine().ntt_in_place(&mut d, &cfg).unwrap();
                engine.gpu().synchronize().unwrap();
            })
        });
    }
    g.finish();
}

/// Eight 2^20 transforms in one host buffer of 256 MiB.
fn batch_bench(c: &mut Criterion) {
    let Some(engine) = zkntt_ark::gpu_pipeline() else {
        return;
    };
    const LOG_N: u32 = 20;
    const BATCH: usize = 8;
    let n = 1usize << LOG_N;
    let mut g = c.benchmark_group("domain/bn254/batch_8x2^20");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements((n * BATCH) as u64));
    let input: Vec<Fr> = random_elements(n * BATCH, 20);
    let batch_cfg = NttConfig::forward().with_batch(BATCH);
    let mut data = input.clone();
    g.bench_function("zkntt-engine-batch", |b| {
        b.iter(|| engine.ntt(&mut data, &batch_cfg).unwrap())
    });
    // This bench's own call only (filtered out, the profile is another call's).
    if let Some(p) = engine.last_profile()
        && p.elements == n * BATCH
    {
        println!("profile batch 8 x 2^20 (last call): {p:?}");
    }
    let mut data = input.clone();
    g.bench_function("zkntt-8-single-calls", |b| {
        b.iter(|| {
            for row in data.chunks_mut(n) {
                engine.ntt(row, &NttConfig::forward()).unwrap();
            }
        })
    });
    #[cfg(feature = "sppark")]
    {
        let mut data = input.clone();
        g.bench_function("sppark-host-8-calls", |b| {
            b.iter(|| {
                for row in data.chunks_mut(n) {
                    assert!(sppark_host::fft(engine.gpu(), row, LOG_N));
                }
            })
        });
    }
    let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let mut data = input.clone();
    g.bench_function("ark-poly-all-cores-8-calls", |b| {
        b.iter(|| {
            for row in data.chunks_mut(n) {
                let mut v = row.to_vec();
                ark.fft_in_place(&mut v);
                row.copy_from_slice(&v);
            }
        })
    });
    g.finish();
}

/// What the host path cannot beat: the same bytes one way over PCIe from pinned memory (DMA
/// only), and the CPU copy between pageable and pinned memory on all cores (rayon, 256 KiB pieces,
/// as the pipeline does it).
fn copy_floor_bench(c: &mut Criterion) {
    use cudarc::driver::{CudaSlice, PinnedHostSlice};
    use rayon::prelude::*;
    let Some(engine) = zkntt_ark::gpu_pipeline() else {
        return;
    };
    let stream = engine.gpu().stream().clone();
    let mut g = c.benchmark_group("domain/bn254/copy_floor");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for log_n in [20u32, 23] {
        let words = 4usize << log_n;
        g.throughput(Throughput::Bytes((words * 8) as u64));
        // SAFETY: filled below before any read.
        let Ok(mut pinned): Result<PinnedHostSlice<u64>, _> = (unsafe {
            engine
                .gpu()
                .context()
                .alloc_pinned_with_flags::<u64>(words, 0)
        }) else {
            println!("copy_floor: no pinned memory for 2^{log_n}");
            continue;
        };
        let host: Vec<u64> = (0..words as u64).collect();
        pinned.as_mut_slice().unwrap().copy_from_slice(&host);
        let mut dev: CudaSlice<u64> = stream.alloc_zeros(words).unwrap();
        g.bench_function(BenchmarkId::new("h2d-pinned-dma", log_n), |b| {
            b.iter(|| {
                stream.memcpy_htod(&pinned, &mut dev).unwrap();
                stream.synchronize().unwrap();
            })
        });
        g.bench_function(BenchmarkId::new("d2h-pinned-dma", log_n), |b| {
            b.iter(|| {
                stream.memcpy_dtoh(&dev, &mut pinned).unwrap();
                stream.synchronize().unwrap();
            })
        });
        let mut out = vec![0u64; words];
        g.bench_function(BenchmarkId::new("cpu-copy-all-cores", log_n), |b| {
            b.iter(|| {
                out.par_chunks_mut(32 * 1024)
                    .zip(host.par_chunks(32 * 1024))
                    .for_each(|(d, s)| d.copy_from_slice(s))
            })
        });
    }
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    domain_bench(&mut c);
    c.final_summary();
}
