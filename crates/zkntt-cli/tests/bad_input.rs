//! Bad input to every subcommand, run as a user runs it: a size above the two-adicity, a device
//! that does not exist, an output file that cannot be written, a range upside down. Each is one
//! line on stderr (`error: ...`) and a non-zero exit, never a panic, with or without a GPU. And
//! `zkntt plot` turns a saved JSON document into an SVG with no GPU (the small-word benches'
//! documents: tests/plot.rs).

mod common;

use common::{assert_one_line_error, plot_args, zkntt};
use std::path::PathBuf;

/// A directory of this test's own under the temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zkntt-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a missing device says: no such GPU where there are GPUs, no GPU where there are none.
const NO_DEVICE: &[&str] = &["no such GPU", "no GPU"];
const UNWRITABLE: &str = "/nonexistent-zkntt-dir";

#[test]
fn a_device_that_does_not_exist() {
    for args in [
        &[
            "bench", "ntt", "--device", "7", "--from", "10", "--to", "10",
        ][..],
        &[
            "bench", "ntt", "--matrix", "--device", "7", "--from", "10", "--to", "10",
        ],
        &[
            "bench",
            "ntt",
            "--host-only",
            "--device",
            "7",
            "--from",
            "10",
            "--to",
            "10",
        ],
        &["bench", "modmul", "--device", "7"],
        &["bench", "small-ntt", "--device", "7"],
        &["bench", "fft", "--device", "7"],
        &["prove", "--device", "7", "--constraints", "2^4"],
        &["demo", "--device", "7", "--log-n", "4"],
        &["verify", "--device", "7", "--max-log", "2"],
    ] {
        assert_one_line_error(args, NO_DEVICE);
    }
}

/// Work sizes that leave nothing to time: refused before any GPU work, with or without a GPU.
#[test]
fn empty_work_is_refused() {
    assert_one_line_error(&["bench", "modmul", "--n", "0"], &["--n 0"]);
    assert_one_line_error(&["bench", "modmul", "--iters", "0"], &["--iters 0"]);
    assert_one_line_error(
        &["bench", "fft", "--bytes", "1000"],
        &["--bytes 1000 is below"],
    );
    assert_one_line_error(&["bench", "fft", "--iters", "0"], &["--iters 0"]);
    assert_one_line_error(&["bench", "small-ntt", "--iters", "0"], &["--iters 0"]);
    // Host-pipeline settings without the host pipeline, ark's switch with the matrix.
    for args in [
        &["bench", "ntt", "--copy-threads", "2"][..],
        &["bench", "ntt", "--input-copy", "device"],
    ] {
        assert_one_line_error(args, &["add --host or --host-only"]);
    }
    assert_one_line_error(&["bench", "ntt", "--matrix", "--no-ark"], &["--no-ark"]);
    for bytes in ["0", "1000"] {
        assert_one_line_error(
            &["bench", "small-ntt", "--bytes", bytes],
            &[&format!(
                "--bytes {bytes}: must be a positive multiple of 16384"
            )],
        );
    }
}

