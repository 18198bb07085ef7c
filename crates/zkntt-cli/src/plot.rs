//! `--plot FILE` and `zkntt plot`: an SVG of a `zkntt bench ... --json` document, whichever bench
//! wrote it (`"kind"`: `ntt`, `matrix`, `modmul`, `small-ntt`, `fft`). The bench writes its JSON
//! document first and plots that, so a plot made on the GPU machine and one made later from the
//! saved JSON (`zkntt plot --json in.json --out out.svg`, no GPU needed) are the same.
//!
//! Top panel: milliseconds (log scale) against log2 N (`modmul`: against the modulus width) for
//! what the run measured, and the floors. A BN254 NTT's on an H100 (benches/NOTES.md):
//! - memory: the data read and written once per pass of the plan (1 pass up to one launch's size,
//!   then 2 or 3: the plan's column stages), 2 x passes x 32 N bytes at 2.84 TB/s;
//! - multiplier: (N/2) log2 N butterfly products at 60 G Montgomery products/s;
//! - PCIe (host-to-host runs): 32 N bytes in and 32 N out, at the pinned bandwidths the run
//!   measured (52 GB/s each way when it measured none).
//!
//! The small-word benches: `modmul`, the operands read and the result written once (12 bytes an
//! element) at 2.84 TB/s; `small-ntt` and `fft`, the device-to-device copy of the same bytes timed
//! in the same run (a single transform's data in and out once at the copy's bandwidth, or at 2.84
//! TB/s when the run timed no copy).
//!
//! Bottom panel (log scale): the ratios against the run's anchor (above 1: zkntt faster than
//! sppark or ark-poly, WSX faster than the block-synchronous baseline, the fp16 FFT faster than
//! cuFFT; `modmul`: each form's time over Montgomery's) and, dashed, a path against its floor
//! (how far above it).
//!
//! Only plotters' SVG backend is built in: no system fonts or libraries; the text is left to the
//! viewer's sans-serif font.

use crate::AnyError;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use zkntt_core::Plan;

/// HBM bandwidth of the H100 counting read + write (benches/NOTES.md).
pub const HBM_BYTES_PER_S: f64 = 2.84e12;
/// BN254 Montgomery products per second on the H100 (sppark's `mont_t`, benches/NOTES.md).
pub const MULS_PER_S: f64 = 60e9;
/// Pinned PCIe bandwidth each way, when the run measured none.
pub const PCIE_BYTES_PER_S: f64 = 52e9;

#[derive(clap::Args, Debug)]
pub struct PlotArgs {
    /// A `zkntt bench ntt|modmul|small-ntt|fft --json` file (ntt with or without --matrix).
    #[arg(long, value_name = "FILE")]
    json: PathBuf,
    /// The SVG to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

pub fn plot(args: PlotArgs) -> Result<(), AnyError> {
    crate::args::check_svg("--out", &args.out)?;
    let text = std::fs::read_to_string(&args.json)
        .map_err(|e| format!("--json {}: cannot read: {e}", args.json.display()))?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| format!("--json {}: not JSON: {e}", args.json.display()))?;
    let figure = figure(&doc).map_err(|e| format!("--json {}: {e}", args.json.display()))?;
    write_svg(&figure, &args.out)?;
    println!("wrote {}", args.out.display());
    Ok(())
}

/// Writes the bench's JSON document and its plot, where asked.
pub fn save_outputs(doc: &Value, json: Option<&Path>, plot: Option<&Path>) -> Result<(), AnyError> {
    if let Some(path) = json {
        crate::args::write_file("--json", path, &(serde_json::to_string_pretty(doc)? + "\n"))?;
        tracing::info!(target: "zkntt::bench", "wrote {}", path.display());
    }
    if let Some(path) = plot {
        write_svg(&figure(doc)?, path)?;
        tracing::info!(target: "zkntt::bench", "wrote {}", path.display());
    }
    Ok(())
}

/// One line of a panel: (log2 N, value) points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(u32, f64)>,
    /// A floor (drawn dashed) rather than a measurement.
    pub floor: bool,
}

impl Series {
    fn new(label: impl Into<String>, points: Vec<(u32, f64)>, floor: bool) -> Self {
        Self {
            label: label.into(),
            points: points
                .into_iter()
                .filter(|(_, v)| v.is_finite() && *v > 0.0)
                .collect(),
            floor,
        }
    }
}

/// What a plot shows: milliseconds and ratios against log2 N (or what `x_label` names).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub title: String,
    pub times: Vec<Series>,
    pub ratios: Vec<Series>,
    pub ratio_label: String,
    pub x_label: String,
}

/// Adds `s` to a panel unless the run measured none of it (cuFFT not loaded, a table skipped).
fn add(panel: &mut Vec<Series>, s: Series) {
    if !s.points.is_empty() {
        panel.push(s);
    }
}

/// Passes over the data of the plan for 2^log_n: one launch, or the four-step's two or three
/// column stages.
pub fn passes(log_n: u32) -> u32 {
    Plan::for_size(log_n).map_or(3, |p| p.ordered_columns().len() as u32)
}

/// The memory floor of a BN254 NTT of 2^log_n in ms.
pub fn memory_floor_ms(log_n: u32) -> f64 {
    let bytes = 2.0 * f64::from(passes(log_n)) * 32.0 * (1u64 << log_n) as f64;
    bytes / HBM_BYTES_PER_S * 1e3
}

/// The multiplier floor of a BN254 NTT of 2^log_n in ms.
pub fn multiplier_floor_ms(log_n: u32) -> f64 {
    let n = (1u64 << log_n) as f64;
    n / 2.0 * f64::from(log_n) / MULS_PER_S * 1e3
}

