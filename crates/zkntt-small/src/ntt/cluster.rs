//! The cluster kernel (`cuda/small/ntt_cluster.cu`): one transform of 2^13..2^16 in one launch,
//! on a thread-block cluster of 2^(log_n - 12) blocks that exchange through distributed shared
//! memory (sm_90+), where the panel path takes two launches through global memory. Taken for
//! 2^13..2^16 in every ordering where the batch is small (`cluster_batch_fits`).

use super::{NttParams, SmallNtt, THREADS};
use crate::field::TILE_LOG;
use crate::{Direction, Result, SmallField};
use cudarc::driver::{CudaFunction, CudaStream, DeviceRepr, LaunchConfig};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// log2 of the largest cluster the kernel takes (16 blocks: sm_90's non-portable maximum).
pub(crate) const MAX_LOG_CLUSTER: u32 = 4;

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

/// Whether a batch of `batch` transforms in clusters of 2^log_c blocks goes to the cluster kernel
/// rather than the panel passes, in any ordering: batch x C^2 <= 256, so up to 64 transforms of
/// 2^13 and a single one of 2^16 (clusters of up to 16 blocks, every order storing whole runs).
/// Measured (benches/NOTES.md): 2^13 x 64 12.3 us against the panels' 14.9 (H100); RN 2^16 x 1
/// 12.9-14.0 against 15.7-17.2 (H100), NN 2^16 x 1 12.6-12.9 against 14.9-15.3 (BabyBear, H200;
/// KoalaBear 12.1-13.4 against 15.0-15.2); the
/// bound between (C = 4, 8) is interpolated, not measured.
pub(crate) fn cluster_batch_fits(log_c: u32, batch: u64) -> bool {
    log_c <= MAX_LOG_CLUSTER && batch.checked_shl(2 * log_c).is_some_and(|b| b <= 256)
}

fn config(batch: u64, log_cluster: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((batch << log_cluster) as u32, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// log2 N of the largest transform the cluster kernel `f` runs on this GPU: 12 + the largest
/// log2 cluster size (up to [`MAX_LOG_CLUSTER`]) of which the driver schedules at least one
/// cluster; `TILE_LOG` (no cluster sizes) before sm_90 or where the driver refuses.
pub(super) fn max_log_n(stream: &CudaStream, f: &CudaFunction, sm90: bool) -> u32 {
    let mut max = TILE_LOG;
    if !sm90 {
        return max;
    }
    for log_c in 1..=MAX_LOG_CLUSTER {
        let fits = zkntt_gpu::launch::max_active_clusters(stream, f, config(1, log_c), 1 << log_c)
            .is_ok_and(|n| n >= 1);
        if !fits {
            break;
        }
        max = TILE_LOG + log_c;
    }
    max
}

impl SmallNtt {
    /// Whether [`SmallNtt::run`], [`SmallNtt::run_into`] and [`SmallNtt::run_ordered`] (in any
    /// ordering) take the cluster kernel for `batch` transforms of 2^log_n with `kernel`: the WSX
    /// kernel, a size above one tile that this GPU's clusters hold, a batch small enough
    /// (`cluster_batch_fits`), and clusters not switched off ([`SmallNtt::set_clusters`]).
    pub fn takes_cluster(&self, log_n: u32, batch: u64, kernel: super::Kernel) -> bool {
        kernel == super::Kernel::Wsx
            && log_n > TILE_LOG
            && log_n <= self.cluster_max_log_n
            && cluster_batch_fits(log_n - TILE_LOG, batch)
            && self.clusters.load(Ordering::Relaxed)
    }

    /// log2 of the largest transform this GPU's clusters hold (12 where they hold none: before
    /// sm_90). [`SmallNtt::takes_cluster`] takes 2^13..2^16 of it where the batch is small
    /// (`cluster_batch_fits`).
    pub fn cluster_max_log_n(&self) -> u32 {
        self.cluster_max_log_n
    }

    /// Switches the cluster kernel on (the default where the GPU has clusters) or off (the sizes
    /// it takes then take the two panel passes): for comparisons.
    pub fn set_clusters(&self, on: bool) {
        self.clusters.store(on, Ordering::Relaxed);
    }

    /// `batch` transforms of 2^log_n (13..=cluster_max_log_n) from `src` to `dst` (may be
    /// equal), one cluster of 2^(log_n - 12) blocks each, in `ordering`; the inverse's outputs
    /// times 1/N.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cluster(
        &self,
        stream: &Arc<CudaStream>,
        src: u64,
        dst: u64,
        log_n: u32,
        batch: u64,
        direction: Direction,
        ordering: zkntt_gpu::Ordering,
    ) -> Result<()> {
        let log_c = log_n - TILE_LOG;
        debug_assert!((1..=MAX_LOG_CLUSTER).contains(&log_c));
        if batch == 0 {
            return Ok(());
        }
        let (lo, hi) = self.post_tables(stream, log_n, direction)?;
        let tw = self.twiddle_table(direction);
        let scale_log_n = (direction == Direction::Inverse).then_some(log_n);
        let ntt = NttParams {
            order: super::order_code(ordering),
            ..self.params(tw, src, batch, log_n, scale_log_n, Some((lo, hi, TILE_LOG)))?
        };
        let p = ClusterParams { ntt, out: dst };
        // SAFETY: the kernel takes one ClusterParams by value; the callers size `src` and `dst`
        // to `batch` transforms of 2^log_n, the tables hold the entries it indexes, and
        // `cluster_max_log_n` allowed this cluster size on the function.
        unsafe {
            zkntt_gpu::launch::launch_cluster(
                stream,
                &self.cluster_f,
                config(batch, log_c),
                &p,
                1 << log_c,
                false,
            )
        }?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_batches_as_measured() {
        assert!(cluster_batch_fits(1, 64) && !cluster_batch_fits(1, 65));
        assert!(cluster_batch_fits(3, 1) && !cluster_batch_fits(3, 8));
        assert!(cluster_batch_fits(2, 3) && !cluster_batch_fits(3, u64::MAX));
        // 2^16 (16 blocks): a cluster for one transform.
        assert!(cluster_batch_fits(4, 1) && !cluster_batch_fits(4, 2));
    }

    #[test]
    fn params_match_the_c_struct() {
        // NttParams (72 bytes) and a pointer, at the C struct's offsets.
        assert_eq!(std::mem::size_of::<ClusterParams>(), 80);
        assert_eq!(std::mem::align_of::<ClusterParams>(), 8);
        assert_eq!(std::mem::offset_of!(ClusterParams, out), 72);
    }
}
