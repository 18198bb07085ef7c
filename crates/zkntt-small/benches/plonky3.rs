//! `coset_lde_batch` (and, for BabyBear, `dft_batch`) host matrix in and out: zkntt's `GpuDft`
//! beside Plonky3's `Radix2DitParallel` on all cores, with the PCIe floor (the input up and the
//! output down, one after the other, no compute) beside them. Wall clock, medians; each call gets
//! its own copy of the input (the API takes the matrix by value), made outside the clock, and the
//! copy's time is a column of its own. Under each row, where the GPU call's time went
//! (`GpuDft::last_profile`). One table.
//!
//! The PCIe floor takes this machine's pinned copy rates, measured first (one copy of the result's
//! size each way, best of three).
//!
//! `cargo bench -p zkntt-small --bench plonky3`; ZKNTT_P3_LOG_H (default 20), ZKNTT_P3_WIDTH
//! (256), ZKNTT_P3_ADDED_BITS (1), ZKNTT_P3_REPS (5) pick the case. ZKNTT_P3_CPU_REPS (default:
//! the same as ZKNTT_P3_REPS) times Radix2DitParallel; 0 runs it once, untimed, for the check
//! only (its columns n/a): a process then takes seconds instead of minutes, so that two builds'
//! GPU paths can be compared over several processes each, alternating (a host's speed differs
//! between processes; benches/NOTES.md).

use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_matrix::Matrix;
use p3_matrix::bitrev::BitReversibleMatrix;
use p3_matrix::dense::RowMajorMatrix;
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::time::Instant;
use zkntt_small::plonky3::{BabyBear, GpuDft, GpuField, KoalaBear};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(|a, b| a.total_cmp(b));
    t[t.len() / 2]
}

/// Milliseconds of `f` on a fresh `input()` each time (made before the clock starts), median of
/// `reps` after one warm-up, and the last result.
fn time<I, T>(reps: usize, input: impl Fn() -> I, mut f: impl FnMut(I) -> T) -> (f64, T) {
    let mut out = f(input());
    let mut t = Vec::new();
    for _ in 0..reps {
        let x = input();
        let start = Instant::now();
        let r = f(x);
        t.push(start.elapsed().as_secs_f64() * 1e3);
        out = r; // the previous result is freed here, outside the clock
    }
    (median(t), out)
}

/// One row: `coset_lde_batch` with `added_bits`, or `dft_batch` (`None`: a result the input's
/// size, which the GPU path writes over the input alone).
fn case<F: GpuField>(
    log_h: usize,
    w: usize,
    added_bits: Option<usize>,
    reps: usize,
    cpu_reps: usize,
    pcie: Option<(f64, f64)>,
) {
    let mut rng = StdRng::seed_from_u64(1);
    let q = F::FIELD.modulus();
    let values: Vec<F> = (0..w << log_h)
        .map(|_| F::from_u32(rng.gen_range(0..q)))
        .collect();
    let m = RowMajorMatrix::new(values, w);
    let shift = F::GENERATOR;
    let gpu = GpuDft::<F>::new();
    let cpu = Radix2DitParallel::<F>::default();
    // The API takes the matrix by value: each call gets its own copy, made outside the clock.
    // Each side's call returns its `Evaluations` (on both sides a bit-reversed view over rows
    // stored in bit-reversed order), compared as stored, outside the clock. Then the same calls
    // as Plonky3's PCS takes them (`.bit_reverse_rows().to_row_major_matrix()`: the stored
    // matrix, moved out of the view), inside the clock.
    let call_gpu = |x| match added_bits {
        Some(bits) => gpu.coset_lde_batch(x, bits, shift),
        None => gpu.dft_batch(x),
    };
    let call_cpu = |x| match added_bits {
        Some(bits) => cpu.coset_lde_batch(x, bits, shift),
        None => cpu.dft_batch(x),
    };
    let (t_gpu, got) = time(reps, || m.clone(), call_gpu);
    let on_gpu = gpu.last_ran_on_gpu() == Some(true);
    let profile = gpu.last_profile();
    // Radix2DitParallel untimed (NaN) when cpu_reps is 0: one call, for the check.
    let (t_cpu, want) = match cpu_reps {
        0 => (f64::NAN, call_cpu(m.clone())),
        r => time(r, || m.clone(), call_cpu),
    };
    let want = want.bit_reverse_rows();
    let same = got.bit_reverse_rows().values == want.values;
    let (p_gpu, got) = time(
        reps,
        || m.clone(),
        |x| call_gpu(x).bit_reverse_rows().to_row_major_matrix(),
    );
    let (p_cpu, want) = match cpu_reps {
        0 => (f64::NAN, want.to_row_major_matrix()),
        r => time(
            r,
            || m.clone(),
            |x| call_cpu(x).bit_reverse_rows().to_row_major_matrix(),
        ),
    };
    let same = same && got.values == want.values;
    let bits = added_bits.unwrap_or(0);
    let floor = pcie_floor_ms(w << log_h, w << (log_h + bits), pcie);
    let clone = time(reps, || (), |()| m.clone()).0;
    // Radix2DitParallel's columns are n/a where it was not timed.
    let na = |v: f64, digits: usize| {
        if v.is_nan() {
            "n/a".to_string()
        } else {
            format!("{v:.digits$}")
        }
    };
    println!(
        "{:<10} {:<18} | {:>10} | {:>9.1} {} | {:>6} | {:>10} | {:>9.1} | {:>6} | {:>10} | {:>10} | {:>6.1} | {}",
        format!("{:?}", F::FIELD),
        match added_bits {
            Some(bits) => format!("2^{log_h} x {w} +{bits}"),
            None => format!("2^{log_h} x {w} dft"),
        },
        na(t_cpu, 1),
        t_gpu,
        if on_gpu { "GPU" } else { "CPU" },
        na(t_cpu / t_gpu, 2),
        na(p_cpu, 1),
        p_gpu,
        na(p_cpu / p_gpu, 2),
        na((p_cpu + clone) / (p_gpu + clone), 2),
        format!("{floor:.1}"),
        clone,
        if same { "bit-exact" } else { "DIFFERENT" },
    );
    match profile {
        Some(p) if on_gpu => println!(
            "  GpuDft's last call: input in pinned memory and queued {:.1} ms, first result chunk back {:.1} ms, all back {:.1} ms, result in the vector {:.1} ms ({:.0} MiB up, {:.0} MiB down)",
            p.staged_in.as_secs_f64() * 1e3,
            p.first_out.as_secs_f64() * 1e3,
            p.all_out.as_secs_f64() * 1e3,
            p.total.as_secs_f64() * 1e3,
            p.bytes_in as f64 / (1 << 20) as f64,
            p.bytes_out as f64 / (1 << 20) as f64,
        ),
        _ => println!("  GpuDft ran on the CPU: {:?}", gpu.last_fallback()),
    }
    assert!(same, "GpuDft and Radix2DitParallel differ");
}

