//! Twiddle tables, built on the GPU by the CUB shim (`cuda/ntt/twiddles_prefix_product.host.cu`)
//! and cached per (field, size, direction). Stored compactly: the N-th root's powers as two tables
//! of about sqrt(N) entries (x^e = hi[e >> b] * lo[e & (2^b - 1)]) plus the sub-NTTs' own tables,
//! so 2^23 needs under 1 MiB of twiddles (an inverse 256 KiB more: the mid table times 1/N), not the
//! 256 MiB of N entries. Up to
//! [`FULL_TWIDDLES_DEFAULT_MAX_LOG`] (or the engine's setting) the N powers are kept whole (one read, no product per stage twiddle;
//! as much device memory as the data), and for a plain inverse with no mid-table launch a second,
//! scaled by 1/N, built by its first call (`Twiddles::omega_scaled`).

use super::params::PowerTable;
use crate::device_vec::{alloc_error, check_room};
use crate::{Error, Gpu, Result};
use cudarc::driver::{CudaSlice, DevicePtr};
use std::sync::OnceLock;
use zkntt_core::plan::{CLUSTER_LOG, CLUSTER_LOGS};
use zkntt_core::{Direction, GpuField, Plan};

/// A table of field elements on the device (type-erased: 4 words each). Written once on the
/// engine's stream, then only read by kernels on that stream and freed in its order: its address
/// is taken once, not through cudarc's per-use event tracking (two driver calls per use, which
/// made up much of a small transform's host time).
#[derive(Debug)]
pub(crate) struct Table {
    /// Owned for its memory (freed on drop); read through `ptr`.
    _buf: CudaSlice<u64>,
    len: usize,
    ptr: u64,
}

impl Table {
    pub fn ptr(&self) -> u64 {
        self.ptr
    }
    pub fn bytes(&self) -> usize {
        self.len * 32
    }
}

/// `[x^0, ..., x^(n-1)]` on the device, by the CUB prefix product.
pub(crate) fn powers<F: GpuField>(gpu: &Gpu, x: F, n: usize) -> Result<Table> {
    scaled_powers(gpu, F::ONE, x, n)
}

/// `[c x^0, ..., c x^(n-1)]` on the device, by the CUB prefix product (c is its first factor).
pub(crate) fn scaled_powers<F: GpuField>(gpu: &Gpu, c: F, x: F, n: usize) -> Result<Table> {
    let n = n.max(1);
    check_room(gpu, n * 32)?;
    // SAFETY: every word is written by the shim before any kernel reads it.
    let buf =
        unsafe { gpu.stream().alloc::<u64>(n * 4) }.map_err(|e| alloc_error(gpu, n * 32, e))?;
    let (ptr, sync) = buf.device_ptr(gpu.stream());
    // SAFETY: `ptr` holds n elements of F; `c` and `x` are elements of F, a GpuField (so each is
    // exactly its Montgomery limbs) whose kernels the name selects; the stream is this context's.
    let r = unsafe {
        zkntt_kernels::host::powers(
            F::ID.name(),
            ptr as *mut std::ffi::c_void,
            (&c as *const F).cast(),
            (&x as *const F).cast(),
            n as u64,
            gpu.stream().cu_stream() as *mut std::ffi::c_void,
        )
    };
    drop(sync);
    r.map_err(|e| match e.code {
        0 => Error::KernelsNotBuilt {
            note: zkntt_kernels::BUILD_NOTE,
        },
        2 => Error::OutOfMemory {
            needed: n * 32,
            free: gpu.memory().map(|m| m.0).unwrap_or(0),
        },
        code => Error::Runtime {
            code,
            message: e.message,
        },
    })?;
    Ok(Table {
        _buf: buf,
        len: n,
        ptr,
    })
}

/// Powers of `x` up to `x^(2^log_n - 1)` as two tables split at `lo_bits`.
#[derive(Debug)]
pub(crate) struct SplitPowers {
    lo: Table,
    hi: Table,
}

impl SplitPowers {
    pub fn new<F: GpuField>(gpu: &Gpu, x: F, log_n: u32) -> Result<Self> {
        Self::scaled(gpu, F::ONE, x, log_n)
    }
    /// c x^e as hi[e >> b] * lo[e & (2^b - 1)]: c goes into the lo table.
    pub fn scaled<F: GpuField>(gpu: &Gpu, c: F, x: F, log_n: u32) -> Result<Self> {
        let b = lo_bits(log_n);
        let lo = scaled_powers(gpu, c, x, 1 << b)?;
        let hi = powers(gpu, x.pow([1u64 << b]), 1 << (log_n - b))?;
        Ok(Self { lo, hi })
    }
    pub fn table(&self) -> PowerTable {
        PowerTable {
            lo: self.lo.ptr(),
            hi: self.hi.ptr(),
        }
    }
    pub fn bytes(&self) -> usize {
        self.lo.bytes() + self.hi.bytes()
    }
}

