//! `stages`: the kernel generations of each stage (today's shared-memory kernels and the seed's,
//! `zkntt_core::plan::Kernels`) beside sppark in one run, device-resident, CUDA events, medians:
//! BN254 forward transforms 2^ZKNTT_BENCH_MIN_LOG..2^ZKNTT_BENCH_MAX_LOG (default 12..26) in NN,
//! NR and RN, each against sppark's same ordering and against sppark's fastest ordering of the
//! size. Prints one markdown table (ratios above 1: zkntt is faster).
//!
//! sppark is compiled in with `--features sppark` (what `make gpu-build` does); without it the
//! sppark columns say n/a.

use ark_bn254::Fr;
use zkntt_benches::{env_log, median_f32, random_elements, sppark_bn254_ms};
use zkntt_core::plan::{Blocks, Chain, Kernels, Lde, Natural, Product, Stage1, Stage2};
use zkntt_core::{NttConfig, Ordering};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::timing::median_ms;
use zkntt_gpu::{DeviceVec, GpuField, NttEngine};

/// Median milliseconds of `cfg` on `d` with each generation in turn.
fn time_each<F: GpuField>(
    engine: &NttEngine,
    d: &mut DeviceVec<F>,
    cfg: &NttConfig<F>,
    generations: &[(&str, Kernels)],
    reps: usize,
) -> Vec<f64> {
    let z = generations
        .iter()
        .map(|(_, k)| {
            engine.set_kernels(*k);
            median_ms(engine.gpu().stream(), 2, reps, || {
                engine.ntt_in_place(d, cfg)
            })
            .unwrap()
        })
        .collect();
    engine.set_kernels(Kernels::default());
    z
}