/// PCIe bandwidth each way where it was not measured (benches/NOTES.md: the H100 host).
const PCIE_BYTES_PER_S: f64 = 52e9;

/// `up` words host to device, then `down` words back, at the measured rates (bytes/s up, down)
/// or else at [`PCIE_BYTES_PER_S`].
fn pcie_floor_ms(up: usize, down: usize, pcie: Option<(f64, f64)>) -> f64 {
    let (r_up, r_down) = pcie.unwrap_or((PCIE_BYTES_PER_S, PCIE_BYTES_PER_S));
    (up as f64 * 4.0 / r_up + down as f64 * 4.0 / r_down) * 1e3
}

/// This machine's PCIe rates (bytes/s up, down): `words` words between pinned memory and the
/// device, one copy each way at a time, the best of three. None without a GPU.
fn measure_pcie(words: usize) -> Option<(f64, f64)> {
    use cudarc::driver::sys;
    let gpu = zkntt_gpu::Gpu::new(0).ok()?;
    let s = gpu.stream();
    let mut host = zkntt_small::PinnedBuffer::new(&gpu, words).ok()?;
    let dev = s.alloc_zeros::<u32>(words).ok()?;
    let (d, _g) = cudarc::driver::DevicePtr::device_ptr(&dev, s);
    let bytes = words * 4;
    let mut best = (0.0f64, 0.0f64);
    for _ in 0..3 {
        let t = Instant::now();
        // SAFETY: both buffers hold `words` words; the stream is synchronized before either is
        // touched again.
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(d, host.as_slice().as_ptr().cast(), bytes, s.cu_stream())
        }
        .result()
        .ok()?;
        s.synchronize().ok()?;
        best.0 = best.0.max(bytes as f64 / t.elapsed().as_secs_f64());
        let t = Instant::now();
        // SAFETY: as above.
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                host.as_mut_slice().as_mut_ptr().cast(),
                d,
                bytes,
                s.cu_stream(),
            )
        }
        .result()
        .ok()?;
        s.synchronize().ok()?;
        best.1 = best.1.max(bytes as f64 / t.elapsed().as_secs_f64());
    }
    Some(best)
}

fn main() {
    let log_h = env("ZKNTT_P3_LOG_H", 20);
    let w = env("ZKNTT_P3_WIDTH", 256);
    let added_bits = env("ZKNTT_P3_ADDED_BITS", 1);
    let reps = env("ZKNTT_P3_REPS", 5).max(1);
    let cpu_reps = env("ZKNTT_P3_CPU_REPS", reps);
    // The larger of the two transfers (the result), one copy each way.
    let pcie = measure_pcie(w << (log_h + added_bits));
    let floor = match pcie {
        Some((up, down)) => format!(
            "PCIe floor = in and out one after the other at this machine's pinned rates ({:.1} GB/s up, {:.1} GB/s down, best of three copies of the result's size)",
            up / 1e9,
            down / 1e9
        ),
        None => "PCIe floor = in and out at 52 GB/s (no GPU to measure)".into(),
    };
    println!(
        "coset_lde_batch (+ added bits) and dft_batch, host RowMajorMatrix in and out, wall clock ms (median of {reps}); \
         Radix2DitParallel on {} threads; each call on its own copy of the input, made outside the clock; \
         Radix2DitP / GpuDft: the calls alone (each returns its Evaluations: rows stored in bit-reversed order \
         behind a natural-order view, on both sides); PCS: the calls as Plonky3's PCS takes them, .bit_reverse_rows().to_row_major_matrix() inside the \
         clock; PCS, clone: that ratio with the input's clone added to both (a caller who keeps the matrix); \
         {floor}{}:",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        if cpu_reps == 0 {
            "; Radix2DitParallel not timed (ZKNTT_P3_CPU_REPS=0): run once for the check"
        } else {
            ""
        }
    );
    println!(
        "field      case               | Radix2DitP | GpuDft        | ratio  | PCS: R2DitP | PCS: GpuDft | ratio  | PCS, clone | PCIe floor | clone  | check"
    );
    case::<BabyBear>(log_h, w, Some(added_bits), reps, cpu_reps, pcie);
    case::<KoalaBear>(log_h, w, Some(added_bits), reps, cpu_reps, pcie);
    case::<BabyBear>(log_h, w, None, reps, cpu_reps, pcie);
}
