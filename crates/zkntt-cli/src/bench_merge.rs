//! One matrix from several processes: `zkntt bench merge FILE...` combines the `--json` documents
//! of several `zkntt bench ntt --matrix` runs, and `zkntt bench ntt --matrix --processes K` runs K
//! processes of itself one after another and combines them (with `--against BIN`, also K of
//! another build, alternating A B B A ..., and compares the two builds).
//!
//! Why: some processes run some cells slow throughout (benches/NOTES.md, thirty-eighth session),
//! and the second of two back-to-back processes is slower in every column, so one process's
//! median is not enough to call a cell below 1.00. Per cell, each side's time is the median over
//! the processes of its per-process medians; the ratio sppark / zkntt is taken from those, and the
//! range of the per-process ratios says whether the cell is below 1.00 in every process, in some,
//! or in none. Two builds compare by their medians over the processes, and a cell is called faster
//! or slower only when the two builds' ranges of per-process times do not overlap.

use crate::AnyError;
use crate::bench_matrix::{self, Case, Cell, ORDERS, order_name, ratio};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use zkntt_gpu::Ordering;
use zkntt_gpu::timing::median;

/// A cell's place in the matrix: size, case, order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    log_n: u32,
    case: usize,
    order: usize,
}

/// One process's numbers of one cell.
#[derive(Debug, Clone, PartialEq)]
struct Sample {
    zkntt_ms: f64,
    sppark_ms: Option<f64>,
    zkntt_host_ms: Option<f64>,
    sppark_host_ms: Option<f64>,
    verified: bool,
    same_as_sppark: Option<bool>,
}

/// A cell over the processes: one entry per run merged (None where a run lacks the cell), so
/// that entry p of every cell is the same process.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedCell {
    /// Medians over the processes that measured it; `verified` and `same_as_sppark` hold in
    /// every one of them.
    pub cell: Cell,
    pub zkntt_per_process: Vec<Option<f64>>,
    pub sppark_per_process: Vec<Option<f64>>,
}

impl MergedCell {
    /// How many processes measured the cell.
    pub fn processes(&self) -> usize {
        self.zkntt_per_process.iter().flatten().count()
    }

    /// The per-process ratios sppark / zkntt, one per process that measured both.
    fn ratios(&self) -> impl Iterator<Item = f64> + '_ {
        self.zkntt_per_process
            .iter()
            .zip(&self.sppark_per_process)
            .filter_map(|(&z, &s)| ratio(s, z?))
    }

    /// The smallest and largest per-process ratio sppark / zkntt.
    pub fn ratio_range(&self) -> Option<(f64, f64)> {
        range(self.ratios())
    }

    /// The smallest and largest per-process zkntt time.
    pub fn zkntt_range(&self) -> Option<(f64, f64)> {
        range(self.zkntt_per_process.iter().flatten().copied())
    }
}

/// (min, max) of finite values; None when there are none.
fn range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

fn median_of(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.filter(|v| v.is_finite()).collect();
    (!v.is_empty()).then(|| median(&mut v))
}

/// Several processes' matrices as one.
#[derive(Debug, Clone)]
pub struct Merged {
    /// Rows of one size and case, their cells in `ORDERS` order (a row may lack an order that
    /// no process measured).
    pub rows: Vec<Vec<MergedCell>>,
    /// The documents merged, each a single process's (merged documents are taken apart).
    pub runs: Vec<Value>,
    /// Each run's name: its file, and its place in a merged file.
    pub names: Vec<String>,
    pub reps: Vec<u64>,
    pub sppark: String,
    /// Sizes some process skipped, with its reason.
    pub skipped: Vec<(u32, String)>,
}

impl Merged {
    /// A value every run shares ([`SETTING`]): the first run's.
    fn setting(&self, key: &str) -> &Value {
        field(&self.runs[0], key)
    }

    pub fn gpu(&self) -> &str {
        self.setting("gpu").as_str().unwrap_or("unknown GPU")
    }
}

/// Which build's runs a document gives: a document written with `--against` holds this build's
/// runs and, under "base", the base build's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    This,
    Base,
}

/// The single-process documents in `doc` with their names: itself, or the runs of a merged
/// document (its base's, for `Side::Base`, where it has one).
fn single_runs(doc: &Value, name: &str, side: Side) -> Result<Vec<(Value, String)>, String> {
    if side == Side::Base {
        if let Some(base) = doc.get("base") {
            return single_runs(base, &format!("{name} (base)"), Side::This);
        }
    }
    if let Some(runs) = doc.get("runs").and_then(Value::as_array) {
        let mut all = Vec::new();
        for (i, r) in runs.iter().enumerate() {
            all.extend(single_runs(
                r,
                &format!("{name} run {}", i + 1),
                Side::This,
            )?);
        }
        return Ok(all);
    }
    match doc.get("cells").and_then(Value::as_array) {
        None => Err(format!(
            "{name}: not a `zkntt bench ntt --matrix --json` document (no \"cells\")"
        )),
        Some(cells) if cells.is_empty() => Err(format!("{name}: a matrix document with no cells")),
        Some(_) => Ok(vec![(doc.clone(), name.to_string())]),
    }
}

fn field<'a>(doc: &'a Value, key: &str) -> &'a Value {
    doc.get(key).unwrap_or(&Value::Null)
}

