//! NN's rows pass with the transpose in its store (`cuda/small/ntt_nn_rows.cu`): the 2-D path's
//! second pass in natural order as one launch on clusters of 8 blocks, each group of 8 tiles of
//! consecutive rows stored as runs of whole sectors across the rows, where the tile kernel's rows
//! need a transpose pass after them (from 2^22) and the panel kernel's rows-in, columns-out pass
//! runs below. Taken where a pass has 2^23 words or more ([`takes_shape`]). BabyBear's rows of
//! 2^13/2^14 (2^25, 2^26) take its wide variant (`small_ntt_nn_rows_wide_*`: a row a block, as the
//! wide tile kernel runs them, the same store), where the wide tile kernel and a transpose ran.

use super::{NttParams, SmallNtt, THREADS, two_d_split};
use crate::field::TILE_LOG;
use crate::{Direction, ModMulForm, Result, SmallField};
use cudarc::driver::{CudaFunction, CudaStream, DeviceRepr, LaunchConfig};
use std::sync::Arc;

/// log2 of the kernel's cluster: 8 blocks, one tile each, a group.
pub(crate) const LOG_CLUSTER: u32 = 3;

/// `small_ntt_nn_rows_{field}_{form}` (the macro `ZKNTT_SMALL_NN_ROWS` of `cuda/small/ntt_nn_rows.cu`).
pub fn nn_rows_kernel_name(field: SmallField, form: ModMulForm) -> String {
    format!("small_ntt_nn_rows_{}_{}", field.name(), form.name())
}

/// `small_ntt_nn_rows_wide_babybear_{form}` (the macro `ZKNTT_SMALL_NN_ROWS_WIDE`): NN's rows of
/// 2^13/2^14, BabyBear's only (the one field with transforms above 2^24).
pub fn nn_rows_wide_kernel_name(form: ModMulForm) -> String {
    format!(
        "small_ntt_nn_rows_wide_{}_{}",
        SmallField::BabyBear.name(),
        form.name()
    )
}

/// `NnRowsParams` of `cuda/small/ntt_nn_rows.cu`, byte for byte.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NnRowsParams {
    pub ntt: NttParams,
    pub out: u64,
    pub log_cols: u32,
    pub pad: u32,
}

// SAFETY: plain-old-data with the C layout the kernel declares (checked by size in a test).
unsafe impl DeviceRepr for NnRowsParams {}

/// Whether the kernel takes the rows of a 2-D split (2^log1 rows of 2^log2 a matrix): rows of
/// 2^9..2^12 (a tile holds T = 2^(12 - log2) of them), and a group's 8 T rows inside one matrix.
pub(crate) fn shape_fits(log1: u32, log2: u32) -> bool {
    (9..=TILE_LOG).contains(&log2) && log1 >= LOG_CLUSTER + (TILE_LOG - log2)
}

/// Whether the wide variant takes the rows of a 2-D split: rows of 2^13/2^14 (two or four
/// tiles, a row a block), a group's 8 rows inside one matrix.
pub(crate) fn wide_shape_fits(log1: u32, log2: u32) -> bool {
    (TILE_LOG + 1..=TILE_LOG + 2).contains(&log2) && log1 >= LOG_CLUSTER
}

/// The wide variant's dynamic shared memory for rows of 2^log2: its W = 2^(log2 - 12) tiles,
/// each 32 / W words apart from a tile's 4096 (the copy's banks), and the stage (256 K of 8
/// rows, 9 words a K).
pub(crate) fn wide_smem_bytes(log2: u32) -> u32 {
    let w = 1u32 << (log2 - TILE_LOG);
    4 * (w * ((1 << TILE_LOG) + 32 / w) + 256 * ((1 << LOG_CLUSTER) + 1))
}

/// Words of a pass from which NN's rows take the kernel: measured on the H100 (benches/NOTES.md,
/// forty-eighth session), NN by address BabyBear 2^23 116.2 -> 108.0 us, 2^24 247.5 -> 217.8,
/// 2^22 x 4 232.2 -> 204.1, 2^20 x 16 202.0 -> 188.2; below, 2^22 59.3 -> 61.9 and 2^17..2^21
/// 1-5 us slower (its staged exchange costs more than the transpose or the panel pass saves).
pub(crate) const MIN_WORDS: u64 = 1 << 23;

