//! `zkntt verify`: this machine's GPU against ark-poly's `Radix2EvaluationDomain`, bit for bit, at
//! every size 2^min..2^max (default 2^1..2^22), for BN254 and BLS12-381 (default both): forward,
//! inverse, coset forward and coset inverse (offset: the field's generator, as ark-poly's
//! `get_coset` examples) x NN / NR / RN x the device-resident path (`NttEngine::ntt_in_place` on a
//! `DeviceVec`) and the host-to-host path (`HostPipeline::ntt`). Inputs are random from a fixed seed
//! per field and size, with 0 and p-1 at the ends.
//!
//! NR's reference is ark-poly's result bit-reversed; RN's input is the input bit-reversed and its
//! reference ark-poly's result. The run shows a progress bar on a terminal (stderr), then a table per
//! field and size (cases, passed, failed, not run), the totals, the GPU and the time taken, and the
//! first failures with their case and first differing element. It exits non-zero unless every case
//! ran and passed: also without a GPU or without kernels (one line says which), since a verify that
//! verified nothing must not look like a pass.

use crate::AnyError;
use ark_ff::FftField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{Rng, SeedableRng, rngs::StdRng};
use indicatif::ProgressBar;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};
use zkntt_core::reference::bit_reverse_permute;
use zkntt_gpu::{
    DeviceVec, Direction, Error, Gpu, GpuField, HostPipeline, NttConfig, NttEngine, Ordering,
};

/// Seed of the inputs; each field and size draws from `SEED + log2 size`, so a size's input does not
/// depend on --min-log.
const SEED: u64 = 0x7a6b_6e74_7421;
/// 4 transforms (forward, inverse, coset forward, coset inverse) x 3 orderings x 2 paths.
const CASES_PER_SIZE: usize = 24;
/// Failures listed by name at the end; the rest are counted.
const LISTED: usize = 10;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The CUDA device to check (`zkntt info` lists them).
    #[arg(long, value_name = "N", default_value_t = 0)]
    device: usize,
    /// Smallest log2 size checked.
    #[arg(long, value_name = "K", default_value_t = 1)]
    min_log: u32,
    /// Largest log2 size checked; at most the field's two-adicity (BN254 28, BLS12-381 32).
    #[arg(long, value_name = "K", default_value_t = 22)]
    max_log: u32,
    /// The field to check: bn254, bls12-381 or all.
    // A string checked by `plan`, not a clap ValueEnum: clap's rejection is three lines.
    #[arg(long, value_name = "bn254|bls12-381|all", default_value = "all")]
    field: String,
}

/// The scalar fields zkntt has kernels for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Bn254,
    Bls12_381,
}

impl Field {
    const ALL: [Field; 2] = [Field::Bn254, Field::Bls12_381];

    fn name(self) -> &'static str {
        match self {
            Field::Bn254 => "bn254",
            Field::Bls12_381 => "bls12-381",
        }
    }

    /// The largest log2 size of a radix-2 domain of the field.
    fn two_adicity(self) -> u32 {
        match self {
            Field::Bn254 => <ark_bn254::Fr as FftField>::TWO_ADICITY,
            Field::Bls12_381 => <ark_bls12_381::Fr as FftField>::TWO_ADICITY,
        }
    }
}

/// Checked arguments.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    device: usize,
    min_log: u32,
    max_log: u32,
    fields: Vec<Field>,
}

impl VerifyArgs {
    /// The run the arguments ask for, or a one-line reason why it cannot be.
    fn plan(&self) -> Result<Plan, String> {
        let fields = match self.field.to_ascii_lowercase().as_str() {
            "all" => Field::ALL.to_vec(),
            "bn254" => vec![Field::Bn254],
            "bls12-381" | "bls12_381" => vec![Field::Bls12_381],
            other => {
                return Err(format!(
                    "--field {other:?}: expected bn254, bls12-381 or all"
                ));
            }
        };
        let (min_log, max_log) = (self.min_log, self.max_log);
        if min_log > max_log {
            return Err(format!("--min-log {min_log} is above --max-log {max_log}"));
        }
        for field in &fields {
            if max_log > field.two_adicity() {
                return Err(format!(
                    "--max-log {max_log} is above {}'s two-adicity {} (its largest NTT is 2^{})",
                    field.name(),
                    field.two_adicity(),
                    field.two_adicity()
                ));
            }
        }
        Ok(Plan {
            device: self.device,
            min_log,
            max_log,
            fields,
        })
    }
}