/// One cell of a document: its key and its numbers, or why it cannot be read.
fn read_cell(c: &Value) -> Result<(Key, Sample), String> {
    let num = |k: &str| c.get(k).and_then(Value::as_f64);
    let log_n = c
        .get("log_n")
        .and_then(Value::as_u64)
        .filter(|&k| (1..=MAX_LOG).contains(&k))
        .ok_or("a cell without a log_n in 1..=32")? as u32;
    let inverse = match c.get("direction").and_then(Value::as_str) {
        Some("forward") => false,
        Some("inverse") => true,
        _ => return Err(format!("2^{log_n}: a cell without a direction")),
    };
    let coset = c
        .get("coset")
        .and_then(Value::as_bool)
        .ok_or_else(|| format!("2^{log_n}: a cell without coset"))?;
    let case = Case::ALL
        .iter()
        .position(|k| k.inverse() == inverse && k.coset() == coset)
        .expect("the four cases cover both flags");
    let order_text = c.get("order").and_then(Value::as_str).unwrap_or("");
    let order = ORDERS
        .iter()
        .position(|&o| order_name(o) == order_text)
        .ok_or_else(|| format!("2^{log_n}: a cell with order {order_text:?}"))?;
    let zkntt_ms = num("zkntt_ms")
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| {
            format!(
                "2^{log_n} {} {order_text}: no zkntt_ms above 0",
                Case::ALL[case].label()
            )
        })?;
    Ok((
        Key { log_n, case, order },
        Sample {
            zkntt_ms,
            sppark_ms: num("sppark_ms").filter(|v| v.is_finite() && *v > 0.0),
            zkntt_host_ms: num("zkntt_host_ms"),
            sppark_host_ms: num("sppark_host_ms"),
            verified: c.get("verified").and_then(Value::as_bool).unwrap_or(false),
            same_as_sppark: c.get("same_result_as_sppark").and_then(Value::as_bool),
        },
    ))
}

/// The largest log2 size a cell may name (BLS12-381's two-adicity).
const MAX_LOG: u64 = 32;

/// What the runs of one merge, and the two sides of a comparison, must share.
const SETTING: [&str; 4] = ["gpu", "field", "full_twiddles_max_log", "coset_offset"];

/// Merges matrix documents (`names[i]` names `docs[i]` in errors) of one build, `side` saying
/// which build's runs an A/B document gives. They must come from one GPU and one engine setting;
/// a merged document's runs are merged again one by one, and a run given twice is refused.
pub fn merge(docs: &[Value], names: &[String], side: Side) -> Result<Merged, String> {
    let mut runs = Vec::new();
    let mut run_names = Vec::new();
    for (doc, name) in docs.iter().zip(names) {
        for (run, run_name) in single_runs(doc, name, side)? {
            if let Some(j) = runs.iter().position(|r| *r == run) {
                return Err(format!(
                    "{run_name} is the same run as {}: a file given twice, or a merged file beside one of its own runs",
                    run_names[j]
                ));
            }
            runs.push(run);
            run_names.push(run_name);
        }
    }
    let first = runs.first().ok_or("no documents to merge")?;
    for key in SETTING {
        let want = field(first, key);
        if let Some(i) = runs.iter().position(|r| field(r, key) != want) {
            return Err(format!(
                "{} and {} differ in {key} ({want} and {}): runs of different GPUs or settings do not merge",
                run_names[0],
                run_names[i],
                field(&runs[i], key)
            ));
        }
    }
    let mut samples: BTreeMap<Key, Vec<Option<Sample>>> = BTreeMap::new();
    let mut skipped = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let cells = run["cells"].as_array().expect("single_runs checked it");
        for c in cells {
            let (key, sample) = read_cell(c).map_err(|e| format!("{}: {e}", run_names[i]))?;
            let per = samples.entry(key).or_insert_with(|| vec![None; runs.len()]);
            if per[i].replace(sample).is_some() {
                return Err(format!(
                    "{}: 2^{} {} {} appears twice",
                    run_names[i],
                    key.log_n,
                    Case::ALL[key.case].label(),
                    order_name(ORDERS[key.order])
                ));
            }
        }
        for s in run
            .get("skipped")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(k) = s.get("log_n").and_then(Value::as_u64) {
                let why = s.get("reason").and_then(Value::as_str).unwrap_or("skipped");
                let entry = (k as u32, format!("{}: {why}", run_names[i]));
                if !skipped.iter().any(|(k2, _)| *k2 == entry.0) {
                    skipped.push(entry);
                }
            }
        }
    }
    let mut rows: Vec<Vec<MergedCell>> = Vec::new();
    let mut last_row = None;
    for (key, per) in samples {
        let got: Vec<&Sample> = per.iter().flatten().collect();
        let all = |f: fn(&Sample) -> Option<bool>| -> Option<bool> {
            let v: Vec<bool> = got.iter().filter_map(|s| f(s)).collect();
            (!v.is_empty()).then(|| v.iter().all(|&b| b))
        };
        let cell = Cell {
            log_n: key.log_n,
            case: Case::ALL[key.case],
            order: ORDERS[key.order],
            zkntt_ms: median_of(got.iter().map(|s| s.zkntt_ms)).expect("every sample has one"),
            sppark_ms: median_of(got.iter().filter_map(|s| s.sppark_ms)),
            zkntt_host_ms: median_of(got.iter().filter_map(|s| s.zkntt_host_ms)),
            sppark_host_ms: median_of(got.iter().filter_map(|s| s.sppark_host_ms)),
            verified: got.iter().all(|s| s.verified),
            same_as_sppark: all(|s| s.same_as_sppark),
        };
        let merged = MergedCell {
            cell,
            zkntt_per_process: per.iter().map(|s| s.as_ref().map(|s| s.zkntt_ms)).collect(),
            sppark_per_process: per
                .iter()
                .map(|s| s.as_ref().and_then(|s| s.sppark_ms))
                .collect(),
        };
        if last_row == Some((key.log_n, key.case)) {
            rows.last_mut().expect("a row is open").push(merged);
        } else {
            rows.push(vec![merged]);
            last_row = Some((key.log_n, key.case));
        }
    }
    let mut reps: Vec<u64> = runs.iter().filter_map(|r| r["reps"].as_u64()).collect();
    reps.sort_unstable();
    reps.dedup();
    let sppark = runs
        .iter()
        .filter_map(|r| r["sppark"].as_str())
        .find(|s| *s == "built in")
        .or_else(|| first["sppark"].as_str())
        .unwrap_or("unknown")
        .to_string();
    skipped.sort();
    Ok(Merged {
        rows,
        names: run_names,
        reps,
        sppark,
        skipped,
        runs,
    })
}

/// Per process that measured the whole row, sppark's fastest order over zkntt NN.
fn best_ratios(row: &[MergedCell]) -> Vec<f64> {
    let Some(nn) = row.iter().find(|c| c.cell.order == Ordering::NN) else {
        return Vec::new();
    };
    (0..nn.zkntt_per_process.len())
        .filter(|&p| row.iter().all(|c| c.zkntt_per_process[p].is_some()))
        .filter_map(|p| {
            let best = row
                .iter()
                .filter_map(|c| c.sppark_per_process[p])
                .min_by(f64::total_cmp)?;
            ratio(Some(best), nn.zkntt_per_process[p]?)
        })
        .collect()
}