/// The split of every power table of a 2^log_n transform.
pub(crate) fn lo_bits(log_n: u32) -> u32 {
    log_n.div_ceil(2)
}

/// Up to this log2 size, by default, the first column launch's twiddles w_N^(c*k1) come from a
/// table of all N powers (one read per element instead of two reads and a product; the gain is in
/// benches/NOTES.md), at the price of N x 32 bytes of device memory per (size, direction), as much
/// as the data (128 MiB at 2^22). Above it, or when the full table does not fit, the two split
/// tables of about sqrt(N) entries (2^23: 656 KiB in all), so an in-place 2^23 transform stays
/// within 1.15x its data. [`NttEngine::set_full_twiddles_max_log`](super::NttEngine) moves it.
pub const FULL_TWIDDLES_DEFAULT_MAX_LOG: u32 = 22;

/// The stage twiddles w_N^e, e < N, as the kernels read them.
#[derive(Debug)]
pub(crate) enum OmegaTable {
    /// All N powers in one table.
    Full(Table),
    /// Two tables split at `lo_bits(log_n)`.
    Split(SplitPowers),
}

impl OmegaTable {
    /// The table and whether it is the full one (flag `OMEGA_FULL`).
    pub fn table(&self) -> (PowerTable, bool) {
        match self {
            OmegaTable::Full(t) => (PowerTable { lo: t.ptr(), hi: 0 }, true),
            OmegaTable::Split(s) => (s.table(), false),
        }
    }
    pub fn bytes(&self) -> usize {
        match self {
            OmegaTable::Full(t) => t.bytes(),
            OmegaTable::Split(s) => s.bytes(),
        }
    }
}

/// The full table up to 2^`full_max_log` if the device has room for it, else the split one.
fn omega_table<F: GpuField>(gpu: &Gpu, w: F, log_n: u32, full_max_log: u32) -> Result<OmegaTable> {
    if log_n <= full_max_log {
        match powers(gpu, w, 1usize << log_n) {
            Ok(t) => return Ok(OmegaTable::Full(t)),
            Err(Error::OutOfMemory { .. }) => {} // the compact form needs ~sqrt(N) entries
            Err(e) => return Err(e),
        }
    }
    Ok(OmegaTable::Split(SplitPowers::new(gpu, w, log_n)?))
}

