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
//! than the engine's own transform: on H100s linked by NVLink it is 1.20-1.29x one GPU over 2 GPUs
//! and 2.17-2.49x over 4, device-resident (2^24..2^28), and 0.1-0.4x host to host;
//! `benches/results/h100.md` has the figures.

mod nccl;
mod pool;
mod split;

use crate::{Error, Gpu, NttEngine, Result};
use std::sync::Arc;

pub use nccl::Nccl;
pub use pool::GpuPool;
pub use split::{SplitChoice, SplitEngine, SplitPolicy};

/// The engines' device ordinals, in order: `BadDevices` when there are none or one is listed
/// twice. `what` names the user in the message ("a pool", "a split transform").
fn distinct_ordinals(engines: &[Arc<NttEngine>], what: &str) -> Result<Vec<usize>> {
    let ordinals: Vec<usize> = engines.iter().map(|e| e.gpu().ordinal()).collect();
    let mut sorted = ordinals.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if ordinals.is_empty() {
        return Err(Error::BadDevices(format!(
            "{what} needs at least one device, got none"
        )));
    }
    if sorted.len() != ordinals.len() {
        return Err(Error::BadDevices(format!(
            "{what} needs distinct devices, got {ordinals:?}"
        )));
    }
    Ok(ordinals)
}

/// An engine on each listed device; `NoDevice` for an empty list.
fn engines_on(ordinals: &[usize]) -> Result<Vec<Arc<NttEngine>>> {
    if ordinals.is_empty() {
        return Err(Error::NoDevice("no CUDA device is visible".into()));
    }
    ordinals
        .iter()
        .map(|&d| Gpu::new(d).map(|g| Arc::new(NttEngine::new(g))))
        .collect()
}