/// The smallest and largest of [`best_ratios`].
fn best_ratio_range(row: &[MergedCell]) -> Option<(f64, f64)> {
    range(best_ratios(row).into_iter())
}

/// A range of per-process ratios, to three places (two could show a range below 1.00 as 1.00).
fn fmt_range(r: Option<(f64, f64)>) -> String {
    r.map_or(String::new(), |(lo, hi)| format!(" ({lo:.3}..{hi:.3})"))
}

pub fn table_header() -> String {
    bench_matrix::table_header_with(&["processes"], " (per process)")
}

/// A row: medians over the processes, each ratio with the range of its per-process ratios.
pub fn table_row(row: &[MergedCell]) -> String {
    let first = &row[0].cell;
    let processes = row.iter().map(MergedCell::processes).max().unwrap_or(0);
    let mut line = format!("| {} | {} | {processes} |", first.log_n, first.case.label());
    for o in ORDERS {
        match row.iter().find(|c| c.cell.order == o) {
            Some(c) => {
                let wrong = if !c.cell.verified {
                    " WRONG"
                } else if c.cell.same_as_sppark == Some(false) {
                    " (results differ)"
                } else {
                    ""
                };
                line += &format!(
                    " {:.3}{wrong} | {} | {}{} |",
                    c.cell.zkntt_ms,
                    c.cell.sppark_ms.map_or("n/a".into(), |v| format!("{v:.3}")),
                    ratio(c.cell.sppark_ms, c.cell.zkntt_ms)
                        .map_or("n/a".into(), |v| format!("{v:.2}")),
                    fmt_range(c.ratio_range())
                );
            }
            None => line += " n/a | n/a | n/a |",
        }
    }
    let cells: Vec<Cell> = row.iter().map(|c| c.cell.clone()).collect();
    let nn = cells.iter().find(|c| c.order == Ordering::NN);
    line += &match (bench_matrix::best_sppark(&cells), nn) {
        (Some((o, s)), Some(nn)) => format!(
            " {:.2}{} (sppark {} {s:.3} ms) |",
            ratio(Some(s), nn.zkntt_ms).unwrap_or(f64::NAN),
            fmt_range(best_ratio_range(row)),
            order_name(o)
        ),
        _ => " n/a |".into(),
    };
    line
}

/// Where a cell's per-process ratios sit against 1.00.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Below {
    Every,
    Some,
    None,
}

pub fn below_one(c: &MergedCell) -> Option<Below> {
    below(c.ratio_range()?)
}

/// Where a row's per-process ratios of sppark's fastest order over zkntt NN sit against 1.00.
pub fn best_below_one(row: &[MergedCell]) -> Option<Below> {
    below(best_ratio_range(row)?)
}

fn below((lo, hi): (f64, f64)) -> Option<Below> {
    Some(if hi < 1.0 {
        Below::Every
    } else if lo < 1.0 {
        Below::Some
    } else {
        Below::None
    })
}

fn below_label(b: Below) -> &'static str {
    match b {
        Below::Every => "every process",
        Below::Some => "some processes",
        Below::None => "no process",
    }
}

fn cell_name(c: &Cell) -> String {
    format!("2^{} {} {}", c.log_n, c.case.label(), order_name(c.order))
}

/// "`what`: below 1.00 in every process N, in some processes only M", then the two lists.
fn below_lines(out: &mut Vec<String>, what: &str, every: Vec<String>, some: Vec<String>) {
    out.push(format!(
        "{what}: below 1.00 in every process {}, in some processes only {}",
        every.len(),
        some.len()
    ));
    if !every.is_empty() {
        out.push(format!(
            "  below 1.00 in every process: {}",
            every.join(", ")
        ));
    }
    if !some.is_empty() {
        out.push(format!(
            "  below 1.00 in some processes (unsettled): {}",
            some.join(", ")
        ));
    }
}

/// The lines under the table: the cells below 1.00 in every process and in some.
pub fn summary(m: &Merged) -> Vec<String> {
    let cells: Vec<&MergedCell> = m.rows.iter().flatten().collect();
    let runs = m.runs.len();
    // "(k of n)" where fewer processes than the merge's measured the cell or row.
    let of = |k: usize| {
        if k < runs {
            format!(" ({k} of {runs})")
        } else {
            String::new()
        }
    };
    let list = |want: Below| -> Vec<String> {
        cells
            .iter()
            .filter(|c| below_one(c) == Some(want))
            .map(|c| format!("{}{}", cell_name(&c.cell), of(c.ratios().count())))
            .collect()
    };
    let measured = cells.iter().filter(|c| below_one(c).is_some()).count();
    let mut out = Vec::new();
    below_lines(
        &mut out,
        &format!("{runs} process(es); {measured} cells with sppark"),
        list(Below::Every),
        list(Below::Some),
    );
    // zkntt NN against sppark's fastest order, by the per-process ratios of the row.
    let rows_below = |want: Below| -> Vec<String> {
        m.rows
            .iter()
            .filter(|row| best_below_one(row) == Some(want))
            .map(|row| {
                format!(
                    "2^{} {}{}",
                    row[0].cell.log_n,
                    row[0].cell.case.label(),
                    of(best_ratios(row).len())
                )
            })
            .collect()
    };
    below_lines(
        &mut out,
        "zkntt NN against sppark's fastest order",
        rows_below(Below::Every),
        rows_below(Below::Some),
    );
    let wrong: Vec<String> = cells
        .iter()
        .filter(|c| !c.cell.verified || c.cell.same_as_sppark == Some(false))
        .map(|c| cell_name(&c.cell))
        .collect();
    if !wrong.is_empty() {
        out.push(format!(
            "  a check failed in some process: {}",
            wrong.join(", ")
        ));
    }
    out
}

