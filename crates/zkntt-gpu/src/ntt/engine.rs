//! The NTT engine: validates a call, finds (or builds) the twiddles, launches the plan.

use super::params::{NttStageParams, OMEGA_FULL, POST_CONST, POST_SCALE, PRE_SCALE, TWIDDLE_OUT};
use super::twiddles::{SplitPowers, Twiddles, lo_bits};
use crate::device_vec::field_of;
use crate::error::DriverContext;
use crate::host_pipeline::HostPipeline;
use crate::{DeviceVec, Gpu, Result};
use ark_ff::FftField;
use cudarc::driver::sys::{
    CUfunction_attribute, CUlaunchAttribute, CUlaunchAttributeID, CUlaunchConfig, cuLaunchKernelEx,
};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use zkntt_core::{BatchLayout, Direction, FieldId, NttConfig, Ordering, Plan};

/// Threads per block of every NTT launch. 128 threads x 128 registers: four column blocks of
/// 2^10 elements per SM, each waiting at its own barriers (256 threads: 0.90 of sppark at 2^23,
/// 128: 0.98, same run).
const THREADS: u32 = 128;
/// Smallest log2 size whose stages are launched dependently (programmatic dependent launch). H100,
/// same run, forward NN: 2^18 0.078-0.079 -> 0.074-0.076 ms, 2^19..2^21 1-2% faster, 2^22..2^24
/// unchanged, but 2^17 0.056-0.057 -> 0.067-0.074 ms (cause not established), so not below 2^18.
const DEPENDENT_LAUNCH_MIN_LOG: u32 = 18;
/// Largest grid.y: batches beyond it run in chunks.
const MAX_GRID_Y: usize = 65_535;

type Key = (FieldId, u32, Direction);
/// (field, log2 size, canonical bytes of the power base: the offset g, or g^-1 for inverses).
type CosetKey = (FieldId, u32, Vec<u8>);
/// Coset power tables kept per engine (a prover reuses one or two offsets per domain size); the
/// least recently used is dropped beyond this. Each is two tables of about sqrt(N) elements.
const COSET_CACHE: usize = 8;

/// One device's NTT engine: launches on the device's stream, caches twiddles per
/// (field, size, direction) and the power tables of the 8 most recently used coset offsets per
/// (field, size) (`clear_cache` drops both; `twiddle_bytes` counts both). Cheap to share (`&self`
/// methods; clone the `Arc` it sits in).
///
/// Twiddle memory: up to 2^22 a size's stage twiddles are all N powers (as many bytes as the data,
/// per size and direction, for one table read instead of two and a product per element); above
/// 2^22, or when the device has no room for the full table, two tables of about sqrt(N) powers
/// (2^23: 656 KiB in all). `clear_cache` frees them.
///
/// ```no_run
/// use ark_bn254::Fr;
/// use zkntt_gpu::{DeviceVec, Gpu, NttConfig, NttEngine};
///
/// let engine = NttEngine::new(Gpu::new(0)?);
/// let mut data = DeviceVec::from_host(engine.gpu(), &vec![Fr::from(1u64); 1 << 20])?;
/// engine.ntt_in_place(&mut data, &NttConfig::forward())?; // asynchronous on the stream
/// let evals = data.to_host(engine.gpu())?;               // waits
///
/// let mut host = vec![Fr::from(2u64); 1 << 16];
/// engine.ntt(&mut host, &NttConfig::inverse().with_coset(Fr::from(7u64)))?;
/// # Ok::<(), zkntt_gpu::Error>(())
/// ```
#[derive(Debug)]
pub struct NttEngine {
    gpu: Gpu,
    twiddles: Mutex<HashMap<Key, Arc<Twiddles>>>,
    /// Most recently used last.
    cosets: Mutex<Vec<(CosetKey, Arc<SplitPowers>)>>,
    host: HostPipeline,
    /// Launch the stages with programmatic dependent launch (sm_90+): each stage's blocks are
    /// scheduled while the previous stage drains and wait in the kernel for its writes (see
    /// `wait_for_previous_grid` in `cuda/ntt/ntt_common.cuh`). `ZKNTT_DEPENDENT_LAUNCH=0`
    /// turns it off (for comparisons).
    dependent_launch: bool,
}

