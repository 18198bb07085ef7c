#![doc = include_str!("../README.md")]

mod device;
mod device_vec;
mod error;
pub mod field_ops;
pub mod host;
pub mod interop;
pub mod launch;
pub mod multi;
mod ntt;
#[cfg(feature = "testing")]
pub mod testing;
pub mod timing;

pub use device::{DeviceInfo, Gpu};
pub use device_vec::DeviceVec;
pub use error::Error;
pub use host::{HostPipeline, HostProfile, InputCopy};
pub use interop::{BorrowedDeviceVec, RawDeviceBuffer};
pub use ntt::{FULL_TWIDDLES_DEFAULT_MAX_LOG, NttEngine};
pub use zkntt_core::plan::{
    Blocks, Chain, Kernels, Lde, Natural, Product, Stage1, Stage2, Trigger,
};
pub use zkntt_core::{BatchLayout, Direction, FieldId, GpuField, NttConfig, Ordering};

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Whether this build carries the GPU kernels (nvcc was found when it was compiled).
pub fn kernels_built() -> bool {
    zkntt_kernels::built()
}

/// How the kernels were (or were not) built: the compiler, or why there are none.
pub const KERNELS_BUILD_NOTE: &str = zkntt_kernels::BUILD_NOTE;
