//! `zkntt plot` on saved JSON of each small-word bench (`zkntt bench modmul|small-ntt|fft --json`),
//! written here by hand in the shape those commands write: each becomes an SVG with the paths the
//! run measured, its floor and its ratios, with no GPU.

mod common;

use common::{assert_one_line_error, plot_args, zkntt};
use std::path::PathBuf;

/// `zkntt plot --json` of `doc`: the SVG's text, after checking the run said where it wrote it.
fn plot(name: &str, doc: &str) -> String {
    let dir = std::env::temp_dir().join(format!("zkntt-cli-plot-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (json, svg): (PathBuf, PathBuf) = (dir.join("run.json"), dir.join("run.svg"));
    std::fs::write(&json, doc).unwrap();
    let out = zkntt(&plot_args(json.to_str().unwrap(), svg.to_str().unwrap()));
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote "));
    let text = std::fs::read_to_string(&svg).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..text.len().min(200)]);
    assert!(text.trim_end().ends_with("</svg>"));
    text
}

fn assert_has(name: &str, svg: &str, labels: &[&str]) {
    for label in labels {
        assert!(svg.contains(label), "{name}: no \"{label}\" in the SVG");
    }
}

#[test]
fn modmul_json_is_plotted() {
    let mut rows = Vec::new();
    for (bits, q) in [(16, 65521), (28, 268369921)] {
        for (form, label, ms) in [
            ("dynamic", "dynamic %", 0.9),
            ("shoup", "Shoup", 0.2),
            ("montgomery", "Montgomery", 0.15),
        ] {
            rows.push(format!(
                r#"{{"bits": {bits}, "q": {q}, "form": "{form}", "label": "{label}", "ms": {ms}, "g_mul_per_s": 1000.0, "vs_montgomery": {}, "rtx4060_ms": null}}"#,
                ms / 0.15
            ));
        }
    }
    let doc = format!(
        r#"{{"kind": "modmul", "gpu": "NVIDIA H100 80GB HBM3", "timestamp": "2026-11-26T00:00:00Z", "n": 16777216, "chain": 16, "iters": 20, "warmup": 3, "rows": [{}], "instructions": []}}"#,
        rows.join(",")
    );
    let svg = plot("modmul", &doc);
    assert_has(
        "modmul",
        &svg,
        &[
            "modmul chains",
            "modulus bits",
            "dynamic %",
            "Shoup",
            "Montgomery",
            "memory floor",
            "Montgomery / memory floor",
            "time / Montgomery",
        ],
    );
}

#[test]
fn small_ntt_json_is_plotted() {
    let mut batched = Vec::new();
    for field in ["q28", "babybear"] {
        for log_n in 10..=12 {
            batched.push(format!(
                r#"{{"field": "{field}", "log_n": {log_n}, "batch": {}, "block_sync_ms": 1.4, "wsx_ms": 1.0, "wsx_v1_shuffles_ms": 1.2, "wsx_shoup_lazy_ms": 1.1}}"#,
                (1u64 << 28) >> log_n
            ));
        }
    }
    let single: Vec<String> = [12, 16, 20]
        .iter()
        .map(|k| {
            format!(
                r#"{{"field": "babybear", "log_n": {k}, "wsx_in_place_ms": 0.03, "wsx_out_of_place_ms": 0.02, "block_sync_out_of_place_ms": 0.04}}"#
            )
        })
        .collect();
    let doc = format!(
        r#"{{"kind": "small-ntt", "gpu": "NVIDIA H100 80GB HBM3", "timestamp": "2026-11-26T00:00:00Z", "bytes": 1073741824, "copy": {{"ms": 0.8, "gbps": 2684.4}}, "batched": [{}], "forms": [], "single": [{}], "streams": null}}"#,
        batched.join(","),
        single.join(",")
    );
    let svg = plot("small-ntt", &doc);
    assert_has(
        "small-ntt",
        &svg,
        &[
            "small-word NTT",
            "WSX q28, batches of 1024 MiB",
            "block-sync babybear, batches",
            "copy of a batch (2684 GB/s, timed)",
            "babybear single, WSX out of place",
            "q28 batches",
            "block-sync / WSX",
        ],
    );
}

#[test]
fn fft_json_is_plotted() {
    let rows: Vec<String> = [4, 8, 12, 16]
        .iter()
        .map(|k| {
            format!(
                r#"{{"log_n": {k}, "batch": {}, "zkntt_ms": 0.5, "cufft16_ms": 0.6, "cufft32_ms": 1.0, "err_zkntt": 1e-4, "err_cufft16": 3e-4, "err_cufft32": 1e-7}}"#,
                (1u64 << 27) >> k
            )
        })
        .collect();
    let doc = format!(
        r#"{{"kind": "fft", "gpu": "NVIDIA H100 80GB HBM3", "timestamp": "2026-11-26T00:00:00Z", "bytes": 536870912, "copy": {{"ms": 0.4, "gbps": 2684.4}}, "cufft": "libcufft.so.12", "rows": [{}]}}"#,
        rows.join(",")
    );
    let svg = plot("fft", &doc);
    assert_has(
        "fft",
        &svg,
        &[
            "fp16 complex FFT",
            "zkntt fp16 (Tensor Cores)",
            "cuFFT fp16",
            "cuFFT fp32",
            "copy of the same bytes",
            "cuFFT fp16 / zkntt",
            "zkntt / copy",
        ],
    );
}

/// A document of a known kind with nothing measured is a one-line error, not an empty plot.
#[test]
fn empty_documents_are_one_line_errors() {
    let dir = std::env::temp_dir().join(format!("zkntt-cli-plot-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("x.svg");
    for (kind, body) in [
        ("modmul", r#""rows": []"#),
        ("small-ntt", r#""batched": [], "single": []"#),
        ("fft", r#""rows": []"#),
    ] {
        let json = dir.join(format!("{kind}.json"));
        std::fs::write(&json, format!(r#"{{"kind": "{kind}", {body}}}"#)).unwrap();
        assert_one_line_error(
            &plot_args(json.to_str().unwrap(), svg.to_str().unwrap()),
            &["no rows to plot", "no sizes to plot"],
        );
    }
    assert!(!svg.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
