//! `zkntt bench modmul` (the blog's modular-multiplication experiment) and `zkntt bench small-ntt`
//! (the WSX NTT against its block-synchronous baseline, batched throughput against the copy
//! bandwidth, the modmul forms inside the NTT, 2-D sizes, host-to-host over streams).
//! Device-resident times are CUDA-event medians after warm-up.
//!
//! Both take `--json FILE` (every number of the run) and `--plot FILE.svg` (module `plot`; `zkntt
//! plot` draws it again from the JSON with no GPU), checked with the sizes before the GPU is
//! opened, and show a progress bar on a terminal.

use ark_std::rand::{Rng, SeedableRng, rngs::StdRng};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;
use zkntt_gpu::Gpu;
use zkntt_gpu::timing::{median_ms, median_wall_ms};
use zkntt_small::field::TILE_LOG;
use zkntt_small::modmul::{BLOG_MODULI, Modulus};
use zkntt_small::modmul_gpu::{ChainInputs, chain_kernel_name, launch_chain};
use zkntt_small::{Direction, Kernel, ModMulForm, PinnedBuffer, SmallField, SmallNtt};

type AnyError = Box<dyn std::error::Error>;

/// The blog's RTX 4060 figures (28-bit modulus, ms), for the side-by-side column.
fn blog_4060_ms(form: ModMulForm, bits: u32) -> Option<f64> {
    let row = match bits {
        16 => [None, Some(1.2582), Some(1.2426), Some(1.0862)],
        20 => [None, Some(1.5166), Some(1.3999), Some(1.0477)],
        24 => [None, Some(1.5100), Some(1.3880), Some(1.0609)],
        28 => [Some(5.0693), Some(1.2624), Some(1.1783), Some(0.8812)],
        _ => return None,
    };
    match form {
        ModMulForm::Dynamic => row[0],
        ModMulForm::ConstMod => row[1],
        ModMulForm::Shoup => row[2],
        ModMulForm::Montgomery => row[3],
        _ => None,
    }
}

/// `bench modmul --n`'s largest value.
const MAX_MODMUL_N: usize = 1 << 30;

#[derive(clap::Args, Debug)]
pub struct ModmulArgs {
    /// Elements (the blog: 16 M).
    #[arg(long, default_value_t = 1 << 24)]
    n: usize,
    /// Timed launches per kernel (median reported).
    #[arg(long, default_value_t = 20)]
    iters: usize,
    /// Untimed launches first.
    #[arg(long, default_value_t = 3)]
    warmup: usize,
    /// Also count executed instructions (sm__inst_executed.sum) by re-running under Nsight
    /// Compute, where `ncu` is found ($NCU, PATH, /usr/local/cuda/bin).
    #[arg(long)]
    ncu: bool,
    /// Skip the check of every result against the CPU twin (used by the --ncu re-run).
    #[arg(long, hide = true)]
    no_check: bool,
    /// Every number of the run as JSON into FILE (`zkntt plot --json FILE` plots it again).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// An SVG plot into FILE: each form's time against the modulus width beside the memory floor,
    /// and each form's time over Montgomery's.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    device: crate::args::DeviceArg,
}

/// One chain kernel's time: a form at a modulus width.
#[derive(Debug, Clone, PartialEq)]
pub struct ModmulRow {
    pub bits: u32,
    pub q: u32,
    pub form: ModMulForm,
    pub ms: f64,
}

/// What `zkntt bench modmul` measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ModmulRun {
    /// Elements per launch.
    pub n: usize,
    pub iters: usize,
    pub warmup: usize,
    /// Every result compared with the CPU twin.
    pub checked: bool,
    pub rows: Vec<ModmulRow>,
    /// --ncu's counts (bits, form, warp-level instructions); empty without --ncu.
    pub instructions: Vec<(u32, ModMulForm, f64)>,
}

impl ModmulRun {
    /// The time of `form` at `bits` (NaN when not run).
    fn ms(&self, bits: u32, form: ModMulForm) -> f64 {
        self.rows
            .iter()
            .find(|r| r.bits == bits && r.form == form)
            .map_or(f64::NAN, |r| r.ms)
    }
}

