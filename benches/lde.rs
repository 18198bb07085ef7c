//! `lde`: the fused coset low-degree extension (`NttEngine::coset_lde_in_place`: an inverse
//! transform and a coset forward one, one launch and one pass over memory fewer; in NN/NN and
//! in NR/RN, `zkntt_core::plan::Lde`) against the
//! same work as two calls, device-resident, CUDA events, medians, in one run: zkntt's inverse NN +
//! coset forward NN, zkntt's inverse NR + coset forward RN (no reordering between them either), and
//! sppark's same two pairs (BN254; each of sppark's transforms timed on its own, the pair's time
//! the sum of the two medians). 2^ZKNTT_BENCH_MIN_LOG..2^ZKNTT_BENCH_MAX_LOG (default 16..26);
//! BLS12-381 (no sppark bridge) against zkntt's pairs only. Ratios above 1: the fused LDE is faster.
//!
//! sppark is compiled in with `--features sppark` (what `make gpu-build` does); without it the
//! sppark columns say n/a.

use zkntt_benches::{env_log, median_f32, random_elements, sppark_bn254_ms};
use zkntt_core::{NttConfig, Ordering};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::timing::median_ms;
use zkntt_gpu::{DeviceVec, GpuField, Kernels, Lde, NttEngine};

/// Median ms of the fused LDE in NN/NN and in NR/RN (`Lde::Natural`, `Lde::BitReversed`), of
/// inverse NN + coset NN and of inverse NR + coset RN on `d`.
fn zkntt_times<F: GpuField>(e: &NttEngine, d: &mut DeviceVec<F>, reps: usize) -> [f64; 4] {
    let g = F::GENERATOR;
    let s = e.gpu().stream();
    let mut fused = |lde| {
        e.set_kernels(Kernels {
            lde,
            ..Kernels::default()
        });
        let t = median_ms(s, 2, reps, || {
            e.coset_lde_in_place(d, &NttConfig::forward().with_coset(g))
        })
        .unwrap();
        e.set_kernels(Kernels::default());
        t
    };
    let (fused_nn, fused_br) = (fused(Lde::Natural), fused(Lde::BitReversed));
    let mut pair = |inv: Ordering, fwd: Ordering| {
        median_ms(s, 2, reps, || {
            e.ntt_in_place(d, &NttConfig::inverse().with_ordering(inv))?;
            e.ntt_in_place(d, &NttConfig::forward().with_coset(g).with_ordering(fwd))
        })
        .unwrap()
    };
    let nn = pair(Ordering::NN, Ordering::NN);
    let nr_rn = pair(Ordering::NR, Ordering::RN);
    [fused_nn, fused_br, nn, nr_rn]
}

fn main() {
    let Some(gpu) = gpu_or_skip("bench lde") else {
        return;
    };
    let e = NttEngine::new(gpu);
    let gpu = e.gpu();
    let (from, to) = (
        env_log("ZKNTT_BENCH_MIN_LOG", 16),
        env_log("ZKNTT_BENCH_MAX_LOG", 26),
    );
    let reps = 20;
    let fmt = |x: Option<f64>| x.map_or("n/a".into(), |v| format!("{v:.4}"));
    let ratio = |s: Option<f64>, z: f64| s.map_or("n/a".into(), |s| format!("{:.2}", s / z));
    let info = gpu.info().unwrap();
    println!(
        "## lde: BN254 coset LDE (inverse, then coset forward), device-resident, medians of {reps} (ms) on {}",
        info.name
    );
    println!(
        "| log2 N | zkntt fused NN | zkntt fused NR/RN | zkntt NN+NN | zkntt NR+RN | sppark NN+NN | sppark NR+RN | NN+NN / fused NN | NR+RN / fused NR/RN | zkntt unfused best / fused best | sppark best / fused best |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for log_n in from..=to {
        type Fr = ark_bn254::Fr;
        let mut d = DeviceVec::from_host(gpu, &random_elements::<Fr>(1 << log_n, 19)).unwrap();
        let [fused_nn, fused_br, nn, nr_rn] = zkntt_times(&e, &mut d, reps);
        let fused = fused_nn.min(fused_br);
        let sppark = |inv: Ordering, fwd: Ordering| -> Option<f64> {
            let i = sppark_bn254_ms(&d, gpu, log_n, inv, true, false, reps).map(median_f32)?;
            let f = sppark_bn254_ms(&d, gpu, log_n, fwd, false, true, reps).map(median_f32)?;
            Some(i + f)
        };
        let (s_nn, s_nr_rn) = (
            sppark(Ordering::NN, Ordering::NN),
            sppark(Ordering::NR, Ordering::RN),
        );
        let best = match (s_nn, s_nr_rn) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        println!(
            "| {log_n} | {fused_nn:.4} | {fused_br:.4} | {nn:.4} | {nr_rn:.4} | {} | {} | {:.2} | {:.2} | {:.2} | {} |",
            fmt(s_nn),
            fmt(s_nr_rn),
            nn / fused_nn,
            nr_rn / fused_br,
            nn.min(nr_rn) / fused,
            ratio(best, fused),
        );
    }
    println!("\n## lde: BLS12-381 coset LDE, device-resident, medians of {reps} (ms)");
    println!(
        "| log2 N | zkntt fused NN | zkntt fused NR/RN | zkntt NN+NN | zkntt NR+RN | NN+NN / fused NN | NR+RN / fused NR/RN |"
    );
    println!("|---|---|---|---|---|---|---|");
    for log_n in from..=to {
        type G = ark_bls12_381::Fr;
        let mut d = DeviceVec::from_host(gpu, &random_elements::<G>(1 << log_n, 19)).unwrap();
        let [fused_nn, fused_br, nn, nr_rn] = zkntt_times(&e, &mut d, reps);
        println!(
            "| {log_n} | {fused_nn:.4} | {fused_br:.4} | {nn:.4} | {nr_rn:.4} | {:.2} | {:.2} |",
            nn / fused_nn,
            nr_rn / fused_br
        );
    }
}
