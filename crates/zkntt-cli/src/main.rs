//! `zkntt`: what this build can do on this machine, a demonstration of it, a check of the GPU
//! against ark-poly (`zkntt verify`), benchmarks, and a Groth16 prover with its witness map on the
//! GPU (`zkntt prove`), and plots of saved benchmark results (`zkntt plot`).
//!
//! Every `zkntt bench` subcommand (`ntt`, `ntt --matrix`, `modmul`, `small-ntt`, `fft`) takes
//! `--json FILE` (every number of the run) and `--plot FILE.svg` (time against size for each path
//! measured beside the floors it knows, and the ratios to the run's anchor), checked before the
//! GPU is opened; `zkntt plot --json FILE --out FILE.svg` draws any of those JSON files again with
//! no GPU. Long runs show a progress bar on stderr when it is a terminal; `--device N` everywhere.
//! `zkntt bench ntt --matrix --processes K` (module `bench_merge`) runs the matrix in K processes
//! and merges them; `zkntt bench merge FILE...` merges saved matrix documents with no GPU.
//!
//! Results go to stdout; errors are one line on stderr (`error: ...`) with a non-zero exit; logs
//! go to stderr through `tracing` (`RUST_LOG`, default `warn,zkntt=info`: zkntt's progress and every crate's warnings;
//! `RUST_LOG=zkntt=debug` for more, `RUST_LOG=off` for none).

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use zkntt_core::{FieldId, GpuField, NttConfig, reference};
use zkntt_gpu::field_ops::{self, BinaryOp};
use zkntt_gpu::{DeviceVec, Gpu, HostPipeline, NttEngine};

mod args;
mod bench_fft;
mod bench_matrix;
mod bench_merge;
mod bench_ntt;
mod bench_small;
mod plot;
mod progress;
mod prove;
mod verify;

#[derive(Parser)]
#[command(
    name = "zkntt",
    version,
    about = "GPU NTTs for zero-knowledge provers",
    after_help = "Logs: RUST_LOG (e.g. RUST_LOG=zkntt=debug), on stderr."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The toolchain the kernels were built with, the GPU found (or not), the fields supported.
    Info,
    /// The CPU reference NTT against ark-poly; where a GPU is present also the field kernels
    /// against ark-ff and the GPU NTT engine (forward, inverse, coset) against ark-poly.
    Demo {
        /// log2 of the NTT size.
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=24))]
        log_n: u32,
        #[command(flatten)]
        device: args::DeviceArg,
    },
    /// This machine's GPU against ark-poly, bit for bit: every size 2^min..2^max, both fields,
    /// forward / inverse / coset forward / coset inverse, NN / NR / RN, device-resident and host to
    /// host. Exits non-zero on any mismatch, and when there is no GPU or no kernels.
    Verify(verify::VerifyArgs),
    /// A Groth16 proof of the (x+k)^5 chain with ark-groth16's witness map and with GpuQap's:
    /// both verified, the time of each phase and the speed-ups.
    Prove(prove::ProveArgs),
    /// Benchmarks on this machine's GPU, each with --json FILE and --plot FILE.svg.
    Bench {
        #[command(subcommand)]
        what: Bench,
    },
    /// An SVG plot of a saved `zkntt bench ... --json` file (ntt with or without --matrix, modmul,
    /// small-ntt, fft): time against size beside the floors, and the ratios. Needs no GPU.
    Plot(plot::PlotArgs),
}

#[derive(Subcommand)]
enum Bench {
    /// The blog's modular-multiplication experiment: chains of 16 multiplications per form.
    Modmul(bench_small::ModmulArgs),
    /// The small-word NTT: WSX against the block-synchronous baseline, throughput, streams.
    SmallNtt(bench_small::SmallNttArgs),
    /// The big-field NTT engine (BN254), device-resident, beside ark-poly on all cores; with
    /// --matrix, beside sppark in every order, direction and coset case.
    Ntt(bench_ntt::NttArgs),
    /// The fp16 Tensor Core FFT beside cuFFT fp16 and fp32: time, bandwidth, accuracy.
    Fft(bench_fft::FftArgs),
    /// Several `bench ntt --matrix --json` files (one per process) as one matrix: medians over
    /// the processes, each ratio's per-process range; with --against, two builds compared. No GPU.
    Merge(bench_merge::MergeArgs),
}

