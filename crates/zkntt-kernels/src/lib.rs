#![doc = include_str!("../README.md")]

include!(concat!(env!("OUT_DIR"), "/kernels.rs"));

/// Whether the kernels were compiled into this build.
pub fn built() -> bool {
    FATBIN.is_some()
}