/// The two ways a transform reaches the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// `NttEngine::ntt_in_place` on a `DeviceVec`.
    Device,
    /// `HostPipeline::ntt` on host slices.
    Host,
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Path::Device => "device-resident",
            Path::Host => "host-to-host",
        })
    }
}

/// One case's name.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Case {
    field: &'static str,
    log_n: u32,
    direction: Direction,
    coset: bool,
    ordering: Ordering,
    path: Path,
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let direction = match self.direction {
            Direction::Forward => "forward",
            Direction::Inverse => "inverse",
        };
        let coset = if self.coset { "coset" } else { "no coset" };
        write!(
            f,
            "{} 2^{} {direction} {coset} {:?} {}",
            self.field, self.log_n, self.ordering, self.path
        )
    }
}

/// What a case came to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Pass,
    /// The result differs from ark-poly: the first differing element and how many differ.
    Mismatch {
        index: usize,
        differing: usize,
    },
    /// The call returned an error (out of memory, driver), on one line.
    Error(String),
}

/// One field and size's counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct SizeTally {
    field: &'static str,
    log_n: u32,
    cases: usize,
    passed: usize,
    failed: usize,
    not_run: usize,
    /// Why the size was not run.
    note: Option<String>,
}

/// Everything a run found.
#[derive(Debug, Default)]
struct Report {
    sizes: Vec<SizeTally>,
    /// The first `LISTED` failures.
    failures: Vec<(Case, Outcome)>,
}

impl Report {
    fn total(&self) -> SizeTally {
        let mut t = SizeTally::default();
        for s in &self.sizes {
            t.cases += s.cases;
            t.passed += s.passed;
            t.failed += s.failed;
            t.not_run += s.not_run;
        }
        t
    }

    fn record(&mut self, tally: &mut SizeTally, case: Case, outcome: Outcome) {
        tally.cases += 1;
        if outcome == Outcome::Pass {
            tally.passed += 1;
        } else {
            tally.failed += 1;
            if self.failures.len() < LISTED {
                self.failures.push((case, outcome));
            }
        }
    }

    /// The table, the totals, the GPU and the time, the failures and sizes not run.
    fn render(&self, gpu: &str, elapsed: Duration) -> String {
        let mut out = String::from(
            "| field | log2 N | cases | passed | failed | not run |\n|---|---|---|---|---|---|\n",
        );
        for s in &self.sizes {
            out += &format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                s.field, s.log_n, s.cases, s.passed, s.failed, s.not_run
            );
        }
        let t = self.total();
        out += &format!(
            "| total | | {} | {} | {} | {} |\n\n{gpu}; {} cases in {:.1} s\n",
            t.cases,
            t.passed,
            t.failed,
            t.not_run,
            t.cases,
            elapsed.as_secs_f64()
        );
        if t.failed > 0 {
            out += &format!(
                "\nfirst failures ({} of {}):\n",
                self.failures.len(),
                t.failed
            );
            for (case, outcome) in &self.failures {
                out += &match outcome {
                    Outcome::Pass => continue,
                    Outcome::Mismatch { index, differing } => format!(
                        "  {case}: element {index} differs from ark-poly ({differing} of {} elements differ)\n",
                        1usize << case.log_n
                    ),
                    Outcome::Error(e) => format!("  {case}: error: {e}\n"),
                };
            }
        }
        for s in self.sizes.iter().filter(|s| s.not_run > 0) {
            if let Some(note) = &s.note {
                out += &format!("not run: {} 2^{}: {note}\n", s.field, s.log_n);
            }
        }
        out
    }

    /// `Ok` only when every case ran and passed.
    fn verdict(&self) -> Result<String, String> {
        let t = self.total();
        if t.cases == 0 {
            return Err("no cases ran".into());
        }
        if t.failed == 0 && t.not_run == 0 {
            return Ok(format!("all {} cases equal to ark-poly", t.cases));
        }
        let mut why = format!("{} of {} cases failed", t.failed, t.cases);
        if t.not_run > 0 {
            why += &format!(", {} not run (no room in device memory)", t.not_run);
        }
        if let Some((case, outcome)) = self.failures.first() {
            why += &match outcome {
                Outcome::Mismatch { index, .. } => format!("; first: {case}, element {index}"),
                Outcome::Error(e) => format!("; first: {case}: {e}"),
                Outcome::Pass => String::new(),
            };
        }
        Err(why)
    }
}

