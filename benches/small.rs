//! `small/...`: the small-word kernels on the GPU, device-resident, timed by CUDA events.
//! - `small/ntt/{field}/{wsx|block}`: batches filling 256 MiB, by log2 N (WSX vs the
//!   block-synchronous baseline in one group, so one run gives the ratio);
//! - `small/modmul/q28/{form}`: 16 M elements x 16 chained multiplications (seed 002);
//! - `small/ntt/babybear-single/{wsx|block|sppark-nn}`: one transform of 2^16..2^24 (2-D beyond
//!   2^12), beside sppark's BabyBear NTT when built with `--features sppark` (make gpu-build).
//!
//! After criterion, a table of BabyBear (2^12..2^26) and KoalaBear (2^12..2^24) transforms, single and batched,
//! beside sppark's BabyBear NTT in every order, with the ratio to its fastest.
//! `zkntt bench modmul` and `zkntt bench small-ntt` print the other experiments as tables.

use criterion::{BenchmarkId, Criterion, Throughput};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, DevicePtrMut};
use std::time::Duration;
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::timing::{median, median_ms};
use zkntt_gpu::{Gpu, Ordering};
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

/// Milliseconds per call of 20 calls queued back to back between two events, after 3: what a
/// call costs inside a pipeline, where the host's time per call hides behind the GPU's unless it
/// is the larger (the single-call medians also count the host's time while the GPU idles).
fn queued_ms(gpu: &Gpu, mut f: impl FnMut() -> zkntt_small::Result<()>) -> f64 {
    const CALLS: u64 = 20;
    for _ in 0..3 {
        f().unwrap();
    }
    gpu.synchronize().unwrap();
    device_time(gpu, CALLS, || f().unwrap()).as_secs_f64() * 1e3 / CALLS as f64
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
            for kernel in Kernel::ALL.into_iter().chain(Kernel::ABLATIONS) {
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
    let ntt = SmallNtt::new(&gpu, field, ModMulForm::ShoupLazy).unwrap();
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
        if sppark_ms(&gpu, &input, log_n, Order::NN, 1).is_some() {
            g.bench_function(BenchmarkId::new("sppark-nn", log_n), |b| {
                b.iter_custom(|iters| {
                    let ms: f64 = sppark_ms(&gpu, &input, log_n, Order::NN, iters as usize)
                        .unwrap()
                        .into_iter()
                        .sum();
                    Duration::from_secs_f64(ms / 1e3)
                })
            });
        }
    }
    g.finish();
}

#[cfg(feature = "sppark")]
use zkntt_sppark::Order;

/// sppark's order names, when the bridge is not built in.
#[cfg(not(feature = "sppark"))]
#[derive(Debug, Clone, Copy)]
enum Order {
    NN,
    NR,
    RN,
}

/// Milliseconds of `reps` sppark BabyBear NTTs of 2^log_n in place on `d`, each timed by sppark's
/// stream events; None where sppark is not built in.
#[cfg(feature = "sppark")]
fn sppark_ms(
    gpu: &Gpu,
    d: &cudarc::driver::CudaSlice<u32>,
    log_n: u32,
    order: Order,
    reps: usize,
) -> Option<Vec<f64>> {
    use cudarc::driver::DevicePtr;
    gpu.synchronize().unwrap();
    let (ptr, _guard) = d.device_ptr(gpu.stream());
    // SAFETY: `d` holds 2^log_n words in the primary context sppark also uses; the stream is
    // idle and sppark synchronizes its own stream before returning.
    let ms = unsafe { zkntt_sppark::babybear::ntt_device(ptr, log_n, order, reps) }.ok()?;
    Some(ms.into_iter().map(f64::from).collect())
}

#[cfg(not(feature = "sppark"))]
fn sppark_ms(
    _: &Gpu,
    _: &cudarc::driver::CudaSlice<u32>,
    _: u32,
    order: Order,
    _: usize,
) -> Option<Vec<f64>> {
    let _ = order;
    None
}