/// The PCIe floor of a host-to-host NTT of 2^log_n in ms at `h2d` and `d2h` bytes/s.
pub fn pcie_floor_ms(log_n: u32, h2d: f64, d2h: f64) -> f64 {
    let bytes = 32.0 * (1u64 << log_n) as f64;
    (bytes / h2d + bytes / d2h) * 1e3
}

fn device_floors(sizes: &[u32]) -> [Series; 2] {
    [
        Series::new(
            "memory floor (2.84 TB/s)",
            sizes.iter().map(|&k| (k, memory_floor_ms(k))).collect(),
            true,
        ),
        Series::new(
            "multiplier floor (60 G mul/s)",
            sizes.iter().map(|&k| (k, multiplier_floor_ms(k))).collect(),
            true,
        ),
    ]
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

/// log2 of the largest size a document may give: a plot's x axis has a label a size.
const MAX_PLOT_LOG: u64 = 40;

/// Every `log_n` of the document, at any depth, a number from 0 to [`MAX_PLOT_LOG`]: a hand-edited
/// or foreign file is refused in one line rather than overflowing a size or drawing billions of
/// labels.
fn check_sizes(v: &Value) -> Result<(), String> {
    match v {
        Value::Object(m) => {
            if let Some(k) = m.get("log_n")
                && k.as_u64().is_none_or(|k| k > MAX_PLOT_LOG)
            {
                return Err(format!("log_n {k} is not a size from 0 to {MAX_PLOT_LOG}"));
            }
            m.values().try_for_each(check_sizes)
        }
        Value::Array(a) => a.iter().try_for_each(check_sizes),
        _ => Ok(()),
    }
}

fn log_n(v: &Value) -> Option<u32> {
    v.get("log_n")
        .and_then(Value::as_u64)
        .and_then(|k| u32::try_from(k).ok())
}

fn sorted_sizes(mut sizes: Vec<u32>) -> Vec<u32> {
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// The array `doc[key]` (empty when absent or null).
fn rows<'a>(doc: &'a Value, key: &str) -> &'a [Value] {
    doc.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// (log2 N, row[key]) of every row that has both.
fn column(rows: &[Value], key: &str) -> Vec<(u32, f64)> {
    rows.iter()
        .filter_map(|r| Some((log_n(r)?, num(r, key)?)))
        .collect()
}

/// a / b wherever both have the size.
fn ratio_of(a: &[(u32, f64)], b: &[(u32, f64)]) -> Vec<(u32, f64)> {
    a.iter()
        .filter_map(|&(k, x)| b.iter().find(|d| d.0 == k).map(|d| (k, x / d.1)))
        .collect()
}

/// The distinct values of `row[key]`, in order of first appearance.
fn distinct<'a>(rows: &'a [Value], key: &str) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for v in rows
        .iter()
        .filter_map(|r| r.get(key).and_then(Value::as_str))
    {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen
}

/// The rows whose `row[key]` is `value`.
fn rows_where(rows: &[Value], key: &str, value: &str) -> Vec<Value> {
    rows.iter()
        .filter(|r| r.get(key).and_then(Value::as_str) == Some(value))
        .cloned()
        .collect()
}

/// The figure of a bench document: `--matrix`'s (it has "cells"), else by its "kind".
pub fn figure(doc: &Value) -> Result<Figure, String> {
    check_sizes(doc)?;
    let gpu = doc
        .get("gpu")
        .and_then(Value::as_str)
        .unwrap_or("unknown GPU");
    let when = doc.get("timestamp").and_then(Value::as_str).unwrap_or("");
    if let Some(cells) = doc.get("cells").and_then(Value::as_array) {
        return matrix_figure(
            cells,
            &format!("BN254 NTT, device-resident: zkntt and sppark on {gpu}, {when}"),
        );
    }
    match doc.get("kind").and_then(Value::as_str) {
        Some("ntt") => ntt_figure(doc, &format!("BN254 NTT on {gpu}, {when}")),
        Some("modmul") => modmul_figure(doc, gpu, when),
        Some("small-ntt") => small_ntt_figure(doc, &format!("small-word NTT on {gpu}, {when}")),
        Some("fft") => fft_figure(doc, gpu, when),
        _ => Err(
            "not a zkntt bench --json document (no \"cells\", no \"kind\" of ntt, modmul, small-ntt, fft)"
                .into(),
        ),
    }
}

/// The four transforms of a matrix row: (label, direction, coset).
const TRANSFORMS: [(&str, &str, bool); 4] = [
    ("forward", "forward", false),
    ("inverse", "inverse", false),
    ("coset forward", "forward", true),
    ("coset inverse", "inverse", true),
];

