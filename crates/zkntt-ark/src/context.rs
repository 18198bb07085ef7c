//! The process-wide GPU context: the caller's pipelines ([`install`], [`install_devices`]) or ones
//! opened on first use: every device `ZKNTT_DEVICES` lists (`all`, or ordinals `0,1`), else the one
//! `ZKNTT_DEVICE` names (0 by default). Fixed for the life of the process: the domains are plain
//! `Copy` data and cannot carry one. With several devices each transform goes to the next device in
//! turn, so transforms called from several threads at once run on several GPUs at once.

use crate::Error;
use crate::log::log_once;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use zkntt_gpu::{Gpu, HostPipeline, NttEngine};

/// The ordinal of the device the domains open on first use (default 0). A value that is not a
/// number runs every transform on the CPU, with one WARN line saying why.
pub const DEVICE_ENV: &str = "ZKNTT_DEVICE";

/// The devices the domains open on first use, taking the place of [`DEVICE_ENV`]: `all` (every
/// visible GPU) or a comma-separated list of ordinals (`0,1`). A value that cannot be read, or a
/// device that cannot be opened, runs every transform on the CPU, with one WARN line saying why.
pub const DEVICES_ENV: &str = "ZKNTT_DEVICES";

/// Why there is no GPU context: a stable key (`zkntt_gpu::Error::kind`, or `"device-env"`) and
/// the message.
#[derive(Debug, Clone)]
pub(crate) struct Unavailable {
    pub kind: String,
    pub message: String,
}

static CONTEXT: OnceLock<Result<Vec<Arc<HostPipeline>>, Unavailable>> = OnceLock::new();
/// The next pipeline to hand out (round robin over the context's).
static NEXT: AtomicUsize = AtomicUsize::new(0);

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
    install_devices(vec![pipeline])
}

/// [`install`] for several GPUs: each transform runs on the next pipeline in turn (transforms
/// from several threads at once spread over the GPUs). An empty list is
/// [`Error::NoPipelines`].
///
/// ```no_run
/// use std::sync::Arc;
/// use zkntt_ark::zkntt_gpu::{Gpu, HostPipeline, NttEngine};
///
/// let pipelines = (0..Gpu::device_count())
///     .map(|d| Ok(Arc::new(HostPipeline::new(Arc::new(NttEngine::new(Gpu::new(d)?))))))
///     .collect::<Result<Vec<_>, zkntt_ark::zkntt_gpu::Error>>()?;
/// zkntt_ark::install_devices(pipelines)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn install_devices(pipelines: Vec<Arc<HostPipeline>>) -> Result<(), Error> {
    if pipelines.is_empty() {
        return Err(Error::NoPipelines);
    }
    CONTEXT
        .set(Ok(pipelines))
        .map_err(|_| Error::AlreadyInitialized {
            device: gpu_pipeline().map(|p| p.gpu().ordinal()),
        })
}

/// The process-wide pipeline, set up on first use (see [`install`]); `None` without a usable GPU.
/// For reaching its [`Gpu`] (memory budget, device info) and its settings (pinned limit, caches).
/// With several devices, the first one's ([`gpu_pipelines`] gives them all).
pub fn gpu_pipeline() -> Option<Arc<HostPipeline>> {
    gpu_pipelines().into_iter().next()
}

/// Every pipeline of the process-wide context, in device order of `ZKNTT_DEVICES` (or of
/// [`install_devices`]); empty without a usable GPU.
pub fn gpu_pipelines() -> Vec<Arc<HostPipeline>> {
    CONTEXT.get_or_init(open).clone().unwrap_or_default()
}

/// The pipeline for the next transform (the context's pipelines in turn), or why there is none
/// (logged once).
pub(crate) fn pipeline() -> Result<&'static Arc<HostPipeline>, &'static Unavailable> {
    let all = CONTEXT.get_or_init(open).as_ref()?;
    Ok(&all[NEXT.fetch_add(1, Ordering::Relaxed) % all.len()])
}

fn open() -> Result<Vec<Arc<HostPipeline>>, Unavailable> {
    let read = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    let devices = match read(DEVICES_ENV).filter(|v| !v.trim().is_empty()) {
        Some(v) => devices_from_env(&v, Gpu::device_count()),
        None => device_from_env(read(DEVICE_ENV).as_deref()).map(|d| vec![d]),
    };
    let opened = devices.and_then(|ordinals| {
        ordinals
            .iter()
            .map(|&ordinal| {
                open_device(ordinal).map_err(|e| Unavailable {
                    kind: e.kind(),
                    message: format!("device {ordinal}: {e}"),
                })
            })
            .collect::<Result<Vec<_>, _>>()
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

/// The ordinals `ZKNTT_DEVICES` lists: `all` is `0..count` (none visible is an error), else
/// distinct ordinals separated by commas.
fn devices_from_env(value: &str, count: usize) -> Result<Vec<usize>, Unavailable> {
    let bad = |why: String| Unavailable {
        kind: "device-env".into(),
        message: format!("{DEVICES_ENV}={value:?}: {why}"),
    };
    if value.trim() == "all" {
        if count == 0 {
            return Err(Unavailable {
                kind: "no-device".into(),
                message: format!("{DEVICES_ENV}=all: no CUDA device is visible"),
            });
        }
        return Ok((0..count).collect());
    }
    let mut out = Vec::new();
    for part in value.split(',') {
        let d: usize = part.trim().parse().map_err(|_| {
            bad(format!(
                "{part:?} is not a device ordinal (write `all` or `0,1`)"
            ))
        })?;
        if out.contains(&d) {
            return Err(bad(format!("device {d} listed twice")));
        }
        out.push(d);
    }
    Ok(out)
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
    fn devices_env_lists_ordinals() {
        let ok = |v, c| devices_from_env(v, c).map_err(|u| u.message).unwrap();
        assert_eq!(ok("all", 2), vec![0, 1]);
        assert_eq!(ok(" all ", 1), vec![0]);
        assert_eq!(ok("1,0", 2), vec![1, 0]);
        assert_eq!(ok(" 3 ", 0), vec![3]); // opening it says whether it exists
        assert_eq!(devices_from_env("all", 0).unwrap_err().kind, "no-device");
        for bad in ["gpus", "0,0", "0,,1", "1;2", "-1"] {
            let u = devices_from_env(bad, 4).unwrap_err();
            assert_eq!(u.kind, "device-env", "{bad}");
            assert!(u.message.contains(DEVICES_ENV), "{}", u.message);
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
