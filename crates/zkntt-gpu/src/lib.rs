#![doc = include_str!("../README.md")]

mod device;
mod device_vec;
mod error;
pub mod field_ops;
pub mod test_support;

pub use device::{DeviceInfo, Gpu};
pub use device_vec::DeviceVec;
pub use error::Error;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
