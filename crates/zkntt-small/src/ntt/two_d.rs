//! Sizes above one tile (2^13..2^26): the 2-D decomposition N = N1 x N2. With the WSX kernel,
//! two passes: panel passes (the transposes folded into their loads and stores), rows that are
//! contiguous both ways in place on the WSX tile kernel ([`rows_on_tiles`]; above 2^24 NR's and
//! RN's rows of two or four tiles on its wide variant, NN's on NN's wide rows kernel); with the
//! others (up to 2^24), five passes: three transposes and the one-tile kernels.

use super::panel::Layout;
use super::{Kernel, NttParams, SmallNtt, Table, lock};
use crate::field::TILE_LOG;
use crate::tables::{self, Encoded};
use crate::transpose::transpose_words;
use crate::{Direction, Result};
use cudarc::driver::{CudaSlice, CudaStream, CudaViewMut, DevicePtrMut};
use std::collections::hash_map::Entry;
use std::sync::Arc;
use zkntt_gpu::Ordering;

/// Wide tile blocks a multiprocessor holds at once: the tile kernels' `BLOCKS_PER_SM` by
/// registers (`__launch_bounds__(256, 4)`), fewer
/// where the rows' tiles (`smem` bytes, 1 KiB reserved a block) exceed `smem_per_sm`: rows of
/// 2^14 (64 KiB) three on sm_90, so the grid is one wave (four a multiprocessor, a second wave,
/// measured the same at 2^26: benches/NOTES.md).
fn wide_blocks_per_sm(smem: u32, smem_per_sm: u32) -> u64 {
    super::BLOCKS_PER_SM
        .min(super::blocks_by_smem(smem, smem_per_sm) as u64)
        .max(1)
}

/// (log2 N1, log2 N2) of the 2-D decomposition N = N1 x N2 (columns of N1 points, rows of N2):
/// halves up to 2^24, where both fit a tile; above, columns of one tile (2^12) and rows of the rest
/// (2^13, 2^14), which the wide tile kernel runs.
pub(crate) fn two_d_split(log_n: u32) -> (u32, u32) {
    let log1 = (log_n / 2).min(TILE_LOG);
    (log1, log_n - log1)
}

/// RN's (log2 of the rows, log2 of the columns) for a 2-D split (log1, log2): the input's rows
/// first, 2^log2 points (NR's dataflow reversed: NR runs the 2^log1-point columns first), so
/// where the split is uneven the columns pass takes the shorter transforms, several to a tile
/// (2^19: rows of 2^10, then columns of 2^9, 8 a tile); above 2^24 the rows (2^13/2^14) run on
/// the wide tile kernel and the columns are one tile. At 2^16..2^18 the rows are 2^10 all the same
/// (columns of 2^6..2^8), which the tile kernel runs ([`rows_on_tiles`]), where the even split's
/// rows of 2^8/2^9 would take a panel pass with a twiddled store.
pub(crate) fn rn_split(log1: u32, log2: u32) -> (u32, u32) {
    let log_n = log1 + log2;
    if log2 < RN_TILE_ROWS && log_n >= RN_TILE_ROWS + 6 {
        (RN_TILE_ROWS, log_n - RN_TILE_ROWS)
    } else {
        (log2, log1)
    }
}

/// log2 of the shortest RN rows the tile kernel takes: it reads rows of 2^10..2^12 in 16-byte
/// runs (shorter ones word by word, slower than a panel's contiguous reads).
const RN_TILE_ROWS: u32 = 10;

