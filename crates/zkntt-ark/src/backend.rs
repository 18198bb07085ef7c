//! Where a transform runs: the process-wide engine, the size threshold, the CPU fallback and its
//! one-time log lines.

use ark_ff::FftField;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use zkntt_core::{FieldId, NttConfig};
use zkntt_gpu::{Error, Gpu, NttEngine};

/// Below `2^DEFAULT_GPU_MIN_LOG_SIZE` points a transform stays on the CPU, where the copies to
/// and from the GPU and the launch latency would cost more than ark-poly's FFT.
///
/// Measured by `benches/domain.rs` (BN254, host vector in and out, one H200 with a 16-core host,
/// 2026-11-21): at 2^10, the smallest size measured, the GPU path took 0.069 ms against 0.340 ms
/// for ark-poly on all cores (0.119 vs 0.638 at 2^12). The crossover lies below 2^10; it is
/// kept there until smaller sizes are measured, and on hosts with few cores (where ark-poly's
/// small transforms pay less thread overhead) it may sit higher.
/// `ZKNTT_GPU_MIN_LOG` or [`set_gpu_min_log_size`] overrides it.
pub const DEFAULT_GPU_MIN_LOG_SIZE: u32 = 10;

/// Set to `1` to run every transform on the CPU (ark-poly's code), GPU or not.
pub const FORCE_CPU_ENV: &str = "ZKNTT_FORCE_CPU";
/// Overrides [`DEFAULT_GPU_MIN_LOG_SIZE`] for the process.
pub const GPU_MIN_LOG_ENV: &str = "ZKNTT_GPU_MIN_LOG";

/// Which backend calls on the current thread use. See [`with_backend`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Backend {
    /// The GPU for field coefficients at or above the size threshold, the CPU otherwise and
    /// whenever the GPU is missing or fails (the default).
    #[default]
    Auto,
    /// ark-poly's CPU code only.
    Cpu,
    /// The GPU at every size, ignoring the threshold and `ZKNTT_FORCE_CPU`; a missing GPU or a GPU
    /// error panics instead of falling back. For tests and benchmarks that must measure or check
    /// the GPU path itself. Coefficients that are not the field still run on the CPU.
    Gpu,
}

/// Why a transform ran on the CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpuReason {
    /// The coefficients are not the field itself (curve points, for instance).
    CoefficientType,
    /// The field has no GPU kernels (only BN254 Fr and BLS12-381 Fr have).
    FieldWithoutKernels,
    /// The domain is smaller than the GPU threshold.
    BelowThreshold,
    /// `ZKNTT_FORCE_CPU=1` or [`Backend::Cpu`].
    Forced,
    /// No usable GPU: no driver, no device, or kernels not built into this binary.
    NoGpu(String),
    /// The GPU failed during the call; the CPU redid it from the untouched input.
    GpuFailed(String),
}

/// Where the last transform of the current thread ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    Gpu,
    Cpu(CpuReason),
}

