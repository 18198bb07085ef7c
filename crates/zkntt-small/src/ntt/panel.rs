//! The panel kernel (`cuda/small/ntt_panel.cu`): one pass of the 2-D decomposition with the
//! transposes folded into its loads and stores. A block stages a panel of T tiles in shared
//! memory, loads them in the order contiguous in memory (rows or columns), runs the WSX layers on
//! its tiles (256 threads each, up to 4 side by side; 8 as two groups of 4), and stores in the
//! order contiguous at the destination.

use super::{NttParams, SmallNtt, THREADS};
use crate::field::TILE_LOG;
use crate::{Result, SmallField};
use cudarc::driver::{CudaStream, DeviceRepr, LaunchConfig};
use std::sync::Arc;

/// Tiles per panel for transforms of 2^log_n in a pass over `words` words (`columns_in`: its
/// input is columns): the fewest (most blocks) that keep [`panel_transforms`] transforms or more
/// in a panel, so a column load or store moves that many contiguous words. Up to 4 tiles a block
/// of 256 x T threads runs side by side; 8 tiles are two groups of 4 on 1024 threads, one after
/// the other.
pub(crate) fn panel_tiles(log_n: u32, words: u64, columns_in: bool) -> u32 {
    (((panel_transforms(log_n, words, columns_in) as u64) << log_n) >> TILE_LOG)
        .clamp(1, MAX_PANEL_TILES as u64) as u32
}

/// Tiles per panel of a pass over `words` words: one where the transforms are rows both in and
/// out (the NR second pass, the RN first: every access contiguous whatever the panel's width, so
/// the smallest panel, 256 threads and 16 KiB, and four blocks a multiprocessor whose loads,
/// layers and stores overlap; the RN kernel's rows load requires it), else [`panel_tiles`].
pub(crate) fn pass_tiles(log_n: u32, words: u64, rows_in: bool, rows_out: bool) -> u32 {
    if rows_in && rows_out {
        1
    } else {
        panel_tiles(log_n, words, !rows_in)
    }
}

/// Tiles a panel holds at most (`cuda/small/ntt_panel.cu`: two groups of 4 on 1024 threads).
pub(crate) const MAX_PANEL_TILES: u32 = 8;

/// Tiles a block runs side by side at most (1024 threads); more are two groups of these, on the
/// two-group symbol ([`panel_two_group_kernel_name`]).
pub(crate) const GROUP_TILES: u32 = 4;

/// Transforms a panel holds at least, where the size allows: 8, so a row of a column load or
/// store is a whole 32-byte sector (measured: 4 transforms, half sectors, 1.5x slower at 2^24);
/// 16 (two sectors) in a columns pass (columns in) over columns of 2^11 points in [`WIDE_PANEL_WORDS`]
/// words or more, so its panels are 8 tiles as 2^12's are (those hold 8 transforms, the most 8
/// tiles can), and still about one a multiprocessor (measured at
/// 2^22/2^23: NR 9-10% faster, NN 7-8%; columns of 2^10 in 4 tiles instead of 2 lost 4% in NN at
/// 2^20 x 16, and below 2^22 words wider panels left multiprocessors idle).
/// benches/NOTES.md has the runs.
pub(crate) fn panel_transforms(log_n: u32, words: u64, columns_in: bool) -> u32 {
    if columns_in && log_n >= TILE_LOG - 1 && words >= WIDE_PANEL_WORDS {
        16
    } else {
        8
    }
}

/// Words of a pass from which its panels hold 16 transforms ([`panel_transforms`]): 2^22, 128
/// panels of 8 tiles.
pub(crate) const WIDE_PANEL_WORDS: u64 = 1 << 22;

/// Dynamic shared memory of a panel of `tiles` tiles: 4096 slots of `panel_stride` words.
pub(crate) fn panel_smem_bytes(tiles: u32) -> u32 {
    (1u32 << TILE_LOG) * panel_stride(tiles) * 4
}

