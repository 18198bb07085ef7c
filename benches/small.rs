//! `small/...`: the small-word kernels on the GPU, device-resident, timed by CUDA events.
//! - `small/ntt/{field}/{wsx|block}`: batches filling 256 MiB, by log2 N (WSX vs the
//!   block-synchronous baseline in one group, so one run gives the ratio);
//! - `small/modmul/q28/{form}`: 16 M elements x 16 chained multiplications (seed 002);
//! - `small/ntt/babybear-single/{wsx|block}`: one transform of 2^16..2^24 (2-D beyond 2^12).
//!
//! `zkntt bench modmul` and `zkntt bench small-ntt` print the same experiments as tables.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use cudarc::driver::sys::CUevent_flags;
use std::time::Duration;
use zkntt_gpu::Gpu;
use zkntt_gpu::test_support::gpu_or_skip;
use zkntt_small::modmul_gpu::{ChainInputs, launch_chain};
use zkntt_small::{Direction, Kernel, ModMulForm, SmallField, SmallNtt};

/// Device time of `iters` calls of `f`, between two CUDA events.
fn device_time(gpu: &Gpu, iters: u64, mut f: impl FnMut()) -> Duration {
    let s = gpu.stream();
    let start = s
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .unwrap();
    for _ in 0..iters {
        f();
    }
    let end = s
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .unwrap();
    end.synchronize().unwrap();
    Duration::from_secs_f64(start.elapsed_ms(&end).unwrap() as f64 * 1e-3)
}

fn random(q: u32, n: usize, seed: u64) -> Vec<u32> {
    // xorshift: cheap, non-zero, below q.
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % q as u64) as u32
        })
        .collect()
}

fn batched(c: &mut Criterion) {
    let Some(gpu) = gpu_or_skip("bench small/ntt") else {
        return;
    };
    let elems = 1usize << 26; // 256 MiB
    for field in SmallField::ALL {
        let ntt = SmallNtt::new(&gpu, field, ModMulForm::MontgomeryLazy).unwrap();
        let mut data = gpu
            .stream()
            .clone_htod(&random(field.modulus(), elems, 1))
            .unwrap();
        let mut g = c.benchmark_group(format!("small/ntt/{}", field.name()));
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1))
            .throughput(Throughput::Elements(elems as u64));
        for log_n in 6..=12u32 {
            for kernel in Kernel::ALL {
                g.bench_function(BenchmarkId::new(kernel.name(), log_n), |b| {
                    b.iter_custom(|iters| {
                        device_time(&gpu, iters, || {
                            ntt.run(&mut data, log_n, Direction::Forward, kernel)
                                .unwrap()
                        })
                    })
                });
            }
        }
        g.finish();
    }
}

fn modmul(c: &mut Criterion) {
    let Some(gpu) = gpu_or_skip("bench small/modmul") else {
        return;
    };
    let n = 1usize << 24;
    let q = SmallField::Q28.modulus();
    let mut inputs = ChainInputs::new(&gpu, q, &random(q, n, 2), &random(q, n, 3)).unwrap();
    let mut g = c.benchmark_group("small/modmul/q28");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .throughput(Throughput::Elements(16 * n as u64));
    for form in ModMulForm::ALL {
        g.bench_function(form.name(), |b| {
            b.iter_custom(|iters| {
                device_time(&gpu, iters, || {
                    launch_chain(&gpu, form, &mut inputs).unwrap()
                })
            })
        });
    }
    g.finish();
}

fn single(c: &mut Criterion) {
    let Some(gpu) = gpu_or_skip("bench small/ntt/babybear-single") else {
        return;
    };
    let field = SmallField::BabyBear;
    let ntt = SmallNtt::new(&gpu, field, ModMulForm::Montgomery).unwrap();
    let mut g = c.benchmark_group("small/ntt/babybear-single");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for log_n in [16u32, 20, 22, 24] {
        let x = random(field.modulus(), 1 << log_n, log_n as u64);
        let mut input = gpu.stream().clone_htod(&x).unwrap();
        let mut out = gpu.stream().alloc_zeros::<u32>(x.len()).unwrap();
        g.throughput(Throughput::Elements(1 << log_n));
        for kernel in Kernel::ALL {
            g.bench_function(BenchmarkId::new(kernel.name(), log_n), |b| {
                b.iter_custom(|iters| {
                    device_time(&gpu, iters, || {
                        ntt.run_into(&mut input, &mut out, log_n, Direction::Forward, kernel)
                            .unwrap()
                    })
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, batched, modmul, single);
criterion_main!(benches);
