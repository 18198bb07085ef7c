//! `zkntt bench ntt --matrix`: zkntt's engine beside sppark in one process, every size x
//! {forward, inverse, coset forward, coset inverse} x {NN, NR, RN}, device-resident, medians of
//! per-transform CUDA-event times on the same data; each cell's ratio sppark / zkntt and, per row,
//! zkntt NN against sppark's fastest order. sppark is compiled in with the `sppark` feature.
//!
//! Both sides compute the same function: the coset offset is BN254 Fr's multiplicative generator 5,
//! which is sppark's `group_gen` (forward coset: inputs scaled by 5^i, then the NTT; inverse
//! coset: the inverse NTT, then outputs scaled by 5^-i), and each cell checks it: zkntt and sppark
//! each apply the transform reps + 1 times to the same input and the results must be equal.
//! zkntt's own results are checked once per size and case: forward and coset forward NN at one
//! point against a direct evaluation on the host, the other orders against NN bit-reversed, and
//! each inverse against the forward's input.

use crate::AnyError;
use ark_bn254::Fr;
use ark_ff::{FftField, Field, UniformRand};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::path::Path;
use zkntt_core::reference::{bit_reverse_permute, root_of_unity};
use zkntt_gpu::timing::{median, medians};
use zkntt_gpu::{DeviceVec, Gpu, NttConfig, NttEngine, Ordering};

/// How to build the `zkntt` binary with sppark in it (nvcc on PATH, as for the benches).
pub const SPPARK_BUILD: &str = "ZKNTT_SPPARK=1 cargo build --release -p zkntt-cli --features sppark (needs nvcc on PATH; make gpu-build does it)";

pub const ORDERS: [Ordering; 3] = [Ordering::NN, Ordering::NR, Ordering::RN];

/// The four transforms of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    Forward,
    Inverse,
    CosetForward,
    CosetInverse,
}

impl Case {
    pub const ALL: [Case; 4] = [
        Case::Forward,
        Case::Inverse,
        Case::CosetForward,
        Case::CosetInverse,
    ];

    pub fn inverse(self) -> bool {
        matches!(self, Case::Inverse | Case::CosetInverse)
    }

    pub fn coset(self) -> bool {
        matches!(self, Case::CosetForward | Case::CosetInverse)
    }

    pub fn label(self) -> &'static str {
        match self {
            Case::Forward => "forward",
            Case::Inverse => "inverse",
            Case::CosetForward => "coset forward",
            Case::CosetInverse => "coset inverse",
        }
    }

    fn config(self, ordering: Ordering) -> NttConfig<Fr> {
        let cfg = if self.inverse() {
            NttConfig::inverse()
        } else {
            NttConfig::forward()
        };
        let cfg = cfg.with_ordering(ordering);
        if self.coset() {
            cfg.with_coset(coset_offset())
        } else {
            cfg
        }
    }
}

/// sppark's coset generator for BN254 (`group_gen` in its parameters/alt_bn128.h is 5 in
/// Montgomery form), which is also ark's `Fr::GENERATOR`.
pub fn coset_offset() -> Fr {
    Fr::GENERATOR
}

pub fn order_name(o: Ordering) -> &'static str {
    match o {
        Ordering::NN => "NN",
        Ordering::NR => "NR",
        Ordering::RN => "RN",
    }
}

/// One cell: a size, a case, an order, zkntt's median and sppark's (None when not measured).
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub log_n: u32,
    pub case: Case,
    pub order: Ordering,
    pub zkntt_ms: f64,
    pub sppark_ms: Option<f64>,
    /// Median host milliseconds to queue one transform (the call alone, wall clock): zkntt's
    /// and sppark's (None when not measured). Near the cell's time, the cell measures launches,
    /// not kernels.
    pub zkntt_host_ms: Option<f64>,
    pub sppark_host_ms: Option<f64>,
    /// zkntt's output was what it should be (see the module doc).
    pub verified: bool,
    /// zkntt and sppark gave the same result from the same input; None without sppark.
    pub same_as_sppark: Option<bool>,
}

/// sppark / zkntt: above 1 means zkntt is faster.
pub fn ratio(sppark_ms: Option<f64>, zkntt_ms: f64) -> Option<f64> {
    sppark_ms
        .filter(|s| s.is_finite() && zkntt_ms > 0.0)
        .map(|s| s / zkntt_ms)
}