/// Logs on stderr, filtered by `RUST_LOG` (default: zkntt's progress of long runs, and every
/// crate's warnings).
fn init_logs() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,zkntt=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| progress::LogWriter)
        .with_ansi(false)
        .without_time()
        .try_init();
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            eprintln!("{}", args::one_line(&e));
            return ExitCode::from(2);
        }
    };
    init_logs();
    let result = match cli.command {
        Command::Info => info(),
        Command::Demo { log_n, device } => demo(log_n, device),
        Command::Plot(args) => plot::plot(args),
        Command::Verify(args) => verify::verify(args),
        Command::Prove(args) => prove::prove(args),
        Command::Bench { what } => match what {
            Bench::Modmul(args) => bench_small::modmul(args),
            Bench::SmallNtt(args) => bench_small::small_ntt(args),
            Bench::Ntt(args) => bench_ntt::ntt(args),
            Bench::Fft(args) => bench_fft::fft(args),
            Bench::Merge(args) => bench_merge::merge_files(args),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: a multi-line message (a list of failed checks) is joined.
            eprintln!("error: {}", args::join_lines(&e.to_string()));
            ExitCode::FAILURE
        }
    }
}

type AnyError = Box<dyn std::error::Error>;

fn info() -> Result<(), AnyError> {
    println!("zkntt {}", env!("CARGO_PKG_VERSION"));
    match (zkntt_kernels::NVCC_VERSION, zkntt_kernels::EMULATOR) {
        (Some(v), _) => println!("kernels: built ({v}), SASS for {:?}", zkntt_kernels::ARCHS),
        (None, Some(_)) => println!(
            "kernels: emulated on the CPU ({})",
            zkntt_kernels::BUILD_NOTE
        ),
        (None, None) => println!("kernels: NOT built ({})", zkntt_kernels::BUILD_NOTE),
    }
    for id in FieldId::ALL {
        let d = id.desc();
        println!(
            "field {}: {} bits, two-adicity {}, {} x 32-bit limbs",
            d.name,
            d.modulus_bits,
            d.two_adicity,
            d.limbs()
        );
    }
    let count = Gpu::device_count();
    if count == 0 {
        match Gpu::new(0) {
            Err(e) => println!("GPU: none found ({e}); the CPU reference still runs"),
            Ok(_) => println!("GPU: none found"),
        }
        return Ok(());
    }
    for ordinal in 0..count {
        let gpu = Gpu::new(ordinal)?;
        println!("{}", gpu.info()?);
    }
    Ok(())
}

fn demo(log_n: u32, device: args::DeviceArg) -> Result<(), AnyError> {
    // A device named but absent is an error; with none named, no GPU skips the GPU part.
    let count = Gpu::device_count();
    if let Some(d) = device.device.filter(|&d| d >= count) {
        return Err(match count {
            0 => format!(
                "--device {d}: {}",
                args::open_device(d).err().unwrap_or_default()
            ),
            _ => args::no_such_device(d, count),
        }
        .into());
    }
    let n = 1usize << log_n;
    println!("CPU reference NTT, 2^{log_n} elements, against ark-poly 0.6 Radix2EvaluationDomain:");
    demo_cpu::<ark_bn254::Fr>("bn254_fr", log_n)?;
    demo_cpu::<ark_bls12_381::Fr>("bls12_381_fr", log_n)?;

    let gpu = match Gpu::new(device.ordinal()) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("No GPU found ({e}): GPU part skipped; everything above ran on the CPU.");
            return Ok(());
        }
    };
    println!("{}", gpu.info()?);
    if !zkntt_kernels::built() {
        println!(
            "Kernels not built into this binary ({}): GPU part skipped.",
            zkntt_kernels::BUILD_NOTE
        );
        return Ok(());
    }
    println!("GPU field kernels, {n} random elements, against ark-ff:");
    demo_gpu::<ark_bn254::Fr>(&gpu, "bn254_fr", n)?;
    demo_gpu::<ark_bls12_381::Fr>(&gpu, "bls12_381_fr", n)?;
    println!("GPU NTT engine, 2^{log_n} elements, host memory in and out, against ark-poly:");
    let host = HostPipeline::new(Arc::new(NttEngine::new(gpu)));
    demo_ntt::<ark_bn254::Fr>(&host, "bn254_fr", log_n)?;
    demo_ntt::<ark_bls12_381::Fr>(&host, "bls12_381_fr", log_n)?;
    Ok(())
}

