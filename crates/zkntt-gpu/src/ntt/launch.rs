//! One prepared transform and the launch of one row of its plan's table: the kernel's symbol,
//! its parameters and geometry, plain or as a dependent launch.

use super::NttEngine;
use super::engine::CosetTable;
use super::params::{NttStageParams, PowerTable};
use super::twiddles::{SplitPowers, Twiddles, lo_bits};
use crate::{Error, Result};
use cudarc::driver::{CudaFunction, LaunchConfig};
use std::ops::Range;
use std::sync::Arc;
use zkntt_core::plan::{Blocks, Form, Kernel, Kernels, Launch, Natural, flags};
use zkntt_core::{BatchLayout, Direction, FieldId, GpuField, NttConfig, Plan};
use zkntt_kernels::names;

/// Largest grid.y: batches beyond it run in chunks.
const MAX_GRID_Y: usize = 65_535;

/// A transform ready to launch: its plan's table, the parameters shared by its launches (data
/// and tables), and the tables it keeps alive while queued.
#[derive(Debug)]
pub(crate) struct Prepared {
    field: FieldId,
    plan: Plan,
    launches: Vec<Launch>,
    /// Parameters of transform 0 of the batch; each launch adjusts its own fields.
    base: NttStageParams,
    batch: usize,
    /// Each launch's sub-NTT twiddles (`sub_twiddles`).
    subs: Vec<u64>,
    /// A two-pass natural-order transform's scratch ([`zkntt_core::plan::Natural::TwoPass`]): the
    /// address of a buffer of the call's size the engine lends while it queues the launches
    /// ([`Prepared::scratch_bytes`]); 0 otherwise.
    pub(super) scratch: u64,
    /// The call's twiddles (also the mid or full table times 1/N that a [`flags::MID_SCALED`] or
    /// [`flags::OMEGA_SCALED`] launch reads) and coset table, held while its launches may run.
    tables: (Arc<Twiddles>, Option<Arc<SplitPowers>>),
}

/// The column kernel symbol of a launch's flags: a coset LDE's fused launch (LDE; ordered with
/// IN_BITREV), a two-pass transform's second launch (SCRATCH_IN), the hybrid product (FP64_HYBRID:
/// wide blocks only), RN (IN_BITREV), NR (OUT_BITREV) or natural order; narrow blocks (NARROW) on
/// their own symbols.
fn column_symbol(f: u32) -> &'static names::PerField {
    use names::ntt::*;
    let narrow = f & flags::NARROW != 0;
    let by_blocks = |wide, narrow_symbol| if narrow { narrow_symbol } else { wide };
    let (rn, nr) = (f & flags::IN_BITREV != 0, f & flags::OUT_BITREV != 0);
    if f & flags::LDE != 0 {
        return match rn {
            true => by_blocks(&COLUMN_LDE_ORDERED, &COLUMN_LDE_ORDERED_NARROW),
            false => by_blocks(&COLUMN_LDE, &COLUMN_LDE_NARROW),
        };
    }
    if f & flags::SCRATCH_IN != 0 {
        return by_blocks(&COLUMN_T, &COLUMN_T_NARROW);
    }
    if f & flags::FP64_HYBRID != 0 {
        return match (rn, nr) {
            (true, _) => &COLUMN_RN_HYBRID,
            (_, true) => &COLUMN_NR_HYBRID,
            _ => &COLUMN_HYBRID,
        };
    }
    match (rn, nr) {
        (true, _) => by_blocks(&COLUMN_RN, &COLUMN_RN_NARROW),
        (_, true) => by_blocks(&COLUMN_NR, &COLUMN_NR_NARROW),
        _ => by_blocks(&COLUMN, &COLUMN_NARROW),
    }
}

