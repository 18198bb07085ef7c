//! The zkntt binary as the CLI tests run it, and their one-line-error check.

use std::process::{Command, Output};

/// The binary under test: `ZKNTT_BIN` (the GPU machine's bundle, where the build's path does not
/// exist), else the one cargo built.
pub fn zkntt_bin() -> std::ffi::OsString {
    std::env::var_os("ZKNTT_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_zkntt").into())
}

/// `zkntt ARGS`, with the user's `RUST_LOG` out of the way.
pub fn zkntt(args: &[&str]) -> Output {
    Command::new(zkntt_bin())
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("the zkntt binary starts")
}

/// The arguments of `zkntt plot --json JSON --out OUT`.
#[allow(dead_code)] // each test binary compiles this module; not every one plots
pub fn plot_args<'a>(json: &'a str, out: &'a str) -> [&'a str; 5] {
    ["plot", "--json", json, "--out", out]
}

/// The run failed with exactly one non-empty line on stderr, `error: ...` containing one of `says`.
pub fn assert_one_line_error(args: &[&str], says: &[&str]) {
    let out = zkntt(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} exited 0: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{args:?}: stderr is not one line: {stderr}");
    assert!(
        lines[0].starts_with("error: ") && says.iter().any(|s| lines[0].contains(s)),
        "{args:?}: {stderr}"
    );
}