/// Whether a 2-D transform of 2^log_n runs its rows of 2^log_rows in place on the WSX tile
/// kernel (loads straight into registers, no panel staging in shared memory): NR's (rows in and
/// out, untwiddled) at every size, rows of 2^13/2^14 (above 2^24) on its wide variant; RN's
/// (rows first, untwiddled: the columns pass applies the 2-D twiddle on its loads) of
/// 2^10..2^14 (2^13/2^14 above 2^24 on the wide variant), which the tile kernel reads in 16-byte
/// runs (rows
/// of 2^9 it reads word by word, slower than the panel's contiguous reads); NN's from 2^22,
/// bit-reversed out and then transposed with the columns reversed back (below 2^22 the extra
/// pass costs more than the panel's rows-in, columns-out pass; batches of as many words lost,
/// 2^20 x 16 by 4-5%), where NN's rows kernel does not take them first (from 2^23 words with
/// rows of 2^9..2^12, and BabyBear's rows of 2^13/2^14 on its wide variant:
/// [`SmallNtt::takes_nn_rows`]). benches/NOTES.md has the measurements.
pub(crate) fn rows_on_tiles(ordering: Ordering, log_n: u32, log_rows: u32) -> bool {
    match ordering {
        Ordering::NR => true,
        Ordering::RN => log_rows >= RN_TILE_ROWS,
        Ordering::NN => log_n >= 22 || log_rows > TILE_LOG,
    }
}

/// Whether [`SmallNtt::two_d_panels`] passes through `mid`: not where NR's or RN's rows run in
/// place on the tile kernel ([`rows_on_tiles`]): NR at every size (the columns first, written to
/// `dst`, the rows then in place there) and RN from 2^16 (the rows first, in place in `src`, then
/// the columns from there into `dst`).
pub(crate) fn needs_mid(log_n: u32, ordering: Ordering) -> bool {
    let (log1, log2) = two_d_split(log_n);
    match ordering {
        // NR's rows run in place on the tile kernel at every size (`rows_on_tiles`).
        Ordering::NR => false,
        Ordering::RN => !rows_on_tiles(ordering, log_n, rn_split(log1, log2).0),
        Ordering::NN => true,
    }
}

