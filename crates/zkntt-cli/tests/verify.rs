//! `zkntt verify` run as a user runs it. Bad arguments, and a machine without a GPU or a binary
//! without kernels, are one line on stderr and a non-zero exit, never a panic; with a GPU and
//! kernels, a small verify passes.

mod common;

use std::io::Write;
use std::process::Output;

/// `zkntt verify ARGS`.
fn zkntt_verify(args: &[&str]) -> Output {
    common::zkntt(&[&["verify"], args].concat())
}

/// `zkntt verify ARGS` failed with one line on stderr, `error: ...` containing one of `says`.
fn assert_one_line_error(args: &[&str], says: &[&str]) {
    common::assert_one_line_error(&[&["verify"], args].concat(), says)
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
