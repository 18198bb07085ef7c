//! `zkntt bench ntt`: the big-field engine, device-resident, timed by CUDA events, beside ark-poly
//! on all cores (host memory, wall clock) in the same run; with `--host`, the host pipeline too
//! (host memory in and out, wall clock) against the PCIe floor measured in the same run.
//!
//! With `--matrix` (module `bench_matrix`): zkntt beside sppark in one process, sizes 2^10..2^26 by
//! default (`--from`, `--to`; sizes without room in device memory are skipped, saying so) x
//! forward / inverse / coset forward / coset inverse x NN / NR / RN, device-resident medians of
//! `--reps` per-transform CUDA-event times on the same data, the ratio sppark / zkntt per cell and
//! zkntt NN against sppark's fastest order; every zkntt result checked, zkntt and sppark checked to
//! compute the same thing. sppark is in the binary only with the `sppark` feature
//! (`ZKNTT_SPPARK=1 cargo build --release -p zkntt-cli --features sppark`, nvcc on PATH;
//! `make gpu-build` does it); without it the sppark columns are n/a and the run says so once.
//! `--processes K` and `--against BIN` run the matrix in several processes and merge them (module
//! `bench_merge`).
//!
//! Either way `--json FILE` writes every number and `--plot FILE` an SVG of them (module `plot`;
//! `zkntt plot` redraws it from the JSON with no GPU); `--device N` picks the GPU. Sizes and output
//! files are checked before the GPU is opened, so bad input costs nothing and says so on one line.

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
    /// Smallest log2 size (default 16; 10 with --matrix).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=28))]
    from: Option<u32>,
    /// Largest log2 size (default 24; 26 with --matrix).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=28))]
    to: Option<u32>,
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
    /// Threads of the host pipeline's copy pool, 1 to 256 (default: the library's).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    copy_threads: Option<u16>,
    /// Where a streamed host call (data above the 2 GiB pinned limit) keeps its input until the
    /// result is complete: a pageable host copy (the default), or a second device buffer.
    #[arg(long, value_enum)]
    input_copy: Option<InputCopyArg>,
    /// zkntt beside sppark: every size x forward/inverse/coset forward/coset inverse x NN/NR/RN,
    /// ratios per cell, zkntt NN against sppark's fastest order (sppark needs the `sppark` feature).
    #[arg(long, conflicts_with_all = ["host", "host_only", "copy_threads", "input_copy", "no_ark"])]
    matrix: bool,
    /// With --matrix: run it in K processes of this binary, one after another, and print the
    /// medians over them with each ratio's per-process range, and the cells below 1.00 in every
    /// process and in some (`zkntt bench merge` does the same for saved --json files).
    #[arg(long, value_name = "K", requires = "matrix", value_parser = clap::value_parser!(u32).range(1..=50))]
    processes: Option<u32>,
    /// With --matrix: also run another build's zkntt binary, K processes of each alternating
    /// (A B B A ...), and compare the two builds' times per cell.
    #[arg(long, value_name = "BIN", requires = "matrix")]
    against: Option<std::path::PathBuf>,
    /// Keep zkntt's stage twiddles as all N powers up to 2^LOG (the engine's
    /// `set_full_twiddles_max_log`; default 22: as much device memory again as the data per size
    /// and direction, for one product per element fewer).
    #[arg(long, value_name = "LOG", value_parser = clap::value_parser!(u32).range(0..=28))]
    full_twiddles_max_log: Option<u32>,
    /// Every number of the run as JSON into FILE (`zkntt plot --json FILE` plots it again).
    #[arg(long, value_name = "FILE")]
    json: Option<std::path::PathBuf>,
    /// An SVG plot into FILE: time against size for zkntt, sppark (--matrix, when built in),
    /// ark-poly and the host pipeline (when run) beside the memory, multiplier and PCIe floors, and
    /// the ratios below.
    #[arg(long, value_name = "FILE")]
    plot: Option<std::path::PathBuf>,
    #[command(flatten)]
    device: crate::args::DeviceArg,
}

