//! The latency kernels, for transforms too few to fill the GPU: the quad kernel
//! (`cuda/small/ntt_quad.cu`: up to 2^12, one 1024-thread block per 4096-word tile) and the
//! cluster kernel (`cuda/small/ntt_cluster.cu`: 2^13..2^16 in one launch, on a thread-block
//! cluster of 2^(log_n - 12) such blocks that exchange through distributed shared memory, sm_90+),
//! where the WSX kernel gives a lone tile's 256 threads 16 words each and the panel path takes
//! two launches through global memory.

use super::{NttParams, SmallNtt};
use crate::field::TILE_LOG;
use crate::{Direction, Result, SmallField};
use cudarc::driver::{CudaFunction, CudaStream, DeviceRepr, LaunchConfig};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// log2 of the largest cluster the kernel takes (16 blocks: sm_90's non-portable maximum).
pub(crate) const MAX_LOG_CLUSTER: u32 = 4;

/// Threads of a quad or cluster block (`quad::THREADS`): four words each of a 4096-word tile.
const THREADS: u32 = 1024;

/// `small_ntt_quad_{field}_{form}` (the macro `ZKNTT_SMALL_QUAD` of `cuda/small/ntt_quad.cu`).
pub fn quad_kernel_name(field: SmallField, form: crate::ModMulForm) -> String {
    format!("small_ntt_quad_{}_{}", field.name(), form.name())
}

/// `small_ntt_cluster_{field}_{form}` (the macro `ZKNTT_SMALL_CLUSTER` of `cuda/small/ntt_cluster.cu`).
pub fn cluster_kernel_name(field: SmallField, form: crate::ModMulForm) -> String {
    format!("small_ntt_cluster_{}_{}", field.name(), form.name())
}

/// `ClusterParams` of `cuda/small/ntt_cluster.cu`, byte for byte.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ClusterParams {
    pub ntt: NttParams,
    pub out: u64,
}

// SAFETY: plain-old-data with the C layout the kernel declares (checked by size in a test).
unsafe impl DeviceRepr for ClusterParams {}

/// Dynamic shared memory of a block (`quad::smem_bytes`, `cluster::smem_bytes`): `tiles`
/// padded 4096-word tiles (a word of padding every 32), `plain` unpadded ones, and the
/// 4096-entry DIF table (two words an entry in the Shoup forms).
fn smem_bytes(form: crate::ModMulForm, tiles: u32, plain: u32) -> u32 {
    let entry = if form.has_companion() { 8 } else { 4 };
    let tile = 1u32 << TILE_LOG;
    4 * (tiles * (tile + tile / 32) + plain * tile) + entry * tile
}

fn config(blocks: u64, smem: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: smem,
    }
}

fn cluster_config(batch: u64, log_cluster: u32, form: crate::ModMulForm) -> LaunchConfig {
    config(batch << log_cluster, smem_bytes(form, 2, 1))
}

/// log2 N of the largest transform the cluster kernel `f` runs on this GPU: 12 + the largest
/// log2 cluster size (up to [`MAX_LOG_CLUSTER`]) of which the driver schedules at least one
/// cluster; `TILE_LOG` (no cluster sizes) before sm_90 or where the driver refuses.
pub(super) fn max_log_n(
    stream: &CudaStream,
    f: &CudaFunction,
    form: crate::ModMulForm,
    sm90: bool,
) -> u32 {
    let mut max = TILE_LOG;
    if !sm90 {
        return max;
    }
    for log_c in 1..=MAX_LOG_CLUSTER {
        let cfg = cluster_config(1, log_c, form);
        let fits = zkntt_gpu::launch::max_active_clusters(stream, f, cfg, 1 << log_c)
            .is_ok_and(|n| n >= 1);
        if !fits {
            break;
        }
        max = TILE_LOG + log_c;
    }
    max
}

impl SmallNtt {
    /// Whether [`SmallNtt::run`] and [`SmallNtt::run_into`] take the quad kernel for `batch`
    /// transforms of 2^log_n with `kernel`: the WSX kernel, at most one tile, tiles for at most
    /// one block per multiprocessor (a batch that fills the GPU keeps the WSX kernel), and the
    /// latency kernels not switched off ([`SmallNtt::set_latency_kernels`]).
    pub fn takes_quad(&self, log_n: u32, batch: u64, kernel: super::Kernel) -> bool {
        kernel == super::Kernel::Wsx
            && log_n <= TILE_LOG
            && (batch << log_n).div_ceil(1 << TILE_LOG) <= self.sms
            && self.latency_kernels.load(Ordering::Relaxed)
    }

