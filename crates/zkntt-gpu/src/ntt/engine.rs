//! The NTT engine: validates a call, finds (or builds) the twiddles, runs the plan's launch table.

use super::launch::Prepared;
use super::twiddles::{FULL_TWIDDLES_DEFAULT_MAX_LOG, SplitPowers, Twiddles};
use crate::device_vec::check_room;
use crate::error::DriverContext;
use crate::{DeviceVec, Error, Gpu, Result};
use cudarc::driver::{CudaSlice, DevicePtr};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, MutexGuard};
use zkntt_core::plan::{Kernels, Lde, flags};
use zkntt_core::{Direction, FieldId, GpuField, NttConfig, Ordering, Plan};

/// `ZKNTT_KERNELS` (see [`Kernels::parse`]); an unreadable value is reported once and ignored.
fn kernels_from_env() -> Kernels {
    match std::env::var("ZKNTT_KERNELS") {
        Err(_) => Kernels::default(),
        Ok(v) => Kernels::parse(&v).unwrap_or_else(|e| {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| eprintln!("zkntt: ZKNTT_KERNELS ignored: {e}"));
            Kernels::default()
        }),
    }
}

type Key = (FieldId, u32, Direction);
/// (field, log2 size, canonical bytes of the caller's coset offset g, which table of its powers).
/// Keyed by g itself, not by the table's base: a coset inverse's hit then costs no field
/// inversion (g^-1, a few microseconds on the host, is computed only when its table is built).
type CosetKey = (FieldId, u32, Vec<u8>, CosetTable);

/// Which powers of a coset offset g a table holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CosetTable {
    /// g^j: a coset forward transform's input scaling.
    Forward,
    /// g^-k / N: a coset inverse transform's output scaling (1/N folded in: one product per
    /// element, not two).
    Inverse,
    /// g^j / N: the fused launch of a coset LDE (the inverse's 1/N and the forward's g^j).
    Lde,
}
/// Coset power tables kept per engine (a prover reuses one or two offsets per domain size); the
/// least recently used is dropped beyond this. Each is two tables of about sqrt(N) elements.
const COSET_CACHE: usize = 8;

/// One device's NTT engine: launches on the device's stream, caches twiddles per
/// (field, size, direction) and the 8 most recently used coset power tables, each per (field,
/// size, offset, kind: g^j, g^-k / N or g^j / N) (`clear_cache` drops both; `twiddle_bytes`
/// counts both). Cheap to share (`&self` methods; put it in an `Arc`). Host memory in and out goes through a
/// [`HostPipeline`](crate::HostPipeline) built on an engine.
///
/// Twiddle memory: up to 2^22 a size's stage twiddles are all N powers (as many bytes as the data,
/// per size and direction, for one table read instead of two and a product per element); above
/// 2^22, or when the device has no room for the full table, two tables of about sqrt(N) powers
/// (2^23: under 1 MiB in all). `set_full_twiddles_max_log` moves the limit (24: 5-8% faster at 2^23
/// and 2^24 for as much memory again as the data); `clear_cache` frees them. A plain inverse that has
/// no mid-table launch (NR and RN up to 2^20, the two-pass natural order) also keeps that full table
/// times 1/N, built by its first call, so that its 1/N costs no product: twice the data's bytes for
/// such an inverse size (without room for the copy, the product stays).
///
/// Scratch memory: a natural-order call of at most 2^17 elements in all runs as two passes through
/// a scratch buffer of its size ([`Natural::TwoPass`](zkntt_core::plan::Natural): one launch fewer
/// than the in-place stages); the engine keeps the largest such buffer (4 MiB by default, up to
/// 32 MiB where two passes are forced to 2^20; `scratch_bytes`; `clear_cache` frees it) and runs
/// the in-place stages where the device has no room for one.
///
/// ```no_run
/// use ark_bn254::Fr;
/// use zkntt_gpu::{DeviceVec, Gpu, NttConfig, NttEngine};
///
/// let engine = NttEngine::new(Gpu::new(0)?);
/// let mut data = DeviceVec::from_host(engine.gpu(), &vec![Fr::from(1u64); 1 << 20])?;
/// engine.ntt_in_place(&mut data, &NttConfig::forward())?; // asynchronous on the stream
/// let evals = data.to_host(engine.gpu())?;               // waits
/// # Ok::<(), zkntt_gpu::Error>(())
/// ```
#[derive(Debug)]
pub struct NttEngine {
    gpu: Gpu,
    twiddles: Mutex<HashMap<Key, Arc<Twiddles>>>,
    /// Most recently used last.
    cosets: Mutex<Vec<(CosetKey, Arc<SplitPowers>)>>,
    /// Launch the plan's dependent launches with programmatic dependent launch (sm_90+): each
    /// one's blocks are scheduled while the previous launch drains and wait in the kernel for its
    /// writes (see `wait_for_previous_grid` in `cuda/ntt/ntt_common.cuh`).
    pub(super) dependent_launch: bool,
    /// The kernel generation of each stage ([`Kernels`]).
    kernels: Mutex<Kernels>,
    /// Whether this GPU runs the cluster launch, per field (asked once: [`Self::runs_clusters`]).
    clusters: Mutex<HashMap<FieldId, bool>>,
    /// The scratch lent to two-pass natural-order calls, grown to the largest, kept. Locked while
    /// a call queues its launches: every launch runs on the engine's one stream, so the next
    /// call's first launch starts after this call's last has read it.
    scratch: Mutex<Option<Scratch>>,
    /// Stage twiddles kept as all N powers up to this log2 size ([`Self::set_full_twiddles_max_log`]).
    full_twiddles_max_log: AtomicU32,
}

