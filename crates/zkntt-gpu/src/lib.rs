#![doc = include_str!("../README.md")]

mod device;
mod device_vec;
mod error;
pub mod field_ops;
pub mod host_pipeline;
mod ntt;
pub mod test_support;
pub mod timing;

pub use device::{DeviceInfo, Gpu};
pub use device_vec::DeviceVec;
pub use error::Error;
pub use host_pipeline::{HostPipeline, HostProfile};
pub use ntt::NttEngine;
pub use zkntt_core::{BatchLayout, Direction, NttConfig, Ordering};

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