impl NttArgs {
    /// The sizes to run: --from and --to, or the mode's defaults.
    fn range(&self) -> Result<(u32, u32), AnyError> {
        let (from, to) = if self.matrix { (10, 26) } else { (16, 24) };
        let (from, to) = (self.from.unwrap_or(from), self.to.unwrap_or(to));
        if from > to {
            return Err(format!("--from {from} is above --to {to}").into());
        }
        Ok((from, to))
    }

    /// Everything that can be checked before a GPU is touched: the sizes and the output files.
    fn check(&self) -> Result<(u32, u32), AnyError> {
        let range = self.range()?;
        crate::args::check_outputs(self.json.as_deref(), self.plot.as_deref())?;
        Ok(range)
    }
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
    let (from, to) = args.check()?;
    if (args.copy_threads.is_some() || args.input_copy.is_some()) && !(args.host || args.host_only)
    {
        return Err(
            "--copy-threads and --input-copy set the host pipeline: add --host or --host-only"
                .into(),
        );
    }
    if args.matrix && (args.processes.unwrap_or(1) > 1 || args.against.is_some()) {
        // The binary by its full path: a bare name would be looked up on PATH by the spawn.
        let against = match &args.against {
            Some(bin) if bin.is_file() => Some(
                std::fs::canonicalize(bin)
                    .map_err(|e| format!("--against {}: {e}", bin.display()))?,
            ),
            Some(bin) => return Err(format!("--against {}: no such file", bin.display()).into()),
            None => None,
        };
        let mut child_args = vec![
            "--from".to_string(),
            from.to_string(),
            "--to".into(),
            to.to_string(),
            "--reps".into(),
            args.reps.to_string(),
        ];
        if let Some(log) = args.full_twiddles_max_log {
            child_args.extend(["--full-twiddles-max-log".into(), log.to_string()]);
        }
        if let Some(d) = args.device.device {
            child_args.extend(["--device".into(), d.to_string()]);
        }
        return crate::bench_merge::run_processes(crate::bench_merge::ProcessPlan {
            processes: args.processes.unwrap_or(1),
            against: against.as_deref(),
            child_args,
            json: args.json.as_deref(),
            plot: args.plot.as_deref(),
        });
    }
    if args.matrix {
        return crate::bench_matrix::matrix(crate::bench_matrix::MatrixOptions {
            from,
            to,
            reps: args.reps,
            json: args.json.as_deref(),
            plot: args.plot.as_deref(),
            full_twiddles_max_log: args.full_twiddles_max_log,
            device: args.device,
        });
    }
    let gpu = args.device.open()?;
    let info = gpu.info()?;
    println!("zkntt bench ntt: BN254 Fr on {info}");
    println!(
        "device-resident, CUDA events, median of {} (ark-poly: host memory, all {} cores, median of 3)\n",
        args.reps,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let engine = Arc::new(NttEngine::new(gpu.clone()));
    if let Some(log) = args.full_twiddles_max_log {
        engine.set_full_twiddles_max_log(log);
    }
    println!(
        "zkntt's stage twiddles kept whole up to 2^{}\n",
        engine.full_twiddles_max_log()
    );
    let mut host = None;
    if args.host || args.host_only {
        host = Some(host_table(
            &args,
            from,
            to,
            HostPipeline::new(engine.clone()),
        )?);
    }
    let mut rows = Vec::new();
    if !args.host_only {
        rows = device_table(&args, from, to, &gpu, &engine)?;
    }
    save(
        &args,
        &info.name,
        engine.full_twiddles_max_log(),
        &rows,
        host.as_ref(),
    )
}

/// One size of the device-resident table.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceRow {
    pub log_n: u32,
    pub forward_ms: f64,
    pub inverse_ms: f64,
    pub coset_forward_ms: f64,
    /// ark-poly's forward FFT on all cores, host memory; None with --no-ark.
    pub ark_ms: Option<f64>,
}

