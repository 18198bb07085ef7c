//! `cargo bench --bench multi`: several GPUs of one host, against one GPU, in one process.
//!
//! Every figure on 1, 2, 4, .. GPUs (the powers of two up to the visible count), one engine per
//! device shared by all of them:
//! - Batches, host memory in and out (8 x 2^22, 64 x 2^20): `GpuPool` over devices 0..k (a share
//!   each, through each GPU's own host pipeline).
//! - One transform 2^24..2^`ZKNTT_MULTI_MAX_LOG` (default 28), device-resident (wall clock to
//!   the last rank's completion; inputs already in place): the engine on device 0, the split over
//!   k ranks (over one: the split path's own overhead), the all-to-all alone at the split's size
//!   (GB/s per GPU sent over links), and the split's two local passes as one rank runs them.
//! - One transform host to host at 2^24 and 2^26: the host pipeline on device 0 against the split,
//!   with the split's time cut into scatter, device work and gather.
//!
//! BN254 forward. Prints markdown; `ZKNTT_OUT=dir` also writes `dir/multi.json`. Needs NCCL for
//! the split rows (see `zkntt_gpu::multi::Nccl`); without it those rows say why.

use ark_bn254::Fr;
use std::fmt::Write as _;
use std::sync::Arc;
use zkntt_benches::random_elements;
use zkntt_gpu::multi::{GpuPool, SplitEngine, SplitPolicy};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::timing::median_wall_ms;
use zkntt_gpu::{DeviceVec, Gpu, HostPipeline, NttConfig, NttEngine};

const REPS: usize = 5;

/// Median wall milliseconds of `f` after one warm-up (`timing::median_wall_ms`; `f` panics on
/// error, as the bench does everywhere).
fn wall_ms(mut f: impl FnMut()) -> f64 {
    median_wall_ms(1, REPS, || {
        f();
        Ok::<(), ()>(())
    })
    .unwrap()
}