/// What runs the transforms: the GPU's two paths, or in the tests a CPU stand-in.
trait Transform {
    /// `cfg`'s transform of `data` by `path`, the result in `data`.
    fn run<F: GpuField>(
        &mut self,
        path: Path,
        data: &mut [F],
        cfg: &NttConfig<F>,
    ) -> Result<(), Error>;
    /// `Err(why)` when a size whose data takes `bytes` has no room to run.
    fn room(&mut self, bytes: usize) -> Result<(), String>;
}

/// The GPU: one engine, shared by the device-resident path and the host pipeline.
struct GpuTransform {
    host: HostPipeline,
}

impl Transform for GpuTransform {
    fn run<F: GpuField>(
        &mut self,
        path: Path,
        data: &mut [F],
        cfg: &NttConfig<F>,
    ) -> Result<(), Error> {
        match path {
            Path::Device => {
                let gpu = self.host.gpu();
                let mut d = DeviceVec::from_host(gpu, data)?;
                self.host.engine().ntt_in_place(&mut d, cfg)?;
                d.copy_to_host(gpu, data) // waits for the transform
            }
            Path::Host => self.host.ntt(data, cfg),
        }
    }

    fn room(&mut self, bytes: usize) -> Result<(), String> {
        // The previous size's twiddles and pipeline slots would only stand in the way.
        self.host.engine().clear_cache();
        self.host.release_device();
        let (free, _) = self.host.gpu().memory().map_err(|e| e.to_string())?;
        // The device-resident data beside the pipeline's kept slot; the engine falls back to
        // sqrt(N)-sized twiddle tables when full ones have no room.
        let needed = bytes.saturating_mul(2);
        if needed > free {
            let mib = |b: usize| b as f64 / (1u64 << 20) as f64;
            return Err(format!(
                "needs about {:.0} MiB of device memory, {:.0} MiB free",
                mib(needed),
                mib(free)
            ));
        }
        Ok(())
    }
}

/// Random elements with the edge values 0 and p-1 at the ends.
fn input<F: GpuField>(rng: &mut impl Rng, n: usize) -> Vec<F> {
    let mut v: Vec<F> = (0..n).map(|_| F::rand(rng)).collect();
    if n >= 2 {
        v[0] = F::zero();
        v[n - 1] = -F::one();
    }
    v
}

fn compare<F: PartialEq>(got: &[F], want: &[F]) -> Outcome {
    if got.len() != want.len() {
        return Outcome::Error(format!(
            "{} elements came back, {} expected",
            got.len(),
            want.len()
        ));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Outcome::Pass,
        Some(index) => Outcome::Mismatch {
            index,
            differing: got.iter().zip(want).filter(|(g, w)| g != w).count(),
        },
    }
}