/// Threads of a panel block: 256 per tile side by side, at most 1024 (8 tiles run as two groups
/// of 4, one after the other). Measured: 4-tile panels as two groups on 512 threads (two blocks a
/// multiprocessor) gained 4% at 2^22 and lost 27% at 2^21 (benches/NOTES.md).
pub(crate) fn panel_threads(tiles: u32) -> u32 {
    THREADS * tiles.min(GROUP_TILES)
}

/// Words between a panel tile's consecutive slots: T + 1 (odd, so the tiles' slots fall on
/// distinct banks), 1 for a single tile.
pub(crate) fn panel_stride(tiles: u32) -> u32 {
    if tiles == 1 { 1 } else { tiles + 1 }
}

/// `small_ntt_panel_{field}_{form}` (the macro `ZKNTT_SMALL_PANEL` of `cuda/small/ntt_panel.cu`).
pub fn panel_kernel_name(field: SmallField, form: crate::ModMulForm) -> String {
    format!("small_ntt_panel_{}_{}", field.name(), form.name())
}

/// `small_ntt_panel_nr_{field}_{form}`: the panel kernel with bit-reversed output (the launch's
/// `order` is 1), a symbol of its own so the natural-order kernel's registers stay as they were.
pub fn panel_nr_kernel_name(field: SmallField, form: crate::ModMulForm) -> String {
    format!("small_ntt_panel_nr_{}_{}", field.name(), form.name())
}

/// `small_ntt_panel_rn_{field}_{form}`: the panel kernel with bit-reversed input (the launch's
/// `order` is 2): element e of each transform read at position rev(e) of the input layout.
pub fn panel_rn_kernel_name(field: SmallField, form: crate::ModMulForm) -> String {
    format!("small_ntt_panel_rn_{}_{}", field.name(), form.name())
}

/// A panel kernel's two-group symbol (`{name}_g2`): panels of 8 tiles, two groups of 4 on 1024
/// threads, in a symbol of their own, so that neither path's registers and schedule move the
/// other's (measured: benches/NOTES.md, fifty-sixth session).
pub fn panel_two_group_kernel_name(name: &str) -> String {
    format!("{name}_g2")
}

/// `PanelParams` of `cuda/small/ntt_panel.cu`, byte for byte.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PanelParams {
    pub ntt: NttParams,
    pub out: u64,
    pub log_m: u32,
    pub log_g: u32,
    pub in_t: u32,
    pub in_e: u32,
    pub out_t: u32,
    pub out_e: u32,
    pub dependent: u32,
    pub tiles: u32,
    pub ks_in: [u32; 5],
    pub ks_out: [u32; 5],
}

// SAFETY: plain-old-data with the C layout the kernel declares (checked by size in a test).
unsafe impl DeviceRepr for PanelParams {}

/// Panel blocks per multiprocessor: 1024 threads of 64 registers (`__launch_bounds__(1024, 1)`),
/// and as many panels as `smem_per_sm` bytes of shared memory hold (1 KiB reserved per block).
pub(crate) fn panel_blocks_per_sm(tiles: u32, smem_per_sm: u32) -> u32 {
    (1024 / panel_threads(tiles))
        .min(super::blocks_by_smem(panel_smem_bytes(tiles), smem_per_sm))
        .max(1)
}

/// `Walk::ks` of `cuda/small/ntt_panel.cu` for a walk over `layout` (columns: the transforms
/// fastest): bit b of a thread's word number k moves its panel word by 2^(sh + b), sh = log_n -
/// log2(words a thread) for columns, log2(threads a block) for rows; entry b is that move's
/// shared-memory slot, slot(2^(sh + b) mod 4096). Uniform over a launch, so the host computes them.
fn walk_slots(layout: Layout, log_n: u32, tiles: u32) -> [u32; 5] {
    // Words a thread moves per panel: 16, or 32 with two groups.
    let log_loads = if tiles > GROUP_TILES { 5 } else { 4 };
    let sh = if layout.t == 0 {
        log_n.saturating_sub(log_loads)
    } else {
        panel_threads(tiles).trailing_zeros()
    };
    let mut ks = [0; 5];
    for (b, k) in ks.iter_mut().enumerate().take(log_loads as usize) {
        *k = crate::twin::slot((1u32 << (sh + b as u32)) & ((1 << TILE_LOG) - 1)) as u32;
    }
    ks
}

