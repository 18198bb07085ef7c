//! The big-field NTT engine: the plan of `zkntt_core::Plan` run by the kernels of `cuda/ntt/`.

mod engine;
mod params;
mod twiddles;

pub use engine::NttEngine;
pub(crate) use engine::Staged;
