//! `zkntt bench ntt`: the big-field engine, device-resident, timed by CUDA events, beside ark-poly
//! on all cores (host memory, wall clock) in the same run. sppark sits beside it in the criterion
//! bench `benches/ntt.rs` (a bench-only dependency, so not in this binary).

use crate::AnyError;
use ark_bn254::Fr;
use ark_ff::UniformRand;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use cudarc::driver::sys::CUevent_flags;
use std::time::Instant;
use zkntt_gpu::{DeviceVec, Gpu, NttConfig, NttEngine};

#[derive(clap::Args)]
pub struct NttArgs {
    /// Smallest log2 size.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=28))]
    from: u32,
    /// Largest log2 size.
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(1..=28))]
    to: u32,
    /// Timed runs per size (the median is printed).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    reps: u32,
    /// Skip ark-poly (it takes seconds per run at 2^24).
    #[arg(long)]
    no_ark: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn ntt(args: NttArgs) -> Result<(), AnyError> {
    if args.from > args.to {
        return Err(format!("--from {} is above --to {}", args.from, args.to).into());
    }
    let gpu = Gpu::new(0)?;
    let info = gpu.info()?;
    println!("zkntt bench ntt: BN254 Fr on {info}");
    println!(
        "device-resident, CUDA events, median of {} (ark-poly: host memory, all {} cores, median of 3)\n",
        args.reps,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let engine = NttEngine::new(gpu.clone());
    let ctx = gpu.context();
    let a = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
    let b = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
    println!(
        "| log2 N | forward ms | inverse ms | coset fwd ms | G elem/s (fwd) | ark-poly fwd ms | ark / zkntt |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut rng = StdRng::seed_from_u64(1);
    for log_n in args.from..=args.to {
        let n = 1usize << log_n;
        let host: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let mut d = DeviceVec::from_host(&gpu, &host)?;
        let mut time = |cfg: &NttConfig<Fr>| -> Result<f64, AnyError> {
            engine.ntt_in_place(&mut d, cfg)?; // warm-up: twiddles, module
            let mut ms = Vec::with_capacity(args.reps as usize);
            for _ in 0..args.reps {
                a.record(gpu.stream())?;
                engine.ntt_in_place(&mut d, cfg)?;
                b.record(gpu.stream())?;
                b.synchronize()?;
                ms.push(a.elapsed_ms(&b)? as f64);
            }
            Ok(median(ms))
        };
        let fwd = time(&NttConfig::forward())?;
        let inv = time(&NttConfig::inverse())?;
        let coset = time(&NttConfig::forward().with_coset(Fr::from(5u64)))?;
        let (ark, ratio) = if args.no_ark {
            ("skipped".to_string(), "-".to_string())
        } else {
            let domain = Radix2EvaluationDomain::<Fr>::new(n).ok_or("domain")?;
            let mut v = host.clone();
            let ms = median(
                (0..3)
                    .map(|_| {
                        let t = Instant::now();
                        domain.fft_in_place(&mut v);
                        t.elapsed().as_secs_f64() * 1e3
                    })
                    .collect(),
            );
            (format!("{ms:.2}"), format!("{:.0}x", ms / fwd))
        };
        println!(
            "| {log_n} | {fwd:.3} | {inv:.3} | {coset:.3} | {:.2} | {ark} | {ratio} |",
            n as f64 / (fwd * 1e6)
        );
    }
    println!(
        "\nark-poly works on host memory; zkntt here on device memory (the host-to-host path is GpuDomain's)."
    );
    Ok(())
}