/// Where element e of transform u lies: word `(u >> log_g) << log_m | (u mod 2^log_g) << t | e << e`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    pub t: u32,
    pub e: u32,
}

impl SmallNtt {
    /// One panel launch: `params.batch` transforms of 2^params.log_n from `params.data` (layout
    /// `input`) to `out` (layout `output`), matrices of 2^log_m words with 2^log_g transforms each.
    /// `dependent`: launched as a programmatic dependent of the stream's previous kernel (sm_90+),
    /// so its blocks set up while that one drains. `params.order` 1 takes the NR kernel: output
    /// element e of each transform at position rev(e) of `output`, which must be columns (an
    /// error otherwise); 2 the RN kernel: input element e at position rev(e) of `input` (rows only
    /// both in and out, or columns both in and out), and the 2-D twiddle: with rows, w^(n2 k) on
    /// the store with n2 = rev(t) for transform t mod 2^post_log_rows; with columns, w^(t' e) on
    /// the load, t' = t mod 2^post_log_rows.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn panel(
        &self,
        stream: &Arc<CudaStream>,
        params: NttParams,
        out: u64,
        log_m: u32,
        log_g: u32,
        input: Layout,
        output: Layout,
        dependent: bool,
    ) -> Result<()> {
        if params.order == 1 && output.t != 0 {
            // The NR kernel stores columns only (the 2-D path's NR rows run on the tile kernel).
            return Err(crate::Error::OrderingUnsupported {
                ordering: zkntt_gpu::Ordering::NR,
                reason: "the NR panel kernel's output is columns",
            });
        }
        let words = params.batch << params.log_n;
        let tiles =
            pass_tiles(params.log_n, words, input.t != 0, output.t != 0).min(self.max_panel_tiles);
        let name = match params.order {
            1 => panel_nr_kernel_name(self.field, self.form),
            2 => panel_rn_kernel_name(self.field, self.form),
            _ => panel_kernel_name(self.field, self.form),
        };
        let name = if tiles > GROUP_TILES {
            panel_two_group_kernel_name(&name)
        } else {
            name
        };
        let f = self.gpu.function(&name)?;
        // The kernel's walks (`cuda/small/ntt_panel.cu`): columns or whole rows, panels inside
        // one matrix, at least 16-point transforms. `two_d_panels` always asks for these.
        let rows_or_columns = |l: Layout| l.t == 0 || (l.t == params.log_n && l.e == 0);
        debug_assert!(rows_or_columns(input) && rows_or_columns(output));
        // The RN kernel's rows load and chained row twiddles assume one tile of 256 threads,
        // which `pass_tiles` gives rows in and rows out only.
        if params.order == 2 && (input.t != 0) != (output.t != 0) {
            return Err(crate::Error::OrderingUnsupported {
                ordering: zkntt_gpu::Ordering::RN,
                reason: "the RN panel kernel takes rows only both in and out",
            });
        }
        debug_assert!(
            params.log_n >= 4 && TILE_LOG + tiles.trailing_zeros() - params.log_n <= log_g
        );
        let panels = (params.batch << params.log_n).div_ceil((tiles as u64) << TILE_LOG);
        if panels == 0 {
            return Ok(());
        }
        let smem = panel_smem_bytes(tiles);
        let p = PanelParams {
            ntt: params,
            out,
            log_m,
            log_g,
            in_t: input.t,
            in_e: input.e,
            out_t: output.t,
            out_e: output.e,
            dependent: (dependent && self.dependent_launch) as u32,
            tiles,
            ks_in: walk_slots(input, params.log_n, tiles),
            ks_out: walk_slots(output, params.log_n, tiles),
        };
        let grid =
            panels.min(self.sms * panel_blocks_per_sm(tiles, self.smem_per_sm) as u64) as u32;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (panel_threads(tiles), 1, 1),
            shared_mem_bytes: smem,
        };
        // SAFETY: the kernel takes one PanelParams by value; the callers size both buffers to
        // the batch's matrices, which every (u, e) of the layouts addresses inside. With
        // `dependent` the kernel waits for the previous grid before its first global access.
        unsafe { zkntt_gpu::launch::launch(stream, &f, cfg, &p, p.dependent == 1) }?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_hold_eight_transforms_or_more() {
        for (log_n, words) in (1..=TILE_LOG).flat_map(|l| [(l, 1 << 20), (l, WIDE_PANEL_WORDS)]) {
            let tiles = panel_tiles(log_n, words, true);
            assert!([1, 2, 4, 8].contains(&tiles));
            assert!((tiles << TILE_LOG) >> log_n >= 8, "2^{log_n}");
            let transforms = panel_transforms(log_n, words, true);
            assert!(tiles == MAX_PANEL_TILES || (tiles << TILE_LOG) >> log_n >= transforms);
            // 4 tiles (80 KiB) fit every sm_80..sm_90 block; 8 (144 KiB) sm_80 and sm_90.
            assert!(panel_smem_bytes(tiles.min(4)) <= 80 * 1024);
            assert!(panel_smem_bytes(tiles) <= 144 * 1024);
            assert!(panel_threads(tiles) <= 1024 && (tiles * THREADS) / panel_threads(tiles) <= 2);
            // H100: 228 KiB a multiprocessor.
            let blocks = panel_blocks_per_sm(tiles, 228 * 1024);
            assert!(blocks >= 1 && blocks * panel_threads(tiles) <= 1024);
            assert!(blocks * (panel_smem_bytes(tiles) + 1024) <= 228 * 1024);
        }
    }

    #[test]
    fn walk_slots_move_a_word_by_its_number() {
        // Word k of a walk is k << sh panel words past word 0 (mod a tile); its slot is word 0's
        // XOR the entries of k's bits (slot is linear over XOR).
        for log_n in 4..=TILE_LOG {
            for tiles in [1, 2, 4, 8] {
                for layout in [Layout { t: 0, e: 9 }, Layout { t: log_n, e: 0 }] {
                    let ks = walk_slots(layout, log_n, tiles);
                    let log_loads = if tiles > GROUP_TILES { 5 } else { 4 };
                    let sh = if layout.t == 0 {
                        log_n.saturating_sub(log_loads)
                    } else {
                        8 + tiles.min(GROUP_TILES).trailing_zeros()
                    };
                    for k in 0u32..1 << log_loads {
                        let x = (0..log_loads)
                            .filter(|b| k >> b & 1 == 1)
                            .fold(0, |x, b| x ^ ks[b as usize]);
                        let word = (k << sh) & ((1 << TILE_LOG) - 1);
                        assert_eq!(
                            x as usize,
                            crate::twin::slot(word),
                            "2^{log_n}, {tiles} tiles, k {k}"
                        );
                    }
                    assert!(ks[log_loads as usize..].iter().all(|&k| k == 0));
                }
            }
        }
    }

    #[test]
    fn wide_panels_from_2_22_words() {
        // Columns of 2^11 in (the columns pass of 2^22, 2^23): 8 tiles from 2^22 words, 4 below;
        // 2^12 columns take 8 either way; 2^10 columns (2^20 x 16) 2 at any size; rows of 2^11
        // in and columns out (NN's second pass at 2^21 x 2) 4; rows both ways 1.
        assert_eq!(panel_tiles(11, (1 << 22) - 1, true), 4);
        assert_eq!(panel_tiles(11, 1 << 22, true), 8);
        assert_eq!(panel_tiles(12, 1 << 20, true), 8);
        assert_eq!(panel_tiles(10, 1 << 21, true), 2);
        assert_eq!(panel_tiles(10, 1 << 24, true), 2);
        assert_eq!(pass_tiles(11, 1 << 22, true, false), 4);
        assert_eq!(pass_tiles(11, 1 << 23, true, true), 1);
    }

    #[test]
    fn params_match_the_c_struct() {
        // NttParams (72 bytes), a pointer, 8 x u32, the two walks' 5 x u32 slots: 152 bytes, no padding.
        assert_eq!(std::mem::size_of::<PanelParams>(), 152);
        assert_eq!(std::mem::align_of::<PanelParams>(), 8);
    }
}