/// Whether NN's rows of `words` words in 2-D splits (log1, log2) take the kernel where the GPU
/// has its clusters (the twin follows the same rule).
pub(crate) fn takes_shape(log1: u32, log2: u32, words: u64) -> bool {
    shape_fits(log1, log2) && words >= MIN_WORDS
}

fn config(clusters: u64, shared_mem_bytes: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((clusters << LOG_CLUSTER) as u32, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes,
    }
}

/// Clusters of the kernel `f` this GPU holds at once (0: none, before sm_90 or where the driver
/// refuses clusters of 8).
pub(super) fn max_clusters(stream: &CudaStream, f: &CudaFunction, sm90: bool) -> u64 {
    if !sm90 {
        return 0;
    }
    zkntt_gpu::launch::max_active_clusters(stream, f, config(1, 0), 1 << LOG_CLUSTER)
        .map_or(0, u64::from)
}

/// [`max_clusters`] of the wide variant `f` with rows of 2^14 (the larger shared memory: where
/// those fit, rows of 2^13 do).
pub(super) fn max_wide_clusters(stream: &CudaStream, f: &CudaFunction, sm90: bool) -> u64 {
    if !sm90 {
        return 0;
    }
    let cfg = config(1, wide_smem_bytes(TILE_LOG + 2));
    zkntt_gpu::launch::max_active_clusters(stream, f, cfg, 1 << LOG_CLUSTER).map_or(0, u64::from)
}

impl SmallNtt {
    /// Whether NN (natural order in and out) of `batch` transforms of 2^log_n on the WSX
    /// kernel's 2-D path runs its rows pass on NN's rows kernel, with no transpose pass after it:
    /// rows of 2^9..2^12 (2^17..2^24) in 2^23 words or more ([`MIN_WORDS`]), or BabyBear's rows
    /// of 2^13/2^14 (2^25, 2^26) on its wide variant, where this GPU holds the kernel's clusters
    /// of 8 (sm_90). Otherwise 2^17..2^21 take the panel kernel's rows-in, columns-out pass,
    /// 2^22..2^24 the tile kernel's rows and a transpose, and 2^25/2^26 the wide tile kernel and
    /// a transpose.
    pub fn takes_nn_rows(&self, log_n: u32, batch: u64) -> bool {
        let (log1, log2) = two_d_split(log_n);
        if log2 > TILE_LOG {
            return self.nn_rows_wide_clusters > 0 && wide_shape_fits(log1, log2);
        }
        let words = batch.checked_shl(log_n).unwrap_or(u64::MAX);
        log_n > TILE_LOG && self.nn_rows_clusters > 0 && takes_shape(log1, log2, words)
    }

