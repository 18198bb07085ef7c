//! One transform across k GPUs: the four-step split of `zkntt_core::distributed` (whose CPU
//! model it follows step for step, layouts included) with one NCCL all-to-all.
//!
//! Per rank g of k, N = N1 x N2, c = N1/k columns and r = N2/k values of k2 per rank:
//! 1. the rank's N2 x c block (global columns g*c ..): c column NTTs of N2 points on its GPU
//!    (the engine's column batch; a forward coset's g^(N1*n2) as the batch's coset);
//! 2. `cuda/ntt/split_pack.cu`: times w^(n1*k2) (and a forward coset's g^n1, an inverse coset's
//!    g^-k2), written straight into the send layout (chunk h for rank h);
//! 3. one all-to-all (NCCL, grouped sends and receives) into the block's own memory;
//! 4. r column NTTs of N1 points over the N1 x r block (an inverse coset's g^(-N2*k1) and the
//!    1/N1 as the batch's): rank h ends with `out[k1*r + k2l] = X[N2*k1 + h*r + k2l]`.
//!
//! Memory per rank: its block (N/k elements) and a send buffer of the same size, on its GPU.

use super::nccl::{Comms, Nccl};
use crate::error::DriverContext;
use crate::ntt::{PowerTable, SplitPowers, lo_bits, scaled_powers};
use crate::{DeviceVec, Error, Gpu, HostPipeline, NttEngine, Result};
use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard};
use zkntt_core::distributed::Split;
use zkntt_core::reference::root_of_unity;
use zkntt_core::{BatchLayout, Direction, FieldId, GpuField, NttConfig, Ordering};
use zkntt_kernels::names;

/// Mirrors `SplitPackParams` in `cuda/ntt/split_pack.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct SplitPackParams {
    a: u64,
    send: u64,
    omega: PowerTable,
    col_factor: u64,
    row_factor: u64,
    col0: u64,
    log_c: u32,
    log_r: u32,
    log_n2: u32,
    lo_bits: u32,
}
const _: () = assert!(std::mem::size_of::<SplitPackParams>() == 72);

// SAFETY: plain data with the layout of the CUDA struct (asserted size, same field order).
unsafe impl DeviceRepr for SplitPackParams {}

/// Cached w^e tables (e < N) per rank: (field, log N, direction).
type OmegaKey = (FieldId, u32, Direction);

/// One NTT split over several GPUs of this process, one rank per GPU, NCCL between them.
///
/// ```no_run
/// use ark_bn254::Fr;
/// use zkntt_gpu::multi::SplitEngine;
/// use zkntt_gpu::NttConfig;
///
/// let split = SplitEngine::all_devices()?;            // every GPU (a power of two of them)
/// let mut x = vec![Fr::from(3u64); 1 << 24];
/// split.ntt(&mut x, &NttConfig::forward())?;          // host in, host out, natural order
/// # Ok::<(), zkntt_gpu::Error>(())
/// ```
pub struct SplitEngine {
    ranks: Vec<HostPipeline>,
    comms: Mutex<Comms>,
    nccl: Nccl,
    omegas: Mutex<HashMap<OmegaKey, Vec<Arc<SplitPowers>>>>,
    /// Each rank's send buffer, kept between calls (device words; `release_scratch` frees them).
    scratch: Mutex<Vec<Option<CudaSlice<u64>>>>,
    policy: Mutex<SplitPolicy>,
    last: Mutex<Option<SplitChoice>>,
}

/// When [`SplitEngine::ntt`] (host to host) splits a transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SplitPolicy {
    /// Split only what does not fit one GPU: measured on 2 H100s linked by NVLink, a host-to-host
    /// split is 0.2-0.4x one GPU's host pipeline (the same PCIe bytes, plus the exchange and a
    /// second host copy; benches/results/h100.md).
    #[default]
    Auto,
    /// Always split (to measure it, or where the GPUs' links are faster than their arithmetic).
    Always,
}