/// The merged `--json` document: the matrix document of the medians (so `zkntt plot` draws it),
/// each cell with its per-process numbers and ratio range, and every process's own document.
pub fn to_json(m: &Merged) -> Value {
    let rows: Vec<Vec<Cell>> = m
        .rows
        .iter()
        .map(|r| r.iter().map(|c| c.cell.clone()).collect())
        .collect();
    let timestamp = m
        .runs
        .iter()
        .filter_map(|r| r["timestamp"].as_str())
        .max()
        .unwrap_or("")
        .to_string();
    let mut doc = bench_matrix::to_json(
        m.gpu(),
        &timestamp,
        m.reps.first().copied().unwrap_or(0) as u32,
        &m.sppark,
        m.setting("full_twiddles_max_log").as_u64().unwrap_or(0) as u32,
        &rows,
        &m.skipped,
    );
    let cells = doc["cells"].as_array_mut().expect("to_json writes cells");
    for (v, c) in cells.iter_mut().zip(m.rows.iter().flatten()) {
        let r = c.ratio_range();
        v["processes"] = json!(c.processes());
        v["zkntt_ms_per_process"] = json!(c.zkntt_per_process);
        v["sppark_ms_per_process"] = json!(c.sppark_per_process);
        v["ratio_min"] = json!(r.map(|r| r.0));
        v["ratio_max"] = json!(r.map(|r| r.1));
        v["below_one"] = json!(below_one(c).map(below_label));
    }
    let best = doc["zkntt_nn_vs_sppark_best"]
        .as_array_mut()
        .expect("to_json writes the best-order rows");
    let with_nn = m
        .rows
        .iter()
        .filter(|r| r.iter().any(|c| c.cell.order == Ordering::NN));
    for (v, row) in best.iter_mut().zip(with_nn) {
        let r = best_ratio_range(row);
        v["ratio_min"] = json!(r.map(|r| r.0));
        v["ratio_max"] = json!(r.map(|r| r.1));
        v["below_one"] = json!(best_below_one(row).map(below_label));
    }
    doc["timing"] = json!(format!(
        "median over {} processes of each process's median of per-transform CUDA-event times; ratio_min/max: the per-process ratios",
        m.runs.len()
    ));
    doc["processes"] = json!(m.runs.len());
    doc["run_names"] = json!(m.names);
    doc["reps"] = json!(if m.reps.len() == 1 {
        json!(m.reps[0])
    } else {
        json!(m.reps)
    });
    doc["runs"] = json!(m.runs);
    doc
}

/// Prints the merged table and its summary.
pub fn print(m: &Merged, title: &str) {
    println!(
        "{title}: BN254 Fr on {}, {} process(es), sppark {}",
        m.gpu(),
        m.runs.len(),
        m.sppark
    );
    println!(
        "medians over the processes of each process's median; ratio = sppark / zkntt (above 1: zkntt faster), in brackets the smallest and largest per-process ratio\n"
    );
    println!("{}", table_header());
    for row in &m.rows {
        println!("{}", table_row(row));
    }
    for (k, why) in &m.skipped {
        println!("2^{k}: skipped ({why})");
    }
    println!();
    for line in summary(m) {
        println!("{line}");
    }
}

/// How build B's zkntt time stands against build A's in one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every process of B faster than every process of A.
    Faster,
    Slower,
    /// The ranges overlap: no call.
    Overlap,
    /// A side measured it in one process only: a range of one point calls nothing.
    OneProcess,
}

impl Verdict {
    fn label(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Overlap => "overlap",
            Verdict::OneProcess => "one process: no call",
        }
    }
}

pub fn verdict(a: &MergedCell, b: &MergedCell) -> Option<Verdict> {
    if a.processes() < 2 || b.processes() < 2 {
        return Some(Verdict::OneProcess);
    }
    let ((a_lo, a_hi), (b_lo, b_hi)) = (a.zkntt_range()?, b.zkntt_range()?);
    Some(if b_hi < a_lo {
        Verdict::Faster
    } else if b_lo > a_hi {
        Verdict::Slower
    } else {
        Verdict::Overlap
    })
}

/// The comparison of build `b` (this one) against build `a`: per cell both medians, a / b (above
/// 1: b faster) and the verdict from the per-process ranges; then the counts.
pub fn comparison(a: &Merged, b: &Merged, a_name: &str, b_name: &str) -> Vec<String> {
    let (pairs, unpaired) = paired(a, b);
    let mut out = vec![
        format!(
            "| log2 N | transform | order | {a_name} ms (range) | {b_name} ms (range) | {a_name} / {b_name} | per-process ranges |"
        ),
        "|---|---|---|---|---|---|---|".into(),
    ];
    let (mut faster, mut slower, mut overlap, mut one) = (Vec::new(), Vec::new(), 0usize, 0usize);
    for (old, c) in pairs {
        let v = verdict(old, c);
        let rng = |m: &MergedCell| {
            m.zkntt_range()
                .map_or(String::new(), |(lo, hi)| format!(" ({lo:.4}..{hi:.4})"))
        };
        out.push(format!(
            "| {} | {} | {} | {:.4}{} | {:.4}{} | {:.3} | {} |",
            c.cell.log_n,
            c.cell.case.label(),
            order_name(c.cell.order),
            old.cell.zkntt_ms,
            rng(old),
            c.cell.zkntt_ms,
            rng(c),
            old.cell.zkntt_ms / c.cell.zkntt_ms,
            match v {
                Some(Verdict::Faster) => format!("{b_name} faster"),
                Some(Verdict::Slower) => format!("{b_name} slower"),
                Some(v) => v.label().into(),
                None => "overlap".into(),
            }
        ));
        match v {
            Some(Verdict::Faster) => faster.push(cell_name(&c.cell)),
            Some(Verdict::Slower) => slower.push(cell_name(&c.cell)),
            Some(Verdict::OneProcess) => one += 1,
            _ => overlap += 1,
        }
    }
    out.push(String::new());
    let mut counts = format!(
        "{b_name} against {a_name}: faster in every process {}, slower in every process {}, ranges overlap {overlap}",
        faster.len(),
        slower.len()
    );
    if one > 0 {
        counts += &format!(", one process a side (no call) {one}");
    }
    if unpaired > 0 {
        counts += &format!("; {unpaired} cell(s) measured by one build only");
    }
    out.push(counts);
    if !faster.is_empty() {
        out.push(format!("  faster: {}", faster.join(", ")));
    }
    if !slower.is_empty() {
        out.push(format!("  slower: {}", slower.join(", ")));
    }
    out
}