impl SmallNtt {
    /// The addresses (lo, hi) of the 2-D twiddles of one size and direction, uploaded on first
    /// use.
    pub(super) fn post_tables(
        &self,
        stream: &Arc<CudaStream>,
        log_n: u32,
        direction: Direction,
    ) -> Result<(u64, u64)> {
        let mut post = lock(&self.post);
        let (lo, hi) = match post.entry((log_n, direction)) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let (lo, hi) = tables::post_twiddles(self.field, self.form, direction, log_n)?;
                let up = |t: &Encoded| Table::upload(stream, &t.device_words(), "2-D twiddles");
                e.insert((up(&lo)?, up(&hi)?))
            }
        };
        Ok((lo.ptr, hi.ptr))
    }

    /// N = N1 x N2 (x[n1 N2 + n2], [`two_d_split`]); X[k1 + N1 k2] from two passes: the N1-point columns
    /// (stride N2) from `src` into the same places of `mid`, times w_N^(n2 k1); then the
    /// N2-point rows of `mid` into `dst` at stride N1. `mid` may be `src`; `dst` must not be `mid`.
    /// Each buffer holds `batch` transforms of 2^log_n words. NN from 2^23 words with rows of
    /// 2^9..2^12 (2^17..2^24), and above 2^24 (rows of 2^13/2^14 on its wide variant): the rows
    /// pass from `mid` into `dst` on NN's rows kernel, clusters of 8 blocks storing across the
    /// rows ([`SmallNtt::takes_nn_rows`]). Otherwise from 2^22 the rows run in place in `mid` on
    /// the WSX tile kernel (its wide variant above 2^24), bit-reversed out, and a transpose that
    /// reverses the columns back writes `dst` ([`rows_on_tiles`]).
    ///
    /// `nr`: bit-reversed output, X[k] at rev_N(k) = rev_N1(k1) N2 + rev_N2(k2). The columns'
    /// entry k1 goes to row rev(k1) of `mid` instead of row k1; row j of `mid` (k1 = rev(j))
    /// then transforms into row j of `dst`, its entry k2 at rev(k2): rows in and rows out, both
    /// contiguous, where the natural order's second pass stores columns. The columns go straight
    /// into `dst` and the rows transform in place there on the WSX tile kernel ([`needs_mid`]:
    /// `mid` is not used, and `dst` may be `src`).
    ///
    /// Above 2^24 (BabyBear 2^25, 2^26) the rows are 2^13 or 2^14 points, two or four tiles: they
    /// run on the wide tile kernel, one row a block ([`SmallNtt::wide_rows`]), bit-reversed out
    /// as below; NN's on NN's wide rows kernel (a row a block, the same split, 8 rows a cluster
    /// stored across the rows), or where the GPU cannot hold its clusters as NR's followed by
    /// the transpose.
    ///
    /// RN (`ordering`; input bit-reversed): x[n1 N2 + n2] lies at rev_N(n1 N2 + n2)
    /// = rev_N2(n2) N1 + rev_N1(n1), so row r of the input (N2 rows of N1 words) is column n2 =
    /// rev(r) of the matrix, bit-reversed. The first pass transforms those rows with
    /// bit-reversed input, rows in and rows out, times w_N^(n2 k1), n2 = rev(r), into `mid`; the
    /// second transforms the N2-point columns k1 of `mid` (stride N1, entry n2 at row rev(n2))
    /// with bit-reversed input into the same places of `dst`: X[k1 + N1 k2] at row k2, column
    /// k1, natural order. At 2^16..2^24 (rows of 2^10..2^12) the rows transform in place in `src`
    /// on the WSX tile kernel, untwiddled, and the columns read them there, column k1's entry n2
    /// taking w_N^(n2 k1) on the load ([`needs_mid`]: `mid` is not used). Above 2^24 N1 is the
    /// 2^13/2^14 points and N2 a tile: the rows run in place in `src` on the wide tile kernel
    /// (RN in, natural out, untwiddled), the columns in panels from there, the 2-D twiddle on
    /// their loads as at 2^16..2^24.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn two_d_panels(
        &self,
        stream: &Arc<CudaStream>,
        src: u64,
        mid: u64,
        dst: u64,
        log_n: u32,
        batch: u64,
        direction: Direction,
        ordering: Ordering,
    ) -> Result<()> {
        let (log1, log2) = two_d_split(log_n);
        let (lo_ptr, hi_ptr) = self.post_tables(stream, log_n, direction)?;
        let tw = self.twiddle_table(direction);
        let order = super::order_code(ordering);
        let scale = (direction == Direction::Inverse).then_some(log_n);
        // The first pass: 2^log_rows transforms of 2^log_len a matrix, output k1 of transform t
        // times w_N^(n2 k1) (n2 = t, or rev(t) in RN).
        let first_pass = |log_len: u32, log_rows: u32| -> Result<NttParams> {
            Ok(NttParams {
                order,
                ..self.params(
                    tw,
                    src,
                    batch << log_rows,
                    log_len,
                    None,
                    Some((lo_ptr, hi_ptr, log_rows)),
                )?
            })
        };
        if ordering == Ordering::RN {
            // Rows of 2^a (the first pass, times w_N^(rev(t) k1) for row t, or untwiddled on the
            // tile kernel or its wide variant with the twiddle on the columns' loads), columns
            // of 2^b.
            let (a, b) = rn_split(log1, log2);
            let on_tiles = rows_on_tiles(ordering, log_n, a);
            if a > TILE_LOG {
                // Rows of 2^13/2^14 in place on the wide tile kernel (RN in, natural out).
                self.wide_rows(stream, src, a, batch << b, direction, None, Ordering::RN)?;
            } else if on_tiles {
                // Rows of 2^10..2^12 in place on the WSX tile kernel, untwiddled: the columns
                // pass applies the 2-D twiddle on its loads and reads them there.
                self.launch(
                    stream,
                    Kernel::Wsx,
                    src,
                    batch << b,
                    a,
                    direction,
                    None,
                    None,
                    Ordering::RN,
                    false,
                )?;
            } else {
                let rows = Layout { t: a, e: 0 };
                self.panel(stream, first_pass(a, b)?, mid, log_n, b, rows, rows, false)?;
            }
            let rows_at = if on_tiles { src } else { mid };
            let columns = Layout { t: 0, e: a };
            // Column k1's element n2 takes w_N^(k1 n2) on the load where the rows went untwiddled
            // (on the tile kernel or its wide variant).
            let post = on_tiles.then_some((lo_ptr, hi_ptr, a));
            let second = NttParams {
                order,
                ..self.params(tw, rows_at, batch << a, b, scale, post)?
            };
            return self.panel(stream, second, dst, log_n, a, columns, columns, true);
        }
        // NN and NR: the first pass is the N1-point columns (element n1 at word n1 N2 + n2).
        let nr = ordering == Ordering::NR;
        let columns = Layout { t: 0, e: log2 };
        // NN's rows on their own kernel from `mid`, X stored in natural order (no transpose
        // pass); or rows on the tile kernel: NR's in place in `dst`, where the columns go straight
        // (`mid` is not used); NN's in place in `mid`.
        let nn_rows = !nr && self.takes_nn_rows(log_n, batch);
        let on_tiles = !nn_rows && rows_on_tiles(ordering, log_n, log2);
        let rows_out = if nr { dst } else { mid };
        self.panel(
            stream,
            first_pass(log1, log2)?,
            if on_tiles { rows_out } else { mid },
            log_n,
            log2,
            columns,
            columns,
            false,
        )?;
        if nn_rows {
            return self.nn_rows(stream, mid, dst, log1, log2, batch, direction, scale);
        }
        if on_tiles {
            // The rows bit-reversed out into `rows_out`, in place (rows in and out, contiguous,
            // untwiddled; the tile stays in the DIF's order), as the columns pass's dependent
            // launch: on the tile kernel, or above a tile (2^13/2^14) on its wide variant. Row j
            // then holds X[k1 + N1 k2] at rev(k2) (k1 = j, or rev(j) in NR): NR is done; NN
            // transposes the N1 x N2 rows with their columns bit-reversed back, in one pass.
            if log2 > TILE_LOG {
                let rows = batch << log1;
                self.wide_rows(stream, rows_out, log2, rows, direction, scale, Ordering::NR)?;
            } else {
                self.launch(
                    stream,
                    Kernel::Wsx,
                    rows_out,
                    batch << log1,
                    log2,
                    direction,
                    scale,
                    None,
                    Ordering::NR,
                    true,
                )?;
            }
            if !nr {
                let (n1, n2) = (1 << log1, 1 << log2);
                transpose_words(&self.gpu, stream, mid, dst, n1, n2, batch, true)?;
            }
            return Ok(());
        }
        // NN below 2^22 (NR's rows always ran on the tile kernel above): rows k1 (word k1 N2 +
        // n2) in, X[k1 + N1 k2] out, columns.
        let second = NttParams {
            order,
            ..self.params(tw, mid, batch << log1, log2, scale, None)?
        };
        debug_assert!(!nr, "NR's rows run on the tile kernel");
        let (rows, out) = (Layout { t: log2, e: 0 }, Layout { t: 0, e: log1 });
        self.panel(stream, second, dst, log_n, log1, rows, out, true)
    }

    /// `batch` rows of 2^log_rows (13, 14) in place at `data`, every output times 2^-scale_log_n
    /// where given: the wide tile kernel (`cuda/small/ntt_wsx.cu`, BabyBear only), one row a block
    /// of 256 threads with its 2^(log_rows - 12) tiles in shared memory. `ordering` NR:
    /// bit-reversed out (`small_ntt_wsx_wide_*`); RN: bit-reversed in, natural out
    /// (`small_ntt_wsx_wide_rn_*`). NR's rows follow the columns pass, as its dependent launch;
    /// RN's are the first pass.
    #[allow(clippy::too_many_arguments)]
    fn wide_rows(
        &self,
        stream: &Arc<CudaStream>,
        data: u64,
        log_rows: u32,
        batch: u64,
        direction: Direction,
        scale_log_n: Option<u32>,
        ordering: Ordering,
    ) -> Result<()> {
        // The kernel takes rows of two or four tiles only (it reads p.log_n as one or the other).
        if !(TILE_LOG + 1..=TILE_LOG + 2).contains(&log_rows) {
            return Err(crate::Error::SizeUnsupported {
                field: self.field.name(),
                log_n: log_rows,
                max: TILE_LOG + 2,
            });
        }
        if batch == 0 {
            return Ok(());
        }
        let name = match ordering {
            Ordering::RN => super::wsx_wide_rn_kernel_name(self.field, self.form),
            Ordering::NR => super::wsx_wide_kernel_name(self.field, self.form),
            Ordering::NN => {
                return Err(crate::Error::OrderingUnsupported {
                    ordering,
                    reason: "the wide tile kernel's rows are NR or RN",
                });
            }
        };
        let f = self.gpu.function(&name)?;
        let (lo, hi) = self.post_tables(stream, log_rows, direction)?;
        let tw = self.twiddle_table(direction);
        let dependent = ordering == Ordering::NR && self.dependent_launch;
        let params = NttParams {
            order: super::order_code(ordering),
            dependent: dependent as u32,
            ..self.params(
                tw,
                data,
                batch,
                log_rows,
                scale_log_n,
                Some((lo, hi, TILE_LOG)),
            )?
        };
        let smem = 4 << log_rows;
        let per_sm = wide_blocks_per_sm(smem, self.smem_per_sm);
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: (batch.min(self.sms * per_sm) as u32, 1, 1),
            block_dim: (super::THREADS, 1, 1),
            shared_mem_bytes: smem,
        };
        // SAFETY: the kernel takes one NttParams by value; `data` holds `batch` rows of
        // 2^log_rows words (the callers' buffers) and the tables hold the entries it indexes;
        // the dynamic shared memory is the rows' 2^(log_rows - 12) tiles. With `dependent` the
        // kernel waits for the previous grid before its first global access.
        unsafe { zkntt_gpu::launch::launch(stream, &f, cfg, &params, dependent) }?;
        Ok(())
    }

    /// N = N1 x N2 (x[n1 N2 + n2]); out[k1 + N1 k2] = X. Five passes: transpose, N1-point
    /// NTTs with the twiddle w_N^(n2 k1) fused, transpose back, N2-point NTTs, transpose.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn two_d(
        &self,
        stream: &Arc<CudaStream>,
        data: &mut CudaSlice<u32>,
        out: &mut CudaViewMut<'_, u32>,
        log_n: u32,
        batch: u64,
        direction: Direction,
        kernel: Kernel,
    ) -> Result<()> {
        let (log1, log2) = two_d_split(log_n);
        let (lo_ptr, hi_ptr) = self.post_tables(stream, log_n, direction)?;
        let (d, _g3) = data.device_ptr_mut(stream);
        let (o, _g4) = out.device_ptr_mut(stream);
        let (n1, n2) = (1u32 << log1, 1u32 << log2);
        let scale = (direction == Direction::Inverse).then_some(log_n);
        // x (N1 x N2) -> out (N2 x N1): row n2 holds the column n2 of x.
        transpose_words(&self.gpu, stream, d, o, n1, n2, batch, false)?;
        self.launch(
            stream,
            kernel,
            o,
            batch << log2,
            log1,
            direction,
            None,
            Some((lo_ptr, hi_ptr, log2)),
            Ordering::NN,
            false,
        )?;
        transpose_words(&self.gpu, stream, o, d, n2, n1, batch, false)?;
        self.launch(
            stream,
            kernel,
            d,
            batch << log1,
            log2,
            direction,
            scale,
            None,
            Ordering::NN,
            false,
        )?;
        transpose_words(&self.gpu, stream, d, o, n1, n2, batch, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_blocks_fit_the_shared_memory() {
        // sm_90: 228 KiB a multiprocessor. Rows of 2^13 (32 KiB) four by registers, of 2^14
        // (64 KiB) three by shared memory; a GPU with 100 KiB (sm_86/89) three and one.
        let sm90 = 228 * 1024;
        assert_eq!(wide_blocks_per_sm(4 << 13, sm90), 4);
        assert_eq!(wide_blocks_per_sm(4 << 14, sm90), 3);
        assert_eq!(wide_blocks_per_sm(4 << 13, 100 * 1024), 3);
        assert_eq!(wide_blocks_per_sm(4 << 14, 100 * 1024), 1);
        assert_eq!(wide_blocks_per_sm(4 << 14, 0), 1);
    }
}