#[test]
fn sizes_out_of_range() {
    assert_one_line_error(&["bench", "ntt", "--to", "29"], &["29 is not in 1..=28"]);
    // Unbounded, these allocated until memory ran out or started a million threads.
    assert_one_line_error(
        &["bench", "modmul", "--n", "18446744073709551615"],
        &["--n 18446744073709551615: at most 2^30 elements"],
    );
    for threads in ["0", "257"] {
        assert_one_line_error(
            &["bench", "ntt", "--host", "--copy-threads", threads],
            &[&format!("{threads} is not in 1..=256")],
        );
    }
    assert_one_line_error(
        &["bench", "ntt", "--matrix", "--from", "0"],
        &["0 is not in 1..=28"],
    );
    assert_one_line_error(
        &["bench", "ntt", "--from", "20", "--to", "12"],
        &["--from 20 is above --to 12"],
    );
    assert_one_line_error(
        &["bench", "ntt", "--matrix", "--from", "20", "--to", "12"],
        &["--from 20 is above --to 12"],
    );
    assert_one_line_error(
        &["prove", "--constraints", "2^30"],
        &["2^30 is above bn254's two-adicity (2^28)"],
    );
    assert_one_line_error(&["prove", "--constraints", "2^40"], &["k must be 3..=32"]);
    assert_one_line_error(&["bench", "fft", "--max-log", "30"], &["outside 2^"]);
    assert_one_line_error(
        &["bench", "fft", "--min-log", "12", "--max-log", "8"],
        &["outside 2^"],
    );
    assert_one_line_error(
        &["bench", "small-ntt", "--single", "12,30"],
        &["--single 30: the BabyBear NTT goes up to 2^26"],
    );
    assert_one_line_error(&["demo", "--log-n", "25"], &["25 is not in 0..=24"]);
    assert_one_line_error(
        &["verify", "--max-log", "29"],
        &["above bn254's two-adicity 28"],
    );
}