fn matrix_figure(cells: &[Value], title: &str) -> Result<Figure, String> {
    fn pick<'a>(
        cells: &'a [Value],
        dir: &'a str,
        coset: bool,
        order: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Value> {
        cells.iter().filter(move |c| {
            c.get("direction").and_then(Value::as_str) == Some(dir)
                && c.get("coset").and_then(Value::as_bool) == Some(coset)
                && order.is_none_or(|o| c.get("order").and_then(Value::as_str) == Some(o))
        })
    }
    let sizes = sorted_sizes(cells.iter().filter_map(log_n).collect());
    if sizes.is_empty() {
        return Err("no cells to plot".into());
    }
    let series = |dir, coset, order, key| -> Vec<(u32, f64)> {
        pick(cells, dir, coset, order)
            .filter_map(|c| Some((log_n(c)?, num(c, key)?)))
            .collect()
    };
    // sppark's fastest order per size (forward): what zkntt NN is compared with.
    let best = |dir, coset| -> Vec<(u32, f64)> {
        sizes
            .iter()
            .filter_map(|&k| {
                pick(cells, dir, coset, None)
                    .filter(|c| log_n(c) == Some(k))
                    .filter_map(|c| num(c, "sppark_ms"))
                    .min_by(f64::total_cmp)
                    .map(|s| (k, s))
            })
            .collect()
    };
    let mut times = vec![
        Series::new(
            "zkntt forward NN",
            series("forward", false, Some("NN"), "zkntt_ms"),
            false,
        ),
        Series::new(
            "zkntt inverse NN",
            series("inverse", false, Some("NN"), "zkntt_ms"),
            false,
        ),
    ];
    let sppark = best("forward", false);
    if !sppark.is_empty() {
        times.push(Series::new("sppark forward, fastest order", sppark, false));
        times.push(Series::new(
            "sppark inverse, fastest order",
            best("inverse", false),
            false,
        ));
    }
    times.extend(device_floors(&sizes));
    let mut ratios = Vec::new();
    for (label, dir, coset) in TRANSFORMS {
        let nn: Vec<(u32, f64)> = series(dir, coset, Some("NN"), "zkntt_ms");
        let b = best(dir, coset);
        let points: Vec<(u32, f64)> = nn
            .iter()
            .filter_map(|&(k, z)| b.iter().find(|p| p.0 == k).map(|&(_, s)| (k, s / z)))
            .collect();
        if !points.is_empty() {
            ratios.push(Series::new(label, points, false));
        }
    }
    let mut floors = Vec::new();
    for (k, z) in series("forward", false, Some("NN"), "zkntt_ms") {
        floors.push((k, z / memory_floor_ms(k).max(multiplier_floor_ms(k))));
    }
    ratios.push(Series::new("zkntt forward / its floor", floors, true));
    Ok(Figure {
        title: title.into(),
        times,
        ratios,
        ratio_label: "sppark (fastest order) / zkntt NN".into(),
        x_label: "log2 N".into(),
    })
}

fn ntt_figure(doc: &Value, title: &str) -> Result<Figure, String> {
    let empty = Vec::new();
    let device = doc
        .get("device")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let host = doc.get("host").filter(|h| !h.is_null());
    let host_rows = host
        .and_then(|h| h.get("rows"))
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let sizes = sorted_sizes(device.iter().chain(host_rows).filter_map(log_n).collect());
    if sizes.is_empty() {
        return Err("no sizes to plot".into());
    }
    let mut times = Vec::new();
    let mut ratios = Vec::new();
    let zk = column(device, "forward_ms");
    let ark = column(device, "ark_ms");
    let host_ms = column(host_rows, "host_ms");
    if !zk.is_empty() {
        times.push(Series::new(
            "zkntt forward, device-resident",
            zk.clone(),
            false,
        ));
        times.push(Series::new(
            "zkntt inverse, device-resident",
            column(device, "inverse_ms"),
            false,
        ));
    }
    if !host_ms.is_empty() {
        times.push(Series::new(
            "zkntt forward, host to host",
            host_ms.clone(),
            false,
        ));
    }
    if !ark.is_empty() {
        times.push(Series::new(
            "ark-poly forward, all cores",
            ark.clone(),
            false,
        ));
    }
    times.extend(device_floors(&sizes));
    if let Some(h) = host {
        let gbps = |k| {
            num(h, k)
                .filter(|v| *v > 0.0)
                .map_or(PCIE_BYTES_PER_S, |g| g * 1e9)
        };
        let (h2d, d2h) = (gbps("h2d_gbps"), gbps("d2h_gbps"));
        let floor: Vec<(u32, f64)> = host_rows
            .iter()
            .filter_map(log_n)
            .map(|k| (k, pcie_floor_ms(k, h2d, d2h)))
            .collect();
        times.push(Series::new(
            format!("PCIe floor ({:.0} + {:.0} GB/s)", h2d / 1e9, d2h / 1e9),
            floor.clone(),
            true,
        ));
        let over: Vec<(u32, f64)> = host_ms
            .iter()
            .filter_map(|&(k, ms)| floor.iter().find(|f| f.0 == k).map(|f| (k, ms / f.1)))
            .collect();
        ratios.push(Series::new("host to host / PCIe floor", over, true));
    }
    if !ark.is_empty() {
        ratios.push(Series::new(
            "ark-poly / zkntt device-resident",
            ratio_of(&ark, &zk),
            false,
        ));
        if !host_ms.is_empty() {
            ratios.push(Series::new(
                "ark-poly / zkntt host to host",
                ratio_of(&ark, &host_ms),
                false,
            ));
        }
    }
    Ok(Figure {
        title: title.into(),
        times,
        ratios,
        ratio_label: "ratio".into(),
        x_label: "log2 N".into(),
    })
}

/// Bytes a modmul chain element moves at least: a and b read, the result written (Shoup reads its
/// companion word too).
pub const MODMUL_BYTES_PER_ELEMENT: f64 = 12.0;