/// sppark's fastest order among a row's cells, with its milliseconds.
pub fn best_sppark(row: &[Cell]) -> Option<(Ordering, f64)> {
    row.iter()
        .filter_map(|c| c.sppark_ms.map(|s| (c.order, s)))
        .filter(|(_, s)| s.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn fmt_ms(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |v| format!("{v:.3}"))
}

fn fmt_ratio(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |v| format!("{v:.2}"))
}

pub fn table_header() -> String {
    table_header_with(&[], "")
}

/// The header with `extra` columns after the transform's and `note` after each ratio's name
/// (the merged matrix's: "processes", " (per process)").
pub fn table_header_with(extra: &[&str], note: &str) -> String {
    let mut h = "| log2 N | transform |".to_string();
    let mut rule = "|---|---|".to_string();
    for e in extra {
        h += &format!(" {e} |");
        rule += "---|";
    }
    for o in ORDERS {
        let o = order_name(o);
        h += &format!(" zkntt {o} ms | sppark {o} ms | ratio {o}{note} |");
        rule += "---|---|---|";
    }
    h += &format!(" zkntt NN vs sppark best order{note} |");
    rule += "---|";
    format!("{h}\n{rule}")
}

/// One row of the table: a size and a case, its three orders (in `ORDERS` order).
pub fn table_row(row: &[Cell]) -> String {
    let first = &row[0];
    let mut line = format!("| {} | {} |", first.log_n, first.case.label());
    for c in row {
        let wrong = if !c.verified {
            " WRONG"
        } else if c.same_as_sppark == Some(false) {
            " (results differ)"
        } else {
            ""
        };
        line += &format!(
            " {:.3}{wrong} | {} | {} |",
            c.zkntt_ms,
            fmt_ms(c.sppark_ms),
            fmt_ratio(ratio(c.sppark_ms, c.zkntt_ms))
        );
    }
    let nn = row.iter().find(|c| c.order == Ordering::NN);
    line += &match (best_sppark(row), nn) {
        (Some((o, s)), Some(nn)) => format!(
            " {} (sppark {} {s:.3} ms) |",
            fmt_ratio(ratio(Some(s), nn.zkntt_ms)),
            order_name(o)
        ),
        _ => " n/a |".into(),
    };
    line
}

/// The `--json` document: every cell, each row's best-order comparison, skipped sizes.
#[allow(clippy::too_many_arguments)]
pub fn to_json(
    gpu: &str,
    timestamp: &str,
    reps: u32,
    sppark: &str,
    full_twiddles_max_log: u32,
    rows: &[Vec<Cell>],
    skipped: &[(u32, String)],
) -> Value {
    let cells: Vec<Value> = rows
        .iter()
        .flatten()
        .map(|c| {
            json!({
                "log_n": c.log_n,
                "size": 1u64 << c.log_n,
                "direction": if c.case.inverse() { "inverse" } else { "forward" },
                "coset": c.case.coset(),
                "order": order_name(c.order),
                "zkntt_ms": c.zkntt_ms,
                "sppark_ms": c.sppark_ms,
                "ratio": ratio(c.sppark_ms, c.zkntt_ms),
                "zkntt_host_ms": c.zkntt_host_ms,
                "sppark_host_ms": c.sppark_host_ms,
                "verified": c.verified,
                "same_result_as_sppark": c.same_as_sppark,
            })
        })
        .collect();
    let best: Vec<Value> = rows
        .iter()
        .filter_map(|row| {
            let nn = row.iter().find(|c| c.order == Ordering::NN)?;
            let best = best_sppark(row);
            Some(json!({
                "log_n": nn.log_n,
                "direction": if nn.case.inverse() { "inverse" } else { "forward" },
                "coset": nn.case.coset(),
                "zkntt_nn_ms": nn.zkntt_ms,
                "sppark_best_order": best.map(|b| order_name(b.0)),
                "sppark_best_ms": best.map(|b| b.1),
                "ratio": ratio(best.map(|b| b.1), nn.zkntt_ms),
            }))
        })
        .collect();
    json!({
        "kind": "matrix",
        "gpu": gpu,
        "timestamp": timestamp,
        "field": "bn254_fr",
        "reps": reps,
        "timing": "device-resident, median of per-transform CUDA-event times; *_host_ms: median wall clock of the call that queues a transform",
        "coset_offset": 5,
        "ratio": "sppark_ms / zkntt_ms (above 1: zkntt faster)",
        "sppark": sppark,
        "full_twiddles_max_log": full_twiddles_max_log,
        "cells": cells,
        "zkntt_nn_vs_sppark_best": best,
        "skipped": skipped.iter().map(|(k, why)| json!({"log_n": k, "reason": why})).collect::<Vec<_>>(),
    })
}