#[test]
fn output_files_that_cannot_be_written() {
    let json = format!("{UNWRITABLE}/m.json");
    let svg = format!("{UNWRITABLE}/m.svg");
    for args in [
        &["bench", "ntt", "--json", &json][..],
        &["bench", "ntt", "--matrix", "--json", &json],
        &["prove", "--json", &json, "--constraints", "2^4"],
    ] {
        assert_one_line_error(
            args,
            &["--json /nonexistent-zkntt-dir/m.json: cannot write"],
        );
    }
    for args in [
        &["bench", "ntt", "--plot", &svg][..],
        &[
            "bench", "ntt", "--matrix", "--from", "10", "--to", "12", "--plot", &svg,
        ],
    ] {
        assert_one_line_error(args, &["--plot /nonexistent-zkntt-dir/m.svg: cannot write"]);
    }
    // The small-word benches: the same checks, before their GPU is opened (so the same answer on
    // a machine without one).
    let fine = scratch("writable").join("m.json");
    let fine = fine.to_str().unwrap();
    for bench in ["modmul", "small-ntt", "fft"] {
        assert_one_line_error(
            &["bench", bench, "--json", &json],
            &["--json /nonexistent-zkntt-dir/m.json: cannot write"],
        );
        assert_one_line_error(
            &["bench", bench, "--plot", &svg],
            &["--plot /nonexistent-zkntt-dir/m.svg: cannot write"],
        );
        assert_one_line_error(
            &["bench", bench, "--plot", "m.png"],
            &["--plot m.png: plots are SVG only; name the file *.svg"],
        );
        assert_one_line_error(
            &["bench", bench, "--json", fine, "--plot", "m"],
            &["--plot m: plots are SVG only"],
        );
        // Checked before a device that does not exist is looked for.
        assert_one_line_error(
            &["bench", bench, "--device", "7", "--json", &json],
            &["--json /nonexistent-zkntt-dir/m.json: cannot write"],
        );
    }
    assert!(
        !std::path::Path::new(fine).exists(),
        "a checked --json file is not left behind"
    );
    std::fs::remove_dir_all(scratch("writable")).unwrap();
    let dir = scratch("dir-as-file");
    let d = dir.join("x.svg");
    std::fs::create_dir_all(&d).unwrap();
    let d = d.to_string_lossy().into_owned();
    assert_one_line_error(&["bench", "ntt", "--plot", &d], &["is a directory"]);
    for bench in ["modmul", "small-ntt", "fft"] {
        assert_one_line_error(&["bench", bench, "--json", &d], &["is a directory"]);
    }
    assert_one_line_error(
        &["bench", "ntt", "--plot", "m.png"],
        &["plots are SVG only"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_are_one_line() {
    assert_one_line_error(&["bench", "nope"], &["unrecognized subcommand"]);
    assert_one_line_error(&["bench", "ntt", "--device", "x"], &["invalid value 'x'"]);
    assert_one_line_error(
        &["bench", "ntt", "--matrix", "--host"],
        &["cannot be used with"],
    );
    assert_one_line_error(
        &plot_args("/nonexistent-zkntt.json", "x.svg"),
        &["--json /nonexistent-zkntt.json: cannot read"],
    );
    assert_one_line_error(
        &["plot"],
        &["required arguments were not provided: --json <FILE>, --out <FILE>"],
    );
}

/// A saved matrix document (shaped as `zkntt bench ntt --matrix --json` writes it) plotted with
/// no GPU; a document that is not one, and an unwritable output, are one-line errors.
#[test]
fn plot_from_saved_json() {
    let dir = scratch("plot");
    let cells: Vec<String> = (10..=14)
        .flat_map(|k: u32| {
            ["NN", "NR", "RN"].into_iter().flat_map(move |o| {
                [("forward", false), ("inverse", false), ("forward", true), ("inverse", true)]
                    .into_iter()
                    .map(move |(d, c)| {
                        let z = 0.01 * f64::from(1u32 << (k - 10));
                        format!(
                            r#"{{"log_n": {k}, "size": {}, "direction": "{d}", "coset": {c}, "order": "{o}", "zkntt_ms": {z}, "sppark_ms": {}, "ratio": 1.2, "verified": true, "same_result_as_sppark": true}}"#,
                            1u64 << k,
                            z * 1.2
                        )
                    })
            })
        })
        .collect();
    let doc = format!(
        r#"{{"kind": "matrix", "gpu": "NVIDIA H100 80GB HBM3", "timestamp": "2026-11-25T00:00:00Z", "reps": 20, "cells": [{}], "skipped": []}}"#,
        cells.join(",")
    );
    let json = dir.join("matrix.json");
    std::fs::write(&json, doc).unwrap();
    let svg = dir.join("matrix.svg");
    let out = zkntt(&plot_args(json.to_str().unwrap(), svg.to_str().unwrap()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..text.len().min(200)]);
    assert!(text.contains("sppark forward, fastest order") && text.contains("memory floor"));

    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"gpu": "x"}"#).unwrap();
    assert_one_line_error(
        &plot_args(bad.to_str().unwrap(), svg.to_str().unwrap()),
        &["not a zkntt bench --json document"],
    );
    std::fs::write(&bad, "{").unwrap();
    assert_one_line_error(
        &plot_args(bad.to_str().unwrap(), svg.to_str().unwrap()),
        &["not JSON"],
    );
    // Sizes past any plot: a shift overflowed at 2^70, and a range to 2^32 drew a label a size.
    for doc in [
        r#"{"kind":"ntt","device":[{"log_n":70,"forward_ms":1.0}]}"#,
        r#"{"kind":"fft","rows":[{"log_n":1,"zkntt_ms":1.0},{"log_n":4000000000,"zkntt_ms":1.0}]}"#,
        r#"{"kind":"matrix","cells":[{"log_n":-1}]}"#,
    ] {
        std::fs::write(&bad, doc).unwrap();
        assert_one_line_error(
            &plot_args(bad.to_str().unwrap(), svg.to_str().unwrap()),
            &["is not a size from 0 to 40"],
        );
    }
    assert_one_line_error(
        &plot_args(json.to_str().unwrap(), &format!("{UNWRITABLE}/m.svg")),
        &["--out /nonexistent-zkntt-dir/m.svg: cannot write"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn info_runs_anywhere() {
    let out = zkntt(&["info"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    // A build without nvcc (ZKNTT_CPU_ONLY=1, or none found) says so instead, and the emulator's
    // build (ZKNTT_EMU=1) that its kernels run on the CPU.
    let kernels = match (zkntt_kernels::NVCC_VERSION, zkntt_kernels::EMULATOR) {
        (Some(_), _) => "kernels: built",
        (None, Some(_)) => "kernels: emulated on the CPU",
        (None, None) => "kernels: NOT built",
    };
    assert!(stdout.contains(kernels), "{stdout}");
}