/// BabyBear and KoalaBear transforms, single and batched, beside sppark's BabyBear NTT in one
/// table: medians of 20 after 3 warm-ups. sppark has no KoalaBear NTT: its BabyBear time of the
/// same size stands beside KoalaBear (same word size, same launches). sppark transforms one
/// vector per call, so a batch's sppark time is its single time times the batch.
fn summary(gpu: &Gpu) {
    let s = gpu.stream();
    println!(
        "\nSmall-word forward NTTs (zkntt: WSX, Shoup lazy form; 2^13..2^16 one cluster launch where the GPU has clusters and the batch is small (batch x C^2 <= 256), otherwise the 2-D path as two passes (rows contiguous both ways in place on the tile kernel: NR's at every size, RN's from 2^16, NN's from 2^22 then a transpose, where from 2^23 words (2^17..2^24) NN's rows kernel takes them, storing across the rows: no transpose), at 2^25/2^26 a panel pass and 2^13/2^14-point rows on the wide tile kernel (NN: on NN's wide rows kernel, storing across the rows; without its clusters the wide tile kernel, then a transpose); the panel column: the 2-D path forced in the same call; NR: natural in, bit-reversed out, in place, one cluster launch up to 2^16 where the batch is small; NR panels: the 2-D path forced; RN: bit-reversed in, natural out, in place by address, one tile launch to 2^12, one cluster launch to 2^16 where the batch is small, then two passes (above 2^24 the input's rows of 2^13/2^14 on the wide tile kernel, then a panel pass); RN panels: the 2-D path forced; in place by address: NN by `run_raw`, as NR's and RN's, the way sppark's API takes a buffer), device-resident, ms (median of 20; sppark in place on its own stream, BabyBear):\n"
    );
    println!(
        "| field | log2 N | batch | zkntt in place | zkntt out of place | zkntt panels in place | zkntt in place, per call of 20 queued | zkntt NR in place | zkntt NR in place by address | zkntt NR panels in place | sppark NN | sppark NR | sppark RN | sppark best order / zkntt in place | sppark NR / zkntt NR | sppark best order / zkntt NR | sppark best order / zkntt NR by address | zkntt RN in place by address | zkntt RN panels by address | sppark RN / zkntt RN | sppark best order / zkntt RN | zkntt in place by address | sppark best order / zkntt in place by address |"
    );
    println!(
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    // ZKNTT_BENCH_MIN_LOG / ZKNTT_BENCH_MAX_LOG narrow the table to those sizes (batches included).
    let (min, max) = (
        zkntt_benches::env_log("ZKNTT_BENCH_MIN_LOG", 12),
        zkntt_benches::env_log("ZKNTT_BENCH_MAX_LOG", 26),
    );
    let cases: Vec<(u32, usize)> = (12..=26)
        .map(|l| (l, 1))
        .chain([(12, 256), (13, 64), (16, 8), (16, 64), (20, 16), (22, 4)])
        .filter(|&(l, _)| (min..=max).contains(&l))
        .collect();
    for field in [SmallField::BabyBear, SmallField::KoalaBear] {
        let ntt = SmallNtt::new(gpu, field, ModMulForm::ShoupLazy).unwrap();
        for &(log_n, batch) in &cases {
            // BabyBear to 2^26 (sm_90), KoalaBear to its two-adicity.
            if log_n > ntt.max_log_n(Kernel::Wsx) {
                continue;
            }
            let x = random(field.modulus(), batch << log_n, log_n as u64);
            let mut input = s.clone_htod(&x).unwrap();
            let mut out = s.alloc_zeros::<u32>(x.len()).unwrap();
            let inplace = median_ms(s, 3, 20, || {
                ntt.run(&mut input, log_n, Direction::Forward, Kernel::Wsx)
            })
            .unwrap();
            let oop = median_ms(s, 3, 20, || {
                ntt.run_into(&mut input, &mut out, log_n, Direction::Forward, Kernel::Wsx)
            })
            .unwrap();
            // The same call with the cluster kernel switched off, where it is the default.
            let panels = ntt
                .takes_cluster(log_n, batch as u64, Kernel::Wsx)
                .then(|| {
                    ntt.set_clusters(false);
                    let ms = median_ms(s, 3, 20, || {
                        ntt.run(&mut input, log_n, Direction::Forward, Kernel::Wsx)
                    })
                    .unwrap();
                    ntt.set_clusters(true);
                    ms
                });
            let queued = queued_ms(gpu, || {
                ntt.run(&mut input, log_n, Direction::Forward, Kernel::Wsx)
            });
            let nr_ms = |input: &mut CudaSlice<u32>| {
                median_ms(s, 3, 20, || {
                    ntt.run_ordered(input, log_n, Direction::Forward, Kernel::Wsx, Ordering::NR)
                })
                .unwrap()
            };
            let nr = nr_ms(&mut input);
            // Each ordering on the same buffer by its address (`run_raw`: no cudarc event calls,
            // the way sppark's API takes a buffer).
            let by_address = |input: &mut CudaSlice<u32>, order: Ordering| {
                let len = input.len();
                let (ptr, _g) = input.device_ptr_mut(s);
                median_ms(s, 3, 20, || {
                    // SAFETY: `input` holds `len` words of this GPU and is used by nothing
                    // else while the guard `_g` lives; all work is on stream `s`.
                    unsafe { ntt.run_raw(ptr, len, log_n, Direction::Forward, order) }
                })
                .unwrap()
            };
            let nr_raw = by_address(&mut input, Ordering::NR);
            let nn_raw = by_address(&mut input, Ordering::NN);
            let rn_raw = by_address(&mut input, Ordering::RN);
            // RN by address with the cluster kernel switched off, where RN takes it.
            let rn_panels = ntt
                .takes_cluster(log_n, batch as u64, Kernel::Wsx)
                .then(|| {
                    ntt.set_clusters(false);
                    let ms = by_address(&mut input, Ordering::RN);
                    ntt.set_clusters(true);
                    ms
                });
            // NR with the cluster kernel switched off, where NR takes it.
            let nr_panels = ntt
                .takes_cluster(log_n, batch as u64, Kernel::Wsx)
                .then(|| {
                    ntt.set_clusters(false);
                    let ms = nr_ms(&mut input);
                    ntt.set_clusters(true);
                    ms
                });
            let sp = |order| {
                sppark_ms(gpu, &input, log_n, order, 20).map(|mut v| median(&mut v) * batch as f64)
            };
            let orders = [sp(Order::NN), sp(Order::NR), sp(Order::RN)];
            let best = orders.iter().flatten().copied().reduce(f64::min);
            let cell = |v: Option<f64>| v.map_or("not built".into(), |v| format!("{v:.4}"));
            let ratio =
                |a: Option<f64>, ours: f64| a.map_or("-".into(), |a| format!("{:.2}x", a / ours));
            println!(
                "| {} | {log_n} | {batch} | {inplace:.4} | {oop:.4} | {} | {queued:.4} | {nr:.4} | {nr_raw:.4} | {} | {} | {} | {} | {} | {} | {} | {} | {rn_raw:.4} | {} | {} | {} | {nn_raw:.4} | {} |",
                field.name(),
                panels.map_or("-".into(), |v| format!("{v:.4}")),
                nr_panels.map_or("-".into(), |v| format!("{v:.4}")),
                cell(orders[0]),
                cell(orders[1]),
                cell(orders[2]),
                ratio(best, inplace),
                ratio(orders[1], nr),
                ratio(best, nr),
                ratio(best, nr_raw),
                rn_panels.map_or("-".into(), |v| format!("{v:.4}")),
                ratio(orders[2], rn_raw),
                ratio(best, rn_raw),
                ratio(best, nn_raw),
            );
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    batched(&mut c);
    modmul(&mut c);
    single(&mut c);
    c.final_summary();
    if let Some(gpu) = gpu_or_skip("bench small: BabyBear and KoalaBear beside sppark") {
        summary(&gpu);
    }
}