/// Every case of field `F` at sizes 2^min..2^max into `report`, one bar tick per case.
fn verify_field<F: GpuField, T: Transform>(
    transform: &mut T,
    field: Field,
    (min_log, max_log): (u32, u32),
    report: &mut Report,
    bar: &ProgressBar,
) {
    let name = field.name();
    for log_n in min_log..=max_log {
        let n = 1usize << log_n;
        bar.set_message(format!("{name} 2^{log_n}"));
        let mut tally = SizeTally {
            field: name,
            log_n,
            ..SizeTally::default()
        };
        // `plan` keeps log_n within the two-adicity, so the domains exist.
        let domains =
            Radix2EvaluationDomain::<F>::new(n).and_then(|d| Some((d, d.get_coset(F::GENERATOR)?)));
        let (domain, coset) = match (transform.room(n.saturating_mul(size_of::<F>())), domains) {
            (Ok(()), Some(domains)) => domains,
            (Err(note), _) => {
                not_run(report, tally, note, bar);
                continue;
            }
            (Ok(()), None) => {
                not_run(
                    report,
                    tally,
                    "ark-poly has no domain of this size".into(),
                    bar,
                );
                continue;
            }
        };
        let mut rng = StdRng::seed_from_u64(SEED + u64::from(log_n));
        let x: Vec<F> = input(&mut rng, n);
        let mut x_rev = x.clone();
        bit_reverse_permute(&mut x_rev);
        let mut got = x.clone();
        for (direction, with_coset) in [
            (Direction::Forward, false),
            (Direction::Inverse, false),
            (Direction::Forward, true),
            (Direction::Inverse, true),
        ] {
            let want = match (direction, with_coset) {
                (Direction::Forward, false) => domain.fft(&x),
                (Direction::Inverse, false) => domain.ifft(&x),
                (Direction::Forward, true) => coset.fft(&x),
                (Direction::Inverse, true) => coset.ifft(&x),
            };
            let mut want_rev = want.clone();
            bit_reverse_permute(&mut want_rev);
            let mut cfg = NttConfig::forward().with_direction(direction);
            if with_coset {
                cfg = cfg.with_coset(F::GENERATOR);
            }
            for (ordering, from, expected) in [
                (Ordering::NN, &x, &want),
                (Ordering::NR, &x, &want_rev),
                (Ordering::RN, &x_rev, &want),
            ] {
                for path in [Path::Device, Path::Host] {
                    got.copy_from_slice(from);
                    let outcome = match transform.run(path, &mut got, &cfg.with_ordering(ordering))
                    {
                        Ok(()) => compare(&got, expected),
                        Err(e) => Outcome::Error(e.to_string().replace('\n', " ")),
                    };
                    let case = Case {
                        field: name,
                        log_n,
                        direction,
                        coset: with_coset,
                        ordering,
                        path,
                    };
                    report.record(&mut tally, case, outcome);
                    bar.inc(1);
                }
            }
        }
        report.sizes.push(tally);
    }
}

/// A size whose cases cannot run: all of them not run, and why.
fn not_run(report: &mut Report, mut tally: SizeTally, note: String, bar: &ProgressBar) {
    tally.cases = CASES_PER_SIZE;
    tally.not_run = CASES_PER_SIZE;
    tally.note = Some(note);
    report.sizes.push(tally);
    bar.inc(CASES_PER_SIZE as u64);
}

/// Device `device` with kernels that load on it, or one line saying why not.
fn open_gpu(device: usize) -> Result<Gpu, String> {
    let no_kernels = (!zkntt_gpu::kernels_built()).then(|| {
        Error::KernelsNotBuilt {
            note: zkntt_gpu::KERNELS_BUILD_NOTE,
        }
        .to_string()
    });
    let count = Gpu::device_count();
    if count == 0 {
        let why = match Gpu::new(device) {
            Err(e) => e.to_string(),
            Ok(_) => "no GPU: the driver lists no device".into(),
        };
        let also = no_kernels.map_or(String::new(), |k| format!("; also, {k}"));
        return Err(format!("nothing verified: {why}{also}"));
    }
    if device >= count {
        return Err(format!(
            "--device {device}: no such GPU (this machine has {count}: 0..={})",
            count - 1
        ));
    }
    if let Some(k) = no_kernels {
        return Err(format!("nothing verified: {k}"));
    }
    let gpu = Gpu::new(device).map_err(|e| format!("nothing verified: {e}"))?;
    // One small transform first: kernels built for other architectures fail here, once, rather
    // than as every case's error.
    let engine = NttEngine::new(gpu.clone());
    let mut probe = DeviceVec::from_host(&gpu, &[ark_bn254::Fr::from(1u64); 16])
        .map_err(|e| format!("nothing verified: {e}"))?;
    match engine
        .ntt_in_place(&mut probe, &NttConfig::forward())
        .and_then(|()| gpu.synchronize())
    {
        Err(e @ (Error::NoDevice(_) | Error::KernelsNotBuilt { .. })) => {
            Err(format!("nothing verified: {e}"))
        }
        // Anything else the cases meet again and report one by one.
        _ => Ok(gpu),
    }
}

