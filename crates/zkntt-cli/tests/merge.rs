//! `zkntt bench merge` and `zkntt bench ntt --matrix --processes K`, run as a user runs them:
//! saved matrix documents of several processes merged with no GPU (medians, per-process ranges, a
//! comparison of two builds), and bad input as one line on stderr.

mod common;

use common::{assert_one_line_error, plot_args, zkntt, zkntt_bin};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zkntt-merge-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A one-process matrix document (as `zkntt bench ntt --matrix --json` writes it) of 2^10..2^11,
/// every case and order: zkntt `z` ms at 2^10 (twice that at 2^11), sppark 1.0 ms a size step.
fn matrix_doc(gpu: &str, z: f64) -> String {
    let mut cells = Vec::new();
    for k in 10..=11u32 {
        let scale = f64::from(1u32 << (k - 10));
        for (d, c) in [
            ("forward", false),
            ("inverse", false),
            ("forward", true),
            ("inverse", true),
        ] {
            for o in ["NN", "NR", "RN"] {
                cells.push(format!(
                    r#"{{"log_n": {k}, "size": {}, "direction": "{d}", "coset": {c}, "order": "{o}", "zkntt_ms": {}, "sppark_ms": {scale}, "verified": true, "same_result_as_sppark": true}}"#,
                    1u64 << k,
                    z * scale
                ));
            }
        }
    }
    format!(
        r#"{{"kind": "matrix", "gpu": "{gpu}", "field": "bn254_fr", "timestamp": "2026-12-04T00:00:00Z", "reps": 30, "sppark": "built in", "full_twiddles_max_log": 22, "coset_offset": 5, "cells": [{}], "skipped": []}}"#,
        cells.join(",")
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn processes_merge_into_one_matrix() {
    let dir = scratch("files");
    let a = write(&dir, "a.json", &matrix_doc("H200", 0.9));
    let b = write(&dir, "b.json", &matrix_doc("H200", 1.1));
    let c = write(&dir, "c.json", &matrix_doc("H200", 1.05));
    let merged = dir.join("merged.json").to_string_lossy().into_owned();
    let out = zkntt(&["bench", "merge", &a, &b, &c, "--json", &merged]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The median over the three processes is 1.05 ms; the ratios 1/0.9, 1/1.1, 1/1.05.
    assert!(
        stdout.contains("| 10 | forward | 3 | 1.050 | 1.000 | 0.95 (0.909..1.111) |"),
        "{stdout}"
    );
    assert!(
        stdout.contains("below 1.00 in every process 0, in some processes only 24"),
        "{stdout}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged).unwrap()).unwrap();
    assert_eq!(doc["processes"], 3);
    assert_eq!(doc["runs"].as_array().unwrap().len(), 3);
    assert_eq!(doc["cells"][0]["below_one"], "some processes");
    // The merged document plots as a matrix does.
    let svg = dir.join("m.svg").to_string_lossy().into_owned();
    let out = zkntt(&plot_args(&merged, &svg));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Two builds: this one (b, c) against a base (a, a2): slower in every process (1.05..1.1
    // against 0.9..0.95).
    let a2 = write(&dir, "a2.json", &matrix_doc("H200", 0.95));
    let out = zkntt(&["bench", "merge", &b, &c, "--against", &a, &a2]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        stdout.contains("this against base: faster in every process 0, slower in every process 24, ranges overlap 0"),
        "{stdout}"
    );
    // With one process on a side nothing is called.
    let out = zkntt(&["bench", "merge", &b, &c, "--against", &a]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("one process a side (no call) 24"),
        "{stdout}"
    );
    // The same file twice is one process, not two.
    assert_one_line_error(&["bench", "merge", &a, &a], &["is the same run as"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_one_line() {
    let dir = scratch("bad");
    let h200 = write(&dir, "h200.json", &matrix_doc("H200", 1.0));
    let h100 = write(&dir, "h100.json", &matrix_doc("H100", 1.0));
    let not_matrix = write(&dir, "ntt.json", r#"{"kind": "ntt", "rows": []}"#);
    assert_one_line_error(&["bench", "merge"], &["required arguments"]);
    assert_one_line_error(
        &["bench", "merge", "/nonexistent-zkntt.json"],
        &["/nonexistent-zkntt.json: cannot read"],
    );
    assert_one_line_error(
        &["bench", "merge", &not_matrix],
        &["not a `zkntt bench ntt --matrix --json` document"],
    );
    assert_one_line_error(&["bench", "merge", &h200, &h100], &["differ in gpu"]);
    assert_one_line_error(
        &["bench", "merge", &h200, "--against", &h100],
        &["different GPUs"],
    );
    assert_one_line_error(
        &[
            "bench",
            "merge",
            &h200,
            "--json",
            "/nonexistent-zkntt-dir/m.json",
        ],
        &["cannot write"],
    );
    assert_one_line_error(
        &["bench", "ntt", "--processes", "2"],
        &["required arguments were not provided"],
    );
    assert_one_line_error(
        &["bench", "ntt", "--matrix", "--processes", "0"],
        &["0 is not in 1..=50"],
    );
    assert_one_line_error(
        &[
            "bench",
            "ntt",
            "--matrix",
            "--against",
            "/nonexistent-zkntt-bin",
        ],
        &["--against /nonexistent-zkntt-bin: no such file"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two processes of 2^10: merged where there is a GPU; one line naming the processes' own error
/// where there is none.
#[test]
fn processes_run_this_binary() {
    let has_gpu = !String::from_utf8_lossy(&zkntt(&["info"]).stdout).contains("GPU: none found");
    let dir = scratch("run");
    let json = dir.join("p.json").to_string_lossy().into_owned();
    let out = std::process::Command::new(zkntt_bin())
        .args([
            "bench",
            "ntt",
            "--matrix",
            "--processes",
            "2",
            "--from",
            "10",
        ])
        .args(["--to", "10", "--reps", "3", "--json", &json])
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    if has_gpu {
        assert!(out.status.success(), "{stderr}");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(doc["processes"], 2);
        assert_eq!(doc["cells"].as_array().unwrap().len(), 12);
    } else {
        assert!(!out.status.success());
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(
            lines[0].starts_with("error: no results to merge from this build")
                && lines[0].contains("process 2 (this build)")
                && lines[0].contains("needs a GPU"),
            "{stderr}"
        );
        assert!(!Path::new(&json).exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
