//! Progress bars (indicatif, on stderr when it is a terminal; hidden in logs, pipes and tests) and
//! the log writer that shares stderr with them: a log line hides the bar while it is written, so
//! the two never garble each other.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::Mutex;

/// The bar being drawn, if any.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// A bar of `len` steps counting `unit`, shown while the guard lives.
pub fn bar(len: u64, unit: &str) -> Bar {
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        let template = format!("{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {unit}  {{msg}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    *ACTIVE.lock().unwrap_or_else(|p| p.into_inner()) = Some(bar.clone());
    Bar(bar)
}

/// The bar of [`bar`]; cleared when dropped.
#[derive(Debug)]
pub struct Bar(pub ProgressBar);

impl Bar {
    /// `println!` on stdout with the bar hidden while the line is written.
    pub fn println(&self, line: impl std::fmt::Display) {
        self.0.suspend(|| println!("{line}"));
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
        *ACTIVE.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// stderr for the logs, with the active bar hidden while a line is written.
#[derive(Debug, Default, Clone, Copy)]
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let active = ACTIVE.lock().unwrap_or_else(|p| p.into_inner()).clone();
        match active {
            Some(bar) => bar.suspend(|| std::io::stderr().write_all(buf))?,
            None => std::io::stderr().write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}