/// `secs` since the Unix epoch as RFC 3339 UTC (days to civil date: Howard Hinnant's algorithm).
pub fn rfc3339(secs: u64) -> String {
    let (days, rem) = ((secs / 86400) as i64, secs % 86400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Device bytes a size needs: the data, room for zkntt's and sppark's twiddles (at most half the
/// data), and a margin.
pub fn bytes_needed(log_n: u32) -> usize {
    let data = 32usize << log_n;
    data + data / 2 + (256 << 20)
}

/// Why sppark has no numbers.
#[derive(Debug)]
enum SpparkError {
    /// Not in this binary (feature off, or the bridge built without ZKNTT_SPPARK=1).
    Absent(String),
    /// sppark returned a CUDA error code.
    #[cfg_attr(not(feature = "sppark"), allow(dead_code))]
    Cuda(i32),
}

/// sppark's per-transform milliseconds for `reps` runs after a warm-up, in place on `d`: by events,
/// and the host's to queue each run.
#[cfg(feature = "sppark")]
fn sppark_ms(
    gpu: &Gpu,
    d: &DeviceVec<Fr>,
    log_n: u32,
    case: Case,
    order: Ordering,
    reps: usize,
) -> Result<(Vec<f32>, Vec<f32>), AnyError> {
    use zkntt_sppark::{Order, bn254::ntt_device};
    let order = match order {
        Ordering::NN => Order::NN,
        Ordering::NR => Order::NR,
        Ordering::RN => Order::RN,
    };
    // sppark queues on its own stream: our writes to `d` must be complete.
    gpu.synchronize()?;
    let ptr = d.device_ptr(gpu)?;
    // SAFETY: `d` holds 2^log_n BN254 elements in the primary context, which sppark also uses,
    // and outlives the call (which waits for its last transform).
    match unsafe { ntt_device(ptr, log_n, order, case.inverse(), case.coset(), reps) } {
        Ok(runs) => Ok((runs.ms, runs.host_ms)),
        Err(-1) => Err(Box::new(SpparkError::Absent(format!(
            "the sppark bridge in this binary was built without ZKNTT_SPPARK=1; build with: {SPPARK_BUILD}"
        )))),
        Err(code) => Err(Box::new(SpparkError::Cuda(code))),
    }
}

#[cfg(not(feature = "sppark"))]
fn sppark_ms(
    _: &Gpu,
    _: &DeviceVec<Fr>,
    _: u32,
    _: Case,
    _: Ordering,
    _: usize,
) -> Result<(Vec<f32>, Vec<f32>), AnyError> {
    Err(Box::new(SpparkError::Absent(format!(
        "this zkntt was built without the `sppark` feature; build with: {SPPARK_BUILD}"
    ))))
}

impl std::fmt::Display for SpparkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpparkError::Absent(why) => write!(f, "sppark is not built in: {why}"),
            SpparkError::Cuda(code) => write!(f, "sppark failed with CUDA error {code}"),
        }
    }
}

impl std::error::Error for SpparkError {}

/// `sum_j x[j] * p^j` on all cores: one output of an NTT, evaluated directly.
fn evaluate(x: &[Fr], p: Fr) -> Fr {
    const CHUNK: usize = 1 << 14;
    x.par_chunks(CHUNK)
        .enumerate()
        .map(|(c, xs)| {
            let mut pw = p.pow([(c * CHUNK) as u64]);
            let mut acc = Fr::from(0u64);
            for v in xs {
                acc += *v * pw;
                pw *= p;
            }
            acc
        })
        .sum()
}

fn reversed(v: &[Fr]) -> Vec<Fr> {
    let mut r = v.to_vec();
    bit_reverse_permute(&mut r);
    r
}

/// The first index where `got` and `want` differ and how many differ.
fn first_difference(got: &[Fr], want: &[Fr]) -> Option<(usize, usize)> {
    let bad = got.par_iter().zip(want).filter(|(g, w)| g != w).count();
    (bad > 0).then(|| {
        (
            got.iter().zip(want).position(|(g, w)| g != w).unwrap_or(0),
            bad,
        )
    })
}