/// Device memory of a two-pass transform's scratch. Only kernels on the engine's stream touch it,
/// in that stream's order, and it is freed in that order: its address is taken once.
#[derive(Debug)]
struct Scratch {
    /// Owned for its memory (freed on drop); used through `ptr`.
    _buf: CudaSlice<u64>,
    bytes: usize,
    ptr: u64,
}

impl NttEngine {
    pub fn new(gpu: Gpu) -> Self {
        let sm90 = gpu.info().is_ok_and(|i| i.compute_capability.0 >= 9);
        Self {
            dependent_launch: sm90,
            gpu,
            twiddles: Mutex::new(HashMap::new()),
            cosets: Mutex::new(Vec::new()),
            kernels: Mutex::new(kernels_from_env()),
            clusters: Mutex::new(HashMap::new()),
            scratch: Mutex::new(None),
            full_twiddles_max_log: AtomicU32::new(FULL_TWIDDLES_DEFAULT_MAX_LOG),
        }
    }

    /// Up to which log2 size a transform's stage twiddles are kept as all N powers: one table read
    /// per element of the first column launch instead of two reads and a product, for N x 32
    /// bytes of device memory per size and direction (as much as the data). Default
    /// [`FULL_TWIDDLES_DEFAULT_MAX_LOG`] (22), which keeps an in-place 2^23 transform within 1.15x
    /// its data; 24 measured 5-8% faster at 2^23 and 2^24 on an H200 (benches/NOTES.md) for 256
    /// and 512 MiB more per direction. Where the full table does not fit the engine builds the
    /// compact one anyway. Drops the cached twiddles (rebuilt by the next call).
    pub fn set_full_twiddles_max_log(&self, log_n: u32) {
        let mut cache = self.lock();
        self.full_twiddles_max_log
            .store(log_n, AtomicOrdering::Relaxed);
        cache.clear();
    }

    /// The setting of [`Self::set_full_twiddles_max_log`].
    pub fn full_twiddles_max_log(&self) -> u32 {
        self.full_twiddles_max_log.load(AtomicOrdering::Relaxed)
    }

    /// Whether the GPU runs `field`'s cluster launch ([`zkntt_core::plan::Kernel::Cluster`]): sm_90
    /// or later, and at least one cluster of the largest one's shape at a time
    /// (`cuOccupancyMaxActiveClusters`, which also allows its non-portable size on the kernel).
    /// Asked once per field; any error reads as no.
    pub(super) fn runs_clusters(&self, field: FieldId) -> bool {
        let mut known = self.clusters.lock().unwrap_or_else(|p| p.into_inner());
        *known.entry(field).or_insert_with(|| {
            let sm90 = self.gpu.info().is_ok_and(|i| i.compute_capability.0 >= 9);
            let fits = || -> Result<bool> {
                let f = self
                    .gpu
                    .field_function(&zkntt_kernels::names::ntt::CLUSTER, field)?;
                let log_n = *zkntt_core::plan::CLUSTER_LOGS.end();
                let l = zkntt_core::plan::cluster_launch(log_n, Default::default());
                let cfg = cudarc::driver::LaunchConfig {
                    grid_dim: (l.blocks, 1, 1),
                    block_dim: (l.threads, 1, 1),
                    shared_mem_bytes: l.smem,
                };
                Ok(crate::launch::max_active_clusters(self.gpu.stream(), &f, cfg, l.blocks)? >= 1)
            };
            sm90 && fits().unwrap_or(false)
        })
    }