impl Prepared {
    pub(super) fn new<F: GpuField>(
        engine: &NttEngine,
        plan: Plan,
        cfg: &NttConfig<F>,
        data: u64,
        scratch: bool,
    ) -> Result<Self> {
        let log_n = plan.log_n();
        let tw = engine.twiddles::<F>(plan, cfg.direction)?;
        // Coset tables for this call: g^j before a forward transform, g^-k / N after an inverse.
        let coset = match (cfg.coset, cfg.direction) {
            (None, _) => None,
            (Some(g), Direction::Forward) => {
                Some(engine.coset_powers(g, log_n, CosetTable::Forward)?)
            }
            (Some(g), Direction::Inverse) => {
                Some(engine.coset_powers(g, log_n, CosetTable::Inverse)?)
            }
        };
        let n = 1u64 << log_n;
        let (elem_stride, batch_stride) = match cfg.layout {
            BatchLayout::Rows => (1u64, n),
            BatchLayout::Columns => (cfg.batch as u64, 1u64),
        };
        let mut base = NttStageParams {
            data,
            elem_stride,
            batch_stride,
            log_n,
            log_p: log_n,
            lo_bits: lo_bits(log_n),
            ..Default::default()
        };
        match (&coset, cfg.direction) {
            (Some(c), Direction::Forward) => base.pre = c.table(),
            (Some(c), Direction::Inverse) => base.post = c.table(),
            (None, _) => {}
        }
        if cfg.direction == Direction::Inverse {
            base.post_const = tw.n_inv_ptr();
        }
        let mut full_omega = false;
        if let Plan::ThreeStage { log_p, log_q, .. } = plan {
            let missing = || Error::Internal("three-stage twiddles without their tables".into());
            (base.log_p, base.log_q) = (log_p, log_q);
            let (omega, full) = tw.omega.as_ref().ok_or_else(missing)?.table();
            (base.omega, full_omega) = (omega, full);
            base.mid_twiddles = tw.mid.as_ref().ok_or_else(missing)?.ptr();
        }
        let form = Form {
            direction: cfg.direction,
            ordering: cfg.ordering,
            coset: coset.is_some(),
            full_omega,
            // Built on first use (below): a plain inverse's 1/N on the full table's launch.
            scaled_omega: full_omega && cfg.direction == Direction::Inverse && coset.is_none(),
        };
        let mut kernels = engine.kernels().resolve_batch(F::ID, &plan, cfg.batch);
        if kernels.blocks == Blocks::Cluster && !engine.runs_clusters(F::ID) {
            // No clusters on this GPU (before sm_90): narrow blocks instead.
            kernels = Kernels {
                blocks: Blocks::Narrow,
                ..engine.kernels()
            }
            .resolve_batch(F::ID, &plan, cfg.batch);
        }
        if !scratch {
            // The caller lends no scratch: the self-sorting stages, in place.
            kernels.natural = Natural::SelfSorting;
        }
        let mut launches = plan.launches(form, kernels);
        if tw.mid_scaled.is_none() && launches.iter().any(|l| l.flags & flags::MID_SCALED != 0) {
            return Err(Error::Internal(
                "an inverse's 1/N in the mid table without the scaled table".into(),
            ));
        }
        if launches.iter().any(|l| l.flags & flags::OMEGA_SCALED != 0) {
            match tw.omega_scaled::<F>(engine.gpu()) {
                Ok(_) => {}
                // No room for the scaled copy: the 1/N stays a product in the last launch.
                Err(Error::OutOfMemory { .. }) => {
                    let form = Form {
                        scaled_omega: false,
                        ..form
                    };
                    launches = plan.launches(form, kernels);
                }
                Err(e) => return Err(e),
            }
        }
        // Each launch's sub-NTTs are 2^layers points (P, Q, or a bit-reversed ordering's column).
        let subs = launches
            .iter()
            .map(|l| tw.sub(l.layers))
            .collect::<Result<_>>()?;
        Ok(Self {
            field: F::ID,
            plan,
            launches,
            base,
            batch: cfg.batch,
            subs,
            scratch: 0,
            tables: (tw.clone(), coset),
        })
    }

    /// The plan's table for this call.
    pub(crate) fn launches(&self) -> &[Launch] {
        &self.launches
    }

    /// Bytes of the scratch the launches read and write (the call's data, every transform of the
    /// batch in its layout), or 0 where they run in place.
    pub(crate) fn scratch_bytes(&self) -> usize {
        let uses = self
            .launches
            .iter()
            .any(|l| l.flags & flags::SCRATCH_OUT != 0);
        if uses {
            self.batch << self.plan.log_n() << 5
        } else {
            0
        }
    }

    /// The batch in chunks of at most MAX_GRID_Y transforms.
    pub(crate) fn batch_chunks(&self) -> impl Iterator<Item = Range<usize>> + use<> {
        let batch = self.batch;
        (0..batch)
            .step_by(MAX_GRID_Y)
            .map(move |first| first..(first + MAX_GRID_Y).min(batch))
    }

    /// log2 of the transform's size.
    pub(crate) fn log_n(&self) -> u32 {
        self.plan.log_n()
    }

    /// log2 of the plan's P (the rows of the matrix the column launches work down).
    pub(crate) fn log_rows(&self) -> u32 {
        self.base.log_p
    }