/// Build `b`'s cells with build `a`'s of the same size, case and order, and how many cells of
/// either build have no partner.
fn paired<'m>(a: &'m Merged, b: &'m Merged) -> (Vec<(&'m MergedCell, &'m MergedCell)>, usize) {
    let key = |c: &Cell| Key {
        log_n: c.log_n,
        case: Case::ALL.iter().position(|&k| k == c.case).unwrap_or(0),
        order: ORDERS.iter().position(|&o| o == c.order).unwrap_or(0),
    };
    let a_cells: BTreeMap<Key, &MergedCell> =
        a.rows.iter().flatten().map(|c| (key(&c.cell), c)).collect();
    let pairs: Vec<_> = b
        .rows
        .iter()
        .flatten()
        .filter_map(|c| Some((*a_cells.get(&key(&c.cell))?, c)))
        .collect();
    let cells = a_cells.len() + b.rows.iter().flatten().count();
    let unpaired = cells - 2 * pairs.len();
    (pairs, unpaired)
}

/// The comparison as JSON: per cell both medians and ranges and the verdict.
pub fn comparison_json(a: &Merged, b: &Merged) -> Value {
    let cells: Vec<Value> = paired(a, b)
        .0
        .into_iter()
        .map(|(old, c)| {
            json!({
                "log_n": c.cell.log_n,
                "direction": if c.cell.case.inverse() { "inverse" } else { "forward" },
                "coset": c.cell.case.coset(),
                "order": order_name(c.cell.order),
                "base_ms": old.cell.zkntt_ms,
                "this_ms": c.cell.zkntt_ms,
                "speedup": old.cell.zkntt_ms / c.cell.zkntt_ms,
                "verdict": verdict(old, c).unwrap_or(Verdict::Overlap).label(),
            })
        })
        .collect();
    json!({
        "speedup": "base_ms / this_ms (above 1: this build faster); verdict from the per-process ranges",
        "cells": cells,
    })
}

/// Reads and parses `--json` documents.
pub fn read_docs(paths: &[PathBuf]) -> Result<(Vec<Value>, Vec<String>), String> {
    let mut docs = Vec::new();
    let mut names = Vec::new();
    for p in paths {
        let text =
            std::fs::read_to_string(p).map_err(|e| format!("{}: cannot read: {e}", p.display()))?;
        let doc: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", p.display()))?;
        docs.push(doc);
        names.push(p.display().to_string());
    }
    Ok((docs, names))
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// `zkntt bench ntt --matrix --json` files of one build (or merged files), one per process.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Files of a base build (the same GPU and settings) to compare with, after the FILEs (a file
    /// written with --against gives its base's runs here): per cell, the base's time over this
    /// build's (above 1: this build faster), called faster or slower only where the per-process
    /// ranges do not overlap.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    against: Vec<PathBuf>,
    /// The merged matrix (and the comparison, with --against) as JSON into FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// An SVG of the merged matrix into FILE (as `zkntt plot` draws a matrix).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
}

/// `zkntt bench merge`.
pub fn merge_files(args: MergeArgs) -> Result<(), AnyError> {
    crate::args::check_outputs(args.json.as_deref(), args.plot.as_deref())?;
    let (docs, names) = read_docs(&args.files)?;
    let merged = merge(&docs, &names, Side::This)?;
    let against = if args.against.is_empty() {
        None
    } else {
        let (docs, names) = read_docs(&args.against)?;
        Some(merge(&docs, &names, Side::Base)?)
    };
    report(
        &merged,
        against.as_ref(),
        "this",
        "base",
        args.json.as_deref(),
        args.plot.as_deref(),
    )
}

/// Prints the merged matrix (and the comparison), and writes `--json` / `--plot`.
fn report(
    merged: &Merged,
    against: Option<&Merged>,
    this_name: &str,
    against_name: &str,
    json_path: Option<&Path>,
    plot_path: Option<&Path>,
) -> Result<(), AnyError> {
    if let Some(a) = against {
        if let Some(key) = SETTING.iter().find(|k| merged.setting(k) != a.setting(k)) {
            return Err(format!(
                "the builds' runs differ in {key} ({} and {}): no comparison (different GPUs, or settings: pass --full-twiddles-max-log to both)",
                merged.setting(key),
                a.setting(key)
            )
            .into());
        }
        print(a, &format!("matrix of {against_name}"));
        println!();
    }
    print(merged, &format!("matrix of {this_name}"));
    let mut doc = to_json(merged);
    if let Some(a) = against {
        println!();
        for line in comparison(a, merged, against_name, this_name) {
            println!("{line}");
        }
        doc["base"] = to_json(a);
        doc["comparison"] = comparison_json(a, merged);
    }
    crate::plot::save_outputs(&doc, json_path, plot_path)?;
    let wrong = merged
        .rows
        .iter()
        .chain(against.into_iter().flat_map(|a| a.rows.iter()))
        .flatten()
        .filter(|c| !c.cell.verified || c.cell.same_as_sppark == Some(false))
        .count();
    if wrong > 0 {
        return Err(
            format!("{wrong} cell(s) failed a check in some process (see the tables)").into(),
        );
    }
    Ok(())
}

/// `zkntt bench ntt --matrix --processes K [--against BIN]`: what each process runs.
pub struct ProcessPlan<'a> {
    pub processes: u32,
    pub against: Option<&'a Path>,
    /// The child's arguments after `bench ntt --matrix` (sizes, reps, device, engine setting).
    pub child_args: Vec<String>,
    pub json: Option<&'a Path>,
    pub plot: Option<&'a Path>,
}

/// The order of the processes: this build alone K times, or A B B A A B ... with another build.
pub fn schedule(processes: u32, against: bool) -> Vec<bool> {
    if !against {
        return vec![true; processes as usize];
    }
    (0..processes)
        .flat_map(|i| {
            if i % 2 == 0 {
                [true, false]
            } else {
                [false, true]
            }
        })
        .collect()
}