fn main() {
    let Some(probe) = gpu_or_skip("multi bench") else {
        return;
    };
    drop(probe);
    let count = Gpu::device_count();
    let max_log: u32 = std::env::var("ZKNTT_MULTI_MAX_LOG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(28);
    // One engine per device, shared by every pool and split below: 1, 2, 4, .. GPUs. Device 0's
    // work is queued on its engine's stream, so that is the stream every timing waits for.
    let engines: Vec<Arc<NttEngine>> = (0..count)
        .map(|d| Arc::new(NttEngine::new(Gpu::new(d).unwrap())))
        .collect();
    let gpu0 = engines[0].gpu().clone();
    println!("{} ; {count} GPU(s) visible", gpu0.info().unwrap());
    let ks: Vec<usize> = (0..usize::BITS)
        .map(|b| 1usize << b)
        .take_while(|&k| k <= count)
        .collect();
    let mut md = String::new();
    let mut json = Vec::<String>::new();
    let head = |first: &str, per_k: &[&str], ks: &[usize]| {
        let mut h = format!("| {first} |");
        let mut rule = "|---".repeat(first.matches('|').count() + 1) + "|";
        for &k in ks {
            for col in per_k {
                let _ = write!(h, " {} |", col.replace("{k}", &k.to_string()));
                rule.push_str("---|");
            }
        }
        format!("{h}\n{rule}")
    };

    // Batches through the pool.
    writeln!(md, "\n### Batches, host to host (GpuPool), ms\n").unwrap();
    writeln!(md, "{}", head("batch", &["{k} GPU(s)", "x1 GPU"], &ks)).unwrap();
    let pools: Vec<GpuPool> = ks
        .iter()
        .map(|&k| GpuPool::new(engines[..k].to_vec()).unwrap())
        .collect();
    for (batch, log_n) in [(8usize, 22u32), (64, 20)] {
        let mut x: Vec<Fr> = random_elements(batch << log_n, 7);
        let cfg = NttConfig::forward().with_batch(batch);
        let ts: Vec<f64> = pools
            .iter()
            .map(|p| wall_ms(|| p.ntt(&mut x, &cfg).unwrap()))
            .collect();
        let mut row = format!("| {batch} x 2^{log_n} |");
        for (&k, t) in ks.iter().zip(&ts) {
            let _ = write!(row, " {t:.2} | {:.2} |", ts[0] / t);
            json.push(format!(
                r#"{{"kind":"batch","batch":{batch},"log_n":{log_n},"gpus":{k},"ms":{t:.4}}}"#
            ));
        }
        writeln!(md, "{row}").unwrap();
        eprintln!("batch {batch} x 2^{log_n}: {ts:.2?} ms on {ks:?} GPUs");
    }
    drop(pools);

    // Single transforms, device-resident: the engine on device 0, then the split over k ranks
    // for every k (over 1 rank: the split path's own overhead).
    let splits: Vec<Option<SplitEngine>> = ks
        .iter()
        .map(|&k| match SplitEngine::new(engines[..k].to_vec()) {
            Ok(s) => Some(s),
            Err(e) => {
                writeln!(md, "\nsplit over {k} GPU(s) not run: {e}").unwrap();
                None
            }
        })
        .collect();
    writeln!(
        md,
        "\n### One transform, device-resident, ms (wall clock to the last GPU's completion)\n\n\
         The engine on GPU 0; the split over k ranks (k = 1: the split path's own overhead); \
         x engine = engine / split; GB/s: the all-to-all alone at the split's size, per GPU sent over links.\n"
    )
    .unwrap();
    writeln!(
        md,
        "{}",
        head(
            "log2 N | engine, 1 GPU",
            &["split, {k}", "x engine", "GB/s"],
            &ks
        )
    )
    .unwrap();
    let cfg = NttConfig::<Fr>::forward();
    let engine = &engines[0];
    let mut steps = Vec::new();
    for log_n in 24..=max_log {
        let n = 1usize << log_n;
        let x: Vec<Fr> = random_elements(n, log_n as u64);
        let mut d = DeviceVec::from_host(&gpu0, &x).unwrap();
        let te = wall_ms(|| {
            engine.ntt_in_place(&mut d, &cfg).unwrap();
            gpu0.synchronize().unwrap();
        });
        drop(d);
        let mut row = format!("| {log_n} | {te:.2} |");
        for s in &splits {
            let Some(s) = s else {
                row.push_str(" — | — | — |");
                continue;
            };
            let mut blocks = s.scatter(&x).unwrap();
            let t = wall_ms(|| {
                s.ntt_distributed(&mut blocks, log_n, &cfg).unwrap();
                s.synchronize().unwrap();
            });
            drop(blocks);
            s.release_scratch();
            // Each rank exchanges its N/k elements: (k-1)/k of them cross links.
            let gbs = (s.ranks() > 1).then(|| {
                let bytes = n / s.ranks() * 32;
                let secs = s.time_all_to_all(bytes, REPS).unwrap();
                bytes as f64 * (s.ranks() - 1) as f64 / s.ranks() as f64 / secs / 1e9
            });
            let g = gbs.map_or("—".into(), |v| format!("{v:.0}"));
            let _ = write!(row, " {t:.2} | {:.2} | {g} |", te / t);
            json.push(format!(
                r#"{{"kind":"single","log_n":{log_n},"ranks":{},"engine_ms":{te:.4},"split_ms":{t:.4},"all_to_all_gbs":{}}}"#,
                s.ranks(),
                gbs.map_or("null".into(), |v| format!("{v:.2}"))
            ));
            eprintln!(
                "single 2^{log_n}: engine {te:.2}, split over {} {t:.2} ms, {gbs:?} GB/s",
                s.ranks()
            );
        }
        writeln!(md, "{row}").unwrap();
        // The split's two local passes alone, as one of the most ranks runs them: the engine's
        // column batches (c columns of N2 points, then r of N1), each on N/k elements.
        if let Some(s) = splits.last().and_then(|s| s.as_ref()) {
            let sp = s.split_for::<Fr>(log_n).unwrap();
            let mut d = DeviceVec::from_host(&gpu0, &x[..n / s.ranks()]).unwrap();
            let mut pass = |batch: usize| {
                let c = NttConfig::<Fr>::forward()
                    .with_batch(batch)
                    .with_layout(zkntt_gpu::BatchLayout::Columns);
                wall_ms(|| {
                    engine.ntt_in_place(&mut d, &c).unwrap();
                    gpu0.synchronize().unwrap();
                })
            };
            let p1 = pass(sp.columns_per_rank());
            let p2 = pass(sp.k2_per_rank());
            steps.push(format!(
                "| {log_n} | {p1:.2} | {p2:.2} | {:.2} | {:.2} |",
                p1 + p2,
                (p1 + p2) / te
            ));
            json.push(format!(
                r#"{{"kind":"passes","log_n":{log_n},"ranks":{},"step1_ms":{p1:.4},"step2_ms":{p2:.4}}}"#,
                s.ranks()
            ));
        }
        engines.iter().for_each(|e| e.clear_cache());
    }
    let k_max = *ks.last().unwrap();
    writeln!(
        md,
        "\n### The split's local passes on one of {k_max} ranks (engine column batches on N/{k_max} elements), ms\n\n\
         | log2 N | step 1 (c x N2) | step 2 (r x N1) | both | both / engine's whole transform |\n|---|---|---|---|---|"
    )
    .unwrap();
    for row in &steps {
        writeln!(md, "{row}").unwrap();
    }

    // Single transforms, host to host: the host pipeline on device 0 against the split
    // (SplitPolicy::Always; Auto keeps these on one GPU), and where the split's time goes
    // (scatter: host rows into each rank's block; the device work; gather back).
    writeln!(
        md,
        "\n### One transform, host to host, ms (`SplitPolicy::Always`; `Auto` keeps these on one GPU)\n"
    )
    .unwrap();
    writeln!(
        md,
        "{}",
        head(
            "log2 N | host pipeline, 1 GPU",
            &["split, {k}", "x one GPU", "scatter / device / gather"],
            &ks[1..]
        )
    )
    .unwrap();
    let host = HostPipeline::new(engine.clone());
    for log_n in [24u32, 26].into_iter().filter(|&l| l <= max_log) {
        let mut x: Vec<Fr> = random_elements(1 << log_n, 99);
        let th = wall_ms(|| host.ntt(&mut x, &cfg).unwrap());
        let mut row = format!("| {log_n} | {th:.2} |");
        // Over one rank `SplitEngine::ntt` is the host pipeline itself: from 2 ranks.
        for s in splits.iter().flatten().filter(|s| s.ranks() > 1) {
            s.set_policy(SplitPolicy::Always);
            let ts = wall_ms(|| s.ntt(&mut x, &cfg).unwrap());
            let mut blocks = s.scatter(&x).unwrap();
            let scatter = wall_ms(|| blocks = s.scatter(&x).unwrap());
            let device = wall_ms(|| {
                s.ntt_distributed(&mut blocks, log_n, &cfg).unwrap();
                s.synchronize().unwrap();
            });
            let gather = wall_ms(|| s.gather(&blocks, &mut x).unwrap());
            drop(blocks);
            s.release_scratch();
            let _ = write!(
                row,
                " {ts:.2} | {:.2} | {scatter:.1} / {device:.1} / {gather:.1} |",
                th / ts
            );
            json.push(format!(
                r#"{{"kind":"host","log_n":{log_n},"ranks":{},"one_ms":{th:.4},"split_ms":{ts:.4},"scatter_ms":{scatter:.4},"device_ms":{device:.4},"gather_ms":{gather:.4}}}"#,
                s.ranks()
            ));
            eprintln!(
                "host 2^{log_n}: one GPU {th:.2}, split over {} {ts:.2} ms",
                s.ranks()
            );
        }
        writeln!(md, "{row}").unwrap();
    }
    println!("{md}");
    if let Ok(dir) = std::env::var("ZKNTT_OUT") {
        let path = std::path::Path::new(&dir).join("multi.json");
        std::fs::write(&path, format!("[\n{}\n]\n", json.join(",\n"))).unwrap();
        println!("wrote {}", path.display());
    }
}