    /// The kernel generation each stage runs (default: [`Kernels::default`], per field and size what
    /// measured fastest; `ZKNTT_KERNELS=stage2=warp|shared|auto` at engine creation chooses, as
    /// [`Self::set_kernels`]).
    pub fn kernels(&self) -> Kernels {
        *self.kernels.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Chooses the kernel generation of each stage for the calls prepared from now on. Every
    /// choice gives the same result; they differ in speed (benches/NOTES.md).
    pub fn set_kernels(&self, kernels: Kernels) {
        *self.kernels.lock().unwrap_or_else(|p| p.into_inner()) = kernels;
    }

    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Device bytes held by cached twiddles (coset power tables included).
    pub fn twiddle_bytes(&self) -> usize {
        self.lock().values().map(|t| t.bytes()).sum::<usize>()
            + self
                .lock_cosets()
                .iter()
                .map(|(_, t)| t.bytes())
                .sum::<usize>()
    }

    /// Device bytes held as the scratch of two-pass natural-order calls (the largest such call's
    /// data: at most 4 MiB by default, 32 MiB).
    pub fn scratch_bytes(&self) -> usize {
        self.lock_scratch().as_ref().map_or(0, |s| s.bytes)
    }

    /// Drops the cached twiddles, coset tables and scratch (rebuilt by the next call that needs
    /// them).
    pub fn clear_cache(&self) {
        self.lock().clear();
        self.lock_cosets().clear();
        *self.lock_scratch() = None;
    }

    fn lock_scratch(&self) -> MutexGuard<'_, Option<Scratch>> {
        self.scratch.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The scratch address for a call that needs `bytes`, the buffer grown to that where smaller
    /// (the old one freed in stream order, after the launches queued with it).
    fn scratch_ptr(&self, held: &mut Option<Scratch>, bytes: usize) -> Result<u64> {
        if let Some(s) = held.as_ref().filter(|s| s.bytes >= bytes) {
            return Ok(s.ptr);
        }
        *held = None;
        check_room(&self.gpu, bytes)?;
        // SAFETY: every word a kernel reads is written by the launch before it (SCRATCH_OUT).
        let buf =
            unsafe { self.gpu.stream().alloc::<u64>(bytes / 8) }.during("cuMemAlloc (scratch)")?;
        let (ptr, sync) = buf.device_ptr(self.gpu.stream());
        drop(sync);
        *held = Some(Scratch {
            _buf: buf,
            bytes,
            ptr,
        });
        Ok(ptr)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Key, Arc<Twiddles>>> {
        self.twiddles.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_cosets(&self) -> MutexGuard<'_, Vec<(CosetKey, Arc<SplitPowers>)>> {
        self.cosets.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The `table` powers of the coset offset `g` up to exponent 2^log_n - 1, from the cache or
    /// built (and cached). `ZeroCosetOffset` where an inverse needs g^-1 and g is zero.
    pub(super) fn coset_powers<F: GpuField>(
        &self,
        g: F,
        log_n: u32,
        table: CosetTable,
    ) -> Result<Arc<SplitPowers>> {
        let mut bytes = Vec::new();
        g.serialize_compressed(&mut bytes)
            .expect("serializing a field element into a Vec cannot fail");
        let key = (F::ID, log_n, bytes, table);
        {
            let mut cache = self.lock_cosets();
            if let Some(i) = cache.iter().position(|(k, _)| *k == key) {
                let hit = cache.remove(i);
                let t = hit.1.clone();
                cache.push(hit);
                return Ok(t);
            }
        }
        let n_inv = || {
            F::from(1u64 << log_n)
                .inverse()
                .ok_or_else(|| Error::Internal(format!("2^{log_n} has no inverse in the field")))
        };
        let (scale, base) = match table {
            CosetTable::Forward => (F::ONE, g),
            CosetTable::Inverse => (
                n_inv()?,
                g.inverse().ok_or(zkntt_core::Error::ZeroCosetOffset)?,
            ),
            CosetTable::Lde => (n_inv()?, g),
        };
        let t = Arc::new(SplitPowers::scaled(&self.gpu, scale, base, log_n)?);
        let mut cache = self.lock_cosets();
        if cache.len() >= COSET_CACHE {
            // Freed stream-ordered: kernels already queued with it still read valid memory.
            cache.remove(0);
        }
        cache.push((key, t.clone()));
        Ok(t)
    }

    pub(super) fn twiddles<F: GpuField>(
        &self,
        plan: Plan,
        dir: Direction,
    ) -> Result<Arc<Twiddles>> {
        let key = (F::ID, plan.log_n(), dir);
        if let Some(t) = self.lock().get(&key) {
            return Ok(t.clone());
        }
        let full = self.full_twiddles_max_log();
        let t = Arc::new(Twiddles::build::<F>(&self.gpu, plan, dir, full)?);
        let mut cache = self.lock();
        // The setting changes under this lock: a table built under an older one serves this call
        // but is not kept.
        if self.full_twiddles_max_log() != full {
            return Ok(t);
        }
        Ok(cache.entry(key).or_insert(t).clone())
    }

    /// Runs the transforms `cfg` describes on device data, in place, asynchronously on the GPU's
    /// stream (after any work another handle queued on `data`). Bad input (length, size, device)
    /// is an error before anything is launched; the data is then untouched. `F` is a field with
    /// kernels ([`GpuField`]): any other is a compile error, not a run-time one.
    pub fn ntt_in_place<F: GpuField>(
        &self,
        data: &mut DeviceVec<F>,
        cfg: &NttConfig<F>,
    ) -> Result<()> {
        let Some(mut call) = self.prepare_with(data, cfg, true)? else {
            return Ok(()); // a transform of one element is the identity, cosets and 1/N included
        };
        // A two-pass call holds the scratch while it queues its launches; where the device has
        // no room for it, the in-place stages.
        let mut lent = None;
        if call.scratch_bytes() > 0 {
            let mut held = self.lock_scratch();
            match self.scratch_ptr(&mut held, call.scratch_bytes()) {
                Ok(ptr) => {
                    call.scratch = ptr;
                    lent = Some(held);
                }
                Err(Error::OutOfMemory { .. }) => {
                    drop(held);
                    call = self.prepare(data, cfg)?.ok_or_else(|| {
                        Error::Internal("a transform prepared twice lost its launches".into())
                    })?;
                }
                Err(e) => return Err(e),
            }
        }
        data.order_on_exclusive(&self.gpu)?;
        for batch in call.batch_chunks() {
            for index in 0..call.launches().len() {
                self.launch(&call, index, batch.clone(), None)?;
            }
        }
        drop(lent);
        Ok(())
    }

    /// A coset low-degree extension of each transform `cfg` describes, on device data, in place,
    /// asynchronously on the GPU's stream: the values of a polynomial on the subgroup H of 2^k
    /// points become its values on the coset g·H (ark's `domain.coset_fft(&domain.ifft(v))`, g
    /// the coset offset), as an inverse transform and a coset forward one whose launches where
    /// they meet are one ([`zkntt_core::plan::fused_lde_launch`]: one pass over memory and one
    /// launch fewer than [`Self::ntt_in_place`] twice); in NN and NN, or NR and RN (bit-reversed
    /// coefficients in between, fewer launches up to 2^20), as [`Kernels`]' `lde` says. `cfg` is the forward half: forward,
    /// natural order, a coset offset; its batch and layout apply to both halves. Bad input is an
    /// error before anything is launched; the data is then untouched.
    ///
    /// ```no_run
    /// use ark_bn254::Fr;
    /// use ark_ff::FftField;
    /// use zkntt_gpu::{DeviceVec, Gpu, NttConfig, NttEngine};
    ///
    /// let engine = NttEngine::new(Gpu::new(0)?);
    /// let mut v = DeviceVec::from_host(engine.gpu(), &vec![Fr::from(3u64); 1 << 16])?;
    /// engine.coset_lde_in_place(&mut v, &NttConfig::forward().with_coset(Fr::GENERATOR))?;
    /// # Ok::<(), zkntt_gpu::Error>(())
    /// ```
    pub fn coset_lde_in_place<F: GpuField>(
        &self,
        data: &mut DeviceVec<F>,
        cfg: &NttConfig<F>,
    ) -> Result<()> {
        let not = |what| Err(Error::Config(zkntt_core::Error::NotAnLde(what)));
        let g = match (cfg.direction, cfg.ordering, cfg.coset) {
            (Direction::Forward, Ordering::NN, Some(g)) => g,
            (Direction::Inverse, _, _) => return not("the direction is inverse"),
            (_, Ordering::NN, None) => return not("no coset offset"),
            _ => return not("the ordering is not NN"),
        };
        // The orderings of the two halves (Kernels::lde): NN and NN, or NR and RN.
        let plan = Plan::for_size(cfg.log_size(data.len())?)?;
        let (inverse_order, forward_order) =
            match self.kernels().resolve_batch(F::ID, &plan, cfg.batch).lde {
                Lde::BitReversed => (Ordering::NR, Ordering::RN),
                Lde::Natural | Lde::Auto => (Ordering::NN, Ordering::NN),
            };
        let forward = NttConfig {
            ordering: forward_order,
            ..*cfg
        };
        let inverse = NttConfig {
            direction: Direction::Inverse,
            coset: None,
            ordering: inverse_order,
            ..*cfg
        };
        // Both halves validated (length, size, offset) and their tables built before any launch.
        // The forward half is prepared without its coset: the fused launch scales by g^j / N (g^j
        // where the inverse carries its 1/N in the mid table) itself, so the coset forward's own
        // g^j table is built only where the halves do not fuse.
        let plain = NttConfig {
            coset: None,
            ..forward
        };
        let Some(fwd) = self.prepare(data, &plain)? else {
            return Ok(()); // one point: the inverse and the coset forward are both the identity
        };
        let empty = || Error::Internal("a coset LDE's half is empty".into());
        let inv = self.prepare(data, &inverse)?.ok_or_else(empty)?;
        let inv_last = *inv.launches().last().expect("a transform has launches");
        let fused = zkntt_core::plan::fused_lde_launch(&inv_last, &fwd.launches()[0]);
        // Where they do not fuse (a stage generation forced, or one cluster launch each): both
        // transforms in full.
        let (fwd, fused) = match fused {
            Some(l) => {
                // The fused launch takes over the inverse's last launch and its 1/N: g^j / N, or
                // g^j where the plan put that 1/N on an earlier launch (flags::MID_SCALED).
                let kind = if inv_last.flags & flags::POST_CONST != 0 {
                    CosetTable::Lde
                } else {
                    CosetTable::Forward
                };
                let scale = self.coset_powers(g, fwd.log_n(), kind)?;
                (fwd, Some((l, scale)))
            }
            None => (self.prepare(data, &forward)?.ok_or_else(empty)?, None),
        };
        data.order_on_exclusive(&self.gpu)?;
        let run =
            |call: &Prepared, launches: std::ops::Range<usize>, batch: &std::ops::Range<usize>| {
                launches
                    .into_iter()
                    .try_for_each(|index| self.launch(call, index, batch.clone(), None))
            };
        let (n_inv, n_fwd) = (inv.launches().len(), fwd.launches().len());
        for batch in fwd.batch_chunks() {
            match &fused {
                Some((l, scale)) => {
                    run(&inv, 0..n_inv - 1, &batch)?;
                    self.launch_lde(&inv, &fwd, l, scale, batch.clone())?;
                    run(&fwd, 1..n_fwd, &batch)?;
                }
                None => {
                    run(&inv, 0..n_inv, &batch)?;
                    run(&fwd, 0..n_fwd, &batch)?;
                }
            }
        }
        Ok(())
    }

    /// The launches of `cfg` on `data`, validated and with their tables (built or cached), in place
    /// (natural order by the self-sorting stages, whatever [`Kernels`] says); `None` for one-point
    /// transforms (the identity).
    pub(crate) fn prepare<F: GpuField>(
        &self,
        data: &DeviceVec<F>,
        cfg: &NttConfig<F>,
    ) -> Result<Option<Prepared>> {
        self.prepare_with(data, cfg, false)
    }

    /// [`Self::prepare`], natural order as [`Kernels`] says where `scratch` (the caller then lends
    /// the call [`Prepared::scratch_bytes`] of scratch before it launches).
    fn prepare_with<F: GpuField>(
        &self,
        data: &DeviceVec<F>,
        cfg: &NttConfig<F>,
        scratch: bool,
    ) -> Result<Option<Prepared>> {
        data.check(&self.gpu, data.len())?;
        let log_n = cfg.log_size(data.len())?;
        let plan = Plan::for_size(log_n)?;
        if log_n == 0 {
            return Ok(None);
        }
        Prepared::new(self, plan, cfg, data.raw_ptr(), scratch).map(Some)
    }
}