/// The `--json` document of `zkntt bench modmul` (`"kind": "modmul"`).
pub fn modmul_json(gpu: &str, timestamp: &str, run: &ModmulRun) -> Value {
    let n = run.n;
    json!({
        "kind": "modmul",
        "gpu": gpu,
        "timestamp": timestamp,
        "n": n,
        "chain": 16,
        "iters": run.iters,
        "warmup": run.warmup,
        "checked_against_cpu": run.checked,
        "timing": "device-resident: median of CUDA-event times per launch of n chains",
        "ratio": "vs_montgomery = ms / Montgomery's ms at the same modulus",
        "rows": run.rows.iter().map(|r| json!({
            "bits": r.bits,
            "q": r.q,
            "form": r.form.name(),
            "label": r.form.label(),
            "ms": r.ms,
            "g_mul_per_s": n as f64 * 16.0 / r.ms / 1e6,
            "vs_montgomery": r.ms / run.ms(r.bits, ModMulForm::Montgomery),
            "rtx4060_ms": blog_4060_ms(r.form, r.bits),
        })).collect::<Vec<_>>(),
        "instructions": run.instructions.iter().map(|(bits, form, count)| json!({
            "bits": bits,
            "form": form.name(),
            "sm__inst_executed.sum": count,
        })).collect::<Vec<_>>(),
    })
}

pub fn modmul(args: ModmulArgs) -> Result<(), AnyError> {
    if args.n == 0 {
        return Err("--n 0: the chains need at least one element".into());
    }
    // Two operands and a result of 4 bytes an element, generated on the host first.
    if args.n > MAX_MODMUL_N {
        return Err(format!(
            "--n {}: at most 2^{} elements ({} GiB of operands and result)",
            args.n,
            MAX_MODMUL_N.trailing_zeros(),
            (3 * 4 * MAX_MODMUL_N) >> 30
        )
        .into());
    }
    if args.iters == 0 {
        return Err("--iters 0: at least one timed launch is needed".into());
    }
    crate::args::check_outputs(args.json.as_deref(), args.plot.as_deref())?;
    let gpu = args.device.open()?;
    let info = gpu.info()?;
    println!("{info}");
    println!(
        "modmul chains: {} elements, 16 chained multiplications each, 256 threads/block; median of {} after {} warm-up",
        args.n, args.iters, args.warmup
    );
    let mut rng = StdRng::seed_from_u64(2024);
    let mut run = ModmulRun {
        n: args.n,
        iters: args.iters,
        warmup: args.warmup,
        checked: !args.no_check,
        rows: Vec::new(),
        instructions: Vec::new(),
    };
    let bar = crate::progress::bar(
        (BLOG_MODULI.len() * ModMulForm::ALL.len()) as u64,
        "kernels",
    );
    for (bits, q) in BLOG_MODULI {
        bar.0.set_message(format!("{bits}-bit modulus: operands"));
        let a: Vec<u32> = (0..args.n).map(|_| rng.gen_range(1..q)).collect();
        let b: Vec<u32> = (0..args.n).map(|_| rng.gen_range(1..q)).collect();
        let m = Modulus::new(q)?;
        let mut inputs = ChainInputs::new(&gpu, q, &a, &b)?;
        for form in ModMulForm::ALL {
            bar.0
                .set_message(format!("{bits}-bit modulus: {}", form.label()));
            let ms = median_ms(gpu.stream(), args.warmup, args.iters, || {
                launch_chain(&gpu, form, &mut inputs)
            })?;
            if !args.no_check {
                let got = gpu.stream().clone_dtoh(&inputs.out)?;
                gpu.synchronize()?;
                // Every element against the CPU twin: the forms must agree bit for bit.
                if let Some(i) = (0..args.n).find(|&i| got[i] != m.chain16(form, a[i], b[i])) {
                    return Err(
                        format!("{form:?} q={q}: element {i} differs from the CPU twin").into(),
                    );
                }
            }
            run.rows.push(ModmulRow { bits, q, form, ms });
            bar.0.inc(1);
        }
    }
    drop(bar);
    let get = |bits: u32, form: ModMulForm| run.ms(bits, form);
    let muls = args.n as f64 * 16.0;
    println!(
        "\n28-bit modulus q = 268369921, the blog's table (this GPU; RTX 4060 figures from seed 002):\n"
    );
    println!("| form | ms | G mul/s | vs dynamic % | vs Montgomery | RTX 4060 ms |");
    println!("|---|---|---|---|---|---|");
    let (d, mo) = (
        get(28, ModMulForm::Dynamic),
        get(28, ModMulForm::Montgomery),
    );
    for form in ModMulForm::ALL {
        let t = get(28, form);
        println!(
            "| {} | {:.4} | {:.0} | {:.2}x | {:.2}x | {} |",
            form.label(),
            t,
            muls / t / 1e6,
            d / t,
            t / mo,
            blog_4060_ms(form, 28).map_or("-".into(), |v| format!("{v:.4}")),
        );
    }
    println!("\nBy modulus width (ms; in brackets: time / Montgomery's):\n");
    print!("| bits | q |");
    for form in ModMulForm::ALL {
        print!(" {} |", form.label());
    }
    println!("\n|---|---|{}", "---|".repeat(ModMulForm::ALL.len()));
    for (bits, q) in BLOG_MODULI {
        print!("| {bits} | {q} |");
        let mo = get(bits, ModMulForm::Montgomery);
        for form in ModMulForm::ALL {
            let t = get(bits, form);
            print!(" {t:.4} ({:.2}) |", t / mo);
        }
        println!();
    }
    if args.ncu {
        run.instructions = ncu_counts(&args)?;
    }
    let doc = modmul_json(&info.name, &crate::bench_matrix::now(), &run);
    crate::plot::save_outputs(&doc, args.json.as_deref(), args.plot.as_deref())
}