    /// Whether [`SmallNtt::run`] and [`SmallNtt::run_into`] take the cluster kernel for `batch`
    /// transforms of 2^log_n with `kernel`: the WSX kernel, a size above one tile that this
    /// GPU's clusters hold, a batch whose clusters take at most one block per multiprocessor
    /// (a larger batch fills the GPU, where the panel passes measured faster), and the latency
    /// kernels not switched off ([`SmallNtt::set_latency_kernels`]).
    pub fn takes_cluster(&self, log_n: u32, batch: u64, kernel: super::Kernel) -> bool {
        kernel == super::Kernel::Wsx
            && log_n > TILE_LOG
            && log_n <= self.cluster_max_log_n
            && (batch << (log_n - TILE_LOG)) <= self.sms
            && self.latency_kernels.load(Ordering::Relaxed)
    }

    /// log2 of the largest transform the cluster kernel takes on this GPU (12 where it takes
    /// none: before sm_90).
    pub fn cluster_max_log_n(&self) -> u32 {
        self.cluster_max_log_n
    }

    /// Switches the latency kernels on (the default) or off: single transforms and small
    /// batches then take the WSX kernel up to 2^12 and the two panel passes above, as batches
    /// that fill the GPU do. For comparisons.
    pub fn set_latency_kernels(&self, on: bool) {
        self.latency_kernels.store(on, Ordering::Relaxed);
    }

    /// `batch` transforms of 2^log_n (<= 2^12) in place at `data`, one quad block per tile.
    pub(super) fn quad(
        &self,
        stream: &Arc<CudaStream>,
        data: u64,
        log_n: u32,
        batch: u64,
        direction: Direction,
    ) -> Result<()> {
        let tiles = (batch << log_n).div_ceil(1 << TILE_LOG);
        if tiles == 0 {
            return Ok(());
        }
        let f = &self.quad_f;
        let tw = self.twiddle_table(direction);
        let scale = (direction == Direction::Inverse).then_some(log_n);
        let p = self.params(tw, data, batch, log_n, scale, None)?;
        let cfg = config(tiles, smem_bytes(self.form, 1, 0));
        // SAFETY: the kernel takes one NttParams by value; `data` holds batch << log_n words
        // (checked by the callers) and the table holds the 4096 entries it stages.
        unsafe { zkntt_gpu::launch::launch(stream, f, cfg, &p, false) }?;
        Ok(())
    }

    /// `batch` transforms of 2^log_n (13..=cluster_max_log_n) from `src` to `dst` (may be
    /// equal), one cluster of 2^(log_n - 12) blocks each.
    pub(super) fn cluster(
        &self,
        stream: &Arc<CudaStream>,
        src: u64,
        dst: u64,
        log_n: u32,
        batch: u64,
        direction: Direction,
    ) -> Result<()> {
        let log_c = log_n - TILE_LOG;
        debug_assert!((1..=MAX_LOG_CLUSTER).contains(&log_c));
        if batch == 0 {
            return Ok(());
        }
        let f = &self.cluster_f;
        let (lo_ptr, hi_ptr) = self.post_tables(stream, log_n, direction)?;
        let tw = self.twiddle_table(direction);
        let scale = (direction == Direction::Inverse).then_some(log_n);
        let ntt = self.params(
            tw,
            src,
            batch,
            log_n,
            scale,
            Some((lo_ptr, hi_ptr, TILE_LOG)),
        )?;
        let p = ClusterParams { ntt, out: dst };
        // SAFETY: the kernel takes one ClusterParams by value; the callers size `src` and `dst`
        // to `batch` transforms of 2^log_n, the tables hold the entries it indexes, and
        // `cluster_max_log_n` allowed this cluster size on `f`.
        unsafe {
            zkntt_gpu::launch::launch_cluster(
                stream,
                f,
                cluster_config(batch, log_c, self.form),
                &p,
                1 << log_c,
            )
        }?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_match_the_c_struct() {
        // NttParams (64 bytes) and a pointer.
        assert_eq!(std::mem::size_of::<ClusterParams>(), 72);
    }

    #[test]
    fn shared_memory_matches_the_kernels() {
        // quad: a padded tile and the table; cluster: seg, col and row, the table.
        assert_eq!(
            smem_bytes(crate::ModMulForm::Montgomery, 1, 0),
            16896 + 16384
        );
        assert_eq!(
            smem_bytes(crate::ModMulForm::ShoupLazy, 1, 0),
            16896 + 32768
        );
        assert_eq!(
            smem_bytes(crate::ModMulForm::ShoupLazy, 2, 1),
            16384 + 2 * 16896 + 32768
        );
        // Every sm_90 block takes 227 KiB; sm_80's 163 KiB also hold both.
        assert!(smem_bytes(crate::ModMulForm::Shoup, 2, 1) <= 163 * 1024);
        assert_eq!(std::mem::align_of::<ClusterParams>(), 8);
    }
}