    /// R, the columns (the length of a row).
    pub(crate) fn columns(&self) -> usize {
        1 << (self.plan.log_n() - self.base.log_p)
    }

    /// Columns of one block of launch `index`: column ranges are multiples of it.
    pub(crate) fn columns_per_block(&self, index: usize) -> usize {
        1 << self.launches[index].log_cols
    }

    /// Whether a single transform of this call can run its first and last launches by column
    /// ranges (the host pipeline overlaps them with the copies).
    pub(crate) fn by_columns(&self) -> bool {
        let l = &self.launches;
        self.batch == 1 && l.len() >= 2 && l[0].by_columns && l[l.len() - 1].by_columns
    }

    /// The parameters of launch `index` for transforms `batch` (from the first of them).
    fn params(&self, index: usize, first: usize) -> NttStageParams {
        let launch = &self.launches[index];
        let mut p = self.base;
        let offset = first as u64 * p.batch_stride * 32;
        p.data += offset;
        // Natural-order launches store to `out`: in place, or into the scratch (SCRATCH_OUT) and
        // back from it (SCRATCH_IN), each transform at the same offset as in the data.
        p.out = p.data;
        if launch.flags & flags::SCRATCH_OUT != 0 {
            p.out = self.scratch + offset;
        } else if launch.flags & flags::SCRATCH_IN != 0 {
            p.data = self.scratch + offset;
        }
        p.flags = launch.flags;
        p.log_cols = launch.log_cols;
        p.sub_twiddles = self.subs[index];
        if launch.flags & flags::MID_SCALED != 0 {
            // The inverse's 1/N in the mid table, where the plan put it.
            p.mid_twiddles = self.tables.0.mid_scaled.as_ref().map_or(0, |t| t.ptr());
        }
        if launch.flags & flags::OMEGA_SCALED != 0 {
            // The inverse's 1/N in the full stage-twiddle table, where the plan put it.
            p.omega = PowerTable {
                lo: self.tables.0.omega_scaled_ptr(),
                hi: 0,
            };
        }
        if launch.kernel == Kernel::Column {
            // Columns of S = 2^layers in sub-transforms of 2^log_m (log_q's slot).
            (p.log_p, p.log_q) = (launch.layers, launch.log_m);
        }
        p
    }
}

impl NttEngine {
    /// Launch `index` of `call`'s table on transforms `batch`; `columns` restricts a column launch
    /// to that range of columns (multiples of [`Prepared::columns_per_block`]). The launch is
    /// dependent when the table says so (the previous kernel on the stream is then this
    /// transform's); [`Self::launch_independent`] after anything else was queued in between.
    pub(crate) fn launch(
        &self,
        call: &Prepared,
        index: usize,
        batch: Range<usize>,
        columns: Option<Range<usize>>,
    ) -> Result<()> {
        let l = call.launches[index];
        self.launch_as(call, index, batch, columns, l.dependent)
    }

    /// As [`Self::launch`], never as a dependent launch (after an event wait on the stream).
    pub(crate) fn launch_independent(
        &self,
        call: &Prepared,
        index: usize,
        columns: Range<usize>,
    ) -> Result<()> {
        self.launch_as(call, index, 0..1, Some(columns), false)
    }

    /// The fused launch of a coset LDE ([`zkntt_core::plan::fused_lde_launch`]) on transforms
    /// `batch`, in place of `inv`'s last launch and `fwd`'s first: the inverse's parameters and
    /// sub-NTT twiddles, the forward's sub-NTT twiddles at `pre.lo` and its stage twiddles,
    /// g^j / N (`scale`; g^j where the inverse's 1/N is in its mid table) as `post`.
    pub(crate) fn launch_lde(
        &self,
        inv: &Prepared,
        fwd: &Prepared,
        fused: &Launch,
        scale: &SplitPowers,
        batch: Range<usize>,
    ) -> Result<()> {
        let mut p = inv.params(inv.launches.len() - 1, batch.start);
        p.flags = fused.flags;
        p.omega = fwd.base.omega;
        p.pre = PowerTable {
            lo: fwd.subs[0],
            hi: 0,
        };
        p.post = scale.table();
        let f = self
            .gpu()
            .field_function(column_symbol(fused.flags), inv.field)?;
        let grid = (fused.blocks, batch.len() as u32);
        self.launch_kernel(&f, &p, grid, fused, fused.dependent)
    }