fn find_ncu() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("NCU") {
        return Some(p.into());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("ncu"))
        .chain(["/usr/local/cuda/bin/ncu".into()])
        .find(|p| p.is_file())
}

/// Splits one CSV line, honouring double quotes.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// `--ncu`: the chain kernels' executed instructions, printed and returned as (bits, form, count);
/// none (said so) where ncu is missing or gave none.
fn ncu_counts(args: &ModmulArgs) -> Result<Vec<(u32, ModMulForm, f64)>, AnyError> {
    let Some(ncu) = find_ncu() else {
        println!("\n--ncu: ncu not found ($NCU, PATH, /usr/local/cuda/bin): no instruction counts");
        return Ok(Vec::new());
    };
    let exe = std::env::current_exe()?;
    let out = Command::new(&ncu)
        .args([
            "--metrics",
            "sm__inst_executed.sum",
            "--csv",
            "--kernel-name",
            "regex:modmul_chain16",
        ])
        .arg(&exe)
        .args([
            "bench",
            "modmul",
            "--iters",
            "1",
            "--warmup",
            "0",
            "--no-check",
            "--n",
        ])
        .arg(args.n.to_string())
        .arg("--device")
        .arg(args.device.ordinal().to_string())
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut header: Option<Vec<String>> = None;
    let mut counts: Vec<(String, f64)> = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('"')) {
        let f = csv_fields(line);
        match &header {
            None => header = Some(f),
            Some(h) => {
                let col = |name: &str| h.iter().position(|x| x == name);
                if let (Some(k), Some(v)) = (col("Kernel Name"), col("Metric Value")) {
                    let value: f64 = f[v].replace([',', ' '], "").parse().unwrap_or(f64::NAN);
                    counts.push((f[k].clone(), value));
                }
            }
        }
    }
    if counts.is_empty() {
        println!(
            "\n--ncu: no counts from {} (exit {}): {}",
            ncu.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(5)
                .collect::<Vec<_>>()
                .join(" / ")
        );
        return Ok(Vec::new());
    }
    println!(
        "\nExecuted instructions (ncu sm__inst_executed.sum, warp-level), {} elements:\n",
        args.n
    );
    println!("| bits | form | instructions | vs Montgomery |");
    println!("|---|---|---|---|");
    let mut found = Vec::new();
    for (bits, _) in BLOG_MODULI {
        let get = |form: ModMulForm| {
            let name = chain_kernel_name(form, bits);
            counts
                .iter()
                .find(|c| c.0.starts_with(&name) && !c.0[name.len()..].starts_with('_'))
                .map(|c| c.1)
        };
        let mo = get(ModMulForm::Montgomery).unwrap_or(f64::NAN);
        for form in ModMulForm::ALL {
            if let Some(c) = get(form) {
                println!("| {bits} | {} | {c:.0} | {:.2}x |", form.label(), c / mo);
                found.push((bits, form, c));
            }
        }
    }
    Ok(found)
}

