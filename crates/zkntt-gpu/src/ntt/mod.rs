//! The big-field NTT engine: the launch table of `zkntt_core::plan` run by the kernels of
//! `cuda/ntt/` (`column.cu`, `middle.cu`, `stage1_block.cu`, `stage2_warp.cu`).

mod engine;
mod launch;
mod params;
mod twiddles;

pub use engine::NttEngine;
pub(crate) use launch::Prepared;
pub(crate) use params::PowerTable;
pub use twiddles::FULL_TWIDDLES_DEFAULT_MAX_LOG;
pub(crate) use twiddles::{SplitPowers, lo_bits, scaled_powers};
