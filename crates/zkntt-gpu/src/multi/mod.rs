//! Several GPUs of one host.
//!
//! - [`GpuPool`]: throughput. A batch of transforms (host memory in and out) cut into one share per
//!   GPU, each through that GPU's own host pipeline, all at once.
//! - [`SplitEngine`]: size. One transform across k GPUs (k a power of two) by the four-step split
//!   of `zkntt_core::distributed`, with one NCCL all-to-all; device-resident in the distributed
//!   layouts, or host to host in natural order.
//! - [`Nccl`]: the NCCL library, loaded at run time (none is linked; without it only the split
//!   fails, with the command that installs it).
//!
//! A split costs an all-to-all of (k-1)/k of the data per GPU and two local passes that cost more
//! than the engine's own transform: on 2 H100s linked by NVLink it is 1.19-1.31x one GPU
//! device-resident (2^24..2^28) and 0.3-0.4x host to host; `benches/results/h100.md` has the figures.

mod nccl;
mod pool;
mod split;

pub use nccl::Nccl;
pub use pool::GpuPool;
pub use split::{SplitChoice, SplitEngine, SplitPolicy};