/// One size of the host-to-host table.
#[derive(Debug, Clone, PartialEq)]
pub struct HostRow {
    pub log_n: u32,
    pub first_ms: f64,
    pub host_ms: f64,
    pub pcie_floor_ms: f64,
}

/// The host table and the pinned bandwidths it was measured against (GB/s each way).
#[derive(Debug, Clone, PartialEq)]
pub struct HostRun {
    pub h2d_gbps: f64,
    pub d2h_gbps: f64,
    pub rows: Vec<HostRow>,
}

/// The `--json` document of a run without --matrix (`"kind": "ntt"`).
pub fn to_json(
    gpu: &str,
    timestamp: &str,
    reps: u32,
    rows: &[DeviceRow],
    host: Option<&HostRun>,
) -> serde_json::Value {
    use serde_json::json;
    json!({
        "kind": "ntt",
        "gpu": gpu,
        "timestamp": timestamp,
        "field": "bn254_fr",
        "reps": reps,
        "timing": "device-resident: median of CUDA-event times; ark-poly and host-to-host: wall clock",
        "device": rows.iter().map(|r| json!({
            "log_n": r.log_n,
            "forward_ms": r.forward_ms,
            "inverse_ms": r.inverse_ms,
            "coset_forward_ms": r.coset_forward_ms,
            "ark_ms": r.ark_ms,
        })).collect::<Vec<_>>(),
        "host": host.map(|h| json!({
            "h2d_gbps": h.h2d_gbps,
            "d2h_gbps": h.d2h_gbps,
            "rows": h.rows.iter().map(|r| json!({
                "log_n": r.log_n,
                "first_ms": r.first_ms,
                "host_ms": r.host_ms,
                "pcie_floor_ms": r.pcie_floor_ms,
            })).collect::<Vec<_>>(),
        })),
    })
}

/// `--json` and `--plot` of a run without --matrix.
fn save(
    args: &NttArgs,
    gpu: &str,
    full_twiddles_max_log: u32,
    rows: &[DeviceRow],
    host: Option<&HostRun>,
) -> Result<(), AnyError> {
    if args.json.is_none() && args.plot.is_none() {
        return Ok(());
    }
    let mut doc = to_json(gpu, &crate::bench_matrix::now(), args.reps, rows, host);
    // The engine's setting the run used (as the matrix records it).
    doc["full_twiddles_max_log"] = full_twiddles_max_log.into();
    crate::plot::save_outputs(&doc, args.json.as_deref(), args.plot.as_deref())
}