/// `zkntt bench modmul`: each form's time against the modulus width, the memory floor, and each
/// form's time over Montgomery's (the table's "vs Montgomery").
fn modmul_figure(doc: &Value, gpu: &str, when: &str) -> Result<Figure, String> {
    let rows = rows(doc, "rows");
    let bits = |r: &Value| {
        r.get("bits")
            .and_then(Value::as_u64)
            .and_then(|b| u32::try_from(b).ok())
    };
    let widths = sorted_sizes(rows.iter().filter_map(bits).collect());
    if widths.is_empty() {
        return Err("no rows to plot".into());
    }
    let of = |form: &str| -> Vec<(u32, f64)> {
        rows_where(rows, "form", form)
            .iter()
            .filter_map(|r| Some((bits(r)?, num(r, "ms")?)))
            .collect()
    };
    let label = |form: &str| -> String {
        rows_where(rows, "form", form)
            .first()
            .and_then(|r| r.get("label").and_then(Value::as_str).map(String::from))
            .unwrap_or_else(|| form.to_string())
    };
    let forms = distinct(rows, "form");
    let mut times = Vec::new();
    for &form in &forms {
        add(&mut times, Series::new(label(form), of(form), false));
    }
    let n = num(doc, "n").unwrap_or(0.0);
    let floor_ms = n * MODMUL_BYTES_PER_ELEMENT / HBM_BYTES_PER_S * 1e3;
    let floor: Vec<(u32, f64)> = widths.iter().map(|&b| (b, floor_ms)).collect();
    add(
        &mut times,
        Series::new(
            "memory floor (a, b in, result out: 12 B/element at 2.84 TB/s)",
            floor.clone(),
            true,
        ),
    );
    let mont = of("montgomery");
    let mut ratios = Vec::new();
    for &form in forms.iter().filter(|&&f| f != "montgomery") {
        add(
            &mut ratios,
            Series::new(label(form), ratio_of(&of(form), &mont), false),
        );
    }
    add(
        &mut ratios,
        Series::new("Montgomery / memory floor", ratio_of(&mont, &floor), true),
    );
    let chain = num(doc, "chain").unwrap_or(16.0);
    Ok(Figure {
        title: format!("modmul chains ({chain} products, {n} elements) on {gpu}, {when}"),
        times,
        ratios,
        ratio_label: "time / Montgomery's".into(),
        x_label: "modulus bits".into(),
    })
}

/// `zkntt bench small-ntt`: the batched WSX and block-synchronous NTTs of each field against the
/// copy of the batch, and BabyBear's single transforms against their data's copy; ratios
/// block-sync / WSX.
fn small_ntt_figure(doc: &Value, title: &str) -> Result<Figure, String> {
    let batched = rows(doc, "batched");
    let single = rows(doc, "single");
    let sizes = sorted_sizes(batched.iter().chain(single).filter_map(log_n).collect());
    if sizes.is_empty() {
        return Err("no sizes to plot".into());
    }
    let copy = doc.get("copy").filter(|c| !c.is_null());
    let copy_ms = copy.and_then(|c| num(c, "ms")).filter(|v| *v > 0.0);
    let copy_gbps = copy.and_then(|c| num(c, "gbps")).filter(|v| *v > 0.0);
    let (mut times, mut ratios) = (Vec::new(), Vec::new());
    let mut over_floor = Vec::new();
    let mib = num(doc, "bytes").unwrap_or(0.0) / f64::from(1u32 << 20);
    for field in distinct(batched, "field") {
        let r = rows_where(batched, "field", field);
        let wsx = column(&r, "wsx_ms");
        let block = column(&r, "block_sync_ms");
        add(
            &mut times,
            Series::new(
                format!("WSX {field}, batches of {mib:.0} MiB"),
                wsx.clone(),
                false,
            ),
        );
        add(
            &mut times,
            Series::new(format!("block-sync {field}, batches"), block.clone(), false),
        );
        add(
            &mut ratios,
            Series::new(format!("{field} batches"), ratio_of(&block, &wsx), false),
        );
        if let Some(c) = copy_ms {
            let floor: Vec<(u32, f64)> = wsx.iter().map(|&(k, _)| (k, c)).collect();
            add(
                &mut over_floor,
                Series::new(format!("WSX {field} / copy"), ratio_of(&wsx, &floor), true),
            );
        }
    }
    if let Some(c) = copy_ms {
        let floor: Vec<(u32, f64)> = sorted_sizes(batched.iter().filter_map(log_n).collect())
            .into_iter()
            .map(|k| (k, c))
            .collect();
        add(
            &mut times,
            Series::new(
                format!(
                    "copy of a batch ({:.0} GB/s, timed)",
                    copy_gbps.unwrap_or(0.0)
                ),
                floor,
                true,
            ),
        );
    }
    for field in distinct(single, "field") {
        let r = rows_where(single, "field", field);
        let oop = column(&r, "wsx_out_of_place_ms");
        let block = column(&r, "block_sync_out_of_place_ms");
        add(
            &mut times,
            Series::new(
                format!("{field} single, WSX out of place"),
                oop.clone(),
                false,
            ),
        );
        add(
            &mut times,
            Series::new(
                format!("{field} single, WSX in place (+copy back)"),
                column(&r, "wsx_in_place_ms"),
                false,
            ),
        );
        add(
            &mut times,
            Series::new(
                format!("{field} single, block-sync out of place"),
                block.clone(),
                false,
            ),
        );
        add(
            &mut ratios,
            Series::new(
                format!("{field} single, out of place"),
                ratio_of(&block, &oop),
                false,
            ),
        );
        // One transform's 4-byte words in and out once.
        let (bw, which) = match copy_gbps {
            Some(g) => (g * 1e9, format!("{g:.0} GB/s, timed")),
            None => (HBM_BYTES_PER_S, "2.84 TB/s".to_string()),
        };
        let floor: Vec<(u32, f64)> = r
            .iter()
            .filter_map(log_n)
            .map(|k| (k, 8.0 * (1u64 << k) as f64 / bw * 1e3))
            .collect();
        add(
            &mut over_floor,
            Series::new(
                format!("{field} single WSX / its floor"),
                ratio_of(&oop, &floor),
                true,
            ),
        );
        add(
            &mut times,
            Series::new(
                format!("{field} single: data in and out once ({which})"),
                floor,
                true,
            ),
        );
    }
    ratios.extend(over_floor);
    Ok(Figure {
        title: title.into(),
        times,
        ratios,
        ratio_label: "block-sync / WSX".into(),
        x_label: "log2 N".into(),
    })
}

