#![doc = include_str!("../README.md")]

pub mod coset;
mod error;
pub mod fft;
pub mod field;
pub mod modmul;
pub mod modmul_gpu;
pub mod ntt;
#[cfg(feature = "plonky3")]
pub mod plonky3;
pub mod reference;
pub mod tables;
mod transpose;
pub mod twin;

#[cfg(test)]
mod kernel_names;

pub use error::Error;
pub use field::SmallField;
pub use modmul::ModMulForm;
pub use ntt::{Kernel, PinnedBuffer, SmallNtt};
/// Forward or inverse: the runtime's (`zkntt_core`'s) direction, shared with the 256-bit NTT.
pub use zkntt_gpu::Direction;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