/// What [`SplitEngine::ntt`] did with the last transform, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitChoice {
    /// Split over every rank.
    Split { ranks: usize },
    /// Run whole on rank 0's GPU (its host pipeline), with the reason.
    OneGpu { reason: String },
}

impl std::fmt::Debug for SplitEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitEngine")
            .field("devices", &self.devices())
            .field("nccl", &self.nccl)
            .finish()
    }
}

impl SplitEngine {
    /// Ranks on the given engines, rank i on `engines[i]`'s GPU. Their number must be a power of
    /// two and their devices distinct; NCCL must load ([`Nccl::load`]).
    pub fn new(engines: Vec<Arc<NttEngine>>) -> Result<Self> {
        let ordinals = super::distinct_ordinals(&engines, "a split transform")?;
        if !ordinals.len().is_power_of_two() {
            return Err(Error::BadDevices(format!(
                "a split transform needs a power of two of GPUs, got {} ({ordinals:?})",
                ordinals.len()
            )));
        }
        let nccl = Nccl::load()?;
        let comms = Comms::new(&nccl, &ordinals)?;
        Ok(Self {
            ranks: engines.into_iter().map(HostPipeline::new).collect(),
            comms: Mutex::new(comms),
            nccl,
            omegas: Mutex::new(HashMap::new()),
            scratch: Mutex::new((0..ordinals.len()).map(|_| None).collect()),
            policy: Mutex::new(SplitPolicy::Auto),
            last: Mutex::new(None),
        })
    }

    /// Ranks on devices `0..k` for the largest power of two k not above [`Gpu::device_count`].
    pub fn all_devices() -> Result<Self> {
        let count = Gpu::device_count();
        if count == 0 {
            return Err(Error::NoDevice("no CUDA device is visible".into()));
        }
        let k = 1usize << count.ilog2();
        Self::new(super::engines_on(&(0..k).collect::<Vec<_>>())?)
    }

    /// The number of ranks (GPUs).
    pub fn ranks(&self) -> usize {
        self.ranks.len()
    }

    /// The device ordinal of each rank.
    pub fn devices(&self) -> Vec<usize> {
        self.ranks.iter().map(|p| p.gpu().ordinal()).collect()
    }

    /// The NCCL library in use.
    pub fn nccl(&self) -> &Nccl {
        &self.nccl
    }

    /// Rank i's engine (and its GPU).
    pub fn engine(&self, rank: usize) -> Option<&Arc<NttEngine>> {
        self.ranks.get(rank).map(|p| p.engine())
    }

    /// How a transform of 2^log_n is cut over the ranks ([`Split::balanced`]): an error when
    /// N < k^2 or log_n is above the field's two-adicity.
    pub fn split_for<F: GpuField>(&self, log_n: u32) -> Result<Split> {
        if log_n > F::TWO_ADICITY {
            return Err(zkntt_core::Error::DomainTooLarge {
                log_n,
                max: F::TWO_ADICITY,
            }
            .into());
        }
        Ok(Split::balanced(log_n, self.ranks())?)
    }

