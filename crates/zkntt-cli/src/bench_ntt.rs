//! `zkntt bench ntt`: the big-field engine, device-resident, timed by CUDA events, beside ark-poly
//! on all cores (host memory, wall clock) in the same run; with `--host`, the host pipeline too
//! (host memory in and out, wall clock) against the PCIe floor measured in the same run. sppark
//! sits beside it in the criterion bench `benches/ntt.rs` (a bench-only dependency, so not in
//! this binary).

use crate::AnyError;
use ark_bn254::Fr;
use ark_ff::UniformRand;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use std::sync::Arc;
use zkntt_gpu::host::PinnedBuffer;
use zkntt_gpu::timing::{median_ms, median_wall_ms};
use zkntt_gpu::{DeviceVec, Gpu, HostPipeline, InputCopy, NttConfig, NttEngine};

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
    /// Also time the host pipeline (host memory in and out, forward NN), checked against the
    /// device-resident result, and the PCIe floor of a transform: its bytes in and out at the
    /// pinned copy bandwidth measured now.
    #[arg(long)]
    host: bool,
    /// Only the host pipeline (implies --host; no device-resident or ark-poly columns).
    #[arg(long)]
    host_only: bool,
    /// Threads of the host pipeline's copy pool (default: the library's).
    #[arg(long)]
    copy_threads: Option<usize>,
    /// Where a streamed host call (data above the 2 GiB pinned limit) keeps its input until the
    /// result is complete: a pageable host copy, or a second device buffer.
    #[arg(long, value_enum, default_value_t = InputCopyArg::Host)]
    input_copy: InputCopyArg,
}

/// `--input-copy`: `zkntt_gpu::InputCopy`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum InputCopyArg {
    Host,
    Device,
}

impl From<InputCopyArg> for InputCopy {
    fn from(a: InputCopyArg) -> Self {
        match a {
            InputCopyArg::Host => InputCopy::Host,
            InputCopyArg::Device => InputCopy::Device,
        }
    }
}

/// Where the last call kept its input, for the table: the pinned image (not streamed), or a
/// streamed call's host or device copy (host when device was asked but had no room).
fn kept_where(prof: &zkntt_gpu::HostProfile, asked: InputCopy) -> &'static str {
    match (prof.input_copy, asked) {
        (None, _) => "pinned image",
        (Some(InputCopy::Device), _) => "device",
        (Some(InputCopy::Host), InputCopy::Device) => "host (no device room)",
        (Some(InputCopy::Host), InputCopy::Host) => "host",
    }
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
    let engine = Arc::new(NttEngine::new(gpu.clone()));
    if args.host || args.host_only {
        host_table(&args, HostPipeline::new(engine.clone()))?;
        if args.host_only {
            return Ok(());
        }
    }
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

/// Pinned copy bandwidth in GB/s, host to device and back: 256 MiB each way, median of 5.
pub(crate) fn pinned_bandwidth(gpu: &Gpu) -> Result<(f64, f64), AnyError> {
    let words = 32 << 20;
    let mut pinned = PinnedBuffer::<u64>::new(gpu, words)?;
    let mut dev = gpu.stream().alloc_zeros::<u64>(words)?;
    let stream = gpu.stream();
    let h2d = median_ms(stream, 1, 5, || {
        stream.memcpy_htod(pinned.as_slice(), &mut dev)?;
        Ok::<(), AnyError>(())
    })?;
    let d2h = median_ms(stream, 1, 5, || {
        stream.memcpy_dtoh(&dev, pinned.as_mut_slice())?;
        Ok::<(), AnyError>(())
    })?;
    let gb = (words * 8) as f64 / 1e9;
    Ok((gb / (h2d / 1e3), gb / (d2h / 1e3)))
}

/// Host memory in and out, forward NN, wall clock: each size's first call (pinned and device
/// buffers, twiddles built), then the median of the repeated calls, against the PCIe floor.
fn host_table(args: &NttArgs, host: HostPipeline) -> Result<(), AnyError> {
    host.set_copy_threads(args.copy_threads);
    let asked = InputCopy::from(args.input_copy);
    host.set_input_copy(asked);
    let gpu = host.gpu().clone();
    let (h2d, d2h) = pinned_bandwidth(&gpu)?;
    println!("pinned copies: {h2d:.1} GB/s host to device, {d2h:.1} GB/s device to host");
    println!(
        "host to host, forward NN, wall clock, median of {} after the first call, {} copy threads, streamed calls' input copy on the {}; floor = bytes in at {h2d:.1} + out at {d2h:.1} GB/s\n",
        args.reps,
        host.copy_threads(),
        match asked {
            InputCopy::Host => "host",
            InputCopy::Device => "device",
        }
    );
    println!(
        "| log2 N | first call ms | host fwd ms | PCIe floor ms | / floor | in-phase ms | out-phase ms | streamed | input kept in | pinned MiB held | kept host MiB | equal to device-resident |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut rng = StdRng::seed_from_u64(2);
    for log_n in args.from..=args.to {
        let n = 1usize << log_n;
        let input: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let cfg = NttConfig::forward();
        let mut d = DeviceVec::from_host(&gpu, &input)?;
        host.engine().ntt_in_place(&mut d, &cfg)?;
        let want = d.to_host(&gpu)?;
        drop(d);
        let mut data = input.clone();
        let t = std::time::Instant::now();
        host.ntt(&mut data, &cfg)?;
        let first = t.elapsed().as_secs_f64() * 1e3;
        let mut equal = data == want;
        // Repeated calls on the evolving data (resetting 2^28 elements costs seconds), then one
        // more from the input, checked.
        let ms = median_wall_ms(0, args.reps as usize, || host.ntt(&mut data, &cfg))?;
        data.copy_from_slice(&input);
        host.ntt(&mut data, &cfg)?;
        equal &= data == want;
        let gb = (n * 32) as f64 / 1e9;
        let floor = (gb / h2d + gb / d2h) * 1e3;
        let prof = host.last_profile().unwrap_or_default();
        let phase = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        println!(
            "| {log_n} | {first:.2} | {ms:.2} | {floor:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {} | {} | {} |",
            ms / floor,
            phase(prof.inputs_queued),
            phase(prof.total.saturating_sub(prof.first_result)),
            if prof.streamed { "yes" } else { "no" },
            kept_where(&prof, asked),
            host.pinned_bytes() >> 20,
            host.kept_bytes() >> 20,
            if equal { "yes" } else { "NO" }
        );
        if !equal {
            return Err(format!("2^{log_n}: host result differs from device-resident").into());
        }
    }
    println!();
    Ok(())
}