#[derive(clap::Args, Debug)]
pub struct SmallNttArgs {
    /// Bytes per batch for the throughput tables (default 1 GiB).
    #[arg(long, default_value_t = 1 << 30)]
    bytes: usize,
    #[arg(long, default_value_t = 10)]
    iters: usize,
    #[arg(long, default_value_t = 2)]
    warmup: usize,
    /// Skip the host-to-host stream table.
    #[arg(long)]
    no_streams: bool,
    /// Sizes (log2) of the BabyBear single-transform table.
    #[arg(long, value_delimiter = ',', default_values_t = [12u32, 16, 20, 22, 24])]
    single: Vec<u32>,
    /// Only the BabyBear single-transform table (and the stream table unless --no-streams): for
    /// profiling the 2-D path under ncu.
    #[arg(long)]
    only_single: bool,
    /// Every number of the run as JSON into FILE (`zkntt plot --json FILE` plots it again).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// An SVG plot into FILE: the batched WSX and block-synchronous NTTs of each field against the
    /// copy of the batch, BabyBear's single transforms against their data's copy, and the ratios
    /// block-sync / WSX.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    device: crate::args::DeviceArg,
}

/// The batched sizes (log2) of each field's rows in the WSX-against-baseline table.
fn batched_sizes(field: SmallField) -> &'static [u32] {
    if field == SmallField::Q28 {
        &[6, 7, 8, 9, 10, 11, 12]
    } else {
        &[10, 11, 12]
    }
}

/// The streams of the host-to-host table.
const STREAMS: [usize; 4] = [1, 2, 4, 8];

/// One row of the batched table: forward NTTs of 2^log_n filling the batch, ms.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchedRow {
    pub field: SmallField,
    pub log_n: u32,
    pub batch: usize,
    pub block_sync_ms: f64,
    /// WSX, Montgomery lazy form.
    pub wsx_ms: f64,
    /// The ablation: WSX with v1's shuffles.
    pub wsx_v1_ms: f64,
    pub wsx_shoup_lazy_ms: f64,
}

/// One modmul form inside the WSX NTT (Q28, forward, the batch), ms.
#[derive(Debug, Clone, PartialEq)]
pub struct FormRow {
    pub form: ModMulForm,
    pub wsx_10_ms: f64,
    pub wsx_12_ms: f64,
    pub block_sync_12_ms: f64,
}

/// One BabyBear single transform (Shoup lazy form, device-resident), ms.
#[derive(Debug, Clone, PartialEq)]
pub struct SingleRow {
    pub log_n: u32,
    pub wsx_in_place_ms: f64,
    pub wsx_out_of_place_ms: f64,
    pub block_sync_out_of_place_ms: f64,
}

/// One row of the host-to-host table: wall-clock medians.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsRow {
    pub streams: usize,
    pub pinned_ms: f64,
    pub pinned_gbps: f64,
    pub pageable_ms: f64,
}

/// What `zkntt bench small-ntt` measured; the tables it skipped are empty (or None).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmallNttRun {
    pub bytes: usize,
    pub iters: usize,
    pub warmup: usize,
    /// The device-to-device copy of `bytes`: ms and GB/s counting read + write.
    pub copy: Option<(f64, f64)>,
    pub batched: Vec<BatchedRow>,
    pub forms: Vec<FormRow>,
    pub single: Vec<SingleRow>,
    /// The host-to-host table: Q28 2^log_n, `elements` in all, one row per stream count.
    pub streams: Option<(u32, usize, Vec<StreamsRow>)>,
}

