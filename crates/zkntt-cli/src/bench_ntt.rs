//! `zkntt bench ntt`: the big-field engine, device-resident, timed by CUDA events, beside ark-poly
//! on all cores (host memory, wall clock) in the same run. sppark sits beside it in the criterion
//! bench `benches/ntt.rs` (a bench-only dependency, so not in this binary).

use crate::AnyError;
use ark_bn254::Fr;
use ark_ff::UniformRand;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use zkntt_gpu::timing::{median_ms, median_wall_ms};
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
    println!(
        "| log2 N | forward ms | inverse ms | coset fwd ms | G elem/s (fwd) | ark-poly fwd ms | ark / zkntt |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut rng = StdRng::seed_from_u64(1);
    for log_n in args.from..=args.to {
        let n = 1usize << log_n;
        let host: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let mut d = DeviceVec::from_host(&gpu, &host)?;
        // One warm-up run builds the twiddles and loads the module.
        let mut time = |cfg: &NttConfig<Fr>| {
            median_ms(gpu.stream(), 1, args.reps as usize, || {
                engine.ntt_in_place(&mut d, cfg)
            })
        };
        let fwd = time(&NttConfig::forward())?;
        let inv = time(&NttConfig::inverse())?;
        let coset = time(&NttConfig::forward().with_coset(Fr::from(5u64)))?;
        let (ark, ratio) = if args.no_ark {
            ("skipped".to_string(), "-".to_string())
        } else {
            let domain = Radix2EvaluationDomain::<Fr>::new(n).ok_or("domain")?;
            let mut v = host.clone();
            let ms = median_wall_ms(0, 3, || {
                domain.fft_in_place(&mut v);
                Ok::<(), zkntt_gpu::Error>(())
            })?;
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