fn demo_ntt<F: GpuField>(host: &HostPipeline, name: &str, log_n: u32) -> Result<(), AnyError> {
    let mut rng = StdRng::seed_from_u64(3);
    let coeffs: Vec<F> = (0..1usize << log_n).map(|_| F::rand(&mut rng)).collect();
    let domain = Radix2EvaluationDomain::<F>::new(coeffs.len()).ok_or("domain too large")?;
    let offset = F::GENERATOR;
    let coset = domain.get_coset(offset).ok_or("coset")?;
    let mut line = format!("  {name:<13}");
    for (label, cfg, want) in [
        ("forward", NttConfig::forward(), domain.fft(&coeffs)),
        ("inverse", NttConfig::inverse(), domain.ifft(&coeffs)),
        (
            "coset forward",
            NttConfig::forward().with_coset(offset),
            coset.fft(&coeffs),
        ),
    ] {
        let mut got = coeffs.clone();
        host.ntt(&mut got, &cfg)?; // the first call also builds the twiddles
        let t = Instant::now();
        let mut again = coeffs.clone();
        host.ntt(&mut again, &cfg)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if got != want || again != want {
            return Err(format!("{name} {label}: GPU result differs from ark-poly").into());
        }
        line += &format!(" {label} == ark-poly ({ms:.2} ms host to host);");
    }
    println!("{line}");
    Ok(())
}

fn demo_cpu<F: PrimeField + FftField>(name: &str, log_n: u32) -> Result<(), AnyError> {
    let mut rng = StdRng::seed_from_u64(1);
    let coeffs: Vec<F> = (0..1usize << log_n).map(|_| F::rand(&mut rng)).collect();
    let domain = Radix2EvaluationDomain::<F>::new(coeffs.len()).ok_or("domain too large")?;
    let t = Instant::now();
    let want = domain.fft(&coeffs);
    let t_ark = t.elapsed();
    let mut got = coeffs.clone();
    let t = Instant::now();
    reference::ntt(&mut got, &NttConfig::forward())?;
    let t_ref = t.elapsed();
    let mut back = got.clone();
    reference::ntt(&mut back, &NttConfig::inverse())?;
    let ok = got == want && back == coeffs;
    println!(
        "  {name:<13} forward {} ark-poly ({:.1} ms reference, 1 core; {:.1} ms ark-poly, all cores); inverse(forward(x)) {} x",
        if got == want { "==" } else { "!=" },
        t_ref.as_secs_f64() * 1e3,
        t_ark.as_secs_f64() * 1e3,
        if back == coeffs { "==" } else { "!=" },
    );
    if ok {
        Ok(())
    } else {
        Err(format!("{name}: CPU reference disagrees with ark-poly").into())
    }
}

fn demo_gpu<F: GpuField>(gpu: &Gpu, name: &str, n: usize) -> Result<(), AnyError> {
    let mut rng = StdRng::seed_from_u64(2);
    let a: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
    let b: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
    let da = DeviceVec::from_host(gpu, &a)?;
    let db = DeviceVec::from_host(gpu, &b)?;
    let mut out = DeviceVec::<F>::zeros(gpu, n)?;
    let mut line = format!("  {name:<13}");
    for (op, f) in [
        (BinaryOp::Add, (|x, y| x + y) as fn(F, F) -> F),
        (BinaryOp::Sub, |x, y| x - y),
        (BinaryOp::Mul, |x, y| x * y),
    ] {
        field_ops::binary(gpu, op, &da, &db, &mut out)?;
        let got = out.to_host(gpu)?;
        let bad = got
            .iter()
            .zip(a.iter().zip(&b))
            .filter(|(g, (x, y))| **g != f(**x, **y))
            .count();
        if bad != 0 {
            return Err(format!("{name} {op:?}: {bad} of {n} elements differ from ark-ff").into());
        }
        line += &format!(" {op:?} ok;");
    }
    println!("{line} all {n} equal to ark-ff");
    Ok(())
}