    /// The distributed input layout: rank g's block, `N2 x c` row-major, of `x` (natural order).
    pub fn scatter<F: GpuField>(&self, x: &[F]) -> Result<Vec<DeviceVec<F>>> {
        let split = self.split_for::<F>(log_len(x.len())?)?;
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..self.ranks())
                .map(|g| s.spawn(move || self.upload_block(g, x, split)))
                .collect();
            handles.into_iter().map(join).collect()
        })
    }

    /// The distributed output layout back to natural order: `out[N2*k1 + h*r + k2l]` is rank h's
    /// `k1*r + k2l`. Waits for the work queued on the blocks.
    pub fn gather<F: GpuField>(&self, blocks: &[DeviceVec<F>], out: &mut [F]) -> Result<()> {
        let split = self.split_for::<F>(log_len(out.len())?)?;
        self.check_blocks(blocks, split)?;
        let parts: Vec<Vec<F>> = std::thread::scope(|s| {
            let handles: Vec<_> = blocks
                .iter()
                .zip(&self.ranks)
                .map(|(b, p)| s.spawn(move || p.download(b)))
                .collect();
            handles.into_iter().map(join).collect::<Result<_>>()
        })?;
        let (n2, r) = (split.n2(), split.k2_per_rank());
        out.par_chunks_mut(n2).enumerate().for_each(|(k1, row)| {
            for (h, part) in parts.iter().enumerate() {
                row[h * r..][..r].copy_from_slice(&part[k1 * r..][..r]);
            }
        });
        Ok(())
    }

    /// One transform on device data in the distributed layouts ([`Self::scatter`] in,
    /// [`Self::gather`] out), in place, asynchronously on each rank's stream. `cfg`: one
    /// transform (batch 1), NN ordering; any direction and coset. The sizes, layout and
    /// configuration are checked before anything is queued; a failure after that (memory for a
    /// rank's exchange buffers or tables, the exchange, a launch) returns an error with some
    /// ranks' blocks already transformed in place: their contents are then undefined, and the
    /// input must be scattered again.
    pub fn ntt_distributed<F: GpuField>(
        &self,
        blocks: &mut [DeviceVec<F>],
        log_n: u32,
        cfg: &NttConfig<F>,
    ) -> Result<()> {
        if cfg.batch != 1 {
            return Err(Error::Unsupported(format!(
                "a distributed transform is one transform (batch {} given): run the batch's \
                 transforms one after another",
                cfg.batch
            )));
        }
        if cfg.ordering != Ordering::NN {
            return Err(zkntt_core::Error::OrderingNotModelled {
                ordering: cfg.ordering,
            }
            .into());
        }
        // The split first: it bounds log_n before the shift.
        let split = self.split_for::<F>(log_n)?;
        cfg.log_size(1usize << log_n)?;
        self.check_blocks(blocks, split)?;
        let k = self.ranks();
        let (log_k, log_n1, log_n2) = (split.log_ranks(), split.log_n1(), split.log_n2());
        let (n1, n2) = (split.n1() as u64, split.n2() as u64);
        let (log_c, log_r) = (log_n1 - log_k, log_n2 - log_k);
        let c = split.columns_per_rank();
        let inverse = cfg.direction == Direction::Inverse;
        let root = root_of_unity::<F>(log_n);
        let omega = if inverse { inv(root)? } else { root };
        let omegas = self.omegas::<F>(log_n, cfg.direction, omega)?;

        // Step 1's batch: the forward coset's g^(N1*n2) down each column.
        let step1 = NttConfig {
            direction: cfg.direction,
            coset: cfg.coset.filter(|_| !inverse).map(|g| g.pow([n1])),
            ordering: Ordering::NN,
            batch: c,
            layout: BatchLayout::Columns,
        };
        // Step 4's batch: the inverse coset's g^(-N2*k1) (with 1/N1) along each column.
        let step2 = NttConfig {
            direction: cfg.direction,
            coset: cfg.coset.filter(|_| inverse).map(|g| g.pow([n2])),
            ordering: Ordering::NN,
            batch: split.k2_per_rank(),
            layout: BatchLayout::Columns,
        };
        let mut sends = Vec::with_capacity(k);
        let mut factors = Vec::with_capacity(k);
        for (g, block) in blocks.iter_mut().enumerate() {
            let engine = self.ranks[g].engine();
            let gpu = engine.gpu();
            engine.ntt_in_place(block, &step1)?;
            let send = self.take_scratch::<F>(g, block.len())?;
            // The forward coset's g^n1 by local column; the inverse coset's g^-k2 by row.
            let col = match cfg.coset.filter(|_| !inverse) {
                Some(off) => Some(scaled_powers(gpu, off.pow([(g * c) as u64]), off, c)?),
                None => None,
            };
            let row = match cfg.coset.filter(|_| inverse) {
                Some(off) => Some(scaled_powers(gpu, F::ONE, inv(off)?, split.n2())?),
                None => None,
            };
            let params = SplitPackParams {
                a: block.device_ptr(gpu)?,
                send: send.device_ptr(gpu)?,
                omega: omegas[g].table(),
                col_factor: col.as_ref().map_or(0, |t| t.ptr()),
                row_factor: row.as_ref().map_or(0, |t| t.ptr()),
                col0: (g * c) as u64,
                log_c,
                log_r,
                log_n2,
                lo_bits: lo_bits(log_n),
            };
            let f = gpu.field_function(&names::ntt::SPLIT_PACK, F::ID)?;
            let mut launch = gpu.stream().launch_builder(&f);
            launch.arg(&params);
            // SAFETY: the kernel's one parameter is SplitPackParams by value; `a` and `send`
            // hold N2 * c elements of this rank's GPU, the tables their lengths (c, N2, the
            // split powers of w for e < N); all are ordered on this stream.
            unsafe { launch.launch(pack_config(block.len())) }.during("split pack launch")?;
            sends.push(send);
            // The factor tables are freed stream-ordered once the pack has read them.
            factors.push((col, row));
        }
        let mut send_ptrs = Vec::with_capacity(k);
        let mut recv_ptrs = Vec::with_capacity(k);
        let mut streams = Vec::with_capacity(k);
        for (g, (send, block)) in sends.iter().zip(blocks.iter()).enumerate() {
            let gpu = self.ranks[g].gpu();
            send_ptrs.push(send.device_ptr(gpu)?);
            recv_ptrs.push(block.device_ptr(gpu)?);
            streams.push(gpu.stream().cu_stream() as *mut c_void);
        }
        let chunk_bytes = split.chunk_len() * F::ID.element_bytes();
        // SAFETY: each rank's send buffer and block hold k chunks of `chunk_bytes` on its GPU,
        // the streams are the ranks' own, and the buffers live until their streams pass the
        // exchange (`sends` is dropped below stream-ordered; the blocks are the caller's).
        unsafe {
            self.lock_comms()
                .all_to_all(&send_ptrs, &recv_ptrs, &streams, chunk_bytes)
        }?;
        drop(factors);
        for (g, block) in blocks.iter_mut().enumerate() {
            self.ranks[g].engine().ntt_in_place(block, &step2)?;
        }
        self.give_scratch(sends);
        Ok(())
    }

    /// One transform or a batch (one after another: one exchange each), host memory in and out,
    /// natural order (NN). Under [`SplitPolicy::Auto`] a transform that fits rank 0's GPU runs
    /// there whole (its host pipeline), the host-to-host split being slower where it is not needed;
    /// [`Self::last_choice`] says which was done and why. `data` is untouched on error.
    pub fn ntt<F: GpuField>(&self, data: &mut [F], cfg: &NttConfig<F>) -> Result<()> {
        let log_n = cfg.log_size(data.len())?;
        if cfg.ordering != Ordering::NN {
            return Err(zkntt_core::Error::OrderingNotModelled {
                ordering: cfg.ordering,
            }
            .into());
        }
        if cfg.layout == BatchLayout::Columns && cfg.batch > 1 {
            return Err(Error::Unsupported(
                "a split batch takes its transforms as rows (BatchLayout::Rows)".into(),
            ));
        }
        self.split_for::<F>(log_n)?;
        if let Some(reason) = self.keep_one_gpu::<F>(log_n)? {
            self.ranks[0].ntt(data, cfg)?;
            *self.lock_last() = Some(SplitChoice::OneGpu { reason });
            return Ok(());
        }
        let one = NttConfig { batch: 1, ..*cfg };
        let n = 1usize << log_n;
        if cfg.batch == 1 {
            self.split_host(data, log_n, &one)?;
        } else {
            // Results go into a copy first, so an error part-way leaves `data` as it was.
            let mut out = data.to_vec();
            for y in out.chunks_mut(n) {
                self.split_host(y, log_n, &one)?;
            }
            data.copy_from_slice(&out);
        }
        *self.lock_last() = Some(SplitChoice::Split {
            ranks: self.ranks(),
        });
        Ok(())
    }

    /// When to split ([`SplitPolicy`]); default [`SplitPolicy::Auto`].
    pub fn set_policy(&self, policy: SplitPolicy) {
        *self.policy.lock().unwrap_or_else(|p| p.into_inner()) = policy;
    }

    /// What the last [`Self::ntt`] did, and why.
    pub fn last_choice(&self) -> Option<SplitChoice> {
        self.lock_last().clone()
    }

    /// Frees the send buffers kept between calls.
    pub fn release_scratch(&self) {
        self.lock_scratch().iter_mut().for_each(|s| *s = None);
    }

    /// Why a transform of 2^log_n stays on one GPU under the policy, or `None` to split.
    fn keep_one_gpu<F: GpuField>(&self, log_n: u32) -> Result<Option<String>> {
        let policy = *self.policy.lock().unwrap_or_else(|p| p.into_inner());
        if self.ranks() == 1 {
            return Ok(Some("one rank".into()));
        }
        if policy == SplitPolicy::Always {
            return Ok(None);
        }
        // The host pipeline needs the transform on the device once, plus its twiddles.
        let bytes = (1usize << log_n) * F::ID.element_bytes();
        let (free, _) = self.ranks[0].gpu().memory()?;
        Ok((bytes + bytes / 8 <= free).then(|| {
            format!(
                "2^{log_n} fits device {} ({} MiB free): host to host, one GPU is faster than the split",
                self.ranks[0].gpu().ordinal(),
                free >> 20
            )
        }))
    }

    /// One transform split over the ranks, host to host; `x` is written only once every
    /// rank's result is back.
    fn split_host<F: GpuField>(&self, x: &mut [F], log_n: u32, cfg: &NttConfig<F>) -> Result<()> {
        let mut blocks = self.scatter(x)?;
        self.ntt_distributed(&mut blocks, log_n, cfg)?;
        self.gather(&blocks, x)
    }

    /// The exchange alone, for its bandwidth: the median wall time in seconds of `reps`
    /// all-to-alls of `bytes_per_rank` bytes per rank (k chunks each; (k-1)/k of them cross a
    /// link), from queueing to the last rank's completion.
    pub fn time_all_to_all(&self, bytes_per_rank: usize, reps: usize) -> Result<f64> {
        let k = self.ranks();
        let chunk_bytes = (bytes_per_rank / k) & !7;
        let words = chunk_bytes * k / 8;
        let mut bufs = Vec::with_capacity(k);
        for p in &self.ranks {
            let s = p.gpu().stream();
            let send = s
                .alloc_zeros::<u64>(words.max(1))
                .during("cuMemAlloc (exchange)")?;
            let recv = s
                .alloc_zeros::<u64>(words.max(1))
                .during("cuMemAlloc (exchange)")?;
            bufs.push((send, recv));
        }
        let mut ptrs = (Vec::new(), Vec::new(), Vec::new());
        for (p, (send, recv)) in self.ranks.iter().zip(&bufs) {
            use cudarc::driver::DevicePtr;
            let s = p.gpu().stream();
            ptrs.0.push(send.device_ptr(s).0);
            ptrs.1.push(recv.device_ptr(s).0);
            ptrs.2.push(s.cu_stream() as *mut c_void);
        }
        self.synchronize()?;
        // The first exchange (untimed) sets up NCCL's connections.
        let ms = crate::timing::median_wall_ms(1, reps, || {
            // SAFETY: each rank's buffers hold k chunks of `chunk_bytes` on its GPU and live
            // until the synchronization below.
            unsafe {
                self.lock_comms()
                    .all_to_all(&ptrs.0, &ptrs.1, &ptrs.2, chunk_bytes)
            }?;
            self.synchronize()
        })?;
        Ok(ms / 1e3)
    }

    /// Waits for every rank's stream.
    pub fn synchronize(&self) -> Result<()> {
        self.ranks.iter().try_for_each(|p| p.gpu().synchronize())
    }

    fn upload_block<F: GpuField>(&self, g: usize, x: &[F], split: Split) -> Result<DeviceVec<F>> {
        let (n1, c) = (split.n1(), split.columns_per_rank());
        self.ranks[g].upload_with(split.n2() * c, |dst: &mut [F]| {
            dst.par_chunks_exact_mut(c)
                .enumerate()
                .for_each(|(row, run)| run.copy_from_slice(&x[g * c + n1 * row..][..c]));
        })
    }

    fn check_blocks<F: GpuField>(&self, blocks: &[DeviceVec<F>], split: Split) -> Result<()> {
        if blocks.len() != self.ranks() {
            return Err(Error::BadDevices(format!(
                "{} blocks for {} ranks",
                blocks.len(),
                self.ranks()
            )));
        }
        for (b, p) in blocks.iter().zip(&self.ranks) {
            b.check(p.gpu(), split.chunk_len() * split.ranks())?;
        }
        Ok(())
    }

    /// Each rank's w^e table, e < N, from the cache or built.
    fn omegas<F: GpuField>(
        &self,
        log_n: u32,
        dir: Direction,
        omega: F,
    ) -> Result<Vec<Arc<SplitPowers>>> {
        let key = (F::ID, log_n, dir);
        if let Some(t) = self.lock_omegas().get(&key) {
            return Ok(t.clone());
        }
        let tables = self
            .ranks
            .iter()
            .map(|p| SplitPowers::new(p.gpu(), omega, log_n).map(Arc::new))
            .collect::<Result<Vec<_>>>()?;
        self.lock_omegas().insert(key, tables.clone());
        Ok(tables)
    }

    fn lock_omegas(&self) -> MutexGuard<'_, HashMap<OmegaKey, Vec<Arc<SplitPowers>>>> {
        self.omegas.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_last(&self) -> MutexGuard<'_, Option<SplitChoice>> {
        self.last.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_scratch(&self) -> MutexGuard<'_, Vec<Option<CudaSlice<u64>>>> {
        self.scratch.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Rank g's send buffer of `len` elements: the kept one when it has that length.
    fn take_scratch<F: GpuField>(&self, g: usize, len: usize) -> Result<DeviceVec<F>> {
        let gpu = self.ranks[g].gpu();
        match self.lock_scratch()[g].take() {
            Some(buf) if buf.len() == len * 4 => Ok(DeviceVec::from_parts(gpu, buf, len)),
            _ => DeviceVec::uninit(gpu, len),
        }
    }

    /// Keeps the send buffers for the next call (stream-ordered: the exchange queued on them
    /// completes before any later use on the same stream).
    fn give_scratch<F: GpuField>(&self, sends: Vec<DeviceVec<F>>) {
        let mut kept = self.lock_scratch();
        for (slot, send) in kept.iter_mut().zip(sends) {
            *slot = Some(send.into_buf());
        }
    }

    fn lock_comms(&self) -> MutexGuard<'_, Comms> {
        self.comms.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn join<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> T {
    h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
}

fn inv<F: GpuField>(x: F) -> Result<F> {
    x.inverse()
        .ok_or_else(|| Error::Internal("inverse of zero in the split transform".into()))
}

/// log2 of a length that must be a power of two.
fn log_len(len: usize) -> Result<u32> {
    if !len.is_power_of_two() {
        return Err(zkntt_core::Error::BadLength { len, batch: 1 }.into());
    }
    Ok(len.ilog2())
}

fn pack_config(n: usize) -> LaunchConfig {
    const BLOCK: u32 = 256;
    LaunchConfig {
        grid_dim: (n.div_ceil(BLOCK as usize).clamp(1, 1 << 16) as u32, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}
