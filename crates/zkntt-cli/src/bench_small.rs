//! `zkntt bench modmul` (the blog's modular-multiplication experiment) and `zkntt bench small-ntt`
//! (the WSX NTT against its block-synchronous baseline, batched throughput against the copy
//! bandwidth, the modmul forms inside the NTT, 2-D sizes, host-to-host over streams).
//! Device-resident times are CUDA-event medians after warm-up.

use ark_std::rand::{Rng, SeedableRng, rngs::StdRng};
use std::process::Command;
use zkntt_gpu::Gpu;
use zkntt_gpu::timing::{median_ms, median_wall_ms};
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
    #[command(flatten)]
    device: crate::args::DeviceArg,
}

pub fn modmul(args: ModmulArgs) -> Result<(), AnyError> {
    let gpu = args.device.open()?;
    println!("{}", gpu.info()?);
    println!(
        "modmul chains: {} elements, 16 chained multiplications each, 256 threads/block; median of {} after {} warm-up",
        args.n, args.iters, args.warmup
    );
    let mut rng = StdRng::seed_from_u64(2024);
    let mut results: Vec<(u32, ModMulForm, f64)> = Vec::new();
    for (bits, q) in BLOG_MODULI {
        let a: Vec<u32> = (0..args.n).map(|_| rng.gen_range(1..q)).collect();
        let b: Vec<u32> = (0..args.n).map(|_| rng.gen_range(1..q)).collect();
        let m = Modulus::new(q)?;
        let mut inputs = ChainInputs::new(&gpu, q, &a, &b)?;
        for form in ModMulForm::ALL {
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
            results.push((bits, form, ms));
        }
    }
    let get = |bits: u32, form: ModMulForm| {
        results
            .iter()
            .find(|r| r.0 == bits && r.1 == form)
            .map_or(f64::NAN, |r| r.2)
    };
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
        ncu_counts(&args)?;
    }
    Ok(())
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

fn ncu_counts(args: &ModmulArgs) -> Result<(), AnyError> {
    let Some(ncu) = find_ncu() else {
        println!("\n--ncu: ncu not found ($NCU, PATH, /usr/local/cuda/bin): no instruction counts");
        return Ok(());
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
        return Ok(());
    }
    println!(
        "\nExecuted instructions (ncu sm__inst_executed.sum, warp-level), {} elements:\n",
        args.n
    );
    println!("| bits | form | instructions | vs Montgomery |");
    println!("|---|---|---|---|");
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
            }
        }
    }
    Ok(())
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
    #[command(flatten)]
    device: crate::args::DeviceArg,
}

fn random_field(field: SmallField, n: usize, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(0..field.modulus())).collect()
}

