//! Where a transform runs: the per-thread backend choice, the size threshold, `ZKNTT_FORCE_CPU`,
//! and the record of the last placement.

use crate::context;
use crate::log::log_once;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use zkntt_gpu::HostPipeline;

/// Below `2^DEFAULT_GPU_MIN_LOG_SIZE` points a transform stays on the CPU, where the copies to and
/// from the GPU and the launch latency would cost more than ark-poly's FFT. It is the smallest size
/// `benches/domain.rs` measures, where the GPU already won (numbers in `benches/NOTES.md`); on hosts
/// with few cores the crossover may sit higher. `ZKNTT_GPU_MIN_LOG` or [`set_gpu_min_log_size`]
/// overrides it.
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
    /// the GPU path itself. What the GPU path cannot take still runs on the CPU, with its
    /// [`CpuReason`]: coefficients that are not the field, fields without kernels, domains whose
    /// fields disagree, and `GpuQap`'s domains of other points and malformed input.
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
    /// No usable GPU for the process: no driver, no such device, kernels not built into this
    /// binary, or a `ZKNTT_DEVICE` that is not a number. `kind` is a stable key
    /// (`zkntt_gpu::Error::kind`, e.g. `"no-device"`, `"kernels-not-built"`; `"device-env"`).
    NoGpu { kind: String, message: String },
    /// A domain whose fields disagree with one another (size, its log, generator, offset and
    /// their inverses and powers as `new` and `get_coset` make them): built by hand or
    /// deserialised. Only ark's own code transforms it as ark does.
    InconsistentDomain,
    /// `GpuQap`'s witness map on a domain type whose points are not `Radix2EvaluationDomain`'s.
    NotRadix2Domain,
    /// `GpuQap`'s witness map given matrices or an assignment too short for their sizes: ark's own
    /// code handles them.
    MalformedInput,
    /// The GPU failed during the call; the CPU redid it from the untouched input. `kind` is the
    /// error's stable key (`zkntt_gpu::Error::kind`, e.g. `"out-of-memory"`, `"driver:cuMemAlloc"`).
    GpuFailed { kind: String, message: String },
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

/// Where the last `fft_in_place`/`ifft_in_place` (or `fft`/`ifft`), or `GpuQap` witness map, on
/// this thread ran; `None` before the first.
pub fn last_placement() -> Option<Placement> {
    LAST.with(|l| l.borrow().clone())
}

pub(crate) fn record(p: Placement) {
    LAST.with(|l| *l.borrow_mut() = Some(p));
}

static MIN_LOG: AtomicU32 = AtomicU32::new(u32::MAX);

/// log2 of the smallest domain that goes to the GPU under [`Backend::Auto`].
pub fn gpu_min_log_size() -> u32 {
    match MIN_LOG.load(Ordering::Relaxed) {
        u32::MAX => {
            let v = min_log_from_env(std::env::var(GPU_MIN_LOG_ENV).ok().as_deref());
            // Another thread may have set it meanwhile: keep theirs.
            let _ = MIN_LOG.compare_exchange(u32::MAX, v, Ordering::Relaxed, Ordering::Relaxed);
            MIN_LOG.load(Ordering::Relaxed)
        }
        v => v,
    }
}

/// The threshold `ZKNTT_GPU_MIN_LOG` gives (unset: the default; not a number: the default and one
/// WARN line), below u32::MAX, which marks "not read yet" (as in `set_gpu_min_log_size`).
fn min_log_from_env(value: Option<&str>) -> u32 {
    let v = match value {
        Some(s) => s.trim().parse().unwrap_or_else(|_| {
            crate::log::log_once(
                "gpu-min-log-env",
                format_args!(
                    "{GPU_MIN_LOG_ENV}={s:?} is not a log2 size (0, 1, 2, ...): the default \
                     {DEFAULT_GPU_MIN_LOG_SIZE} is used"
                ),
            );
            DEFAULT_GPU_MIN_LOG_SIZE
        }),
        None => DEFAULT_GPU_MIN_LOG_SIZE,
    };
    v.min(u32::MAX - 1)
}

/// Sets the GPU threshold for the process (log2 of the smallest domain sent to the GPU).
pub fn set_gpu_min_log_size(log_n: u32) {
    MIN_LOG.store(log_n.min(u32::MAX - 1), Ordering::Relaxed);
}

fn force_cpu_env() -> bool {
    static FORCE: OnceLock<bool> = OnceLock::new();
    *FORCE.get_or_init(|| {
        let value = std::env::var(FORCE_CPU_ENV).ok();
        let on = force_cpu_from_env(value.as_deref());
        if on {
            log_once(
                "forced-cpu",
                format_args!("{FORCE_CPU_ENV}: GpuDomain runs every transform on the CPU"),
            );
        }
        on
    })
}

/// Whether `ZKNTT_FORCE_CPU`'s value forces the CPU: 1, true or yes (any case) do; unset, empty,
/// 0, false and no do not; anything else does not, with one WARN line (a typo must not pass
/// silently for the switch it meant).
fn force_cpu_from_env(value: Option<&str>) -> bool {
    let Some(v) = value.map(str::trim) else {
        return false;
    };
    match v.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => true,
        "" | "0" | "false" | "no" => false,
        _ => {
            log_once(
                "force-cpu-env",
                format_args!(
                    "{FORCE_CPU_ENV}={v:?} is not 1/true/yes or 0/false/no: the GPU is not forced off"
                ),
            );
            false
        }
    }
}

/// The pipeline to run a transform of `2^log_n` elements of a field with kernels on, or why it
/// runs on the CPU.
///
/// # Panics
/// Under [`Backend::Gpu`] when there is no usable GPU.
pub(crate) fn choose(log_n: u32) -> Result<&'static Arc<HostPipeline>, CpuReason> {
    let backend = current_backend();
    match backend {
        Backend::Cpu => return Err(CpuReason::Forced),
        Backend::Auto if force_cpu_env() => return Err(CpuReason::Forced),
        Backend::Auto if log_n < gpu_min_log_size() => return Err(CpuReason::BelowThreshold),
        _ => {}
    }
    match context::pipeline() {
        Ok(p) => Ok(p),
        Err(u) if backend == Backend::Gpu => panic!(
            "zkntt-ark: Backend::Gpu requested but there is no usable GPU: {}",
            u.message
        ),
        Err(u) => Err(CpuReason::NoGpu {
            kind: u.kind.clone(),
            message: u.message.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn force_cpu_takes_the_usual_spellings() {
        for v in ["1", " true ", "YES", "Yes"] {
            assert!(force_cpu_from_env(Some(v)), "{v}");
        }
        for v in [
            None,
            Some(""),
            Some("0"),
            Some("false"),
            Some("No"),
            Some("2"),
        ] {
            assert!(!force_cpu_from_env(v), "{v:?}");
        }
    }

    /// `ZKNTT_GPU_MIN_LOG=4294967295` was read as u32::MAX, the "not read yet" mark, so the
    /// variable was read again on every call.
    #[test]
    fn the_threshold_from_the_environment_is_below_the_unread_mark() {
        assert_eq!(min_log_from_env(None), DEFAULT_GPU_MIN_LOG_SIZE);
        assert_eq!(min_log_from_env(Some(" 12 ")), 12);
        assert_eq!(min_log_from_env(Some("x")), DEFAULT_GPU_MIN_LOG_SIZE);
        assert_eq!(min_log_from_env(Some("4294967295")), u32::MAX - 1);
        assert_eq!(min_log_from_env(Some("4294967294")), u32::MAX - 1);
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
}