pub fn verify(args: VerifyArgs) -> Result<(), AnyError> {
    let plan = args.plan()?;
    let gpu = open_gpu(plan.device)?;
    let info = gpu.info()?.to_string();
    let fields: Vec<&str> = plan.fields.iter().map(|f| f.name()).collect();
    println!("zkntt verify: {info}");
    println!(
        "{}, sizes 2^{}..2^{}: forward, inverse, coset forward, coset inverse (offset: the field's \
         generator) x NN / NR / RN x device-resident / host-to-host, against ark-poly, inputs from \
         seed {SEED:#x}\n",
        fields.join(" and "),
        plan.min_log,
        plan.max_log
    );
    let started = Instant::now();
    let mut transform = GpuTransform {
        host: HostPipeline::new(Arc::new(NttEngine::new(gpu))),
    };
    let sizes = (plan.max_log - plan.min_log + 1) as usize;
    let progress =
        crate::progress::bar((plan.fields.len() * sizes * CASES_PER_SIZE) as u64, "cases");
    let bar = &progress.0;
    let mut report = Report::default();
    let range = (plan.min_log, plan.max_log);
    for field in &plan.fields {
        match field {
            Field::Bn254 => {
                verify_field::<ark_bn254::Fr, _>(&mut transform, *field, range, &mut report, bar)
            }
            Field::Bls12_381 => verify_field::<ark_bls12_381::Fr, _>(
                &mut transform,
                *field,
                range,
                &mut report,
                bar,
            ),
        }
    }
    drop(progress);
    print!("{}", report.render(&info, started.elapsed()));
    let verdict = report.verdict()?;
    println!("{verdict}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use zkntt_core::reference;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: VerifyArgs,
    }

    fn plan(argv: &[&str]) -> Result<Plan, String> {
        let cli = Cli::try_parse_from(std::iter::once("verify").chain(argv.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.args.plan()
    }

    #[test]
    fn defaults_and_bad_arguments() {
        assert_eq!(
            plan(&[]).unwrap(),
            Plan {
                device: 0,
                min_log: 1,
                max_log: 22,
                fields: Field::ALL.to_vec()
            }
        );
        let p = plan(&["--field", "bls12-381", "--max-log", "32", "--device", "1"]).unwrap();
        assert_eq!(
            (p.device, p.max_log, p.fields),
            (1, 32, vec![Field::Bls12_381])
        );
        assert_eq!(plan(&["--field", "bn254"]).unwrap().fields, [Field::Bn254]);
        // The two-adicities come from ark-ff, and bound the sizes.
        assert_eq!(Field::Bn254.two_adicity(), 28);
        assert_eq!(Field::Bls12_381.two_adicity(), 32);
        assert!(plan(&["--field", "bn254", "--max-log", "28"]).is_ok());
        for (argv, says) in [
            (
                &["--min-log", "5", "--max-log", "3"][..],
                "--min-log 5 is above --max-log 3",
            ),
            (
                &["--max-log", "40"],
                "--max-log 40 is above bn254's two-adicity 28",
            ),
            (&["--max-log", "30"], "bn254's two-adicity 28"),
            (
                &["--field", "bls12-381", "--max-log", "33"],
                "bls12-381's two-adicity 32",
            ),
            (
                &["--field", "foo"],
                "--field \"foo\": expected bn254, bls12-381 or all",
            ),
        ] {
            let e = plan(argv).unwrap_err();
            assert!(e.contains(says), "{argv:?}: {e}");
            assert!(!e.contains('\n'), "{argv:?}: {e}");
        }
    }

    /// The CPU reference as the transform (it equals ark-poly), with faults to inject.
    #[derive(Default)]
    struct Cpu {
        /// Flip element `.2` of the result of `.0`'s path and `.1`'s ordering.
        corrupt: Option<(Path, Ordering, usize)>,
        /// Every call fails as out of memory.
        out_of_memory: bool,
        /// Sizes whose data is above this many bytes have no room.
        room: Option<usize>,
    }

    impl Transform for Cpu {
        fn run<F: GpuField>(
            &mut self,
            path: Path,
            data: &mut [F],
            cfg: &NttConfig<F>,
        ) -> Result<(), Error> {
            if self.out_of_memory {
                return Err(Error::OutOfMemory { needed: 1, free: 0 });
            }
            reference::ntt(data, cfg)?;
            if let Some((p, o, i)) = self.corrupt {
                if p == path && o == cfg.ordering && i < data.len() {
                    data[i] += F::one();
                }
            }
            Ok(())
        }

        fn room(&mut self, bytes: usize) -> Result<(), String> {
            match self.room {
                Some(limit) if bytes > limit => Err(format!("{bytes} bytes, {limit} free")),
                _ => Ok(()),
            }
        }
    }

    fn run_cpu(cpu: &mut Cpu, range: (u32, u32)) -> Report {
        let mut report = Report::default();
        let bar = ProgressBar::hidden();
        verify_field::<ark_bn254::Fr, _>(cpu, Field::Bn254, range, &mut report, &bar);
        verify_field::<ark_bls12_381::Fr, _>(cpu, Field::Bls12_381, range, &mut report, &bar);
        assert_eq!(bar.position(), report.total().cases as u64);
        report
    }

    #[test]
    fn the_reference_passes_every_case() {
        let report = run_cpu(&mut Cpu::default(), (0, 9));
        assert_eq!(report.sizes.len(), 20);
        let t = report.total();
        assert_eq!(
            (t.cases, t.passed, t.failed),
            (20 * CASES_PER_SIZE, t.cases, 0)
        );
        assert!(report.verdict().is_ok());
        let table = report.render("GPU 0: test", Duration::from_secs(1));
        assert!(
            table.contains("| bls12-381 | 9 | 24 | 24 | 0 | 0 |"),
            "{table}"
        );
        assert!(table.contains("| total | | 480 | 480 | 0 | 0 |"), "{table}");
    }

    #[test]
    fn a_wrong_element_is_named() {
        let mut cpu = Cpu {
            corrupt: Some((Path::Host, Ordering::NR, 5)),
            ..Cpu::default()
        };
        let report = run_cpu(&mut cpu, (3, 4));
        let t = report.total();
        // Host path, NR: 4 transforms x 2 sizes x 2 fields.
        assert_eq!((t.cases, t.failed), (4 * CASES_PER_SIZE, 16));
        let (case, outcome) = &report.failures[0];
        assert_eq!(
            outcome,
            &Outcome::Mismatch {
                index: 5,
                differing: 1
            }
        );
        assert_eq!(
            case.to_string(),
            "bn254 2^3 forward no coset NR host-to-host"
        );
        let e = report.verdict().unwrap_err();
        assert!(
            e.starts_with("16 of 96 cases failed; first: bn254 2^3 forward"),
            "{e}"
        );
        let text = report.render("GPU 0: test", Duration::ZERO);
        assert!(text.contains("first failures (10 of 16):"), "{text}");
        assert!(text.contains("element 5 differs from ark-poly (1 of 8 elements differ)"));
    }

    #[test]
    fn errors_and_no_room_are_reported_not_passed() {
        let report = run_cpu(
            &mut Cpu {
                out_of_memory: true,
                ..Cpu::default()
            },
            (1, 2),
        );
        let t = report.total();
        assert_eq!((t.cases, t.passed, t.failed), (96, 0, 96));
        assert!(
            matches!(&report.failures[0].1, Outcome::Error(e) if e.contains("out of device memory"))
        );

        // 2^3 BN254 elements are 256 bytes: 2^3 runs, 2^4 and 2^5 do not.
        let report = run_cpu(
            &mut Cpu {
                room: Some(256),
                ..Cpu::default()
            },
            (3, 5),
        );
        let t = report.total();
        assert_eq!((t.passed, t.failed, t.not_run), (48, 0, 96));
        let e = report.verdict().unwrap_err();
        assert!(e.contains("96 not run (no room in device memory)"), "{e}");
        let text = report.render("GPU 0: test", Duration::ZERO);
        assert!(
            text.contains("not run: bn254 2^4: 512 bytes, 256 free"),
            "{text}"
        );
    }
}