pub struct MatrixOptions<'a> {
    pub from: u32,
    pub to: u32,
    pub reps: u32,
    pub json: Option<&'a Path>,
    pub plot: Option<&'a Path>,
    /// The engine's `set_full_twiddles_max_log`, where given.
    pub full_twiddles_max_log: Option<u32>,
    pub device: crate::args::DeviceArg,
}

/// Now as RFC 3339 UTC.
pub fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

pub fn matrix(opts: MatrixOptions) -> Result<(), AnyError> {
    let gpu = opts
        .device
        .open()
        .map_err(|e| format!("zkntt bench ntt --matrix needs a GPU: {e}"))?;
    let info = gpu.info()?;
    let engine = NttEngine::new(gpu.clone());
    if let Some(log) = opts.full_twiddles_max_log {
        engine.set_full_twiddles_max_log(log);
    }
    let reps = opts.reps as usize;
    println!("zkntt bench ntt --matrix: BN254 Fr on {info}");
    println!(
        "device-resident, same data for both, median of {reps} per-transform CUDA-event times (ms); ratio = sppark / zkntt (above 1: zkntt faster); coset offset 5 (sppark's group_gen) on both; zkntt's stage twiddles kept whole up to 2^{}\n",
        engine.full_twiddles_max_log()
    );
    let mut sppark_state: Result<(), String> = Ok(());
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut skipped: Vec<(u32, String)> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut header_printed = false;
    let mut rng = StdRng::seed_from_u64(11);
    let sizes = u64::from(opts.to - opts.from + 1);
    let bar = crate::progress::bar(sizes * (Case::ALL.len() * ORDERS.len()) as u64, "cells");
    for log_n in opts.from..=opts.to {
        bar.0.set_message(format!("2^{log_n}"));
        let n = 1usize << log_n;
        let (free, _) = gpu.memory()?;
        let need = bytes_needed(log_n);
        if need > free {
            let why = format!(
                "needs about {} MiB of device memory, {} MiB free",
                need >> 20,
                free >> 20
            );
            tracing::warn!(target: "zkntt::bench", "2^{log_n}: skipped ({why})");
            skipped.push((log_n, why));
            bar.0.inc((Case::ALL.len() * ORDERS.len()) as u64);
            continue;
        }
        tracing::info!(
            target: "zkntt::bench",
            "2^{log_n}: 4 transforms x 3 orders{} ...",
            if sppark_state.is_ok() {
                ", zkntt and sppark"
            } else {
                ", zkntt only"
            }
        );
        let started = std::time::Instant::now();
        let x: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let mut d = DeviceVec::<Fr>::zeros(&gpu, n)?;
        // Natural-order outputs of forward and coset forward NN (the inverses' inputs).
        let mut outputs: [Option<Vec<Fr>>; 2] = [None, None];
        for case in Case::ALL {
            let mut row = Vec::with_capacity(3);
            for order in ORDERS {
                let slot = usize::from(case.coset());
                let (input_nat, want_nat): (&[Fr], Option<&[Fr]>) = if case.inverse() {
                    let y = outputs[slot].as_deref().ok_or("forward NN missing")?;
                    (y, Some(&x))
                } else {
                    (&x, outputs[slot].as_deref())
                };
                let input = if order.input_reversed() {
                    reversed(input_nat)
                } else {
                    input_nat.to_vec()
                };
                let cfg = case.config(order);
                // The checked call, which is also the warm-up (twiddles, module).
                d.copy_from_host(&gpu, &input)?;
                engine.ntt_in_place(&mut d, &cfg)?;
                let out = d.to_host(&gpu)?;
                let mut verified = true;
                let mut fail = |what: String| {
                    tracing::error!(
                        target: "zkntt::bench",
                        "MISMATCH 2^{log_n} {} {}: {what}",
                        case.label(),
                        order_name(order)
                    );
                    failures.push(format!(
                        "2^{log_n} {} {}: {what}",
                        case.label(),
                        order_name(order)
                    ));
                };
                match want_nat {
                    Some(want_nat) => {
                        let want = if order.output_reversed() {
                            reversed(want_nat)
                        } else {
                            want_nat.to_vec()
                        };
                        if let Some((i, bad)) = first_difference(&out, &want) {
                            verified = false;
                            let against = if case.inverse() {
                                "the forward's input"
                            } else {
                                "NN's output in this order"
                            };
                            fail(format!(
                                "zkntt differs from {against} at element {i} ({bad} of {n} elements)"
                            ));
                        }
                    }
                    None => {
                        // Forward NN: one output evaluated on the host.
                        let k = n / 3 + 1;
                        let w: Fr = root_of_unity(log_n);
                        let offset = if case.coset() {
                            coset_offset()
                        } else {
                            Fr::from(1u64)
                        };
                        let k = k % n;
                        if evaluate(&x, offset * w.pow([k as u64])) != out[k] {
                            verified = false;
                            fail(format!(
                                "zkntt output {k} differs from the direct evaluation sum_j x_j (g w^{k})^j"
                            ));
                        }
                        outputs[slot] = Some(out.clone());
                    }
                }
                drop(out);
                // Timed: reps more transforms on the evolving data, so the buffer ends at the
                // transform applied reps + 1 times to `input`, which sppark must reproduce.
                let zkntt = medians(gpu.stream(), 0, reps, || engine.ntt_in_place(&mut d, &cfg))?;
                let mut sppark = None;
                let mut sppark_host = None;
                let mut same_as_sppark = None;
                if sppark_state.is_ok() {
                    let z_final = d.to_host(&gpu)?;
                    d.copy_from_host(&gpu, &input)?;
                    match sppark_ms(&gpu, &d, log_n, case, order, reps) {
                        Ok((ms, host_ms)) => {
                            let med = |v: Vec<f32>| {
                                median(&mut v.into_iter().map(f64::from).collect::<Vec<_>>())
                            };
                            sppark = Some(med(ms));
                            sppark_host = Some(med(host_ms));
                            let s_final = d.to_host(&gpu)?;
                            let same = s_final == z_final;
                            same_as_sppark = Some(same);
                            if !same {
                                fail(format!(
                                    "zkntt and sppark differ after {} transforms of the same input: the cells do not compare like with like",
                                    reps + 1
                                ));
                            }
                        }
                        Err(e) => {
                            match e.downcast_ref::<SpparkError>() {
                                Some(SpparkError::Absent(why)) => {
                                    bar.0.suspend(|| {
                                    println!("sppark is not built in, so its columns are n/a: {why}\n")
                                });
                                    sppark_state = Err(why.clone());
                                }
                                _ => {
                                    tracing::error!(target: "zkntt::bench", "2^{log_n} {} {}: {e}", case.label(), order_name(order));
                                    failures.push(format!(
                                        "2^{log_n} {} {}: {e}",
                                        case.label(),
                                        order_name(order)
                                    ));
                                }
                            }
                        }
                    }
                }
                row.push(Cell {
                    log_n,
                    case,
                    order,
                    zkntt_ms: zkntt.ms,
                    sppark_ms: sppark,
                    zkntt_host_ms: Some(zkntt.host_ms),
                    sppark_host_ms: sppark_host,
                    verified,
                    same_as_sppark,
                });
                bar.0.inc(1);
            }
            bar.0.suspend(|| {
                if !header_printed {
                    println!("{}", table_header());
                    header_printed = true;
                }
                println!("{}", table_row(&row));
            });
            rows.push(row);
        }
        tracing::info!(
            target: "zkntt::bench",
            "2^{log_n}: done in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    drop(bar);
    if !skipped.is_empty() {
        println!();
        for (k, why) in &skipped {
            println!("2^{k}: skipped, {why}");
        }
    }
    let sppark_note = match &sppark_state {
        Ok(()) => "built in".to_string(),
        Err(why) => format!("not built in: {why}"),
    };
    if opts.json.is_some() || opts.plot.is_some() {
        let doc = to_json(
            &info.name,
            &now(),
            opts.reps,
            &sppark_note,
            engine.full_twiddles_max_log(),
            &rows,
            &skipped,
        );
        crate::plot::save_outputs(&doc, opts.json, opts.plot)?;
    }
    if !failures.is_empty() {
        return Err(format!(
            "{} check(s) failed:\n  {}",
            failures.len(),
            failures.join("\n  ")
        )
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(order: Ordering, z: f64, s: Option<f64>) -> Cell {
        Cell {
            log_n: 20,
            case: Case::CosetForward,
            order,
            zkntt_ms: z,
            sppark_ms: s,
            zkntt_host_ms: None,
            sppark_host_ms: None,
            verified: true,
            same_as_sppark: s.map(|_| true),
        }
    }

    #[test]
    fn coset_offset_is_sppark_group_gen() {
        // sppark's alt_bn128 group_gen, Montgomery form: 5 * 2^256 mod r.
        assert_eq!(coset_offset(), Fr::from(5u64));
    }

    #[test]
    fn ratio_is_sppark_over_zkntt() {
        assert_eq!(ratio(Some(3.0), 2.0), Some(1.5));
        assert_eq!(ratio(None, 2.0), None);
        assert_eq!(ratio(Some(f64::NAN), 2.0), None);
        assert_eq!(ratio(Some(1.0), 0.0), None);
    }

    #[test]
    fn best_order_is_sppark_fastest() {
        let row = [
            cell(Ordering::NN, 1.0, Some(2.0)),
            cell(Ordering::NR, 0.9, Some(1.5)),
            cell(Ordering::RN, 0.8, Some(1.7)),
        ];
        assert_eq!(best_sppark(&row), Some((Ordering::NR, 1.5)));
        let line = table_row(&row);
        assert!(line.ends_with("| 1.50 (sppark NR 1.500 ms) |"), "{line}");
        let none = [cell(Ordering::NN, 1.0, None), cell(Ordering::NR, 1.0, None)];
        assert_eq!(best_sppark(&none), None);
        assert!(table_row(&none).ends_with("| n/a |"));
    }

    #[test]
    fn table_has_a_column_per_cell() {
        let head = table_header();
        let cols = head.lines().next().unwrap().matches('|').count();
        let row = table_row(&[
            cell(Ordering::NN, 1.0, Some(2.0)),
            cell(Ordering::NR, 1.0, None),
            cell(Ordering::RN, 1.0, Some(0.5)),
        ]);
        assert_eq!(row.matches('|').count(), cols);
        assert_eq!(head.lines().nth(1).unwrap().matches('|').count(), cols);
    }

    #[test]
    fn json_shape() {
        let rows = vec![vec![
            cell(Ordering::NN, 2.0, Some(3.0)),
            cell(Ordering::NR, 1.0, Some(2.5)),
            cell(Ordering::RN, 1.0, None),
        ]];
        let v = to_json(
            "H100",
            "2026-11-24T23:00:00Z",
            20,
            "built in",
            22,
            &rows,
            &[(28, "no room".into())],
        );
        assert_eq!(v["gpu"], "H100");
        assert_eq!(v["full_twiddles_max_log"], 22);
        assert_eq!(v["timestamp"], "2026-11-24T23:00:00Z");
        let cells = v["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 3);
        assert_eq!(cells[0]["size"], 1 << 20);
        assert_eq!(cells[0]["direction"], "forward");
        assert_eq!(cells[0]["coset"], true);
        assert_eq!(cells[0]["order"], "NN");
        assert_eq!(cells[0]["ratio"], 1.5);
        assert!(cells[2]["sppark_ms"].is_null() && cells[2]["ratio"].is_null());
        assert!(cells[2]["same_result_as_sppark"].is_null());
        let best = &v["zkntt_nn_vs_sppark_best"][0];
        assert_eq!(best["sppark_best_order"], "NR");
        assert_eq!(best["ratio"], 1.25);
        assert_eq!(v["skipped"][0]["log_n"], 28);
    }

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_129_200 + 3599), "2026-11-19T23:59:59Z");
    }

    #[test]
    fn direct_evaluation_matches_ark() {
        use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
        let mut rng = StdRng::seed_from_u64(1);
        let x: Vec<Fr> = (0..1 << 15).map(|_| Fr::rand(&mut rng)).collect();
        let domain = Radix2EvaluationDomain::<Fr>::new(x.len()).unwrap();
        let coset = domain.get_coset(coset_offset()).unwrap();
        let want = coset.fft(&x);
        let w: Fr = root_of_unity(15);
        for k in [0, 1, 12345] {
            assert_eq!(evaluate(&x, coset_offset() * w.pow([k as u64])), want[k]);
        }
    }

    #[test]
    fn sizes_that_do_not_fit() {
        assert!(bytes_needed(26) > 3 << 30);
        assert!(bytes_needed(10) < 512 << 20);
    }

    #[test]
    fn cases_configure_the_engine() {
        let c = Case::CosetInverse.config(Ordering::RN);
        assert_eq!(c.direction, zkntt_core::Direction::Inverse);
        assert_eq!(c.coset, Some(coset_offset()));
        assert_eq!(c.ordering, Ordering::RN);
        assert_eq!(Case::Forward.config(Ordering::NN), NttConfig::forward());
    }
}
