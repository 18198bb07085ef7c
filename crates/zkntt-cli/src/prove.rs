//! `zkntt prove`: a Groth16 proof of the (x+k)^5 chain at a chosen size, made with ark-groth16's
//! `LibsnarkReduction` and with `zkntt_ark::GpuQap`, both verified, with the time of each phase:
//! witness generation (the circuit's synthesis, shared by both), the witness map (timed apart
//! through `R1CSToQAP::witness_map` on the same constraint system; also ark's reduction with
//! `GpuDomain` as its domain type), the rest of the proof (the
//! MSMs, on the CPU either way) and the whole proof. Setup runs once per size and field; its keys
//! are cached on disk (`CanonicalSerialize`).

use crate::AnyError;
use crate::bench_ntt::pinned_bandwidth;
use ark_ec::pairing::Pairing;
use ark_ff::{PrimeField, UniformRand};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP, evaluate_constraint};
use ark_groth16::{Groth16, ProvingKey};
use ark_poly::GeneralEvaluationDomain;
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, ConstraintSystemRef, OptimizationGoal,
    R1CS_PREDICATE_LABEL, SynthesisMode,
};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use ark_snark::{CircuitSpecificSetupSNARK, SNARK};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use rayon::prelude::*;
use serde_json::json;
use std::io::{BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use zkntt_ark::circuits::Pow5Chain;
use zkntt_ark::{CpuReason, GpuDomain, GpuQap, Placement, last_placement};
use zkntt_gpu::timing::median;

#[derive(clap::Args)]
pub struct ProveArgs {
    /// The witness map's domain: `2^k` or `k` points, filled by the circuit's constraints and
    /// public inputs (3 <= k <= the field's two-adicity).
    #[arg(long, default_value = "2^16", value_parser = parse_log_size)]
    constraints: u32,
    #[arg(long, value_enum, default_value_t = FieldArg::Bn254)]
    field: FieldArg,
    #[arg(long, value_enum, default_value_t = CircuitArg::Pow5)]
    circuit: CircuitArg,
    /// Where the proving keys are cached (default: `zkntt-groth16-keys` under the temporary
    /// directory, `$TMPDIR` or /tmp).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Timed witness maps per reduction (the median is printed).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    reps: u32,
    /// Proofs per prover (the median is printed); the provers take turns going first.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=100))]
    prove_reps: u32,
    /// Seed of the setup, the witness and the provers' randomness.
    #[arg(long, default_value_t = 19)]
    seed: u64,
    /// Also write the results to this file as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Time the witness maps only: no setup, no proofs (for sizes whose setup takes minutes).
    #[arg(long)]
    witness_map_only: bool,
    /// GpuQap's device (default: `ZKNTT_DEVICE`, else 0; without a GPU both columns run on the
    /// CPU, but a device named here must exist).
    #[command(flatten)]
    device: crate::args::DeviceArg,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FieldArg {
    Bn254,
    #[value(name = "bls12-381")]
    Bls12_381,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CircuitArg {
    /// s_{i+1} = (s_i + k_i)^5, three constraints a step (`zkntt_ark::circuits::Pow5Chain`).
    Pow5,
}

/// `2^k` or `k`.
fn parse_log_size(s: &str) -> Result<u32, String> {
    let k = s.trim().strip_prefix("2^").unwrap_or(s.trim());
    let k: u32 = k
        .parse()
        .map_err(|_| format!("{s:?}: expected 2^k or k, e.g. 2^20 or 20"))?;
    if !(3..=32).contains(&k) {
        return Err(format!(
            "2^{k}: k must be 3..=32 (and at most the field's two-adicity)"
        ));
    }
    Ok(k)
}

pub fn prove(args: ProveArgs) -> Result<(), AnyError> {
    if let Some(path) = &args.json {
        crate::args::check_writable("--json", path)?;
    }
    if let Some(ordinal) = args.device.device {
        // GpuQap runs on the process-wide context: set it to the named device before first use.
        let gpu = crate::args::open_device(ordinal)?;
        let pipeline =
            zkntt_gpu::HostPipeline::new(std::sync::Arc::new(zkntt_gpu::NttEngine::new(gpu)));
        zkntt_ark::install(std::sync::Arc::new(pipeline))?;
    }
    match args.field {
        FieldArg::Bn254 => run::<ark_bn254::Bn254>(&args, "bn254"),
        FieldArg::Bls12_381 => run::<ark_bls12_381::Bls12_381>(&args, "bls12-381"),
    }
}

fn run<E: Pairing>(args: &ProveArgs, field: &str) -> Result<(), AnyError> {
    let log_n = args.constraints;
    let two_adicity = <E::ScalarField as ark_ff::FftField>::TWO_ADICITY;
    if log_n > two_adicity {
        return Err(format!("2^{log_n} is above {field}'s two-adicity (2^{two_adicity})").into());
    }
    let steps = Pow5Chain::<E::ScalarField>::steps_for_domain(log_n);
    let num_constraints = Pow5Chain::<E::ScalarField>::num_constraints(steps);
    println!(
        "zkntt prove: Groth16 on {field}, (x+k)^5 chain of {steps} steps: {num_constraints} \
         constraints, witness-map domain 2^{log_n}, {} threads",
        rayon::current_num_threads()
    );
    let pipeline = zkntt_ark::gpu_pipeline();
    let device = match &pipeline {
        Some(p) => {
            let name = p.gpu().info().map(|i| i.to_string()).unwrap_or_default();
            println!("GPU: {name}");
            name
        }
        None => {
            let why = match zkntt_gpu::Gpu::new(args.device.ordinal()) {
                Err(e) => e.to_string(),
                Ok(_) => format!("kernels not built ({})", zkntt_gpu::KERNELS_BUILD_NOTE),
            };
            println!(
                "GPU: none usable ({why}): GpuQap runs ark's CPU code, so both columns time the \
                 same path"
            );
            "none".into()
        }
    };

    let keys = if args.witness_map_only {
        None
    } else {
        let pk = setup::<E>(args, field, steps)?;
        let pvk = Groth16::<E>::process_vk(&pk.vk)?;
        Some((pk, pvk))
    };

    let mut rng = StdRng::seed_from_u64(args.seed ^ 0x9e37_79b9);
    let circuit = Pow5Chain::new(steps, E::ScalarField::rand(&mut rng));
    let y = circuit.y.expect("a circuit with its witness");

    // Witness generation: the synthesis in the prover's mode, as Groth16::prove runs it.
    let progress = Progress::start("witness generation");
    let t = Instant::now();
    let cs = synthesize(circuit)?;
    let witness_ms = ms(t);
    drop(progress);

    // The witness map, each reduction on the same constraint system. GpuQap's first call builds
    // the GPU's twiddles for the size: timed apart, then the median of the repeats.
    type D<F> = GeneralEvaluationDomain<F>;
    let progress = Progress::start("witness maps");
    let (h_gpu, gpu_first_ms) = timed(|| GpuQap::witness_map::<E::ScalarField, D<_>>(cs.clone()));
    let h_gpu = h_gpu?;
    let placement = last_placement();
    let reps = args.reps as usize;
    let mut gpu_ms = Vec::with_capacity(reps);
    let mut ark_ms = Vec::with_capacity(reps);
    // ark's reduction with GpuDomain as its domain type: each transform host to host.
    let mut domain_ms = Vec::with_capacity(reps);
    let mut h_ark = Vec::new();
    let mut domain_equal = true;
    for _ in 0..reps {
        let (h, t) = timed(|| LibsnarkReduction::witness_map::<E::ScalarField, D<_>>(cs.clone()));
        h_ark = h?;
        ark_ms.push(t);
        let (h, t) =
            timed(|| LibsnarkReduction::witness_map::<E::ScalarField, GpuDomain<_>>(cs.clone()));
        domain_equal &= h? == h_ark;
        domain_ms.push(t);
        let (h, t) = timed(|| GpuQap::witness_map::<E::ScalarField, D<_>>(cs.clone()));
        if h? != h_gpu {
            return Err("GpuQap's witness map changed between calls".into());
        }
        gpu_ms.push(t);
    }
    drop(progress);
    // The witness map's two parts: the constraint matrices (`to_matrices`, the same work for
    // every reduction, on the CPU) and `witness_map_from_matrices` (what GpuQap moves to the GPU).
    let progress = Progress::start("witness map parts");
    let (mut matrices_ms, mut from_ark_ms, mut from_gpu_ms) = (vec![], vec![], vec![]);
    let mut from_domain_ms = vec![];
    let mut eval_ms = vec![];
    {
        let (num_inputs, num_constraints) = (cs.num_instance_variables(), cs.num_constraints());
        let assignment = {
            let cs = cs
                .borrow()
                .ok_or("the constraint system is borrowed elsewhere")?;
            [
                cs.instance_assignment()?.to_vec(),
                cs.witness_assignment()?.to_vec(),
            ]
            .concat()
        };
        for _ in 0..reps {
            let (m, t) = timed(|| cs.to_matrices());
            matrices_ms.push(t);
            let all = m?;
            let m = all
                .get(R1CS_PREDICATE_LABEL)
                .ok_or("no R1CS matrices in the constraint system")?;
            let (h, t) = timed(|| {
                LibsnarkReduction::witness_map_from_matrices::<E::ScalarField, GpuDomain<_>>(
                    m,
                    num_inputs,
                    num_constraints,
                    &assignment,
                )
            });
            domain_equal &= h? == h_ark;
            from_domain_ms.push(t);
            let from = |qap_gpu: bool| {
                timed(|| {
                    if qap_gpu {
                        GpuQap::witness_map_from_matrices::<E::ScalarField, D<_>>(
                            m,
                            num_inputs,
                            num_constraints,
                            &assignment,
                        )
                    } else {
                        LibsnarkReduction::witness_map_from_matrices::<E::ScalarField, D<_>>(
                            m,
                            num_inputs,
                            num_constraints,
                            &assignment,
                        )
                    }
                })
            };
            // The part both reductions leave on the CPU: a, b, c = the matrices times the assignment.
            let (_, t) = timed(|| {
                for rows in m.iter().take(3) {
                    let v: Vec<E::ScalarField> = rows
                        .par_iter()
                        .map(|row| evaluate_constraint(row, &assignment))
                        .collect();
                    std::hint::black_box(v);
                }
            });
            eval_ms.push(t);
            let (h, t) = from(false);
            domain_equal &= h? == h_ark;
            from_ark_ms.push(t);
            let (h, t) = from(true);
            domain_equal &= h? == h_ark;
            from_gpu_ms.push(t);
        }
    }
    drop(progress);
    let matrices = median(&mut matrices_ms);
    let eval = median(&mut eval_ms);
    let (from_ark, from_gpu) = (median(&mut from_ark_ms), median(&mut from_gpu_ms));
    let from_domain = median(&mut from_domain_ms);
    let maps_equal = h_gpu == h_ark && domain_equal;
    let (map_ark, map_gpu) = (median(&mut ark_ms), median(&mut gpu_ms));
    let map_domain = median(&mut domain_ms);
    let ran_on = match &placement {
        Some(Placement::Gpu) => "GPU".to_string(),
        Some(Placement::Cpu(reason)) => format!("CPU ({})", cpu_reason(reason)),
        None => "unknown".into(),
    };
    drop(cs);

    // Whole proofs from the same randomness: byte-identical, verified, a wrong input rejected.
    // The two provers take turns going first, so neither alone pays for a cold start.
    let proofs = match &keys {
        None => None,
        Some((pk, pvk)) => Some(prove_both::<E>(args, pk, pvk, circuit, y)?),
    };

    let floor_ms = match &pipeline {
        Some(p) => pinned_bandwidth(p.gpu())
            .map(|(h2d, d2h)| {
                let bytes = (32usize << log_n) as f64;
                (3.0 * bytes / (h2d * 1e9) + bytes / (d2h * 1e9)) * 1e3
            })
            .ok(),
        None => None,
    };

    println!();
    println!(
        "{:<52} {:>12} {:>12} {:>9}",
        "phase (ms)", "ark CPU", "GpuQap", "speed-up"
    );
    let row = |name: &str, a: f64, g: f64| {
        println!("{name:<52} {a:>12.2} {g:>12.2} {:>8.2}x", a / g);
    };
    row(
        "witness generation (synthesis, shared)",
        witness_ms,
        witness_ms,
    );
    row(
        &format!("witness map (R1CSToQAP::witness_map, median of {reps})"),
        map_ark,
        map_gpu,
    );
    row(
        "  of which: constraint matrices (to_matrices, shared)",
        matrices,
        matrices,
    );
    row("  of which: witness_map_from_matrices", from_ark, from_gpu);
    row(
        "    in it: a, b, c = matrices x assignment (CPU, rayon)",
        eval,
        eval,
    );
    if let Some(p) = &proofs {
        row(
            "MSMs and the rest (proof - the two above)",
            p.ark_ms - witness_ms - map_ark,
            p.gpu_ms - witness_ms - map_gpu,
        );
        row(
            &format!(
                "whole proof (Groth16::prove, median of {})",
                args.prove_reps
            ),
            p.ark_ms,
            p.gpu_ms,
        );
    }
    let first = if placement == Some(Placement::Gpu) {
        " (the GPU's twiddles for the size built)"
    } else {
        ""
    };
    println!(
        "GpuQap's witness map ran on the {ran_on}; its first call {gpu_first_ms:.2} ms{first}"
    );
    println!(
        "witness map with GpuDomain as ark's domain type (each NTT host to host): {map_domain:.2} \
         ms, {:.2}x ark's, GpuQap {:.2}x faster",
        map_ark / map_domain,
        map_domain / map_gpu
    );
    println!(
        "witness_map_from_matrices with GpuDomain: {from_domain:.2} ms; GpuQap {:.2}x faster",
        from_domain / from_gpu
    );
    if let Some(f) = floor_ms {
        println!(
            "PCIe floor of the witness map (a, b, c in, h out at the pinned bandwidth): {f:.2} ms; \
             GpuQap's witness_map_from_matrices at {:.2}x it, of which the host's a, b, c alone \
             {:.2}x",
            from_gpu / f,
            eval / f
        );
    }
    match &proofs {
        Some(p) => {
            println!(
                "witness maps equal: {maps_equal}; proofs byte-identical: {}; verified: ark {}, \
                 GpuQap {} ({:.1} ms); wrong public input rejected: {}",
                p.identical, p.verified_ark, p.verified_gpu, p.verify_ms, p.rejected
            );
            println!(
                "the witness map is {:.1}% of ark's proof and {:.1}% of GpuQap's",
                100.0 * map_ark / p.ark_ms,
                100.0 * map_gpu / p.gpu_ms
            );
        }
        None => println!(
            "witness maps equal: {maps_equal}; no setup and no proofs (--witness-map-only)"
        ),
    }

    if let Some(path) = &args.json {
        let doc = json!({
            "field": field,
            "circuit": "pow5",
            "log_n": log_n,
            "steps": steps,
            "constraints": num_constraints,
            "threads": rayon::current_num_threads(),
            "device": device,
            "witness_map_placement": ran_on,
            "ms": {
                "witness_generation": witness_ms,
                "witness_map": { "ark": map_ark, "gpu_qap": map_gpu, "gpu_qap_first": gpu_first_ms,
                                 "gpu_domain": map_domain, "ark_all": ark_ms,
                                 "gpu_qap_all": gpu_ms, "gpu_domain_all": domain_ms },
                "to_matrices": matrices,
                "evaluate_matrices": eval,
                "witness_map_from_matrices": { "ark": from_ark, "gpu_qap": from_gpu,
                                               "gpu_domain": from_domain },
                "rest": proofs.as_ref().map(|p| json!({ "ark": p.ark_ms - witness_ms - map_ark,
                                                        "gpu_qap": p.gpu_ms - witness_ms - map_gpu })),
                "prove": proofs.as_ref().map(|p| json!({ "ark": p.ark_ms, "gpu_qap": p.gpu_ms,
                                                         "ark_all": p.ark_all, "gpu_qap_all": p.gpu_all })),
                "verify": proofs.as_ref().map(|p| p.verify_ms),
                "pcie_floor": floor_ms,
            },
            "witness_maps_equal": maps_equal,
            "proofs_identical": proofs.as_ref().map(|p| p.identical),
            "verified": proofs.as_ref().map(|p| json!({ "ark": p.verified_ark, "gpu_qap": p.verified_gpu })),
            "wrong_input_rejected": proofs.as_ref().map(|p| p.rejected),
        });
        std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")?;
        println!("wrote {}", path.display());
    }
    let proofs_ok = proofs
        .as_ref()
        .is_none_or(|p| p.identical && p.verified_ark && p.verified_gpu && p.rejected);
    if !(maps_equal && proofs_ok) {
        return Err("GpuQap and ark disagree, or a proof failed to verify (see above)".into());
    }
    Ok(())
}

/// Both provers' proofs of one circuit from the same randomness, and what was checked of them.
struct Proofs {
    ark_ms: f64,
    gpu_ms: f64,
    ark_all: Vec<f64>,
    gpu_all: Vec<f64>,
    identical: bool,
    verified_ark: bool,
    verified_gpu: bool,
    verify_ms: f64,
    rejected: bool,
}

/// `args.prove_reps` proofs with each reduction (taking turns going first, so neither alone pays
/// for a cold start), compared byte for byte, verified, and a wrong public input rejected.
fn prove_both<E: Pairing>(
    args: &ProveArgs,
    pk: &ark_groth16::ProvingKey<E>,
    pvk: &ark_groth16::PreparedVerifyingKey<E>,
    circuit: Pow5Chain<E::ScalarField>,
    y: E::ScalarField,
) -> Result<Proofs, AnyError> {
    let seed = args.seed ^ 0x5eed;
    let (mut prove_ark, mut prove_gpu) = (Vec::new(), Vec::new());
    let (mut proof_ark, mut proof_gpu) = (None, None);
    for rep in 0..args.prove_reps {
        for ours in [rep % 2 == 1, rep % 2 == 0] {
            let mut rng = StdRng::seed_from_u64(seed);
            if ours {
                let progress = Progress::start("proof with GpuQap");
                let (p, t) = timed(|| Groth16::<E, GpuQap>::prove(pk, circuit, &mut rng));
                drop(progress);
                proof_gpu = Some(p?);
                prove_gpu.push(t);
            } else {
                let progress = Progress::start("proof with LibsnarkReduction (ark)");
                let (p, t) = timed(|| Groth16::<E>::prove(pk, circuit, &mut rng));
                drop(progress);
                proof_ark = Some(p?);
                prove_ark.push(t);
            }
        }
    }
    let (Some(proof_ark), Some(proof_gpu)) = (proof_ark, proof_gpu) else {
        return Err("no proof was made (--prove-reps is at least 1)".into());
    };
    let (ark_ms, gpu_ms) = (median(&mut prove_ark), median(&mut prove_gpu));
    let bytes = |p: &ark_groth16::Proof<E>| -> Result<Vec<u8>, AnyError> {
        let mut v = Vec::new();
        p.serialize_compressed(&mut v)?;
        Ok(v)
    };
    let identical = bytes(&proof_ark)? == bytes(&proof_gpu)?;
    let verified_ark = Groth16::<E>::verify_with_processed_vk(pvk, &[y], &proof_ark)?;
    let (verified_gpu, verify_ms) =
        timed(|| Groth16::<E>::verify_with_processed_vk(pvk, &[y], &proof_gpu));
    let verified_gpu = verified_gpu?;
    let wrong = y + E::ScalarField::from(1u64);
    let rejected = !Groth16::<E>::verify_with_processed_vk(pvk, &[wrong], &proof_gpu)?;
    Ok(Proofs {
        ark_ms,
        gpu_ms,
        ark_all: prove_ark,
        gpu_all: prove_gpu,
        identical,
        verified_ark,
        verified_gpu,
        verify_ms,
        rejected,
    })
}

/// The proving key for the chain of `steps` steps: read from the cache, or made by ark's setup
/// (seeded, so the same arguments give the same key) and written there.
fn setup<E: Pairing>(
    args: &ProveArgs,
    field: &str,
    steps: usize,
) -> Result<ProvingKey<E>, AnyError> {
    let dir = args
        .cache_dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("zkntt-groth16-keys"));
    let path = dir.join(format!("{field}-pow5-{steps}-seed{}.pk", args.seed));
    if let Some(pk) = read_key::<E>(&path) {
        println!("setup: proving key from {}", path.display());
        return Ok(pk);
    }
    let progress = Progress::start("setup (once per size and field; cached)");
    let t = Instant::now();
    let mut rng = StdRng::seed_from_u64(args.seed);
    let (pk, _) = Groth16::<E>::setup(Pow5Chain::<E::ScalarField>::shape(steps), &mut rng)?;
    drop(progress);
    println!("setup: {:.1} s", t.elapsed().as_secs_f64());
    match write_key(&pk, &dir, &path) {
        Ok(()) => println!("setup: proving key cached in {}", path.display()),
        Err(e) => println!("setup: could not cache the key in {} ({e})", path.display()),
    }
    Ok(pk)
}

/// A cached key, unchecked (curve membership is not re-validated: the file is ours); `None` when
/// absent or unreadable (the setup then runs again).
fn read_key<E: Pairing>(path: &Path) -> Option<ProvingKey<E>> {
    let file = std::fs::File::open(path).ok()?;
    ProvingKey::<E>::deserialize_uncompressed_unchecked(BufReader::new(file)).ok()
}

fn write_key<E: Pairing>(pk: &ProvingKey<E>, dir: &Path, path: &Path) -> Result<(), AnyError> {
    std::fs::create_dir_all(dir)?;
    // Written aside and renamed, so that an interrupted write leaves no half key behind.
    let partial = path.with_extension("partial");
    let mut out = BufWriter::new(std::fs::File::create(&partial)?);
    pk.serialize_uncompressed(&mut out)?;
    out.flush()?;
    drop(out);
    std::fs::rename(&partial, path)?;
    Ok(())
}

/// The circuit synthesized with its witness, as `Groth16::prove` does before the witness map.
fn synthesize<F: PrimeField>(circuit: Pow5Chain<F>) -> Result<ConstraintSystemRef<F>, AnyError> {
    let cs = ConstraintSystem::new_ref();
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    cs.set_mode(SynthesisMode::Prove {
        construct_matrices: true,
        generate_lc_assignments: false,
    });
    circuit.generate_constraints(cs.clone())?;
    cs.finalize();
    Ok(cs)
}

fn cpu_reason(reason: &CpuReason) -> String {
    match reason {
        CpuReason::NoGpu { kind, .. } => format!("no GPU: {kind}"),
        CpuReason::GpuFailed { message, .. } => format!("the GPU failed: {message}"),
        other => format!("{other:?}"),
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, ms(t))
}

/// A phase's progress on stderr while it runs: the elapsed seconds, redrawn on a terminal, a line
/// every ten seconds otherwise (logs); the phase's time when it ends (on drop).
struct Progress {
    label: &'static str,
    start: Instant,
    done: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
}

impl Progress {
    fn start(label: &'static str) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let tty = std::io::stderr().is_terminal();
        let start = Instant::now();
        let flag = done.clone();
        let ticker = std::thread::spawn(move || {
            let every = if tty { 1 } else { 10 };
            let mut shown = 0u64;
            while !flag.load(Ordering::Relaxed) {
                std::thread::park_timeout(Duration::from_millis(250));
                let seconds = start.elapsed().as_secs();
                if seconds >= shown + every && !flag.load(Ordering::Relaxed) {
                    shown = seconds;
                    let mut err = std::io::stderr();
                    let _ = if tty {
                        write!(err, "\r  {label}: {seconds} s ...")
                    } else {
                        writeln!(err, "  {label}: {seconds} s ...")
                    };
                }
            }
        });
        Self {
            label,
            start,
            done,
            ticker: Some(ticker),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        let seconds = self.start.elapsed().as_secs_f64();
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            t.thread().unpark();
            let _ = t.join();
        }
        let clear = if std::io::stderr().is_terminal() {
            "\r\x1b[K"
        } else {
            ""
        };
        eprintln!("{clear}  {}: done in {seconds:.2} s", self.label);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_2_to_the_k_or_k() {
        assert_eq!(parse_log_size("2^20"), Ok(20));
        assert_eq!(parse_log_size("16"), Ok(16));
        assert_eq!(parse_log_size(" 2^3 "), Ok(3));
        for bad in ["2^2", "33", "2^x", "1e6", ""] {
            assert!(parse_log_size(bad).is_err(), "{bad}");
        }
    }

    /// The whole command on a small size, on whatever this machine has: both reductions agree,
    /// both proofs verify, the key is cached and read back on the second run.
    #[test]
    fn proves_a_small_chain_and_caches_its_key() {
        let dir = std::env::temp_dir().join(format!("zkntt-prove-test-{}", std::process::id()));
        let json = dir.join("prove.json");
        // --json is checked before the run: its directory must exist.
        std::fs::create_dir_all(&dir).unwrap();
        let args = |field| ProveArgs {
            constraints: 6,
            field,
            circuit: CircuitArg::Pow5,
            cache_dir: Some(dir.clone()),
            reps: 2,
            prove_reps: 2,
            seed: 7,
            json: Some(json.clone()),
            witness_map_only: false,
            device: Default::default(),
        };
        for field in [FieldArg::Bn254, FieldArg::Bls12_381] {
            prove(args(field)).unwrap();
            let doc: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            assert_eq!(doc["proofs_identical"], true);
            assert_eq!(doc["verified"]["gpu_qap"], true);
            assert_eq!(doc["wrong_input_rejected"], true);
            assert_eq!(
                doc["ms"]["witness_map"]["ark_all"]
                    .as_array()
                    .unwrap()
                    .len(),
                2
            );
        }
        let keys = std::fs::read_dir(&dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "pk")
            })
            .count();
        assert_eq!(keys, 2);
        // Second run: from the cached key, same result.
        prove(args(FieldArg::Bn254)).unwrap();
        // The witness maps alone: no key made or read, no proof fields.
        let only = ProveArgs {
            witness_map_only: true,
            cache_dir: Some(dir.join("unused")),
            ..args(FieldArg::Bls12_381)
        };
        prove(only).unwrap();
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(doc["witness_maps_equal"], true);
        assert!(doc["proofs_identical"].is_null());
        assert!(doc["ms"]["witness_map_from_matrices"]["gpu_domain"].is_number());
        assert!(!dir.join("unused").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
