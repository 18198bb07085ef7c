#![doc = include_str!("../README.md")]

mod config;
pub mod distributed;
mod error;
pub mod field;
pub mod four_step;
pub mod fp64;
pub mod plan;
pub mod reference;
pub mod self_sort;

pub use config::{BatchLayout, Direction, NttConfig, Ordering};
pub use error::Error;
pub use field::{FieldDesc, FieldId, GpuField};
pub use plan::Plan;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
