//! `zkntt verify` run as a user runs it. Bad arguments, and a machine without a GPU or a binary
//! without kernels, are one line on stderr and a non-zero exit, never a panic; with a GPU and
//! kernels, a small verify passes.

use std::io::Write;
use std::process::{Command, Output};

/// The binary under test: `ZKNTT_BIN` (the GPU machine's bundle, where the build's path does not
/// exist), else the one cargo built.
fn zkntt_bin() -> std::ffi::OsString {
    std::env::var_os("ZKNTT_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_zkntt").into())
}

fn zkntt_verify(args: &[&str]) -> Output {
    Command::new(zkntt_bin())
        .arg("verify")
        .args(args)
        .output()
        .expect("the zkntt binary starts")
}

/// The run failed with exactly one non-empty line on stderr, `error: ...` containing one of `says`.
fn assert_one_line_error(args: &[&str], says: &[&str]) {
    let out = zkntt_verify(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "verify {args:?} exited 0: {stderr}");
    assert!(!stderr.contains("panicked"), "verify {args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "verify {args:?}: stderr is not one line: {stderr}"
    );
    assert!(
        lines[0].starts_with("error: ") && says.iter().any(|s| lines[0].contains(s)),
        "verify {args:?}: {stderr}"
    );
}

#[test]
fn bad_arguments_are_one_line_errors() {
    // Checked before any GPU is touched, so the same with or without one.
    assert_one_line_error(
        &["--min-log", "5", "--max-log", "3"],
        &["--min-log 5 is above --max-log 3"],
    );
    assert_one_line_error(
        &["--max-log", "40"],
        &["--max-log 40 is above bn254's two-adicity 28"],
    );
    assert_one_line_error(
        &["--field", "bls12-381", "--max-log", "33"],
        &["above bls12-381's two-adicity 32"],
    );
    assert_one_line_error(
        &["--field", "foo"],
        &["--field \"foo\": expected bn254, bls12-381 or all"],
    );
    // No such device: said so, or (without a GPU) that there is none.
    assert_one_line_error(
        &["--device", "4096", "--max-log", "2"],
        &["no such GPU", "no GPU", "kernels were not built"],
    );
}

#[test]
fn without_a_gpu_or_kernels_nothing_is_verified_and_the_exit_is_non_zero() {
    if zkntt_gpu::Gpu::device_count() > 0 && zkntt_gpu::kernels_built() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIP without_a_gpu_or_kernels...: this machine has a GPU and the kernels are built"
        );
        return;
    }
    assert_one_line_error(&[], &["nothing verified: "]);
    let out = zkntt_verify(&["--max-log", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no GPU") || stderr.contains("kernels were not built"),
        "{stderr}"
    );
    // Nothing on stdout that could be read as a passing table.
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn with_a_gpu_a_small_verify_passes() {
    if zkntt_gpu::Gpu::device_count() == 0 || !zkntt_gpu::kernels_built() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIP with_a_gpu_a_small_verify_passes: no GPU or no kernels here"
        );
        return;
    }
    let out = zkntt_verify(&["--min-log", "1", "--max-log", "4"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 2 fields x 4 sizes x 24 cases.
    assert!(
        stdout.contains("| total | | 192 | 192 | 0 | 0 |"),
        "{stdout}"
    );
    assert!(
        stdout.contains("all 192 cases equal to ark-poly"),
        "{stdout}"
    );
}