/// The `--json` document of `zkntt bench small-ntt` (`"kind": "small-ntt"`).
pub fn small_ntt_json(gpu: &str, timestamp: &str, run: &SmallNttRun) -> Value {
    json!({
        "kind": "small-ntt",
        "gpu": gpu,
        "timestamp": timestamp,
        "bytes": run.bytes,
        "iters": run.iters,
        "warmup": run.warmup,
        "timing": "device-resident: median of CUDA-event times, forward transforms; streams: wall clock, median of 5",
        "ratio": "block_sync_ms / wsx_ms (above 1: WSX faster)",
        "copy": run.copy.map(|(ms, gbps)| json!({"ms": ms, "gbps": gbps})),
        "batched": run.batched.iter().map(|r| json!({
            "field": r.field.name(),
            "log_n": r.log_n,
            "batch": r.batch,
            "form": ModMulForm::MontgomeryLazy.name(),
            "block_sync_ms": r.block_sync_ms,
            "wsx_ms": r.wsx_ms,
            "wsx_v1_shuffles_ms": r.wsx_v1_ms,
            "wsx_shoup_lazy_ms": r.wsx_shoup_lazy_ms,
            "wsx_g_elem_per_s": (r.batch << r.log_n) as f64 / r.wsx_ms / 1e6,
        })).collect::<Vec<_>>(),
        "forms": run.forms.iter().map(|r| json!({
            "field": SmallField::Q28.name(),
            "form": r.form.name(),
            "wsx_2_10_ms": r.wsx_10_ms,
            "wsx_2_12_ms": r.wsx_12_ms,
            "block_sync_2_12_ms": r.block_sync_12_ms,
        })).collect::<Vec<_>>(),
        "single": run.single.iter().map(|r| json!({
            "field": SmallField::BabyBear.name(),
            "form": ModMulForm::ShoupLazy.name(),
            "log_n": r.log_n,
            "wsx_in_place_ms": r.wsx_in_place_ms,
            "wsx_out_of_place_ms": r.wsx_out_of_place_ms,
            "block_sync_out_of_place_ms": r.block_sync_out_of_place_ms,
        })).collect::<Vec<_>>(),
        "streams": run.streams.as_ref().map(|(log_n, elements, rows)| json!({
            "field": SmallField::Q28.name(),
            "log_n": log_n,
            "elements": elements,
            "rows": rows.iter().map(|r| json!({
                "streams": r.streams,
                "pinned_ms": r.pinned_ms,
                "pinned_gbps": r.pinned_gbps,
                "pageable_ms": r.pageable_ms,
            })).collect::<Vec<_>>(),
        })),
    })
}

fn random_field(field: SmallField, n: usize, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(0..field.modulus())).collect()
}