/// Device-resident forward, inverse and coset forward beside ark-poly, one row per size.
fn device_table(
    args: &NttArgs,
    from: u32,
    to: u32,
    gpu: &Gpu,
    engine: &NttEngine,
) -> Result<Vec<DeviceRow>, AnyError> {
    println!(
        "| log2 N | forward ms | inverse ms | coset fwd ms | G elem/s (fwd) | ark-poly fwd ms | ark / zkntt |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    let mut rng = StdRng::seed_from_u64(1);
    let bar = crate::progress::bar(u64::from(to - from + 1), "sizes");
    for log_n in from..=to {
        bar.0.set_message(format!("device-resident 2^{log_n}"));
        tracing::debug!(target: "zkntt::bench", log_n, "device-resident size");
        let n = 1usize << log_n;
        let host: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let mut d = DeviceVec::from_host(gpu, &host)?;
        // One warm-up run builds the twiddles and loads the module.
        let mut time = |cfg: &NttConfig<Fr>| {
            median_ms(gpu.stream(), 1, args.reps as usize, || {
                engine.ntt_in_place(&mut d, cfg)
            })
        };
        let fwd = time(&NttConfig::forward())?;
        let inv = time(&NttConfig::inverse())?;
        let coset = time(&NttConfig::forward().with_coset(Fr::from(5u64)))?;
        let ark_ms = if args.no_ark {
            None
        } else {
            let domain = Radix2EvaluationDomain::<Fr>::new(n).ok_or("domain")?;
            let mut v = host.clone();
            Some(median_wall_ms(0, 3, || {
                domain.fft_in_place(&mut v);
                Ok::<(), zkntt_gpu::Error>(())
            })?)
        };
        let (ark, ratio) = match ark_ms {
            None => ("skipped".to_string(), "-".to_string()),
            Some(ms) => (format!("{ms:.2}"), format!("{:.0}x", ms / fwd)),
        };
        bar.0.suspend(|| {
            println!(
                "| {log_n} | {fwd:.3} | {inv:.3} | {coset:.3} | {:.2} | {ark} | {ratio} |",
                n as f64 / (fwd * 1e6)
            )
        });
        bar.0.inc(1);
        rows.push(DeviceRow {
            log_n,
            forward_ms: fwd,
            inverse_ms: inv,
            coset_forward_ms: coset,
            ark_ms,
        });
    }
    println!(
        "\nark-poly works on host memory; zkntt here on device memory (the host-to-host path is GpuDomain's)."
    );
    Ok(rows)
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
fn host_table(args: &NttArgs, from: u32, to: u32, host: HostPipeline) -> Result<HostRun, AnyError> {
    host.set_copy_threads(args.copy_threads.map(usize::from));
    let asked = InputCopy::from(args.input_copy.unwrap_or(InputCopyArg::Host));
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
    let mut run = HostRun {
        h2d_gbps: h2d,
        d2h_gbps: d2h,
        rows: Vec::new(),
    };
    let mut rng = StdRng::seed_from_u64(2);
    let bar = crate::progress::bar(u64::from(to - from + 1), "sizes");
    for log_n in from..=to {
        bar.0.set_message(format!("host to host 2^{log_n}"));
        tracing::debug!(target: "zkntt::bench", log_n, "host-to-host size");
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
        bar.0.inc(1);
        bar.0.suspend(|| println!(
            "| {log_n} | {first:.2} | {ms:.2} | {floor:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {} | {} | {} |",
            ms / floor,
            phase(prof.inputs_queued),
            phase(prof.total.saturating_sub(prof.first_result)),
            if prof.streamed { "yes" } else { "no" },
            kept_where(&prof, asked),
            host.pinned_bytes() >> 20,
            host.kept_bytes() >> 20,
            if equal { "yes" } else { "NO" }
        ));
        if !equal {
            return Err(format!("2^{log_n}: host result differs from device-resident").into());
        }
        run.rows.push(HostRow {
            log_n,
            first_ms: first,
            host_ms: ms,
            pcie_floor_ms: floor,
        });
    }
    println!();
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::NttArgs;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: NttArgs,
    }

    fn parse(argv: &[&str]) -> Result<NttArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("ntt").chain(argv.iter().copied())).map(|c| c.args)
    }

    #[test]
    fn matrix_defaults_and_ranges() {
        let a = parse(&["--matrix"]).unwrap();
        assert!(a.matrix && a.json.is_none());
        assert_eq!(a.range().unwrap(), (10, 26));
        assert_eq!(a.reps, 20);
        assert_eq!(parse(&[]).unwrap().range().unwrap(), (16, 24));
        let a = parse(&[
            "--matrix", "--from", "12", "--to", "14", "--reps", "5", "--json", "m.json",
        ])
        .unwrap();
        assert_eq!(a.range().unwrap(), (12, 14));
        assert_eq!(a.reps, 5);
        assert_eq!(a.json.as_deref(), Some(std::path::Path::new("m.json")));
        assert!(
            parse(&["--matrix", "--from", "20", "--to", "12"])
                .unwrap()
                .range()
                .is_err()
        );
        assert!(parse(&["--matrix", "--to", "29"]).is_err());
    }

    #[test]
    fn matrix_excludes_host() {
        let a = parse(&["--json", "m.json", "--plot", "m.svg", "--device", "1"]).unwrap();
        assert_eq!(a.device.device, Some(1));
        assert_eq!(a.plot.as_deref(), Some(std::path::Path::new("m.svg")));
        assert!(parse(&["--matrix", "--host"]).is_err());
        assert!(parse(&["--matrix", "--host-only"]).is_err());
    }
}