    /// The 2^log2-point rows of `batch` matrices of 2^log1 rows at `mid` (columns done and
    /// twiddled), X[k1 + N1 k2] into `dst` (not `mid`), the inverse's outputs times 1/N (`scale`
    /// = log2 N).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn nn_rows(
        &self,
        stream: &Arc<CudaStream>,
        mid: u64,
        dst: u64,
        log1: u32,
        log2: u32,
        batch: u64,
        direction: Direction,
        scale: Option<u32>,
    ) -> Result<()> {
        let wide = log2 > TILE_LOG;
        debug_assert!(mid != dst);
        debug_assert!(if wide {
            wide_shape_fits(log1, log2)
        } else {
            shape_fits(log1, log2)
        });
        let rows = batch << log1;
        if rows == 0 {
            return Ok(());
        }
        let tw = self.twiddle_table(direction);
        // As the columns pass's dependent launch, a cluster a group: measured faster than one
        // wave of clusters looping over the groups, and than either without the dependency
        // (the wide variant: level with it, benches/NOTES.md forty-ninth session).
        let dependent = self.dependent_launch;
        // The wide rows' own 2-D twiddle (columns of 2^(log2 - 12) points, then tiles).
        let post = match wide {
            true => {
                let (lo, hi) = self.post_tables(stream, log2, direction)?;
                Some((lo, hi, TILE_LOG))
            }
            false => None,
        };
        let ntt = NttParams {
            dependent: dependent as u32,
            ..self.params(tw, mid, rows, log2, scale, post)?
        };
        let p = NnRowsParams {
            ntt,
            out: dst,
            log_cols: log1,
            pad: 0,
        };
        let (f, groups, smem) = match (wide, &self.nn_rows_wide_f) {
            (true, Some(f)) => (f, rows >> LOG_CLUSTER, wide_smem_bytes(log2)),
            (true, None) => {
                return Err(crate::Error::OrderingUnsupported {
                    ordering: zkntt_gpu::Ordering::NN,
                    reason: "NN's wide rows kernel is BabyBear's only",
                });
            }
            (false, _) => (&self.nn_rows_f, rows >> (LOG_CLUSTER + TILE_LOG - log2), 0),
        };
        // The kernel loops over the groups beyond its grid (2^30 blocks at most).
        let cfg = config(groups.min(1 << 27), smem);
        // SAFETY: the kernel takes one NnRowsParams by value; the callers size `mid` and `dst`
        // to `batch` matrices of 2^(log1 + log2) words, a group's rows lie in one matrix
        // (`shape_fits`, `wide_shape_fits`), the tables hold the entries it indexes, the wide
        // variant's dynamic shared memory is `wide_smem_bytes`, and `nn_rows_clusters` /
        // `nn_rows_wide_clusters` found clusters of 8 schedulable on the function; with
        // `dependent` the kernel waits for the previous grid before its first global access.
        unsafe {
            zkntt_gpu::launch::launch_cluster(stream, f, cfg, &p, 1 << LOG_CLUSTER, dependent)
        }?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_the_kernel_takes() {
        // 2^17 = 2^8 x 2^9 (64-row groups), 2^22 = 2^11 x 2^11, 2^24 = 2^12 x 2^12.
        assert!(shape_fits(8, 9) && shape_fits(11, 11) && shape_fits(12, 12));
        // Rows above a tile (2^25, 2^26) or below 2^9; a group larger than a matrix.
        assert!(!shape_fits(12, 13) && !shape_fits(8, 8) && !shape_fits(5, 9));
        assert!(shape_fits(6, 9) && shape_fits(3, 12) && !shape_fits(2, 12));
        // From 2^23 words: 2^23 and 2^24 alone, 2^22 in twos, 2^17 in sixty-fours.
        assert!(takes_shape(11, 12, 1 << 23) && takes_shape(12, 12, 1 << 24));
        assert!(!takes_shape(11, 11, 1 << 22) && takes_shape(11, 11, 2 << 22));
        assert!(takes_shape(8, 9, 64 << 17) && !takes_shape(8, 9, 32 << 17));
    }

    #[test]
    fn wide_shapes_and_shared_memory() {
        // 2^25 = 2^12 x 2^13, 2^26 = 2^12 x 2^14; rows of a tile or fewer are the tile variant's.
        assert!(wide_shape_fits(12, 13) && wide_shape_fits(12, 14) && wide_shape_fits(3, 14));
        assert!(!wide_shape_fits(12, 12) && !wide_shape_fits(12, 15) && !wide_shape_fits(2, 13));
        // Rows of 2^14: 4 tiles of 4104 words and a 2304-word stage, three blocks on sm_90's
        // 228 KiB (1 KiB reserved a block); rows of 2^13 within the default 48 KiB.
        assert_eq!(wide_smem_bytes(14), 74_880);
        assert!(3 * (wide_smem_bytes(14) + 1024) <= 228 * 1024);
        assert_eq!(wide_smem_bytes(13), 42_112);
    }

    #[test]
    fn params_match_the_c_struct() {
        // NttParams (72 bytes), a pointer and two words.
        assert_eq!(std::mem::size_of::<NnRowsParams>(), 88);
        assert_eq!(std::mem::offset_of!(NnRowsParams, out), 72);
        assert_eq!(std::mem::offset_of!(NnRowsParams, log_cols), 80);
    }
}