/// The batched tables: WSX against the baseline and the copy bandwidth, the ablations, the forms.
fn batched_tables(
    gpu: &Gpu,
    args: &SmallNttArgs,
    bar: &crate::progress::Bar,
    run: &mut SmallNttRun,
) -> Result<(), AnyError> {
    let gpu = gpu.clone();
    let s = gpu.stream().clone();
    let elems = args.bytes / 4;

    // The copy bandwidth, read + write, measured now.
    bar.0.set_message("copy bandwidth");
    let src = s.alloc_zeros::<u32>(elems)?;
    let mut dst = s.alloc_zeros::<u32>(elems)?;
    let copy_ms = median_ms(&s, args.warmup, args.iters, || {
        s.memcpy_dtod(&src, &mut dst)
            .map_err(|e| zkntt_gpu::Error::Driver {
                op: "copy",
                source: e,
            })
    })?;
    drop((src, dst));
    let copy_bw = 2.0 * args.bytes as f64 / (copy_ms * 1e-3);
    run.copy = Some((copy_ms, copy_bw / 1e9));
    bar.println(format!(
        "device-to-device copy of {} MiB: {copy_ms:.3} ms = {:.0} GB/s (read + write)",
        args.bytes >> 20,
        copy_bw / 1e9
    ));

    bar.0.set_message("random input");
    let host = random_field(SmallField::Q28, elems, 1);
    let mut data = s.clone_htod(&host)?;
    let time = |ntt: &SmallNtt, data: &mut _, log_n: u32, kernel: Kernel| {
        median_ms(&s, args.warmup, args.iters, || {
            ntt.run(data, log_n, Direction::Forward, kernel)
        })
    };

    bar.println(format!(
        "\nWSX vs block-synchronous baseline: forward NTTs filling {} MiB, Montgomery lazy form; same threads, tile and twiddles:\n",
        args.bytes >> 20
    ));
    bar.println(
        "| field | log2 N | batch | block-sync ms | WSX ms | WSX speed-up | WSX G elem/s | WSX % of copy BW | ablation: v1 shuffles ms | WSX Shoup lazy ms | Shoup lazy G elem/s | Shoup lazy % of copy BW |",
    );
    bar.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for field in SmallField::ALL {
        let ntt = SmallNtt::new(&gpu, field, ModMulForm::MontgomeryLazy)?;
        let shoup = SmallNtt::new(&gpu, field, ModMulForm::ShoupLazy)?;
        for &log_n in batched_sizes(field) {
            bar.0
                .set_message(format!("batched {} 2^{log_n}", field.name()));
            let block = time(&ntt, &mut data, log_n, Kernel::BlockSync)?;
            let wsx = time(&ntt, &mut data, log_n, Kernel::Wsx)?;
            let half = time(&ntt, &mut data, log_n, Kernel::WsxHalf)?;
            let sh = time(&shoup, &mut data, log_n, Kernel::Wsx)?;
            let rate = |ms: f64| elems as f64 / (ms * 1e-3);
            let frac = |ms: f64| 100.0 * 8.0 * rate(ms) / copy_bw;
            bar.println(format!(
                "| {} | {log_n} | {} | {block:.3} | {wsx:.3} | {:.2}x | {:.1} | {:.1}% | {half:.3} | {sh:.3} | {:.1} | {:.1}% |",
                field.name(),
                elems >> log_n,
                block / wsx,
                rate(wsx) / 1e9,
                frac(wsx),
                rate(sh) / 1e9,
                frac(sh)
            ));
            bar.0.inc(1);
            run.batched.push(BatchedRow {
                field,
                log_n,
                batch: elems >> log_n,
                block_sync_ms: block,
                wsx_ms: wsx,
                wsx_v1_ms: half,
                wsx_shoup_lazy_ms: sh,
            });
        }
    }

    bar.println(format!(
        "\nModmul forms inside the WSX NTT (Q28, forward, {} MiB batch), ms:\n",
        args.bytes >> 20
    ));
    bar.println("| form | 2^10 | 2^12 | 2^12 block-sync |");
    bar.println("|---|---|---|---|");
    for form in ModMulForm::ALL {
        bar.0.set_message(format!("modmul forms: {}", form.label()));
        let ntt = SmallNtt::new(&gpu, SmallField::Q28, form)?;
        let a = time(&ntt, &mut data, 10, Kernel::Wsx)?;
        let b = time(&ntt, &mut data, 12, Kernel::Wsx)?;
        let c = time(&ntt, &mut data, 12, Kernel::BlockSync)?;
        bar.println(format!("| {} | {a:.3} | {b:.3} | {c:.3} |", form.label()));
        bar.0.inc(1);
        run.forms.push(FormRow {
            form,
            wsx_10_ms: a,
            wsx_12_ms: b,
            block_sync_12_ms: c,
        });
    }
    drop(data);
    Ok(())
}

