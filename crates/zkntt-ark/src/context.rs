//! The process-wide GPU context: one [`HostPipeline`], the caller's ([`install`]) or one opened on
//! first use on the device `ZKNTT_DEVICE` names (0 by default). Fixed for the life of the process:
//! the domains are plain `Copy` data and cannot carry one.

use crate::Error;
use crate::log::log_once;
use std::sync::{Arc, OnceLock};
use zkntt_gpu::{Gpu, HostPipeline, NttEngine};

/// The ordinal of the device the domains open on first use (default 0). A value that is not a
/// number runs every transform on the CPU, with one WARN line saying why.
pub const DEVICE_ENV: &str = "ZKNTT_DEVICE";

/// Why there is no GPU context: a stable key (`zkntt_gpu::Error::kind`, or `"device-env"`) and
/// the message.
#[derive(Debug, Clone)]
pub(crate) struct Unavailable {
    pub kind: String,
    pub message: String,
}

static CONTEXT: OnceLock<Result<Arc<HostPipeline>, Unavailable>> = OnceLock::new();

/// Makes `pipeline` the one every `GpuDomain` (and `GpuDomain05`) transform runs on: another
/// device than `ZKNTT_DEVICE`'s, an engine shared with the caller's own GPU work, settings of the
/// caller's choosing. Call it before the first transform; after that the context is set and this
/// returns [`Error::AlreadyInitialized`], leaving it as it was.
///
/// ```no_run
/// use std::sync::Arc;
/// use zkntt_ark::zkntt_gpu::{Gpu, HostPipeline, NttEngine};
///
/// let pipeline = Arc::new(HostPipeline::new(Arc::new(NttEngine::new(Gpu::new(1)?))));
/// pipeline.set_pinned_limit(512 << 20);
/// zkntt_ark::install(pipeline)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn install(pipeline: Arc<HostPipeline>) -> Result<(), Error> {
    CONTEXT
        .set(Ok(pipeline))
        .map_err(|_| Error::AlreadyInitialized {
            device: gpu_pipeline().map(|p| p.gpu().ordinal()),
        })
}

/// The process-wide pipeline, set up on first use (see [`install`]); `None` without a usable GPU.
/// For reaching its [`Gpu`] (memory budget, device info) and its settings (pinned limit, caches).
pub fn gpu_pipeline() -> Option<Arc<HostPipeline>> {
    pipeline().ok().cloned()
}

/// The pipeline, opened on first use, or why there is none (logged once).
pub(crate) fn pipeline() -> Result<&'static Arc<HostPipeline>, &'static Unavailable> {
    CONTEXT.get_or_init(open).as_ref()
}

fn open() -> Result<Arc<HostPipeline>, Unavailable> {
    let env = std::env::var_os(DEVICE_ENV).map(|v| v.to_string_lossy().into_owned());
    let opened = device_from_env(env.as_deref()).and_then(|ordinal| {
        open_device(ordinal).map_err(|e| Unavailable {
            kind: e.kind(),
            message: format!("device {ordinal}: {e}"),
        })
    });
    if let Err(u) = &opened {
        log_once(
            &format!("no-gpu:{}", u.kind),
            format_args!("GpuDomain runs on the CPU: {}", u.message),
        );
    }
    opened
}

/// The ordinal `ZKNTT_DEVICE` names; unset or blank is device 0.
fn device_from_env(value: Option<&str>) -> Result<usize, Unavailable> {
    match value.map(str::trim) {
        None | Some("") => Ok(0),
        Some(v) => v.parse().map_err(|_| Unavailable {
            kind: "device-env".into(),
            message: format!("{DEVICE_ENV}={v:?} is not a device ordinal (0, 1, ...)"),
        }),
    }
}

fn open_device(ordinal: usize) -> zkntt_gpu::Result<Arc<HostPipeline>> {
    let gpu = Gpu::new(ordinal)?;
    if !zkntt_gpu::kernels_built() {
        return Err(zkntt_gpu::Error::KernelsNotBuilt {
            note: zkntt_gpu::KERNELS_BUILD_NOTE,
        });
    }
    Ok(Arc::new(HostPipeline::new(Arc::new(NttEngine::new(gpu)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_env_names_an_ordinal() {
        let ok = |v| device_from_env(v).map_err(|u| u.message).unwrap();
        assert_eq!(ok(None), 0);
        assert_eq!(ok(Some("")), 0);
        assert_eq!(ok(Some(" 2 ")), 2);
        for bad in ["gpu1", "-1", "0x1", "1.5"] {
            let u = device_from_env(Some(bad)).unwrap_err();
            assert_eq!(u.kind, "device-env");
            assert!(u.message.contains(DEVICE_ENV), "{}", u.message);
        }
    }

    #[test]
    fn the_error_names_the_device_in_use() {
        let e = Error::AlreadyInitialized { device: Some(1) };
        assert!(e.to_string().contains("device 1"), "{e}");
        let e = Error::AlreadyInitialized { device: None };
        assert!(e.to_string().contains("no GPU"), "{e}");
    }
}