/// Runs `bin bench ntt --matrix ARGS --json out` to its end: its stderr passed on line by line
/// under `label` (its progress), except its `error: ...` lines, which are returned.
fn run_child(
    bin: &Path,
    args: &[String],
    out: &Path,
    label: &str,
) -> std::io::Result<(std::process::ExitStatus, Vec<String>)> {
    use std::io::BufRead;
    let mut child = std::process::Command::new(bin)
        .args(["bench", "ntt", "--matrix"])
        .args(args)
        .arg("--json")
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let mut errors = Vec::new();
    if let Some(stderr) = child.stderr.take() {
        // Bytes, not `lines()`: a line that is not UTF-8 must not stop the reading (the child
        // would then block on a full pipe).
        let mut reader = std::io::BufReader::new(stderr);
        let mut buf = Vec::new();
        while reader.read_until(b'\n', &mut buf).unwrap_or(0) > 0 {
            let line = String::from_utf8_lossy(&buf);
            let line = line.trim_end();
            match line.strip_prefix("error: ") {
                Some(e) => errors.push(e.to_string()),
                None if !line.is_empty() => eprintln!("  [{label}] {line}"),
                None => {}
            }
            buf.clear();
        }
    }
    Ok((child.wait()?, errors))
}

/// Runs the plan's processes one after another, then merges, prints and writes as
/// `zkntt bench merge` does. A process that fails its checks still counts (its cells say WRONG);
/// one that writes no document is reported and the others still merge.
pub fn run_processes(plan: ProcessPlan) -> Result<(), AnyError> {
    let this = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let dir = std::env::temp_dir().join(format!(
        "zkntt-processes-{}-{}",
        std::process::id(),
        bench_matrix::now().replace(':', "")
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let order = schedule(plan.processes, plan.against.is_some());
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    let mut failures = Vec::new();
    for (i, &is_this) in order.iter().enumerate() {
        let bin: &Path = if is_this {
            &this
        } else {
            plan.against.expect("scheduled")
        };
        let who = if is_this { "this build" } else { "base build" };
        let out = dir.join(format!("process-{}.json", i + 1));
        tracing::info!(
            target: "zkntt::bench",
            "process {} of {} ({who}: {}) ...",
            i + 1,
            order.len(),
            bin.display()
        );
        let started = std::time::Instant::now();
        let label = format!("process {} ({who})", i + 1);
        match run_child(bin, &plan.child_args, &out, &label) {
            Err(e) => failures.push(format!("{label}: cannot start {}: {e}", bin.display())),
            Ok((status, errors)) => {
                let said = if errors.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", errors.join("; "))
                };
                match read_docs(std::slice::from_ref(&out)) {
                    Ok((mut d, _)) => {
                        if !status.success() {
                            failures.push(format!("{label}: {status}{said}"));
                        }
                        let doc = d.pop().expect("one file read");
                        if is_this {
                            mine.push(doc)
                        } else {
                            theirs.push(doc)
                        }
                    }
                    Err(e) if status.success() => failures.push(format!("{label}: {e}")),
                    Err(_) => failures.push(format!("{label}: {status}, no results{said}")),
                }
            }
        }
        tracing::info!(
            target: "zkntt::bench",
            "process {} of {}: {:.0} s",
            i + 1,
            order.len(),
            started.elapsed().as_secs_f64()
        );
    }
    // The runs travel in the merged --json; without one, their own files stay.
    if plan.json.is_some() {
        let _ = std::fs::remove_dir_all(&dir);
    } else if !mine.is_empty() || !theirs.is_empty() {
        println!(
            "each process's document is kept in {} (`zkntt bench merge` takes them again)",
            dir.display()
        );
    }
    let names = |n: usize, who: &str| {
        (1..=n)
            .map(|i| format!("{who} process {i}"))
            .collect::<Vec<_>>()
    };
    if mine.is_empty() || (plan.against.is_some() && theirs.is_empty()) {
        return Err(format!(
            "no results to merge from {}:\n{}",
            if mine.is_empty() {
                "this build"
            } else {
                "the base build (--against)"
            },
            failures.join("\n")
        )
        .into());
    }
    let merged = merge(&mine, &names(mine.len(), "this build"), Side::This)?;
    let against = if theirs.is_empty() {
        None
    } else {
        Some(merge(
            &theirs,
            &names(theirs.len(), "base build"),
            Side::Base,
        )?)
    };
    let result = report(
        &merged,
        against.as_ref(),
        "this build",
        "base build",
        plan.json,
        plan.plot,
    );
    if !failures.is_empty() {
        return Err(format!(
            "{} process(es) failed:\n{}",
            failures.len(),
            failures.join("\n")
        )
        .into());
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-process matrix document of 2^10 forward (three orders) and 2^10 inverse NN.
    fn doc(z: [f64; 4], s: [f64; 4]) -> Value {
        let cell = |case, order, z, s| Cell {
            log_n: 10,
            case,
            order,
            zkntt_ms: z,
            sppark_ms: Some(s),
            zkntt_host_ms: Some(0.001),
            sppark_host_ms: None,
            verified: true,
            same_as_sppark: Some(true),
        };
        let rows = vec![
            vec![
                cell(Case::Forward, Ordering::NN, z[0], s[0]),
                cell(Case::Forward, Ordering::NR, z[1], s[1]),
                cell(Case::Forward, Ordering::RN, z[2], s[2]),
            ],
            vec![cell(Case::Inverse, Ordering::NN, z[3], s[3])],
        ];
        bench_matrix::to_json(
            "H200",
            "2026-12-04T00:00:00Z",
            30,
            "built in",
            22,
            &rows,
            &[],
        )
    }

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("d{i}")).collect()
    }

    /// One build's documents merged.
    fn merged(docs: &[Value]) -> Merged {
        merge(docs, &names(docs.len()), Side::This).unwrap()
    }

    #[test]
    fn medians_over_processes_and_per_process_ranges() {
        let docs = [
            doc([1.0, 1.0, 1.0, 1.0], [0.9, 1.2, 1.1, 1.1]),
            doc([1.2, 1.0, 1.0, 1.0], [0.9, 1.2, 1.1, 0.95]),
            doc([1.1, 1.0, 1.0, 1.0], [1.3, 1.2, 1.1, 1.05]),
        ];
        let m = merge(&docs, &names(3), Side::This).unwrap();
        assert_eq!(m.runs.len(), 3);
        assert_eq!(m.rows.len(), 2);
        let nn = &m.rows[0][0];
        assert_eq!(nn.cell.zkntt_ms, 1.1);
        assert_eq!(nn.cell.sppark_ms, Some(0.9));
        assert_eq!(nn.zkntt_per_process, vec![Some(1.0), Some(1.2), Some(1.1)]);
        let (lo, hi) = nn.ratio_range().unwrap();
        assert!((lo - 0.75).abs() < 1e-12 && (hi - 1.3 / 1.1).abs() < 1e-12);
        assert_eq!(below_one(nn), Some(Below::Some));
        assert_eq!(below_one(&m.rows[0][1]), Some(Below::None));
        // Inverse NN: 1.1, 0.95, 1.05 against 1.0.
        assert_eq!(below_one(&m.rows[1][0]), Some(Below::Some));
        // NN against sppark's best per process: 0.9/1.0, 0.9/1.2, 1.1/1.1.
        let (lo, hi) = best_ratio_range(&m.rows[0]).unwrap();
        assert!((lo - 0.75).abs() < 1e-12 && (hi - 1.0).abs() < 1e-12);
        let line = table_row(&m.rows[0]);
        assert!(
            line.starts_with("| 10 | forward | 3 | 1.100 | 0.900 | 0.82 (0.750..1.182) |"),
            "{line}"
        );
        assert!(
            line.ends_with("| 0.82 (0.750..1.000) (sppark NN 0.900 ms) |"),
            "{line}"
        );
        assert_eq!(
            table_header().lines().next().unwrap().matches('|').count(),
            line.matches('|').count()
        );
        // The inverse row lacks NR and RN: n/a there, the same columns.
        assert_eq!(
            table_row(&m.rows[1]).matches('|').count(),
            line.matches('|').count()
        );
        let s = summary(&m);
        assert!(
            s[0].contains("below 1.00 in every process 0, in some processes only 2"),
            "{s:?}"
        );
        // Forward: 0.9, 0.75, 1.0 (some); inverse: NN only, 1.1, 0.95, 1.05 (some).
        assert_eq!(best_below_one(&m.rows[0]), Some(Below::Some));
        assert!(
            s.iter().any(|l| l.contains(
                "fastest order: below 1.00 in every process 0, in some processes only 2"
            )),
            "{s:?}"
        );
    }

    #[test]
    fn below_in_every_process_is_called() {
        let docs = [
            doc([1.0; 4], [0.9, 1.2, 1.1, 1.1]),
            doc([1.0; 4], [0.95, 1.2, 1.1, 1.1]),
        ];
        let m = merge(&docs, &names(2), Side::This).unwrap();
        assert_eq!(below_one(&m.rows[0][0]), Some(Below::Every));
        let s = summary(&m);
        assert!(
            s.iter()
                .any(|l| l.contains("every process: 2^10 forward NN")),
            "{s:?}"
        );
    }

    #[test]
    fn merged_documents_merge_again_and_plot() {
        let a = doc([1.0; 4], [1.1; 4]);
        let b = doc([2.0; 4], [1.1; 4]);
        let m = merge(&[a.clone(), b.clone()], &names(2), Side::This).unwrap();
        let j = to_json(&m);
        assert_eq!(j["processes"], 2);
        assert_eq!(j["cells"][0]["zkntt_ms"], 1.5);
        assert_eq!(j["cells"][0]["zkntt_ms_per_process"], json!([1.0, 2.0]));
        assert_eq!(j["run_names"], json!(["d1", "d2"]));
        assert_eq!(j["cells"][0]["below_one"], "some processes");
        assert_eq!(j["zkntt_nn_vs_sppark_best"][0]["ratio_min"], 0.55);
        assert!(crate::plot::figure(&j).is_ok());
        // A merged document and a third run: the runs, not the medians, are merged.
        let c = doc([3.0; 4], [1.1; 4]);
        let again = merge(&[j, c], &names(2), Side::This).unwrap();
        assert_eq!(again.runs.len(), 3);
        assert_eq!(again.rows[0][0].cell.zkntt_ms, 2.0);
    }

    #[test]
    fn unlike_documents_do_not_merge() {
        let a = doc([1.0; 4], [1.1; 4]);
        let mut b = a.clone();
        b["gpu"] = json!("H100");
        let e = merge(&[a.clone(), b], &names(2), Side::This).unwrap_err();
        assert!(e.contains("differ in gpu"), "{e}");
        let e = merge(&[json!({"kind": "ntt"})], &names(1), Side::This).unwrap_err();
        assert!(e.contains("d1: not a `zkntt bench ntt --matrix"), "{e}");
        let mut twice = a.clone();
        let first = twice["cells"][0].clone();
        twice["cells"].as_array_mut().unwrap().push(first);
        let e = merge(&[twice], &names(1), Side::This).unwrap_err();
        assert!(e.contains("appears twice"), "{e}");
        let mut bad = a;
        bad["cells"][1]["order"] = json!("XX");
        let e = merge(&[bad], &names(1), Side::This).unwrap_err();
        assert!(e.contains("order \"XX\""), "{e}");
        assert!(merge(&[], &[], Side::This).is_err());
    }

    #[test]
    fn a_failed_check_in_one_process_marks_the_cell() {
        let a = doc([1.0; 4], [1.1; 4]);
        let mut b = a.clone();
        b["cells"][2]["verified"] = json!(false);
        let m = merge(&[a, b], &names(2), Side::This).unwrap();
        assert!(!m.rows[0][2].cell.verified);
        assert!(table_row(&m.rows[0]).contains("WRONG"));
        assert!(
            summary(&m)
                .iter()
                .any(|l| l.contains("check failed") && l.contains("forward RN"))
        );
    }

    #[test]
    fn builds_compare_only_where_the_ranges_part() {
        let a = merged(&[
            doc([1.0, 1.0, 1.0, 1.0], [1.0; 4]),
            doc([1.1, 1.0, 1.2, 1.0], [1.0; 4]),
        ]);
        let b = merged(&[
            doc([0.9, 1.05, 1.3, 1.0], [1.0; 4]),
            doc([0.95, 0.98, 1.25, 1.0], [1.0; 4]),
        ]);
        let v: Vec<Option<Verdict>> = b.rows[0]
            .iter()
            .zip(&a.rows[0])
            .map(|(n, o)| verdict(o, n))
            .collect();
        assert_eq!(
            v,
            [
                Some(Verdict::Faster),
                Some(Verdict::Overlap),
                Some(Verdict::Slower)
            ]
        );
        let lines = comparison(&a, &b, "main", "branch");
        assert!(
            lines.iter().any(|l| l.contains(
                "faster in every process 1, slower in every process 1, ranges overlap 2"
            )),
            "{lines:?}"
        );
        let j = comparison_json(&a, &b);
        assert_eq!(j["cells"][0]["verdict"], "faster");
        assert_eq!(j["cells"][2]["verdict"], "slower");
    }

    #[test]
    fn processes_alternate_with_another_build() {
        assert_eq!(schedule(3, false), [true, true, true]);
        assert_eq!(schedule(3, true), [true, false, false, true, true, false]);
    }

    #[test]
    fn processes_pair_by_run_where_cells_are_missing() {
        // Three runs of one row, each lacking one order: no run measured the whole row.
        let mut docs = vec![
            doc([1.0, 1.0, 1.0, 1.0], [0.1, 1.0, 1.0, 1.0]),
            doc([1.0, 1.0, 1.0, 1.0], [1.0, 3.0, 1.0, 1.0]),
            doc([3.0, 1.0, 1.0, 1.0], [1.0, 1.0, 3.0, 1.0]),
        ];
        for (d, drop) in docs.iter_mut().zip([2usize, 1, 0]) {
            d["cells"].as_array_mut().unwrap().remove(drop);
        }
        let m = merge(&docs, &names(3), Side::This).unwrap();
        assert_eq!(
            m.rows[0][0].zkntt_per_process,
            vec![Some(1.0), Some(1.0), None]
        );
        assert_eq!(
            m.rows[0][2].zkntt_per_process,
            vec![None, Some(1.0), Some(1.0)]
        );
        assert_eq!(best_ratio_range(&m.rows[0]), None);
        assert_eq!(best_below_one(&m.rows[0]), None);
        // The NN cell: ratios 0.1 (run 1) and 1.0 (run 2), run 3 lacks it: "1 of 3"... of 3 runs.
        let s = summary(&m);
        assert!(
            s.iter().any(|l| l.contains("2^10 forward NN (2 of 3)")),
            "{s:?}"
        );
    }

    #[test]
    fn odd_values_and_runs_are_refused_or_left_out() {
        let a = doc([1.0; 4], [1.1; 4]);
        // A run given twice, directly or inside a merged document.
        let e = merge(&[a.clone(), a.clone()], &names(2), Side::This).unwrap_err();
        assert!(e.contains("d2 is the same run as d1"), "{e}");
        let b = doc([2.0; 4], [1.1; 4]);
        let j = to_json(&merge(&[a.clone(), b], &names(2), Side::This).unwrap());
        let e = merge(&[j, a.clone()], &names(2), Side::This).unwrap_err();
        assert!(e.contains("d2 is the same run as d1 run 1"), "{e}");
        // sppark's time must be above 0 to count; zkntt's must be there.
        let mut neg = a.clone();
        neg["cells"][0]["sppark_ms"] = json!(-1.0);
        let m = merge(&[neg], &names(1), Side::This).unwrap();
        assert_eq!(m.rows[0][0].cell.sppark_ms, None);
        assert_eq!(below_one(&m.rows[0][0]), None);
        let mut zero = a.clone();
        zero["cells"][1]["zkntt_ms"] = json!(0.0);
        let e = merge(&[zero], &names(1), Side::This).unwrap_err();
        assert!(
            e.contains("d1: 2^10 forward NR: no zkntt_ms above 0"),
            "{e}"
        );
        let mut big = a.clone();
        big["cells"][0]["log_n"] = json!(64);
        let e = merge(&[big], &names(1), Side::This).unwrap_err();
        assert!(e.contains("log_n in 1..=32"), "{e}");
        let mut empty = a;
        empty["cells"] = json!([]);
        let e = merge(&[empty], &names(1), Side::This).unwrap_err();
        assert!(e.contains("no cells"), "{e}");
    }

    #[test]
    fn an_ab_document_gives_either_side() {
        let this = merge(
            &[doc([1.0; 4], [1.1; 4]), doc([1.2; 4], [1.1; 4])],
            &names(2),
            Side::This,
        )
        .unwrap();
        let base = merge(
            &[doc([2.0; 4], [1.1; 4]), doc([2.2; 4], [1.1; 4])],
            &names(2),
            Side::This,
        )
        .unwrap();
        let mut ab = to_json(&this);
        ab["base"] = to_json(&base);
        let again_this = merge(std::slice::from_ref(&ab), &names(1), Side::This).unwrap();
        let again_base = merge(std::slice::from_ref(&ab), &names(1), Side::Base).unwrap();
        assert_eq!(again_this.rows[0][0].cell.zkntt_ms, 1.1);
        assert_eq!(again_base.rows[0][0].cell.zkntt_ms, 2.1);
        assert_eq!(again_base.names, ["d1 (base) run 1", "d1 (base) run 2"]);
        // A plain file on the base side is the base build's own run.
        let plain = merge(&[doc([3.0; 4], [1.0; 4])], &names(1), Side::Base).unwrap();
        assert_eq!(plain.rows[0][0].cell.zkntt_ms, 3.0);
        // One process a side calls nothing.
        let one = merge(&[doc([0.5; 4], [1.0; 4])], &names(1), Side::This).unwrap();
        assert_eq!(
            verdict(&plain.rows[0][0], &one.rows[0][0]),
            Some(Verdict::OneProcess)
        );
        let lines = comparison(&plain, &one, "base", "this");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("one process a side (no call) 4")),
            "{lines:?}"
        );
    }
}
