//! `cargo bench --bench multi`: several GPUs of one host, against one GPU, in one process.
//!
//! - Batches, host memory in and out (8 x 2^22, 64 x 2^20): `GpuPool` over device 0 alone, then
//!   over every GPU (a share each, through each GPU's own host pipeline).
//! - One transform 2^24..2^`ZKNTT_MULTI_MAX_LOG` (default 28), device-resident (wall clock to
//!   the last rank's completion; inputs already in place): the engine on device 0; the split path
//!   on device 0 alone (one NCCL rank: the split's own overhead); the split over every GPU.
//! - One transform host to host at 2^24 and 2^26: the host pipeline on device 0 against the split
//!   over every GPU.
//! - The all-to-all alone at the sizes the splits exchange, in GB/s per GPU sent over links.
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
use zkntt_gpu::{Blocks, DeviceVec, Gpu, HostPipeline, Kernels, NttConfig, NttEngine};

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
    let Some(gpu0) = gpu_or_skip("multi bench") else {
        return;
    };
    let count = Gpu::device_count();
    let max_log: u32 = std::env::var("ZKNTT_MULTI_MAX_LOG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(28);
    println!("{} ; {count} GPU(s) visible", gpu0.info().unwrap());
    let mut md = String::new();
    let mut json = Vec::<String>::new();

    // Batches through the pool.
    let one = GpuPool::with_devices(&[0]).unwrap();
    let all = GpuPool::all_devices().unwrap();
    let k_all = all.devices().len();
    writeln!(md, "\n### Batches, host to host (GpuPool), ms\n").unwrap();
    writeln!(
        md,
        "| batch | 1 GPU | {k_all} GPUs | speed-up |\n|---|---|---|---|"
    )
    .unwrap();
    for (batch, log_n) in [(8usize, 22u32), (64, 20)] {
        let mut x: Vec<Fr> = random_elements(batch << log_n, 7);
        let cfg = NttConfig::forward().with_batch(batch);
        let t1 = wall_ms(|| one.ntt(&mut x, &cfg).unwrap());
        let tk = wall_ms(|| all.ntt(&mut x, &cfg).unwrap());
        writeln!(
            md,
            "| {batch} x 2^{log_n} | {t1:.2} | {tk:.2} | {:.2} |",
            t1 / tk
        )
        .unwrap();
        json.push(format!(
            r#"{{"kind":"batch","batch":{batch},"log_n":{log_n},"gpus":{k_all},"one_ms":{t1:.4},"all_ms":{tk:.4}}}"#
        ));
        eprintln!("batch {batch} x 2^{log_n}: {t1:.2} / {tk:.2} ms");
    }
    drop((one, all));

    // A GPU's share of a batch, device-resident: the engine's row batches with Blocks::Auto
    // (narrow only while the batch holds at most 2^17 elements) against narrow blocks forced
    // (what Auto chose for any batch of transforms up to 2^17 points before).
    let engine0 = NttEngine::new(gpu0.clone());
    writeln!(
        md,
        "\n### Row batches on one GPU, device-resident, ms (CUDA events)\n\n| batch | Blocks::Auto | narrow forced | narrow / auto |\n|---|---|---|---|"
    )
    .unwrap();
    for (batch, log_n) in [(1024usize, 12u32), (256, 14), (64, 16), (16, 17), (4, 12)] {
        let x: Vec<Fr> = random_elements(batch << log_n, 5);
        let mut d = DeviceVec::from_host(&gpu0, &x).unwrap();
        let cfg = NttConfig::forward().with_batch(batch);
        let mut time = |k: Kernels| {
            engine0.set_kernels(k);
            zkntt_gpu::timing::median_ms(gpu0.stream(), 2, 20, || {
                engine0.ntt_in_place(&mut d, &cfg)
            })
            .unwrap()
        };
        let auto = time(Kernels::default());
        let narrow = time(Kernels {
            blocks: Blocks::Narrow,
            ..Kernels::default()
        });
        writeln!(
            md,
            "| {batch} x 2^{log_n} | {auto:.4} | {narrow:.4} | {:.2} |",
            narrow / auto
        )
        .unwrap();
        json.push(format!(
            r#"{{"kind":"row_batch","batch":{batch},"log_n":{log_n},"auto_ms":{auto:.5},"narrow_ms":{narrow:.5}}}"#
        ));
    }
    drop(engine0);

    // Single transforms, device-resident.
    let engine = Arc::new(NttEngine::new(gpu0.clone()));
    let split1 = SplitEngine::new(vec![engine.clone()]);
    let split_all = SplitEngine::all_devices();
    let k = split_all.as_ref().map_or(0, |s| s.ranks());
    if let Err(e) = &split1 {
        writeln!(md, "\nsplit rows not run: {e}").unwrap();
    }
    writeln!(
        md,
        "\n### One transform, device-resident, ms (wall clock to the last GPU's completion)\n"
    )
    .unwrap();
    writeln!(
        md,
        "| log2 N | engine, 1 GPU | split, 1 rank | split overhead | split, {k} GPUs | {k} GPUs vs engine | all-to-all GB/s per GPU |\n|---|---|---|---|---|---|---|"
    )
    .unwrap();
    let cfg = NttConfig::<Fr>::forward();
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
        let run_split = |s: &SplitEngine| -> f64 {
            let mut blocks = s.scatter(&x).unwrap();
            let t = wall_ms(|| {
                s.ntt_distributed(&mut blocks, log_n, &cfg).unwrap();
                s.synchronize().unwrap();
            });
            drop(blocks);
            s.engine(0).unwrap().clear_cache();
            t
        };
        let t1 = split1.as_ref().ok().map(run_split);
        let (tk, gbs) = match &split_all {
            Ok(s) if s.ranks() > 1 => {
                let t = run_split(s);
                // Each rank exchanges its N/k elements: (k-1)/k of them cross links.
                let bytes = n / s.ranks() * 32;
                let secs = s.time_all_to_all(bytes, REPS).unwrap();
                let sent = bytes as f64 * (s.ranks() - 1) as f64 / s.ranks() as f64;
                (Some(t), Some(sent / secs / 1e9))
            }
            _ => (None, None),
        };
        // The split's two local passes alone, as one rank runs them: the engine's column
        // batches (c columns of N2 points, then r of N1), each on N/k elements.
        let parts = match &split_all {
            Ok(s) => {
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
                // The same with narrow blocks forced: what Blocks::Auto chose for these
                // batches before it counted the batch (narrow up to 2^17 points per transform).
                engine.set_kernels(Kernels {
                    blocks: Blocks::Narrow,
                    ..Kernels::default()
                });
                let n1 = pass(sp.columns_per_rank());
                let n2 = pass(sp.k2_per_rank());
                engine.set_kernels(Kernels::default());
                Some((p1, p2, n1, n2))
            }
            Err(_) => None,
        };
        let f = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.2}"));
        if let Some((p1, p2, n1, n2)) = parts {
            steps.push(format!(
                "| {log_n} | {p1:.2} | {p2:.2} | {:.2} | {n1:.2} | {n2:.2} | {:.2} |",
                p1 + p2,
                n1 + n2
            ));
            json.push(format!(
                r#"{{"kind":"passes","log_n":{log_n},"ranks":{k},"step1_ms":{p1:.4},"step2_ms":{p2:.4},"narrow_step1_ms":{n1:.4},"narrow_step2_ms":{n2:.4}}}"#
            ));
        }
        writeln!(
            md,
            "| {log_n} | {te:.2} | {} | {} | {} | {} | {} |",
            f(t1),
            f(t1.map(|t| t / te)),
            f(tk),
            f(tk.map(|t| te / t)),
            f(gbs)
        )
        .unwrap();
        json.push(format!(
            r#"{{"kind":"single","log_n":{log_n},"engine_ms":{te:.4},"split1_ms":{},"split_k_ms":{},"ranks":{k},"all_to_all_gbs":{}}}"#,
            t1.map_or("null".into(), |v| format!("{v:.4}")),
            tk.map_or("null".into(), |v| format!("{v:.4}")),
            gbs.map_or("null".into(), |v| format!("{v:.2}")),
        ));
        eprintln!("single 2^{log_n}: engine {te:.2}, split1 {t1:?}, split{k} {tk:?}, {gbs:?} GB/s");
        engine.clear_cache();
    }

    writeln!(
        md,
        "\n### The split's local passes on one of {k} ranks (engine column batches on N/{k} elements), ms\n"
    )
    .unwrap();
    writeln!(
        md,
        "| log2 N | step 1 (c x N2) | step 2 (r x N1) | both | step 1, narrow forced | step 2, narrow forced | both, narrow |\n|---|---|---|---|---|---|---|"
    )
    .unwrap();
    for row in &steps {
        writeln!(md, "{row}").unwrap();
    }

    // Single transforms, host to host.
    if let Ok(s) = &split_all {
        writeln!(md, "\n### One transform, host to host, ms\n").unwrap();
        writeln!(
            md,
            "| log2 N | host pipeline, 1 GPU | split, {k} GPUs | speed-up |\n|---|---|---|---|"
        )
        .unwrap();
        let host = HostPipeline::new(engine.clone());
        s.set_policy(SplitPolicy::Always);
        for log_n in [24u32, 26].into_iter().filter(|&l| l <= max_log) {
            let mut x: Vec<Fr> = random_elements(1 << log_n, 99);
            let th = wall_ms(|| host.ntt(&mut x, &cfg).unwrap());
            let ts = wall_ms(|| s.ntt(&mut x, &cfg).unwrap());
            writeln!(md, "| {log_n} | {th:.2} | {ts:.2} | {:.2} |", th / ts).unwrap();
            json.push(format!(
                r#"{{"kind":"host","log_n":{log_n},"one_ms":{th:.4},"split_ms":{ts:.4},"ranks":{k}}}"#
            ));
            eprintln!("host 2^{log_n}: {th:.2} / {ts:.2} ms");
        }
    }
    println!("{md}");
    if let Ok(dir) = std::env::var("ZKNTT_OUT") {
        let path = std::path::Path::new(&dir).join("multi.json");
        std::fs::write(&path, format!("[\n{}\n]\n", json.join(",\n"))).unwrap();
        println!("wrote {}", path.display());
    }
}
