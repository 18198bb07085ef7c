//! The crate's one kind of log line: a WARN the first time a reason is seen in the process, so a
//! failure repeated at every call of a prover's loop is one line, not thousands.

use std::collections::HashSet;
use std::fmt;
use std::sync::Mutex;

/// Logs `msg` at WARN the first time `key` is seen in this process; whether it did.
pub(crate) fn log_once(key: &str, msg: fmt::Arguments<'_>) -> bool {
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    let first = seen
        .get_or_insert_with(HashSet::new)
        .insert(key.to_string());
    if first {
        tracing::warn!(target: "zkntt_ark", reason = key, "{msg}");
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_is_logged_once() {
        assert!(log_once("test-key-a", format_args!("first")));
        assert!(!log_once("test-key-a", format_args!("second")));
        assert!(log_once("test-key-b", format_args!("other reason")));
    }
}