    fn launch_as(
        &self,
        call: &Prepared,
        index: usize,
        batch: Range<usize>,
        columns: Option<Range<usize>>,
        dependent: bool,
    ) -> Result<()> {
        let l = &call.launches[index];
        let mut p = call.params(index, batch.start);
        let mut blocks = l.blocks;
        if let Some(cols) = columns {
            let per = call.columns_per_block(index);
            debug_assert!(matches!(l.kernel, Kernel::Column | Kernel::Stage1));
            debug_assert!(cols.start % per == 0);
            debug_assert!(cols.len() % per == 0 && !cols.is_empty());
            p.col_base = cols.start as u64;
            blocks = (cols.len() / per) as u32;
        }
        let kernel = match l.kernel {
            Kernel::Column => column_symbol(l.flags),
            Kernel::Middle => &names::ntt::MIDDLE,
            Kernel::Cluster => &names::ntt::CLUSTER,
            Kernel::Stage2Warp => &names::ntt::STAGE2_WARP,
            // One symbol per block size (slots per thread), each with its register budget.
            Kernel::Stage1 if l.layers + l.log_cols == 9 => &names::ntt::STAGE1_EL4,
            Kernel::Stage1 => &names::ntt::STAGE1_EL8,
        };
        let f = self.gpu().field_function(kernel, call.field)?;
        if l.kernel == Kernel::Cluster {
            let cfg = LaunchConfig {
                grid_dim: (blocks, batch.len() as u32, 1),
                block_dim: (l.threads, 1, 1),
                shared_mem_bytes: l.smem,
            };
            // SAFETY: as in `launch_kernel`; one cluster of `l.blocks` blocks per transform, a
            // size `runs_clusters` found this GPU runs (which also allowed it on the function).
            return unsafe {
                crate::launch::launch_cluster(self.gpu().stream(), &f, cfg, &p, l.blocks, false)
            };
        }
        self.launch_kernel(&f, &p, (blocks, batch.len() as u32), l, dependent)
    }

    fn launch_kernel(
        &self,
        f: &CudaFunction,
        p: &NttStageParams,
        grid: (u32, u32),
        l: &Launch,
        dependent: bool,
    ) -> Result<()> {
        let cfg = LaunchConfig {
            grid_dim: (grid.0, grid.1, 1),
            block_dim: (l.threads, 1, 1),
            shared_mem_bytes: l.smem,
        };
        // SAFETY: the kernel takes one NttStageParams by value; its pointers address live device
        // buffers of the sizes the plan implies (checked when the call was prepared). Every NTT
        // kernel waits for the previous grid (`griddepcontrol.wait`) before it touches global
        // memory, so a dependent launch is sound.
        unsafe {
            crate::launch::launch(
                self.gpu().stream(),
                f,
                cfg,
                p,
                dependent && self.dependent_launch,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::column_symbol;
    use zkntt_core::plan::flags;
    use zkntt_kernels::names::ntt::*;

    /// Every kind of column launch maps to its symbol, narrow blocks to the `_narrow` one (whose
    /// body assumes a butterfly per thread), the hybrid product to a wide one whatever NARROW says
    /// (as the kernels' old runtime branch did).
    #[test]
    fn column_symbols_by_flags() {
        let (n, rn, nr, h) = (
            flags::NARROW,
            flags::IN_BITREV,
            flags::OUT_BITREV,
            flags::FP64_HYBRID,
        );
        let (lde, t) = (flags::LDE, flags::SCRATCH_IN);
        for (f, want) in [
            (0, COLUMN),
            (n, COLUMN_NARROW),
            (t, COLUMN_T),
            (t | n, COLUMN_T_NARROW),
            (nr, COLUMN_NR),
            (nr | n, COLUMN_NR_NARROW),
            (rn, COLUMN_RN),
            (rn | n, COLUMN_RN_NARROW),
            (lde, COLUMN_LDE),
            (lde | n, COLUMN_LDE_NARROW),
            (lde | rn, COLUMN_LDE_ORDERED),
            (lde | rn | n, COLUMN_LDE_ORDERED_NARROW),
            (h, COLUMN_HYBRID),
            (h | n, COLUMN_HYBRID),
            (h | nr, COLUMN_NR_HYBRID),
            (h | rn | n, COLUMN_RN_HYBRID),
        ] {
            assert_eq!(*column_symbol(f), want, "flags {f:#x}");
            // The trigger's place is read by the kernel, never by the symbol choice.
            let early = f | flags::TRIGGER_START;
            assert_eq!(*column_symbol(early), want, "flags {early:#x}");
        }
    }
}