/// `zkntt bench fft`: the fp16 Tensor Core FFT beside cuFFT fp16 and fp32 (same batch, same run)
/// and the copy of the same bytes; ratios cuFFT / zkntt.
fn fft_figure(doc: &Value, gpu: &str, when: &str) -> Result<Figure, String> {
    let rows = rows(doc, "rows");
    if rows.iter().filter_map(log_n).next().is_none() {
        return Err("no sizes to plot".into());
    }
    let zk = column(rows, "zkntt_ms");
    let cu16 = column(rows, "cufft16_ms");
    let cu32 = column(rows, "cufft32_ms");
    let mut times = Vec::new();
    add(
        &mut times,
        Series::new("zkntt fp16 (Tensor Cores)", zk.clone(), false),
    );
    add(&mut times, Series::new("cuFFT fp16", cu16.clone(), false));
    add(&mut times, Series::new("cuFFT fp32", cu32.clone(), false));
    let copy = doc.get("copy").filter(|c| !c.is_null());
    let mut ratios = Vec::new();
    add(
        &mut ratios,
        Series::new("cuFFT fp16 / zkntt", ratio_of(&cu16, &zk), false),
    );
    add(
        &mut ratios,
        Series::new("cuFFT fp32 / zkntt", ratio_of(&cu32, &zk), false),
    );
    if let Some(c) = copy.and_then(|c| num(c, "ms")).filter(|v| *v > 0.0) {
        let floor: Vec<(u32, f64)> = zk.iter().map(|&(k, _)| (k, c)).collect();
        add(
            &mut ratios,
            Series::new("zkntt / copy", ratio_of(&zk, &floor), true),
        );
        let gbps = copy.and_then(|c| num(c, "gbps")).unwrap_or(0.0);
        add(
            &mut times,
            Series::new(
                format!("copy of the same bytes ({gbps:.0} GB/s, timed)"),
                floor,
                true,
            ),
        );
    }
    let mib = num(doc, "bytes").unwrap_or(0.0) / f64::from(1u32 << 20);
    // Documents from before `--inverse` have no "direction": they timed forward transforms.
    let dir = doc
        .get("direction")
        .and_then(Value::as_str)
        .unwrap_or("forward");
    Ok(Figure {
        title: format!("fp16 complex FFT, {dir}, {mib:.0} MiB a size, on {gpu}, {when}"),
        times,
        ratios,
        ratio_label: "cuFFT / zkntt".into(),
        x_label: "log2 N".into(),
    })
}

/// The figure as an SVG document.
pub fn render_svg(fig: &Figure) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 900)).into_drawing_area();
        draw(fig, &root).map_err(|e| format!("plotting failed: {e}"))?;
        root.present()
            .map_err(|e| format!("plotting failed: {e}"))?;
    }
    Ok(svg)
}

/// Renders `fig` into `path`.
pub fn write_svg(fig: &Figure, path: &Path) -> Result<(), String> {
    crate::args::write_file("--plot", path, &render_svg(fig)?)
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw(fig: &Figure, root: &DrawingArea<SVGBackend<'_>, Shift>) -> DrawResult {
    root.fill(&WHITE)?;
    let root = root.titled(&fig.title, ("sans-serif", 20))?;
    let (top, bottom) = root.split_vertically(500);
    panel(
        &top,
        &fig.x_label,
        &fig.times,
        "ms (log scale)",
        true,
        None,
        SeriesLabelPosition::UpperLeft,
    )?;
    // Log scale too: ratios near 1 and a path's distance to its floor (several x) in one panel.
    let label = format!("{} (log scale)", fig.ratio_label);
    panel(
        &bottom,
        &fig.x_label,
        &fig.ratios,
        &label,
        true,
        Some(1.0),
        SeriesLabelPosition::UpperRight,
    )?;
    Ok(())
}

fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    x_desc: &str,
    series: &[Series],
    y_desc: &str,
    log_y: bool,
    reference: Option<f64>,
    legend: SeriesLabelPosition,
) -> DrawResult {
    let points = || series.iter().flat_map(|s| s.points.iter().copied());
    let (Some(x0), Some(x1)) = (points().map(|p| p.0).min(), points().map(|p| p.0).max()) else {
        return Ok(()); // nothing measured for this panel
    };
    let ys = points().map(|p| p.1).chain(reference);
    let (lo, hi) = ys.fold((f64::INFINITY, 0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let x = (f64::from(x0) - 0.5)..(f64::from(x1) + 0.5);
    let mut chart = ChartBuilder::on(area);
    chart.margin(12).x_label_area_size(40).y_label_area_size(70);
    let colors = [
        BLUE,
        RED,
        GREEN,
        MAGENTA,
        CYAN,
        BLACK,
        RGBColor(255, 140, 0),
        RGBColor(128, 0, 128),
        RGBColor(139, 69, 19),
        RGBColor(0, 128, 128),
    ];
    macro_rules! lines {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(y_desc)
                .x_labels((x1 - x0 + 1) as usize)
                .x_label_formatter(&|v| format!("{v:.0}"))
                .y_label_formatter(&|v| tick(*v))
                .draw()?;
            let (mut measured, mut floors) = (0, 0);
            for s in series {
                let pts = s.points.iter().map(|&(k, v)| (f64::from(k), v));
                let color = if s.floor {
                    floors += 1;
                    [
                        BLACK.mix(0.7),
                        RGBColor(128, 128, 128).mix(0.9),
                        RGBColor(150, 100, 0).mix(0.9),
                    ][(floors - 1) % 3]
                } else {
                    measured += 1;
                    colors[(measured - 1) % colors.len()].mix(1.0)
                };
                let style = color.stroke_width(2);
                if s.floor {
                    chart
                        .draw_series(DashedLineSeries::new(pts, 8, 6, style))?
                        .label(&s.label)
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                } else {
                    chart
                        .draw_series(LineSeries::new(pts.clone(), style))?
                        .label(&s.label)
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                    chart.draw_series(pts.map(|p| Circle::new(p, 3, color.filled())))?;
                }
            }
            if let Some(r) = reference {
                chart.draw_series(LineSeries::new(
                    [(x.start, r), (x.end, r)],
                    BLACK.mix(0.4).stroke_width(1),
                ))?;
            }
            chart
                .configure_series_labels()
                .position(legend)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.5))
                .draw()?;
        }};
    }
    if log_y {
        // Room above the data for the legend (in the upper corner, about 18 px a line of the
        // panel's plotting height), so that it hides no line however many series there are.
        let height = f64::from(area.dim_in_pixel().1).max(200.0) - 64.0;
        let legend = ((series.len() as f64 * 18.0 + 24.0) / height).min(0.6);
        let bottom = lo / 1.5;
        let top = (bottom.ln() + (hi.ln() - bottom.ln()) / (1.0 - legend)).exp();
        lines!(chart.build_cartesian_2d(x.clone(), (bottom..top.max(hi * 1.5)).log_scale())?);
    } else {
        let pad = ((hi - lo) * 0.1).max(0.05);
        lines!(chart.build_cartesian_2d(x.clone(), (lo - pad).max(0.0)..hi + pad)?);
    }
    Ok(())
}

