//! `--plot FILE` and `zkntt plot`: an SVG of a `zkntt bench ntt --json` document (with or without
//! --matrix). The bench writes its JSON document first and plots that, so a plot made on the GPU
//! machine and one made later from the saved JSON (`zkntt plot --json in.json --out out.svg`, no
//! GPU needed) are the same.
//!
//! Top panel: milliseconds against log2 N (log scale) for what the run measured, and the floors
//! of a BN254 NTT on an H100 (benches/NOTES.md):
//! - memory: the data read and written once per pass of the plan (1 pass up to one launch's size,
//!   then 2 or 3: the plan's column stages), 2 x passes x 32 N bytes at 2.84 TB/s;
//! - multiplier: (N/2) log2 N butterfly products at 60 G Montgomery products/s;
//! - PCIe (host-to-host runs): 32 N bytes in and 32 N out, at the pinned bandwidths the run
//!   measured (52 GB/s each way when it measured none).
//!
//! Bottom panel (log scale): the ratios (above 1: zkntt faster; for a path against its floor, how
//! far above it).
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
    /// A `zkntt bench ntt --json` file (with or without --matrix).
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

/// What a plot shows: milliseconds and ratios against log2 N.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub title: String,
    pub times: Vec<Series>,
    pub ratios: Vec<Series>,
    pub ratio_label: String,
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

/// The figure of a bench document: `--matrix`'s (it has "cells") or the plain bench's.
pub fn figure(doc: &Value) -> Result<Figure, String> {
    let gpu = doc
        .get("gpu")
        .and_then(Value::as_str)
        .unwrap_or("unknown GPU");
    let when = doc.get("timestamp").and_then(Value::as_str).unwrap_or("");
    if let Some(cells) = doc.get("cells").and_then(Value::as_array) {
        matrix_figure(
            cells,
            &format!("BN254 NTT, device-resident: zkntt and sppark on {gpu}, {when}"),
        )
    } else if doc.get("kind").and_then(Value::as_str) == Some("ntt") {
        ntt_figure(doc, &format!("BN254 NTT on {gpu}, {when}"))
    } else {
        Err("not a zkntt bench ntt --json document (no \"cells\", no \"kind\": \"ntt\")".into())
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
    let col = |rows: &[Value], key: &str| -> Vec<(u32, f64)> {
        rows.iter()
            .filter_map(|r| Some((log_n(r)?, num(r, key)?)))
            .collect()
    };
    let mut times = Vec::new();
    let mut ratios = Vec::new();
    let zk = col(device, "forward_ms");
    let ark = col(device, "ark_ms");
    let host_ms = col(host_rows, "host_ms");
    if !zk.is_empty() {
        times.push(Series::new(
            "zkntt forward, device-resident",
            zk.clone(),
            false,
        ));
        times.push(Series::new(
            "zkntt inverse, device-resident",
            col(device, "inverse_ms"),
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
    let ratio_of = |num: &[(u32, f64)], den: &[(u32, f64)]| -> Vec<(u32, f64)> {
        num.iter()
            .filter_map(|&(k, a)| den.iter().find(|d| d.0 == k).map(|d| (k, a / d.1)))
            .collect()
    };
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
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    macro_rules! lines {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc("log2 N")
                .y_desc(y_desc)
                .x_labels((x1 - x0 + 1) as usize)
                .x_label_formatter(&|v| format!("{v:.0}"))
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
        lines!(chart.build_cartesian_2d(x.clone(), (lo / 1.5..hi * 2.5).log_scale())?);
    } else {
        let pad = ((hi - lo) * 0.1).max(0.05);
        lines!(chart.build_cartesian_2d(x.clone(), (lo - pad).max(0.0)..hi + pad)?);
    }
    Ok(())
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
    }
}
