//! What every subcommand shares: `--device N`, the checks of output files before a long run, and
//! clap's errors on one line.

use std::path::Path;
use zkntt_gpu::Gpu;

/// `--device N`: the CUDA device a subcommand runs on (`zkntt info` lists them).
#[derive(clap::Args, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceArg {
    /// The CUDA device to run on (default 0; `zkntt info` lists them).
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
}

impl DeviceArg {
    pub fn ordinal(self) -> usize {
        self.device.unwrap_or(0)
    }

    /// The device, or one line saying why not: no GPU at all, or no such ordinal.
    pub fn open(self) -> Result<Gpu, String> {
        open_device(self.ordinal())
    }
}

/// Device `ordinal`, or one line: "no GPU: ..." or "--device N: no such GPU (...)".
pub fn open_device(ordinal: usize) -> Result<Gpu, String> {
    let count = Gpu::device_count();
    if count > 0 && ordinal >= count {
        return Err(no_such_device(ordinal, count));
    }
    Gpu::new(ordinal).map_err(|e| e.to_string().replace('\n', " "))
}

pub fn no_such_device(ordinal: usize, count: usize) -> String {
    format!(
        "--device {ordinal}: no such GPU (this machine has {count}: 0..={})",
        count - 1
    )
}

/// `Err(one line)` unless `path` can be written: checked before a run that would otherwise fail
/// only at its end. A file created by the check is removed again.
pub fn check_writable(flag: &str, path: &Path) -> Result<(), String> {
    let existed = path.exists();
    if path.is_dir() {
        return Err(format!("{flag} {}: is a directory", path.display()));
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    {
        Ok(_) => {
            if !existed {
                let _ = std::fs::remove_file(path);
            }
            Ok(())
        }
        Err(e) => Err(format!("{flag} {}: cannot write: {e}", path.display())),
    }
}

/// `check_writable` for a plot: also the name must end in `.svg` (only plotters' SVG backend is
/// built in, so that the binary needs no system fonts or image libraries).
pub fn check_svg(flag: &str, path: &Path) -> Result<(), String> {
    if !path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
    {
        return Err(format!(
            "{flag} {}: plots are SVG only; name the file *.svg",
            path.display()
        ));
    }
    check_writable(flag, path)
}

/// The `--json FILE` and `--plot FILE.svg` of a bench subcommand, checked before its GPU is opened.
pub fn check_outputs(json: Option<&Path>, plot: Option<&Path>) -> Result<(), String> {
    if let Some(p) = json {
        check_writable("--json", p)?;
    }
    if let Some(p) = plot {
        check_svg("--plot", p)?;
    }
    Ok(())
}

/// Writes `text` to `path`, the error on one line naming the flag.
pub fn write_file(flag: &str, path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{flag} {}: cannot write: {e}", path.display()))
}

/// A clap error as one line (`error: ...`), clap's usage and tips left out: every bad input is one
/// line on stderr.
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("error: bad arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // "the following required arguments were not provided:" names them on the lines after.
    let mut line = first.to_string();
    if first.ends_with(':') {
        let named: Vec<&str> = lines.take_while(|l| !l.starts_with("Usage:")).collect();
        if !named.is_empty() {
            line = format!("{first} {}", named.join(", "));
        }
    }
    format!("error: {line} (see --help)")
}

/// A message on one line: "3 checks failed:\n  a\n  b" becomes "3 checks failed: a; b".
pub fn join_lines(text: &str) -> String {
    let mut line = String::new();
    for part in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !line.is_empty() {
            line += if line.ends_with(':') { " " } else { "; " };
        }
        line += part;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_one_line() {
        assert_eq!(
            join_lines("2 check(s) failed:\n  a\n  b\n"),
            "2 check(s) failed: a; b"
        );
        assert_eq!(join_lines("plain"), "plain");
    }

    #[test]
    fn output_files_are_checked_before_the_run() {
        let dir = std::env::temp_dir().join(format!("zkntt-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fresh = dir.join("out.json");
        assert!(check_writable("--json", &fresh).is_ok());
        assert!(!fresh.exists(), "the check leaves no file behind");
        let e = check_writable("--json", &dir.join("no/such/dir/out.json")).unwrap_err();
        assert!(
            e.starts_with("--json ") && e.contains("cannot write"),
            "{e}"
        );
        let e = check_writable("--plot", &dir).unwrap_err();
        assert!(e.contains("is a directory"), "{e}");
        assert!(check_svg("--plot", &dir.join("m.svg")).is_ok());
        let e = check_svg("--plot", &dir.join("m.png")).unwrap_err();
        assert!(e.contains("SVG only"), "{e}");
        assert!(check_outputs(None, None).is_ok());
        assert!(check_outputs(Some(&fresh), Some(&dir.join("m.svg"))).is_ok());
        let e = check_outputs(Some(&fresh), Some(&dir.join("m.png"))).unwrap_err();
        assert!(e.starts_with("--plot ") && e.contains("SVG only"), "{e}");
        let e = check_outputs(Some(&dir), Some(&dir.join("m.svg"))).unwrap_err();
        assert!(
            e.starts_with("--json ") && e.contains("is a directory"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn no_such_device_names_the_range() {
        assert_eq!(
            no_such_device(7, 2),
            "--device 7: no such GPU (this machine has 2: 0..=1)"
        );
    }
}