impl NttEngine {
    pub fn new(gpu: Gpu) -> Self {
        let sm90 = gpu.info().is_ok_and(|i| i.compute_capability.0 >= 9);
        let off = std::env::var("ZKNTT_DEPENDENT_LAUNCH").is_ok_and(|v| v == "0");
        Self {
            dependent_launch: sm90 && !off,
            host: HostPipeline::new(gpu.clone()),
            gpu,
            twiddles: Mutex::new(HashMap::new()),
            cosets: Mutex::new(Vec::new()),
        }
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

    /// The pinned staging pipeline of [`NttEngine::ntt`]: its chunk size and pinned buffer pool.
    pub fn host_pipeline(&self) -> &HostPipeline {
        &self.host
    }

    /// Drops the cached twiddles and the host pipeline's idle pinned buffers and device slots
    /// (rebuilt by the next call that needs them).
    pub fn clear_cache(&self) {
        self.lock().clear();
        self.lock_cosets().clear();
        self.host.release_pinned();
        self.host.release_device();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Arc<Twiddles>>> {
        self.twiddles.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_cosets(&self) -> std::sync::MutexGuard<'_, Vec<(CosetKey, Arc<SplitPowers>)>> {
        self.cosets.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Powers of `base` up to base^(2^log_n - 1), from the cache or built (and cached).
    fn coset_powers<F: FftField>(
        &self,
        field: FieldId,
        base: F,
        log_n: u32,
    ) -> Result<Arc<SplitPowers>> {
        let mut bytes = Vec::new();
        base.serialize_compressed(&mut bytes)
            .expect("serializing a field element into a Vec cannot fail");
        let key = (field, log_n, bytes);
        {
            let mut cache = self.lock_cosets();
            if let Some(i) = cache.iter().position(|(k, _)| *k == key) {
                let hit = cache.remove(i);
                let t = hit.1.clone();
                cache.push(hit);
                return Ok(t);
            }
        }
        let t = Arc::new(SplitPowers::new(&self.gpu, field, base, log_n)?);
        let mut cache = self.lock_cosets();
        if cache.len() >= COSET_CACHE {
            // Freed stream-ordered: kernels already queued with it still read valid memory.
            cache.remove(0);
        }
        cache.push((key, t.clone()));
        Ok(t)
    }

    fn twiddles<F: FftField>(
        &self,
        field: FieldId,
        plan: Plan,
        dir: Direction,
    ) -> Result<Arc<Twiddles>> {
        let key = (field, plan.log_n(), dir);
        if let Some(t) = self.lock().get(&key) {
            return Ok(t.clone());
        }
        let t = Arc::new(Twiddles::build::<F>(&self.gpu, field, plan, dir)?);
        Ok(self.lock().entry(key).or_insert(t).clone())
    }

    /// Runs the transforms `cfg` describes on device data, in place, asynchronously on the GPU's
    /// stream. Bad input (length, size, field, device) is an error before anything is launched;
    /// the data is then untouched.
    pub fn ntt_in_place<F: FftField>(
        &self,
        data: &mut DeviceVec<F>,
        cfg: &NttConfig<F>,
    ) -> Result<()> {
        let field = field_of::<F>()?;
        data.check(&self.gpu, data.len())?;
        let log_n = cfg.log_size(data.len())?;
        let plan = Plan::for_size(log_n)?;
        if log_n == 0 {
            return Ok(()); // a transform of one element is the identity, cosets and 1/N included
        }
        let call = self.prepare(field, plan, cfg)?;
        let n = 1u64 << log_n;
        let (elem_stride, batch_stride) = match cfg.layout {
            BatchLayout::Rows => (1u64, n),
            BatchLayout::Columns => (cfg.batch as u64, 1u64),
        };
        let base = data.device_ptr(&self.gpu);
        let mut first = 0usize;
        while first < cfg.batch {
            let count = (cfg.batch - first).min(MAX_GRID_Y);
            let mut p = call.p;
            p.data = base + first as u64 * batch_stride * 32;
            p.elem_stride = elem_stride;
            p.batch_stride = batch_stride;
            // Whether a kernel of this transform is already queued, so that the next may be
            // launched dependently (only from DEPENDENT_LAUNCH_MIN_LOG up).
            let dependent = log_n >= DEPENDENT_LAUNCH_MIN_LOG;
            let mut queued = false;
            if cfg.ordering == Ordering::RN {
                self.bit_reverse(field, &p, count, false)?;
                queued = dependent;
            }
            match plan {
                Plan::Single { log_n } => {
                    p.log_p = log_n;
                    p.flags = call.pre | call.post;
                    self.column(field, &p, 1, count, queued)?;
                }
                Plan::ThreeStage { .. } => {
                    let [a, b, c] = call.three_stage(&p);
                    let blocks = call.column_blocks;
                    self.column(field, &a, blocks, count, queued)?;
                    self.middle(field, &b, count, dependent)?;
                    self.column(field, &c, blocks, count, dependent)?;
                }
            }
            if cfg.ordering == Ordering::NR {
                self.bit_reverse(field, &p, count, dependent)?;
            }
            first += count;
        }
        Ok(())
    }

    /// The launch parameters of a transform of `cfg` under `plan`, everything but the data:
    /// twiddles, coset tables (built or from the caches), scaling flags.
    fn prepare<F: FftField>(&self, field: FieldId, plan: Plan, cfg: &NttConfig<F>) -> Result<Call> {
        let log_n = plan.log_n();
        let tw = self.twiddles::<F>(field, plan, cfg.direction)?;
        // Coset tables for this call: g^j before a forward transform, g^-k after an inverse.
        let coset = match (cfg.coset, cfg.direction) {
            (None, _) => None,
            (Some(g), Direction::Forward) => Some(self.coset_powers(field, g, log_n)?),
            (Some(g), Direction::Inverse) => {
                let g_inv = g.inverse().ok_or(zkntt_core::Error::ZeroCosetOffset)?;
                Some(self.coset_powers(field, g_inv, log_n)?)
            }
        };
        let mut p = NttStageParams {
            elem_stride: 1,
            batch_stride: 1 << log_n,
            log_n,
            lo_bits: lo_bits(log_n),
            ..Default::default()
        };
        let (mut pre, mut post) = (0, 0);
        if let Some(c) = &coset {
            match cfg.direction {
                Direction::Forward => {
                    p.pre = c.table(&self.gpu);
                    pre = PRE_SCALE;
                }
                Direction::Inverse => {
                    p.post = c.table(&self.gpu);
                    post = POST_SCALE;
                }
            }
        }
        if cfg.direction == Direction::Inverse {
            p.post_const = tw.n_inv_ptr(&self.gpu);
            post |= POST_CONST;
        }
        p.sub_twiddles = tw.sub_p.ptr(&self.gpu);
        let mut call = Call {
            field,
            plan,
            p,
            pre,
            post,
            mid: (0, 0),
            full_omega: false,
            column_blocks: 0,
            _tables: (tw.clone(), coset),
        };
        if let Plan::ThreeStage {
            log_p,
            log_q,
            log_cols,
            ..
        } = plan
        {
            call.p.log_p = log_p;
            call.p.log_q = log_q;
            call.p.log_cols = log_cols;
            let omega = tw.omega.as_ref().expect("three-stage twiddles");
            let (table, full) = omega.table(&self.gpu);
            call.p.omega = table;
            call.full_omega = full;
            call.mid = (
                tw.sub_q
                    .as_ref()
                    .expect("three-stage twiddles")
                    .ptr(&self.gpu),
                tw.mid
                    .as_ref()
                    .expect("three-stage twiddles")
                    .ptr(&self.gpu),
            );
            call.column_blocks = 1u32 << (log_n - log_p - log_cols);
        }
        Ok(call)
    }

    /// A single natural-order transform of a three-stage plan, prepared so that the host pipeline
    /// can launch stages A and C a range of columns at a time (A on the columns whose data has
    /// arrived, C on those to send back first). `None` for one-launch sizes, batches and bit-
    /// reversed orderings, which run whole.
    pub(crate) fn staged<F: FftField>(
        &self,
        data: &DeviceVec<F>,
        cfg: &NttConfig<F>,
    ) -> Result<Option<Staged>> {
        let field = field_of::<F>()?;
        data.check(&self.gpu, data.len())?;
        let log_n = cfg.log_size(data.len())?;
        let plan = Plan::for_size(log_n)?;
        if cfg.batch != 1 || cfg.ordering != Ordering::NN || plan.launches() != 3 {
            return Ok(None);
        }
        let call = self.prepare(field, plan, cfg)?;
        let mut p = call.p;
        p.data = data.device_ptr(&self.gpu);
        let params = call.three_stage(&p);
        Ok(Some(Staged { call, params }))
    }

    /// Stage A (`stage == 0`) or C (`stage == 2`) of `s` on columns `first_col ..` (`count`
    /// columns, both multiples of [`Staged::columns_per_block`]), or the middle stage B
    /// (`stage == 1`, the columns ignored). `dependent` as for [`Self::launch`].
    pub(crate) fn launch_staged(
        &self,
        s: &Staged,
        stage: usize,
        first_col: usize,
        count: usize,
        dependent: bool,
    ) -> Result<()> {
        let field = s.call.field;
        let dependent = dependent && s.call.p.log_n >= DEPENDENT_LAUNCH_MIN_LOG;
        if stage == 1 {
            return self.middle(field, &s.params[1], 1, dependent);
        }
        let per = s.columns_per_block();
        debug_assert!(first_col % per == 0 && count % per == 0 && count > 0);
        let mut p = s.params[stage];
        p.col_base = first_col as u64;
        self.column(field, &p, (count / per) as u32, 1, dependent)
    }
    /// Host memory in, host memory out: through pinned staging buffers in chunks, the CPU copies
    /// on all cores overlapping the DMAs, batches of rows overlapping both copy directions across
    /// transforms (see [`HostPipeline`]). Waits for the result. On any error, `data` holds its
    /// input unchanged, also when the failure comes during the copy back.
    pub fn ntt<F: FftField>(&self, data: &mut [F], cfg: &NttConfig<F>) -> Result<()> {
        self.host.transform(self, data, cfg)
    }

    /// `dependent`: the previous kernel on the stream is a stage of this same transform, so this one
    /// may be launched programmatically (see `dependent_launch`); never for a transform's first
    /// kernel, so nothing of it starts before work queued ahead of the transform (events included).
    fn launch(
        &self,
        name: &str,
        p: &NttStageParams,
        grid: (u32, u32),
        smem: u32,
        dependent: bool,
    ) -> Result<()> {
        let f = self.gpu.function(name)?;
        if smem > 48 * 1024 {
            // SAFETY: a valid function handle of this context; the attribute only raises a limit.
            unsafe {
                cudarc::driver::result::function::set_function_attribute(
                    f.cu_function(),
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    smem as i32,
                )
            }
            .during("cuFuncSetAttribute")?;
        }
        if dependent && self.dependent_launch {
            let mut attr = CUlaunchAttribute {
                id: CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                pad: [0; 4],
                // SAFETY: plain data; the attribute's value is this one int.
                value: unsafe { std::mem::zeroed() },
            };
            attr.value.programmaticStreamSerializationAllowed = 1;
            let cfg = CUlaunchConfig {
                gridDimX: grid.0,
                gridDimY: grid.1,
                gridDimZ: 1,
                blockDimX: THREADS,
                blockDimY: 1,
                blockDimZ: 1,
                sharedMemBytes: smem,
                hStream: self.gpu.stream().cu_stream(),
                attrs: &mut attr,
                numAttrs: 1,
            };
            let mut arg = p as *const NttStageParams as *mut std::ffi::c_void;
            // SAFETY: as below; `arg` points at the one by-value parameter, alive for the call
            // (the driver copies parameters at launch). Every NTT kernel waits for the previous
            // grid (`griddepcontrol.wait`) before it touches global memory.
            unsafe { cuLaunchKernelEx(&cfg, f.cu_function(), &mut arg, std::ptr::null_mut()) }
                .result()
                .during("NTT kernel launch")?;
            return Ok(());
        }
        let cfg = LaunchConfig {
            grid_dim: (grid.0, grid.1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: smem,
        };
        let mut l = self.gpu.stream().launch_builder(&f);
        l.arg(p);
        // SAFETY: the kernel takes one NttStageParams by value; its pointers address live device
        // buffers of the sizes the plan implies (checked by the caller).
        unsafe { l.launch(cfg) }.during("NTT kernel launch")?;
        Ok(())
    }

    fn column(
        &self,
        field: FieldId,
        p: &NttStageParams,
        blocks: u32,
        batch: usize,
        dependent: bool,
    ) -> Result<()> {
        let slots = 1u32 << (p.log_p + p.log_cols);
        self.launch(
            &format!("ntt_column_block_{}", field.name()),
            p,
            (blocks, batch as u32),
            smem_bytes(slots),
            dependent,
        )
    }

    fn middle(
        &self,
        field: FieldId,
        p: &NttStageParams,
        batch: usize,
        dependent: bool,
    ) -> Result<()> {
        let tiles = 1u32 << (p.log_p - p.log_cols);
        let slots = 2u32 << (2 * p.log_cols + p.log_q);
        self.launch(
            &format!("ntt_middle_block_{}", field.name()),
            p,
            (tiles * tiles, batch as u32),
            smem_bytes(slots),
            dependent,
        )
    }

    fn bit_reverse(
        &self,
        field: FieldId,
        p: &NttStageParams,
        batch: usize,
        dependent: bool,
    ) -> Result<()> {
        let blocks = ((1u64 << p.log_n).div_ceil(THREADS as u64)).min(4096) as u32;
        self.launch(
            &format!("ntt_bit_reverse_{}", field.name()),
            p,
            (blocks, batch as u32),
            0,
            dependent,
        )
    }
}

/// What `prepare` finds for a call: its parameters less the data, the tables it keeps alive.
#[derive(Debug)]
struct Call {
    field: FieldId,
    plan: Plan,
    /// Stage A's parameters (or the one launch's) without the data, flags not yet set.
    p: NttStageParams,
    /// PRE_SCALE / POST_SCALE | POST_CONST flags of this call.
    pre: u32,
    post: u32,
    /// Middle stage: (sub_twiddles, mid_twiddles).
    mid: (u64, u64),
    full_omega: bool,
    column_blocks: u32,
    /// The twiddles and coset tables the parameters point into (cached by the engine as well).
    _tables: (Arc<Twiddles>, Option<Arc<SplitPowers>>),
}

impl Call {
    /// Parameters of stages A, B, C for `p` (this call's parameters with the data filled in).
    fn three_stage(&self, p: &NttStageParams) -> [NttStageParams; 3] {
        let Plan::ThreeStage { log_tile, .. } = self.plan else {
            unreachable!("three_stage of a one-launch plan");
        };
        // A: columns, coset scaling on the way in, w^(c*k1) on the way out.
        let mut a = *p;
        a.flags = self.pre | TWIDDLE_OUT | if self.full_omega { OMEGA_FULL } else { 0 };
        // B: Q-point groups with the transposing swap.
        let mut b = *p;
        b.log_cols = log_tile;
        b.flags = 0;
        (b.sub_twiddles, b.mid_twiddles) = self.mid;
        // C: columns again, 1/N and coset scaling on the way out.
        let mut c = *p;
        c.flags = self.post;
        [a, b, c]
    }
}

/// A single transform prepared by [`NttEngine::staged`]: data of P rows by R columns
/// (element a*R + c), stages A and C launched by column ranges.
#[derive(Debug)]
pub(crate) struct Staged {
    call: Call,
    params: [NttStageParams; 3],
}

impl Staged {
    /// log2 of P, the rows.
    pub(crate) fn log_rows(&self) -> u32 {
        self.call.p.log_p
    }

    /// R, the columns (the length of a row).
    pub(crate) fn columns(&self) -> usize {
        1 << (self.call.p.log_n - self.call.p.log_p)
    }

    /// Columns of one column-stage block: column ranges are multiples of it.
    pub(crate) fn columns_per_block(&self) -> usize {
        1 << self.call.p.log_cols
    }
}

/// Shared memory for `slots` elements in the padded column-major layout of `ntt_common.cuh`.
fn smem_bytes(slots: u32) -> u32 {
    32 * (slots + (slots >> 5) + 1)
}