/// The batched tables: WSX against the baseline and the copy bandwidth, the ablations, the forms.
fn batched_tables(gpu: &Gpu, args: &SmallNttArgs) -> Result<(), AnyError> {
    let gpu = gpu.clone();
    let s = gpu.stream().clone();
    let elems = args.bytes / 4;

    // The copy bandwidth, read + write, measured now.
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
    println!(
        "device-to-device copy of {} MiB: {copy_ms:.3} ms = {:.0} GB/s (read + write)",
        args.bytes >> 20,
        copy_bw / 1e9
    );

    let host = random_field(SmallField::Q28, elems, 1);
    let mut data = s.clone_htod(&host)?;
    let time = |ntt: &SmallNtt, data: &mut _, log_n: u32, kernel: Kernel| {
        median_ms(&s, args.warmup, args.iters, || {
            ntt.run(data, log_n, Direction::Forward, kernel)
        })
    };

    println!(
        "\nWSX vs block-synchronous baseline: forward NTTs filling {} MiB, Montgomery lazy form; same threads, tile and twiddles:\n",
        args.bytes >> 20
    );
    println!(
        "| field | log2 N | batch | block-sync ms | WSX ms | WSX speed-up | WSX G elem/s | WSX % of copy BW | ablation: v1 shuffles ms | WSX Shoup lazy ms | Shoup lazy G elem/s | Shoup lazy % of copy BW |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for field in SmallField::ALL {
        let ntt = SmallNtt::new(&gpu, field, ModMulForm::MontgomeryLazy)?;
        let shoup = SmallNtt::new(&gpu, field, ModMulForm::ShoupLazy)?;
        let sizes: &[u32] = if field == SmallField::Q28 {
            &[6, 7, 8, 9, 10, 11, 12]
        } else {
            &[10, 11, 12]
        };
        for &log_n in sizes {
            let block = time(&ntt, &mut data, log_n, Kernel::BlockSync)?;
            let wsx = time(&ntt, &mut data, log_n, Kernel::Wsx)?;
            let half = time(&ntt, &mut data, log_n, Kernel::WsxHalf)?;
            let sh = time(&shoup, &mut data, log_n, Kernel::Wsx)?;
            let rate = |ms: f64| elems as f64 / (ms * 1e-3);
            let frac = |ms: f64| 100.0 * 8.0 * rate(ms) / copy_bw;
            println!(
                "| {} | {log_n} | {} | {block:.3} | {wsx:.3} | {:.2}x | {:.1} | {:.1}% | {half:.3} | {sh:.3} | {:.1} | {:.1}% |",
                field.name(),
                elems >> log_n,
                block / wsx,
                rate(wsx) / 1e9,
                frac(wsx),
                rate(sh) / 1e9,
                frac(sh)
            );
        }
    }

    println!(
        "\nModmul forms inside the WSX NTT (Q28, forward, {} MiB batch), ms:\n",
        args.bytes >> 20
    );
    println!("| form | 2^10 | 2^12 | 2^12 block-sync |");
    println!("|---|---|---|---|");
    for form in ModMulForm::ALL {
        let ntt = SmallNtt::new(&gpu, SmallField::Q28, form)?;
        let a = time(&ntt, &mut data, 10, Kernel::Wsx)?;
        let b = time(&ntt, &mut data, 12, Kernel::Wsx)?;
        let c = time(&ntt, &mut data, 12, Kernel::BlockSync)?;
        println!("| {} | {a:.3} | {b:.3} | {c:.3} |", form.label());
    }
    drop(data);
    Ok(())
}

pub fn small_ntt(args: SmallNttArgs) -> Result<(), AnyError> {
    let max = SmallField::BabyBear.max_log_n();
    if let Some(k) = args.single.iter().find(|&&k| k > max) {
        return Err(format!("--single {k}: the BabyBear NTT goes up to 2^{max}").into());
    }
    let gpu = args.device.open()?;
    println!("{}", gpu.info()?);
    let s = gpu.stream().clone();
    if !args.only_single {
        batched_tables(&gpu, &args)?;
    }

    println!(
        "\nBabyBear single transforms, Shoup lazy form, device-resident (2-D beyond 2^12: 3 transposes + 2 launches), ms:\n"
    );
    println!("| log2 N | WSX in place (+copy back) | WSX out of place | block-sync out of place |");
    println!("|---|---|---|---|");
    // The fastest form inside the WSX NTT on the H100 (benches/NOTES.md).
    let bb = SmallNtt::new(&gpu, SmallField::BabyBear, ModMulForm::ShoupLazy)?;
    for &log_n in &args.single {
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
        println!("| {log_n} | {inplace:.4} | {oop:.4} | {oop_b:.4} |");
    }

    if !args.no_streams {
        let log_n = 10;
        let n = (args.bytes / 4).min(1 << 26);
        println!(
            "\nHost to host over CUDA streams: Q28 2^{log_n}, {} MiB, WSX Montgomery lazy; wall-clock medians:\n",
            n >> 18
        );
        println!("| streams | pinned ms | pinned GB/s (in + out) | pageable (staged) ms |");
        println!("|---|---|---|---|");
        let ntt = SmallNtt::new(&gpu, SmallField::Q28, ModMulForm::MontgomeryLazy)?;
        let x = random_field(SmallField::Q28, n, 9);
        let mut pinned = PinnedBuffer::new(&gpu, n)?;
        let mut pageable = x.clone();
        for streams in [1usize, 2, 4, 8] {
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
            println!(
                "| {streams} | {p:.2} | {:.1} | {h:.2} |",
                8.0 * n as f64 / (p * 1e-3) / 1e9
            );
        }
    }
    Ok(())
}