pub fn small_ntt(args: SmallNttArgs) -> Result<(), AnyError> {
    let max = SmallField::BabyBear.max_log_n();
    if let Some(k) = args.single.iter().find(|&&k| k > max) {
        return Err(format!("--single {k}: the BabyBear NTT goes up to 2^{max}").into());
    }
    if args.iters == 0 {
        return Err("--iters 0: at least one timed launch is needed".into());
    }
    // The batched tables transform 2^12-word rows of the batch.
    let row = 4usize << TILE_LOG;
    if args.bytes == 0 || args.bytes % row != 0 {
        return Err(format!(
            "--bytes {}: must be a positive multiple of {row} (whole transforms of 2^{TILE_LOG} words)",
            args.bytes
        )
        .into());
    }
    crate::args::check_outputs(args.json.as_deref(), args.plot.as_deref())?;
    let gpu = args.device.open()?;
    let info = gpu.info()?;
    println!("{info}");
    // The fastest form inside the WSX NTT on the H100 (benches/NOTES.md). Each single size runs
    // on both kernels: checked on this GPU before any table (the WSX kernel's largest sizes need
    // thread-block clusters, the baseline stops at 2^24).
    let bb = SmallNtt::new(&gpu, SmallField::BabyBear, ModMulForm::ShoupLazy)?;
    for kernel in [Kernel::Wsx, Kernel::BlockSync] {
        let max = bb.max_log_n(kernel);
        if let Some(k) = args.single.iter().find(|&&k| k > max) {
            return Err(format!(
                "--single {k}: the {} BabyBear NTT goes up to 2^{max} on this GPU",
                kernel.name()
            )
            .into());
        }
    }
    let s = gpu.stream().clone();
    let mut run = SmallNttRun {
        bytes: args.bytes,
        iters: args.iters,
        warmup: args.warmup,
        ..SmallNttRun::default()
    };
    // One step per table row.
    let mut steps = args.single.len();
    if !args.only_single {
        steps += SmallField::ALL
            .iter()
            .map(|&f| batched_sizes(f).len())
            .sum::<usize>()
            + ModMulForm::ALL.len();
    }
    if !args.no_streams {
        steps += STREAMS.len();
    }
    let bar = crate::progress::bar(steps as u64, "rows");
    if !args.only_single {
        batched_tables(&gpu, &args, &bar, &mut run)?;
    }

    bar.println(
        "\nBabyBear single transforms, Shoup lazy form, device-resident (2-D beyond 2^12: WSX two panel passes; block-sync 3 transposes + 2 launches), ms:\n",
    );
    bar.println(
        "| log2 N | WSX in place (+copy back) | WSX out of place | block-sync out of place |",
    );
    bar.println("|---|---|---|---|");
    for &log_n in &args.single {
        bar.0.set_message(format!("single babybear 2^{log_n}"));
        let x = random_field(SmallField::BabyBear, 1 << log_n, log_n as u64);
        let mut d = s.clone_htod(&x)?;
        let mut o = s.alloc_zeros::<u32>(x.len())?;
        let inplace = median_ms(&s, args.warmup, args.iters, || {
            bb.run(&mut d, log_n, Direction::Forward, Kernel::Wsx)
        })?;
        let oop = median_ms(&s, args.warmup, args.iters, || {
            bb.run_into(&mut d, &mut o, log_n, Direction::Forward, Kernel::Wsx)
        })?;
        let oop_b = median_ms(&s, args.warmup, args.iters, || {
            bb.run_into(&mut d, &mut o, log_n, Direction::Forward, Kernel::BlockSync)
        })?;
        bar.println(format!(
            "| {log_n} | {inplace:.4} | {oop:.4} | {oop_b:.4} |"
        ));
        bar.0.inc(1);
        run.single.push(SingleRow {
            log_n,
            wsx_in_place_ms: inplace,
            wsx_out_of_place_ms: oop,
            block_sync_out_of_place_ms: oop_b,
        });
    }

    if !args.no_streams {
        let log_n = 10;
        let n = (args.bytes / 4).min(1 << 26);
        bar.println(format!(
            "\nHost to host over CUDA streams: Q28 2^{log_n}, {} MiB, WSX Montgomery lazy; wall-clock medians:\n",
            n >> 18
        ));
        bar.println("| streams | pinned ms | pinned GB/s (in + out) | pageable (staged) ms |");
        bar.println("|---|---|---|---|");
        let ntt = SmallNtt::new(&gpu, SmallField::Q28, ModMulForm::MontgomeryLazy)?;
        let x = random_field(SmallField::Q28, n, 9);
        let mut pinned = PinnedBuffer::new(&gpu, n)?;
        let mut pageable = x.clone();
        let mut rows = Vec::new();
        for streams in STREAMS {
            bar.0
                .set_message(format!("host to host, {streams} streams"));
            let p = median_wall_ms(1, 5, || {
                ntt.run_pinned(&mut pinned, log_n, Direction::Forward, Kernel::Wsx, streams)
            })?;
            let h = median_wall_ms(1, 5, || {
                ntt.run_host(
                    &mut pageable,
                    log_n,
                    Direction::Forward,
                    Kernel::Wsx,
                    streams,
                )
            })?;
            let gbps = 8.0 * n as f64 / (p * 1e-3) / 1e9;
            bar.println(format!("| {streams} | {p:.2} | {gbps:.1} | {h:.2} |"));
            bar.0.inc(1);
            rows.push(StreamsRow {
                streams,
                pinned_ms: p,
                pinned_gbps: gbps,
                pageable_ms: h,
            });
        }
        run.streams = Some((log_n, n, rows));
    }
    drop(bar);
    let doc = small_ntt_json(&info.name, &crate::bench_matrix::now(), &run);
    crate::plot::save_outputs(&doc, args.json.as_deref(), args.plot.as_deref())
}