/// A y-axis label: enough decimals for the value's first two digits, no trailing zeros (a log
/// axis's 0.7 is computed as 0.7000000000001).
fn tick(v: f64) -> String {
    if v <= 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (1 - v.log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench_matrix::{Case, Cell, ORDERS};
    use crate::bench_ntt::{DeviceRow, HostRow, HostRun};

    /// A matrix document like an H100 run's: zkntt a little faster than sppark.
    fn matrix_doc(sppark: bool) -> Value {
        let rows: Vec<Vec<Cell>> = (10..=20)
            .flat_map(|k| {
                Case::ALL.into_iter().map(move |case| {
                    ORDERS
                        .into_iter()
                        .map(|order| {
                            let z = 0.01 * 2f64.powi(k as i32 - 10);
                            Cell {
                                log_n: k,
                                case,
                                order,
                                zkntt_ms: z,
                                sppark_ms: sppark.then_some(z * 1.3),
                                zkntt_host_ms: Some(0.004),
                                sppark_host_ms: sppark.then_some(0.003),
                                verified: true,
                                same_as_sppark: sppark.then_some(true),
                            }
                        })
                        .collect()
                })
            })
            .collect();
        crate::bench_matrix::to_json(
            "NVIDIA H100 80GB HBM3",
            "2026-11-25T00:00:00Z",
            20,
            "built in",
            22,
            &rows,
            &[],
        )
    }

    fn ntt_doc() -> Value {
        let rows: Vec<DeviceRow> = (16..=24)
            .map(|k| DeviceRow {
                log_n: k,
                forward_ms: 0.002 * 2f64.powi(k as i32 - 10),
                inverse_ms: 0.0021 * 2f64.powi(k as i32 - 10),
                coset_forward_ms: 0.0022 * 2f64.powi(k as i32 - 10),
                ark_ms: Some(0.2 * 2f64.powi(k as i32 - 10)),
            })
            .collect();
        let host = HostRun {
            h2d_gbps: 53.0,
            d2h_gbps: 52.0,
            rows: (16..=24)
                .map(|k| HostRow {
                    log_n: k,
                    first_ms: 1.0,
                    host_ms: 0.03 * 2f64.powi(k as i32 - 10),
                    pcie_floor_ms: 0.0,
                })
                .collect(),
        };
        crate::bench_ntt::to_json(
            "NVIDIA H100",
            "2026-11-25T00:00:00Z",
            20,
            &rows,
            Some(&host),
        )
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.700_000_000_000_1), "0.7");
        assert_eq!(tick(0.000_01), "0.00001");
        assert_eq!(tick(2.0), "2");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(1000.0), "1000");
        assert_eq!(tick(0.15), "0.15");
        assert_eq!(tick(0.0), "0");
    }

    #[test]
    fn floors() {
        // benches/NOTES.md: 2^23 is three passes, 1.5 GiB, 0.57 ms.
        assert_eq!(passes(23), 3);
        assert!(
            (memory_floor_ms(23) - 0.567).abs() < 0.01,
            "{}",
            memory_floor_ms(23)
        );
        assert_eq!(passes(8), 1);
        // (2^23 / 2) * 23 products at 60 G/s.
        assert!((multiplier_floor_ms(23) - 1.608).abs() < 0.01);
        // 2^20 x 32 bytes each way at 52 GB/s.
        assert!((pcie_floor_ms(20, 52e9, 52e9) - 1.29).abs() < 0.01);
    }

    #[test]
    fn matrix_figure_has_zkntt_sppark_floors_and_ratios() {
        let fig = figure(&matrix_doc(true)).unwrap();
        let labels: Vec<&str> = fig.times.iter().map(|s| s.label.as_str()).collect();
        assert!(labels.contains(&"zkntt forward NN"), "{labels:?}");
        assert!(
            labels.contains(&"sppark forward, fastest order"),
            "{labels:?}"
        );
        assert!(labels.iter().any(|l| l.starts_with("memory floor")));
        assert!(labels.iter().any(|l| l.starts_with("multiplier floor")));
        assert_eq!(fig.times[0].points.len(), 11);
        let fwd = &fig.ratios[0];
        assert_eq!(fwd.label, "forward");
        assert!(fwd.points.iter().all(|p| (p.1 - 1.3).abs() < 1e-9));
        // Without sppark: no sppark line and no sppark ratios, zkntt and the floors still there.
        let fig = figure(&matrix_doc(false)).unwrap();
        assert!(fig.times.iter().all(|s| !s.label.contains("sppark")));
        assert_eq!(fig.ratios.len(), 1);
    }

    #[test]
    fn ntt_figure_has_ark_host_and_pcie() {
        let fig = figure(&ntt_doc()).unwrap();
        let labels: Vec<&str> = fig.times.iter().map(|s| s.label.as_str()).collect();
        for want in [
            "zkntt forward, device-resident",
            "zkntt forward, host to host",
            "ark-poly forward, all cores",
            "PCIe floor (53 + 52 GB/s)",
        ] {
            assert!(labels.contains(&want), "{want}: {labels:?}");
        }
        let ark = fig
            .ratios
            .iter()
            .find(|s| s.label == "ark-poly / zkntt device-resident");
        assert!(
            ark.unwrap()
                .points
                .iter()
                .all(|p| (p.1 - 100.0).abs() < 1e-6)
        );
        assert!(figure(&serde_json::json!({"gpu": "x"})).is_err());
        assert!(figure(&serde_json::json!({"kind": "nope"})).is_err());
        for kind in ["modmul", "small-ntt", "fft"] {
            let e = figure(&serde_json::json!({"kind": kind, "rows": []})).unwrap_err();
            assert!(e.starts_with("no "), "{kind}: {e}");
        }
        // --host-only: the host path, its PCIe floor and the device floors; no ark-poly ratios.
        let mut doc = ntt_doc();
        doc["device"] = serde_json::json!([]);
        let fig = figure(&doc).unwrap();
        assert!(
            fig.times
                .iter()
                .any(|s| s.label == "zkntt forward, host to host")
        );
        assert!(
            fig.times
                .iter()
                .all(|s| !s.label.contains("device-resident"))
        );
        assert_eq!(fig.ratios.len(), 1);
        assert!(render_svg(&fig).unwrap().starts_with("<svg"));
    }

    #[test]
    fn svg_is_written() {
        for doc in [matrix_doc(true), matrix_doc(false), ntt_doc()] {
            let svg = render_svg(&figure(&doc).unwrap()).unwrap();
            assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
            assert!(svg.trim_end().ends_with("</svg>"));
            assert!(svg.contains("log2 N") && svg.contains("memory floor"));
        }
        for (doc, says) in [
            (
                modmul_doc(),
                ["modulus bits", "memory floor", "Montgomery lazy"],
            ),
            (
                small_ntt_doc(true),
                ["log2 N", "copy of a batch", "block-sync q28"],
            ),
            (
                fft_doc(true),
                ["log2 N", "copy of the same bytes", "cuFFT fp16"],
            ),
        ] {
            let svg = render_svg(&figure(&doc).unwrap()).unwrap();
            assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
            for want in says {
                assert!(svg.contains(want), "{want} missing from the SVG");
            }
        }
    }

    fn labels(series: &[Series]) -> Vec<&str> {
        series.iter().map(|s| s.label.as_str()).collect()
    }

    fn find<'a>(series: &'a [Series], label: &str) -> &'a Series {
        series
            .iter()
            .find(|s| s.label == label)
            .unwrap_or_else(|| panic!("{label}: {:?}", labels(series)))
    }

    /// Every form at every blog modulus, form i taking 0.1 (1 + i/10) ms (Montgomery: 0.15).
    fn modmul_doc() -> Value {
        use crate::bench_small::{ModmulRow, ModmulRun};
        use zkntt_small::ModMulForm;
        use zkntt_small::modmul::BLOG_MODULI;
        let rows = BLOG_MODULI
            .iter()
            .flat_map(|&(bits, q)| {
                ModMulForm::ALL
                    .into_iter()
                    .enumerate()
                    .map(move |(i, form)| ModmulRow {
                        bits,
                        q,
                        form,
                        ms: 0.1 * (1.0 + i as f64 / 10.0),
                    })
            })
            .collect();
        let run = ModmulRun {
            n: 1 << 24,
            iters: 20,
            warmup: 3,
            checked: true,
            rows,
            instructions: Vec::new(),
        };
        crate::bench_small::modmul_json("NVIDIA H100", "2026-11-26T00:00:00Z", &run)
    }

    #[test]
    fn modmul_figure_has_every_form_the_floor_and_ratios_to_montgomery() {
        let doc = modmul_doc();
        assert_eq!(doc["rows"].as_array().unwrap().len(), 28);
        assert_eq!(doc["rows"][0]["form"], "dynamic");
        assert!((doc["rows"][0]["vs_montgomery"].as_f64().unwrap() - 0.1 / 0.15).abs() < 1e-9);
        let fig = figure(&doc).unwrap();
        assert_eq!(fig.x_label, "modulus bits");
        assert_eq!(fig.times.len(), 8, "{:?}", labels(&fig.times));
        let dynamic = find(&fig.times, "dynamic %");
        assert_eq!(
            dynamic.points.iter().map(|p| p.0).collect::<Vec<_>>(),
            [16, 20, 24, 28]
        );
        // 2^24 elements x 12 bytes at 2.84 TB/s.
        let floor = find(
            &fig.times,
            "memory floor (a, b in, result out: 12 B/element at 2.84 TB/s)",
        );
        assert!(floor.floor && (floor.points[0].1 - 0.070_886).abs() < 1e-5);
        // Six forms against Montgomery, and Montgomery against the floor.
        assert_eq!(fig.ratios.len(), 7, "{:?}", labels(&fig.ratios));
        assert!(fig.ratios.iter().all(|s| s.label != "Montgomery"));
        let d = find(&fig.ratios, "dynamic %");
        assert!(d.points.iter().all(|p| (p.1 - 0.1 / 0.15).abs() < 1e-9));
        assert!(find(&fig.ratios, "Montgomery / memory floor").floor);
    }

    fn small_ntt_doc(copy: bool) -> Value {
        use crate::bench_small::{BatchedRow, FormRow, SingleRow, SmallNttRun, StreamsRow};
        use zkntt_small::{ModMulForm, SmallField};
        let mut run = SmallNttRun {
            bytes: 1 << 30,
            iters: 10,
            warmup: 2,
            copy: copy.then_some((0.8, 2684.0)),
            ..SmallNttRun::default()
        };
        for field in SmallField::ALL {
            for log_n in 10..=12 {
                run.batched.push(BatchedRow {
                    field,
                    log_n,
                    batch: (1 << 28) >> log_n,
                    block_sync_ms: 1.5,
                    wsx_ms: 1.0,
                    wsx_v1_ms: 1.2,
                    wsx_shoup_lazy_ms: 1.1,
                });
            }
        }
        run.forms.push(FormRow {
            form: ModMulForm::Montgomery,
            wsx_10_ms: 1.0,
            wsx_12_ms: 1.1,
            block_sync_12_ms: 1.6,
        });
        for log_n in [12, 16, 20] {
            run.single.push(SingleRow {
                log_n,
                wsx_in_place_ms: 0.02,
                wsx_out_of_place_ms: 0.01,
                block_sync_out_of_place_ms: 0.02,
            });
        }
        run.streams = Some((
            10,
            1 << 26,
            vec![StreamsRow {
                streams: 1,
                pinned_ms: 10.0,
                pinned_gbps: 53.7,
                pageable_ms: 30.0,
            }],
        ));
        crate::bench_small::small_ntt_json("NVIDIA H100", "2026-11-26T00:00:00Z", &run)
    }

    #[test]
    fn small_ntt_figure_has_both_kernels_the_copy_and_the_speed_ups() {
        let fig = figure(&small_ntt_doc(true)).unwrap();
        for want in [
            "WSX q28, batches of 1024 MiB",
            "block-sync koalabear, batches",
            "copy of a batch (2684 GB/s, timed)",
            "babybear single, WSX out of place",
            "babybear single, block-sync out of place",
            "babybear single: data in and out once (2684 GB/s, timed)",
        ] {
            find(&fig.times, want);
        }
        let q28 = find(&fig.ratios, "q28 batches");
        assert_eq!(q28.points, [(10, 1.5), (11, 1.5), (12, 1.5)]);
        assert_eq!(
            find(&fig.ratios, "babybear single, out of place")
                .points
                .len(),
            3
        );
        assert!(find(&fig.ratios, "WSX babybear / copy").floor);
        // 2^20 words in and out once at 2684 GB/s.
        let floor = find(
            &fig.times,
            "babybear single: data in and out once (2684 GB/s, timed)",
        );
        assert!((floor.points[2].1 - 8.0 * 1048576.0 / 2684e9 * 1e3).abs() < 1e-9);
        // --only-single times no copy: the single transforms' floor at 2.84 TB/s.
        let mut doc = small_ntt_doc(false);
        doc["batched"] = serde_json::json!([]);
        doc["forms"] = serde_json::json!([]);
        let fig = figure(&doc).unwrap();
        assert_eq!(fig.times.len(), 4, "{:?}", labels(&fig.times));
        find(
            &fig.times,
            "babybear single: data in and out once (2.84 TB/s)",
        );
        assert!(fig.times.iter().all(|s| !s.label.starts_with("copy")));
    }

    fn fft_doc(cufft: bool) -> Value {
        use crate::bench_fft::{FftRow, FftRun};
        let rows = [4u32, 8, 12, 16]
            .into_iter()
            .map(|log_n| FftRow {
                log_n,
                batch: (1 << 27) >> log_n,
                zkntt_ms: 0.5,
                err_zkntt: 1e-4,
                cufft16: cufft.then_some((0.6, 3e-4)),
                cufft32: cufft.then_some((1.0, 1e-7)),
                work_per_block: Vec::new(),
                passes_ms: Vec::new(),
            })
            .collect();
        let run = FftRun {
            dir: zkntt_small::Direction::Forward,
            bytes: 512 << 20,
            iters: 20,
            warmup: 3,
            seed: 7,
            copy_ms: 0.4,
            cufft: cufft.then(|| "libcufft.so.12".to_string()),
            rows,
        };
        crate::bench_fft::fft_json("NVIDIA H100", "2026-11-26T00:00:00Z", &run)
    }

    #[test]
    fn fft_figure_has_zkntt_cufft_the_copy_and_ratios() {
        let doc = fft_doc(true);
        assert!((doc["rows"][0]["vs_cufft16"].as_f64().unwrap() - 1.2).abs() < 1e-9);
        let fig = figure(&doc).unwrap();
        assert_eq!(
            labels(&fig.times),
            [
                "zkntt fp16 (Tensor Cores)",
                "cuFFT fp16",
                "cuFFT fp32",
                "copy of the same bytes (2684 GB/s, timed)"
            ]
        );
        let r = find(&fig.ratios, "cuFFT fp16 / zkntt");
        assert!(r.points.iter().all(|p| (p.1 - 1.2).abs() < 1e-9));
        let c = find(&fig.ratios, "zkntt / copy");
        assert!(c.floor && c.points.iter().all(|p| (p.1 - 1.25).abs() < 1e-9));
        // The direction timed names the figure; a document without one timed forward.
        assert_eq!(doc["direction"], "forward");
        assert!(
            fig.title.starts_with("fp16 complex FFT, forward,"),
            "{}",
            fig.title
        );
        let mut inv = doc.clone();
        inv["direction"] = "inverse".into();
        let t = figure(&inv).unwrap().title;
        assert!(t.starts_with("fp16 complex FFT, inverse,"), "{t}");
        inv.as_object_mut().unwrap().remove("direction");
        let t = figure(&inv).unwrap().title;
        assert!(t.starts_with("fp16 complex FFT, forward,"), "{t}");
        // cuFFT not loaded: its columns are null, and neither line nor ratio is drawn.
        let doc = fft_doc(false);
        assert!(doc["rows"][0]["cufft16_ms"].is_null());
        let fig = figure(&doc).unwrap();
        assert!(fig.times.iter().all(|s| !s.label.contains("cuFFT")));
        assert_eq!(labels(&fig.ratios), ["zkntt / copy"]);
    }
}