thread_local! {
    static BACKEND: Cell<Backend> = const { Cell::new(Backend::Auto) };
    static LAST: RefCell<Option<Placement>> = const { RefCell::new(None) };
    static INJECT_FAILURE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the calls on this thread (not on threads it spawns) using `backend`; restores the
/// previous choice afterwards, also when `f` panics.
pub fn with_backend<R>(backend: Backend, f: impl FnOnce() -> R) -> R {
    struct Restore(Backend);
    impl Drop for Restore {
        fn drop(&mut self) {
            BACKEND.with(|b| b.set(self.0));
        }
    }
    let _restore = Restore(BACKEND.with(|b| b.replace(backend)));
    f()
}

/// The backend of calls on this thread.
pub fn current_backend() -> Backend {
    BACKEND.with(Cell::get)
}

/// Where the last `fft_in_place`/`ifft_in_place` (or `fft`/`ifft`) on this thread ran; `None`
/// before the first.
pub fn last_placement() -> Option<Placement> {
    LAST.with(|l| l.borrow().clone())
}

pub(crate) fn record(p: Placement) {
    LAST.with(|l| *l.borrow_mut() = Some(p));
}

/// Test hook: the next GPU transform on this thread fails part way through copying its result
/// back into the caller's vector (after the first chunk), as a driver fault there would. The call
/// must then complete on the CPU from the restored input.
#[doc(hidden)]
pub fn inject_gpu_failure_on_this_thread() {
    INJECT_FAILURE.with(|c| c.set(true));
}

static MIN_LOG: AtomicU32 = AtomicU32::new(u32::MAX);

/// log2 of the smallest domain that goes to the GPU under [`Backend::Auto`].
pub fn gpu_min_log_size() -> u32 {
    match MIN_LOG.load(Ordering::Relaxed) {
        u32::MAX => {
            let v = std::env::var(GPU_MIN_LOG_ENV)
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(DEFAULT_GPU_MIN_LOG_SIZE);
            // Another thread may have set it meanwhile: keep theirs.
            let _ = MIN_LOG.compare_exchange(u32::MAX, v, Ordering::Relaxed, Ordering::Relaxed);
            MIN_LOG.load(Ordering::Relaxed)
        }
        v => v,
    }
}

/// Sets the GPU threshold for the process (log2 of the smallest domain sent to the GPU).
pub fn set_gpu_min_log_size(log_n: u32) {
    MIN_LOG.store(log_n.min(u32::MAX - 1), Ordering::Relaxed);
}

fn force_cpu_env() -> bool {
    static FORCE: OnceLock<bool> = OnceLock::new();
    *FORCE.get_or_init(|| {
        let on = std::env::var(FORCE_CPU_ENV).is_ok_and(|v| v.trim() == "1");
        if on {
            log_once(
                "forced-cpu",
                format_args!("{FORCE_CPU_ENV}=1: GpuDomain runs every transform on the CPU"),
            );
        }
        on
    })
}

static ENGINE: OnceLock<Result<NttEngine, String>> = OnceLock::new();

fn engine_or_reason() -> Result<&'static NttEngine, String> {
    ENGINE
        .get_or_init(|| {
            let engine = Gpu::new(0).map_err(|e| e.to_string()).and_then(|gpu| {
                if zkntt_kernels::built() {
                    Ok(NttEngine::new(gpu))
                } else {
                    Err(Error::KernelsNotBuilt {
                        note: zkntt_kernels::BUILD_NOTE,
                    }
                    .to_string())
                }
            });
            if let Err(reason) = &engine {
                log_once(
                    "no-gpu",
                    format_args!("GpuDomain runs on the CPU: {reason}"),
                );
            }
            engine
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The process-wide engine on device 0, created on first use; `None` without a usable GPU.
/// Tests use it to reach the engine's [`Gpu`] (for instance its memory budget).
pub fn gpu_engine() -> Option<&'static NttEngine> {
    engine_or_reason().ok()
}

/// Logs `msg` at WARN the first time `key` is seen in this process.
fn log_once(key: &str, msg: fmt::Arguments<'_>) -> bool {
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    let first = seen
        .get_or_insert_with(HashSet::new)
        .insert(key.to_string());
    if first {
        tracing::warn!(target: "zkntt_ark", reason = key, "{msg}");
    }
    first
}

/// One log line per kind of failure, not per call (an out-of-memory at each call of a loop
/// would otherwise flood the log).
fn failure_key(e: &Error) -> String {
    match e {
        Error::NoDevice(_) => "gpu-failed:no-device".into(),
        Error::KernelsNotBuilt { .. } => "gpu-failed:kernels-not-built".into(),
        Error::UnsupportedField { .. } => "gpu-failed:unsupported-field".into(),
        Error::OutOfMemory { .. } => "gpu-failed:out-of-memory".into(),
        Error::Driver { op, .. } => format!("gpu-failed:driver:{op}"),
        Error::Runtime { code, .. } => format!("gpu-failed:runtime:{code}"),
        Error::Config(_) => "gpu-failed:config".into(),
        other => format!("gpu-failed:{}", variant_name(other)),
    }
}

fn variant_name(e: &Error) -> String {
    let s = format!("{e:?}");
    s.split(['(', ' ', '{'])
        .next()
        .unwrap_or("other")
        .to_string()
}

/// Whether `T` is `F` and `F` has kernels: then, and only then, a `Vec<T>` may be viewed as a
/// `Vec<F>`.
pub(crate) fn is_gpu_field<F: FftField, T>() -> bool {
    FieldId::of::<F>().is_some() && typeid::of::<T>() == std::any::TypeId::of::<F>()
}

/// `v` as a vector of field elements. Call only when [`is_gpu_field::<F, T>`] holds.
pub(crate) fn as_field_vec<F: FftField, T>(v: &mut Vec<T>) -> &mut Vec<F> {
    assert!(is_gpu_field::<F, T>(), "as_field_vec on a non-field type");
    // SAFETY: T and F have the same TypeId up to lifetimes, and F is one of the two ark field
    // types with kernels (FieldId), which have no lifetime parameters: T is F.
    unsafe { &mut *(v as *mut Vec<T>).cast::<Vec<F>>() }
}

/// The engine to run a transform of `2^log_n` points of `F` on, or why it runs on the CPU.
pub(crate) fn choose<F: FftField>(log_n: u32) -> Result<&'static NttEngine, CpuReason> {
    let backend = current_backend();
    if FieldId::of::<F>().is_none() {
        return Err(CpuReason::FieldWithoutKernels);
    }
    match backend {
        Backend::Cpu => return Err(CpuReason::Forced),
        Backend::Auto if force_cpu_env() => return Err(CpuReason::Forced),
        Backend::Auto if log_n < gpu_min_log_size() => return Err(CpuReason::BelowThreshold),
        _ => {}
    }
    match engine_or_reason() {
        Ok(e) => Ok(e),
        Err(reason) if backend == Backend::Gpu => {
            panic!("zkntt-ark: Backend::Gpu requested but there is no usable GPU: {reason}")
        }
        Err(reason) => Err(CpuReason::NoGpu(reason)),
    }
}

/// Turns a GPU error into the reason for the CPU rerun, logging it once per kind.
pub(crate) fn gpu_failed(e: Error) -> CpuReason {
    if current_backend() == Backend::Gpu {
        panic!("zkntt-ark: Backend::Gpu requested and the GPU failed: {e}");
    }
    log_once(
        &failure_key(&e),
        format_args!("GPU transform failed, redone on the CPU (logged once per kind): {e}"),
    );
    CpuReason::GpuFailed(e.to_string())
}

/// The transform `cfg` describes, on the GPU, of `data` (host memory), in place, through the
/// engine's pinned host pipeline (`zkntt_gpu::HostPipeline`).
///
/// On `Err`, `data` holds its input: the pipeline keeps the input in its pinned staging buffer
/// until the result is complete and restores whatever part of `data` it had overwritten when a
/// failure comes during the copy back.
pub(crate) fn gpu_transform<F: FftField>(
    engine: &NttEngine,
    data: &mut [F],
    cfg: &NttConfig<F>,
) -> Result<(), Error> {
    if INJECT_FAILURE.with(|c| c.replace(false)) {
        // Part way through the copy back: after the first chunk of the result has been written
        // into `data` (after all of it when the result is a single chunk).
        zkntt_gpu::test_support::fail_next_copy_back_at(1);
    }
    engine.ntt(data, cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_is_logged_once() {
        assert!(log_once("test-key-a", format_args!("first")));
        assert!(!log_once("test-key-a", format_args!("second")));
        assert!(log_once("test-key-b", format_args!("other reason")));
    }

    #[test]
    fn failures_of_one_kind_share_a_key() {
        let a = Error::OutOfMemory { needed: 1, free: 0 };
        let b = Error::OutOfMemory {
            needed: 1 << 30,
            free: 5,
        };
        assert_eq!(failure_key(&a), failure_key(&b));
        assert_ne!(failure_key(&a), failure_key(&Error::NoDevice("x".into())));
        assert_eq!(
            variant_name(&Error::LengthMismatch {
                expected: 1,
                got: 2
            }),
            "LengthMismatch"
        );
    }

    #[test]
    fn with_backend_restores_the_previous_choice() {
        assert_eq!(current_backend(), Backend::Auto);
        with_backend(Backend::Cpu, || {
            assert_eq!(current_backend(), Backend::Cpu);
            with_backend(Backend::Gpu, || assert_eq!(current_backend(), Backend::Gpu));
            assert_eq!(current_backend(), Backend::Cpu);
        });
        let r = std::panic::catch_unwind(|| with_backend(Backend::Cpu, || panic!("inside")));
        assert!(r.is_err());
        assert_eq!(current_backend(), Backend::Auto);
    }

    #[test]
    fn only_the_field_itself_is_viewed_as_the_field() {
        use ark_bn254::Fr;
        assert!(is_gpu_field::<Fr, Fr>());
        assert!(!is_gpu_field::<Fr, ark_bn254::G1Projective>());
        assert!(!is_gpu_field::<Fr, ark_bls12_381::Fr>());
        assert!(
            !is_gpu_field::<ark_bn254::Fq, ark_bn254::Fq>(),
            "no kernels for Fq"
        );
        let mut v = vec![Fr::from(3u64)];
        as_field_vec::<Fr, Fr>(&mut v).push(Fr::from(4u64));
        assert_eq!(v, [Fr::from(3u64), Fr::from(4u64)]);
    }
}