fn main() {
    let Some(gpu) = gpu_or_skip("bench stages") else {
        return;
    };
    let engine = NttEngine::new(gpu);
    let gpu = engine.gpu();
    let (from, to) = (
        env_log("ZKNTT_BENCH_MIN_LOG", 12),
        env_log("ZKNTT_BENCH_MAX_LOG", 26),
    );
    let reps = 20;
    let kernels = |stage1, stage2, blocks| Kernels {
        stage1,
        stage2,
        blocks,
        chain: Chain::Auto,
        product: Product::Auto,
        lde: Lde::Auto,
        natural: Natural::SelfSorting,
        ..Kernels::default()
    };
    let all = [
        (
            "wide",
            kernels(Stage1::Shared, Stage2::Shared, Blocks::Wide),
        ),
        (
            "narrow",
            kernels(Stage1::Shared, Stage2::Shared, Blocks::Narrow),
        ),
        (
            "narrow dependent",
            Kernels {
                chain: Chain::Dependent,
                ..kernels(Stage1::Shared, Stage2::Shared, Blocks::Narrow)
            },
        ),
        (
            "stage2 warp",
            kernels(Stage1::Shared, Stage2::Warp, Blocks::Auto),
        ),
        (
            "stage1 shuffle",
            kernels(Stage1::Shuffle, Stage2::Shared, Blocks::Auto),
        ),
        (
            "seed (both)",
            kernels(Stage1::Shuffle, Stage2::Warp, Blocks::Auto),
        ),
        ("default", Kernels::default()),
        (
            "self-sorting",
            Kernels {
                natural: Natural::SelfSorting,
                ..Kernels::default()
            },
        ),
        (
            "hybrid",
            Kernels {
                product: Product::Hybrid,
                lde: Lde::Auto,
                ..Kernels::default()
            },
        ),
    ];
    // ZKNTT_BENCH_GENERATIONS=default,hybrid: only these columns, in this order (all by default).
    let generations: Vec<(&str, Kernels)> = match std::env::var("ZKNTT_BENCH_GENERATIONS") {
        Ok(list) => list
            .split(',')
            .map(|name| {
                *all.iter()
                    .find(|(n, _)| *n == name.trim())
                    .unwrap_or_else(|| {
                        panic!("no generation `{name}` (have {:?})", all.map(|g| g.0))
                    })
            })
            .collect(),
        Err(_) => all.to_vec(),
    };
    let info = gpu.info().unwrap();
    println!(
        "## stages: BN254 forward, device-resident, medians of {reps} (ms) on {}; ratio = sppark / zkntt",
        info.name
    );
    println!(
        "| log2 N | order | {} | sppark same order | sppark best (order) | {} | {} |",
        generations
            .iter()
            .map(|(n, _)| format!("zkntt {n}"))
            .collect::<Vec<_>>()
            .join(" | "),
        generations
            .iter()
            .map(|(n, _)| format!("{n} vs same"))
            .collect::<Vec<_>>()
            .join(" | "),
        generations
            .iter()
            .map(|(n, _)| format!("{n} vs best"))
            .collect::<Vec<_>>()
            .join(" | "),
    );
    println!("|---|---|{}", "---|".repeat(2 + 3 * generations.len()));
    let fmt = |x: Option<f64>| x.map_or("n/a".into(), |v| format!("{v:.4}"));
    let ratio = |s: Option<f64>, z: f64| s.map_or("n/a".into(), |s| format!("{:.2}", s / z));
    for log_n in from..=to {
        let mut d = DeviceVec::from_host(gpu, &random_elements::<Fr>(1 << log_n, 7)).unwrap();
        let orders = [Ordering::NN, Ordering::NR, Ordering::RN];
        let sppark: Vec<Option<f64>> = orders
            .iter()
            .map(|&o| sppark_bn254_ms(&d, gpu, log_n, o, false, false, reps).map(median_f32))
            .collect();
        let best = orders
            .iter()
            .zip(&sppark)
            .filter_map(|(o, s)| s.map(|s| (s, *o)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        for (i, &order) in orders.iter().enumerate() {
            let cfg = NttConfig::forward().with_ordering(order);
            let z = time_each(&engine, &mut d, &cfg, &generations, reps);
            let best_s = best.map(|b| b.0);
            println!(
                "| {log_n} | {order:?} | {} | {} | {} | {} | {} |",
                z.iter()
                    .map(|v| format!("{v:.4}"))
                    .collect::<Vec<_>>()
                    .join(" | "),
                fmt(sppark[i]),
                best.map_or("n/a".into(), |(s, o)| format!("{s:.4} ({o:?})")),
                z.iter()
                    .map(|&v| ratio(sppark[i], v))
                    .collect::<Vec<_>>()
                    .join(" | "),
                z.iter()
                    .map(|&v| ratio(best_s, v))
                    .collect::<Vec<_>>()
                    .join(" | "),
            );
        }
    }
    // BLS12-381 Fr (sppark's bridge has BN254 only): the generations against each other, NN
    // (the first generation's time over each other's).
    println!("\n## stages: BLS12-381 forward NN, device-resident, medians of {reps} (ms)");
    println!(
        "| log2 N | {} | {} |",
        generations
            .iter()
            .map(|(n, _)| format!("zkntt {n}"))
            .collect::<Vec<_>>()
            .join(" | "),
        generations[1..]
            .iter()
            .map(|(n, _)| format!("{} / {n}", generations[0].0))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|{}", "---|".repeat(2 * generations.len() - 1));
    for log_n in from..=to {
        type G = ark_bls12_381::Fr;
        let mut d = DeviceVec::from_host(gpu, &random_elements::<G>(1 << log_n, 7)).unwrap();
        let cfg = NttConfig::<G>::forward();
        let z = time_each(&engine, &mut d, &cfg, &generations, reps);
        println!(
            "| {log_n} | {} | {} |",
            z.iter()
                .map(|v| format!("{v:.4}"))
                .collect::<Vec<_>>()
                .join(" | "),
            z[1..]
                .iter()
                .map(|v| format!("{:.3}", z[0] / v))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
}