/// log2 of every sub-NTT size the launches of `plan` run in any ordering (their `layers`): P and
/// Q (N for a single-block plan), the bit-reversed orderings' column sizes and, for the sizes a
/// cluster launch runs, its rows' L.
pub(crate) fn sub_sizes(plan: Plan) -> Vec<u32> {
    let mut sizes = plan.ordered_columns();
    if let Plan::ThreeStage { log_p, log_q, .. } = plan {
        sizes.extend([log_p, log_q]);
    }
    if CLUSTER_LOGS.contains(&plan.log_n()) {
        sizes.push(plan.log_n() - CLUSTER_LOG);
    }
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// Everything a transform of one (field, size, direction) needs, built once.
#[derive(Debug)]
pub(crate) struct Twiddles {
    /// Powers of the N-th root (inverse root for inverses): stage twiddles w_N^e.
    pub omega: Option<OmegaTable>,
    /// (log2 S, w_S^t for t < S/2) for every sub-NTT size S a launch of this size runs: P and Q
    /// (N for a single-block plan), and the column sizes of the bit-reversed orderings.
    pub subs: Vec<(u32, Table)>,
    /// w_(N/P)^e for e < N/P = Q*P: the middle stage's w_N^(P*b*k) in one read (three-stage
    /// plans; 256 KiB at 2^23).
    pub mid: Option<Table>,
    /// 1/N, one element (inverses).
    pub n_inv: Option<Table>,
    /// The mid table times 1/N, w_(N/P)^e / N (inverses of three-stage plans): read by the launch
    /// that carries the inverse's 1/N ([`zkntt_core::plan::flags::MID_SCALED`]).
    pub mid_scaled: Option<Table>,
    /// The full stage-twiddle table times 1/N, w_N^e / N (inverses holding the full table), built
    /// by the first call whose plan reads it ([`zkntt_core::plan::flags::OMEGA_SCALED`]).
    omega_scaled: OnceLock<Table>,
}

impl Twiddles {
    /// The tables of `plan` in `direction`, the stage twiddles whole up to 2^`full_max_log`.
    pub fn build<F: GpuField>(
        gpu: &Gpu,
        plan: Plan,
        direction: Direction,
        full_max_log: u32,
    ) -> Result<Self> {
        let log_n = plan.log_n();
        let mut w =
            F::get_root_of_unity(1u64 << log_n).ok_or(zkntt_core::Error::DomainTooLarge {
                log_n,
                max: F::TWO_ADICITY,
            })?;
        if direction == Direction::Inverse {
            w = w.inverse().expect("roots of unity are invertible");
        }
        let inv = match direction {
            Direction::Forward => None,
            Direction::Inverse => Some(F::from(1u64 << log_n).inverse().expect("N < p")),
        };
        // [1, 1/N]: element 1 is 1/N
        let n_inv = inv.map(|inv| powers(gpu, inv, 2)).transpose()?;
        let subs = sub_sizes(plan)
            .into_iter()
            .map(|log_s| {
                let w_s = w.pow([1u64 << (log_n - log_s)]);
                Ok((log_s, powers(gpu, w_s, (1usize << log_s) / 2)?))
            })
            .collect::<Result<_>>()?;
        Ok(match plan {
            Plan::Single { .. } => Self {
                omega: None,
                subs,
                mid: None,
                n_inv,
                mid_scaled: None,
                omega_scaled: OnceLock::new(),
            },
            Plan::ThreeStage { log_n, log_p, .. } => {
                let (w_mid, len) = (w.pow([1u64 << log_p]), 1usize << (log_n - log_p));
                Self {
                    omega: Some(omega_table(gpu, w, log_n, full_max_log)?),
                    subs,
                    mid: Some(powers(gpu, w_mid, len)?),
                    n_inv,
                    mid_scaled: inv
                        .map(|inv| scaled_powers(gpu, inv, w_mid, len))
                        .transpose()?,
                    omega_scaled: OnceLock::new(),
                }
            }
        })
    }

    /// The table w_S^t, t < S/2, for S = 2^log_s (built for every size the plan's launches use).
    pub fn sub(&self, log_s: u32) -> Result<u64> {
        self.subs
            .iter()
            .find(|(s, _)| *s == log_s)
            .map(|(_, t)| t.ptr())
            .ok_or_else(|| Error::Internal(format!("no sub-NTT twiddles for 2^{log_s}")))
    }

    /// Address of w_N^e / N, e < N (an inverse's full table times 1/N), built on first use;
    /// `Error::OutOfMemory` where it does not fit.
    pub fn omega_scaled<F: GpuField>(&self, gpu: &Gpu) -> Result<u64> {
        if let Some(t) = self.omega_scaled.get() {
            return Ok(t.ptr());
        }
        let (Some(OmegaTable::Full(full)), Some(_)) = (&self.omega, &self.n_inv) else {
            return Err(Error::Internal(
                "a scaled stage-twiddle table asked of a forward or split table".into(),
            ));
        };
        let n = full.len as u64;
        let w = F::get_root_of_unity(n)
            .and_then(|w| w.inverse())
            .ok_or_else(|| Error::Internal("a full table of no root of unity".into()))?;
        let inv = F::from(n).inverse().expect("N < p");
        let t = scaled_powers(gpu, inv, w, full.len)?;
        // Two calls building at once: the first kept serves both, the other copy is freed.
        Ok(self.omega_scaled.get_or_init(|| t).ptr())
    }

    /// The scaled full table's address where it was built, else 0.
    pub fn omega_scaled_ptr(&self) -> u64 {
        self.omega_scaled.get().map_or(0, Table::ptr)
    }

    /// Address of 1/N (element 1 of the `[1, 1/N]` table), or 0.
    pub fn n_inv_ptr(&self) -> u64 {
        self.n_inv.as_ref().map_or(0, |t| t.ptr() + 32)
    }

    pub fn bytes(&self) -> usize {
        self.omega.as_ref().map_or(0, OmegaTable::bytes)
            + self.subs.iter().map(|(_, t)| t.bytes()).sum::<usize>()
            + self.mid.as_ref().map_or(0, Table::bytes)
            + self.n_inv.as_ref().map_or(0, Table::bytes)
            + self.mid_scaled.as_ref().map_or(0, Table::bytes)
            + self.omega_scaled.get().map_or(0, Table::bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zkntt_core::Ordering;
    use zkntt_core::plan::{Blocks, Chain, Form, Kernels, Lde, Natural, Product, Stage1, Stage2};

    /// Every launch of every size, ordering and kernel generation finds its sub-NTT table.
    #[test]
    fn every_launch_has_its_sub_table() {
        for log_n in 0..=32 {
            let plan = Plan::for_size(log_n).unwrap();
            let sizes = sub_sizes(plan);
            for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                for stage1 in [Stage1::Shared, Stage1::Shuffle] {
                    for stage2 in [Stage2::Shared, Stage2::Warp] {
                        for blocks in [Blocks::Wide, Blocks::Narrow, Blocks::Cluster] {
                            let form = Form {
                                ordering,
                                ..Form::default()
                            };
                            for natural in [Natural::SelfSorting, Natural::TwoPass] {
                                let kernels = Kernels {
                                    stage1,
                                    stage2,
                                    blocks,
                                    chain: Chain::Auto,
                                    product: Product::Hybrid,
                                    lde: Lde::Auto,
                                    natural,
                                    ..Kernels::default()
                                };
                                for l in plan.launches(form, kernels) {
                                    let what = format!("2^{log_n} {ordering:?} {l:?}");
                                    assert!(sizes.contains(&l.layers), "{what}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
