#![doc = include_str!("../README.md")]

mod error;
pub mod fft;
pub mod field;
pub mod gpu;
pub mod modmul;
pub mod modmul_gpu;
pub mod reference;
pub mod tables;
pub mod timing;
pub mod twin;

pub use error::Error;
pub use field::{Direction, SmallField};
pub use gpu::{Kernel, PinnedBuffer, SmallNtt};
pub use modmul::ModMulForm;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
