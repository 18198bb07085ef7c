use crate::error::DriverContext;
use crate::{Error, Result};
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What a device is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    /// (major, minor), e.g. (9, 0) for an H100.
    pub compute_capability: (i32, i32),
    pub multiprocessors: i32,
    pub total_memory: usize,
    pub free_memory: usize,
    /// The driver's CUDA version, e.g. 13000 for 13.0.
    pub driver_version: i32,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let gib = |b: usize| b as f64 / (1u64 << 30) as f64;
        write!(
            f,
            "GPU {}: {} (sm_{}{}, {} SMs, {:.1} GiB, {:.1} GiB free, driver CUDA {}.{})",
            self.ordinal,
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.multiprocessors,
            gib(self.total_memory),
            gib(self.free_memory),
            self.driver_version / 1000,
            self.driver_version % 1000 / 10,
        )
    }
}

/// One GPU: its primary context, a stream, and the kernel module (loaded once, on first use).
///
/// Cloning is cheap and shares the context, stream and module.
#[derive(Debug, Clone)]
pub struct Gpu {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    module: OnceLock<std::result::Result<Arc<CudaModule>, String>>,
    functions: Mutex<HashMap<String, CudaFunction>>,
    /// The free device memory this handle's allocations may assume, each request on its own
    /// (usize::MAX: no limit); what the handle already holds is not counted against it.
    budget: AtomicUsize,
}

impl Drop for Inner {
    /// The module unloads with the last `Gpu` handle (unless a [`Gpu::function`] handle outlives
    /// it): its functions' raised limits are forgotten first.
    fn drop(&mut self) {
        let functions = self.functions.get_mut().unwrap_or_else(|p| p.into_inner());
        crate::launch::forget_raised(functions.values());
    }
}

/// Whether the CUDA driver library can be loaded. Checked before any driver call: cudarc's
/// dynamic loading panics on first use when the library is missing.
pub(crate) fn driver_present() -> bool {
    load_emulator();
    // SAFETY: only tries to dlopen libcuda; no driver function is called.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// In a build with `ZKNTT_EMU=1`, loads the CPU emulator's driver (`zkntt_kernels::EMULATOR`,
/// whose soname is `libcuda.so`) once, so that cudarc's own `dlopen("libcuda.so")` finds it
/// loaded and no real driver is used.
fn load_emulator() {
    static LOADED: OnceLock<()> = OnceLock::new();
    if let Some(path) = zkntt_kernels::EMULATOR {
        LOADED.get_or_init(|| {
            // SAFETY: the emulator's initialisers only set up its own tables.
            match unsafe { libloading::Library::new(path) } {
                Ok(lib) => std::mem::forget(lib),
                Err(e) => eprintln!("zkntt: the CPU emulator {path} did not load: {e}"),
            }
        });
    }
}

/// The embedded fatbin, or `KernelsNotBuilt`.
fn embedded_kernels(fatbin: Option<&'static [u8]>) -> Result<&'static [u8]> {
    fatbin.ok_or(Error::KernelsNotBuilt {
        note: zkntt_kernels::BUILD_NOTE,
    })
}

impl Gpu {
    /// Opens device `ordinal`. `Error::NoDevice` when there is no driver or no such device.
    pub fn new(ordinal: usize) -> Result<Self> {
        if !driver_present() {
            return Err(Error::NoDevice(
                "the CUDA driver library (libcuda) is not installed".into(),
            ));
        }
        let count = CudaContext::device_count()
            .map_err(|e| Error::NoDevice(format!("the driver found no usable device ({e})")))?;
        if ordinal as i64 >= count as i64 {
            return Err(Error::NoDevice(format!(
                "device {ordinal} requested, {count} present"
            )));
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| Error::NoDevice(format!("cannot open device {ordinal}: {e}")))?;
        // A stream of our own, not the legacy default stream that synchronises with everything.
        let stream = ctx.new_stream().map_err(|e| {
            Error::NoDevice(format!("cannot create a stream on device {ordinal}: {e}"))
        })?;
        Ok(Self {
            inner: Arc::new(Inner {
                ctx,
                stream,
                module: OnceLock::new(),
                functions: Mutex::new(HashMap::new()),
                budget: AtomicUsize::new(usize::MAX),
            }),
        })
    }

    /// The number of CUDA devices; 0 when there is no driver.
    pub fn device_count() -> usize {
        if !driver_present() {
            return 0;
        }
        CudaContext::device_count().map_or(0, |c| c.max(0) as usize)
    }

    pub fn ordinal(&self) -> usize {
        self.inner.ctx.ordinal()
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.inner.ctx
    }

    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// Waits for all work queued on this GPU's stream.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.stream.synchronize().during("stream synchronize")
    }

    /// Name, compute capability, memory, driver version.
    pub fn info(&self) -> Result<DeviceInfo> {
        let ctx = &self.inner.ctx;
        let (free_memory, total_memory) = ctx.mem_get_info().during("cuMemGetInfo")?;
        let mut driver_version = 0;
        // SAFETY: the driver is loaded (checked in `new`); the pointer is to a live local.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .during("cuDriverGetVersion")?;
        Ok(DeviceInfo {
            ordinal: ctx.ordinal(),
            name: ctx.name().during("cuDeviceGetName")?,
            compute_capability: ctx.compute_capability().during("compute capability")?,
            multiprocessors: ctx
                .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .during("multiprocessor count")?,
            total_memory,
            free_memory,
            driver_version,
        })
    }

    /// Free and total device memory in bytes. Free is capped by the memory budget, if one is set.
    pub fn memory(&self) -> Result<(usize, usize)> {
        let (free, total) = self.inner.ctx.mem_get_info().during("cuMemGetInfo")?;
        Ok((free.min(self.inner.budget.load(Ordering::Relaxed)), total))
    }

    /// Caps what allocations through this handle (and its clones) may assume is free: a larger
    /// request is `OutOfMemory` before anything is allocated or launched. `None` lifts the cap.
    /// For sharing a GPU with other work, and for testing the out-of-memory paths. Each request
    /// is checked on its own: the total a call holds at once (a host transform's slots, tables,
    /// scratch) may exceed the cap.
    pub fn set_memory_budget(&self, bytes: Option<usize>) {
        self.inner
            .budget
            .store(bytes.unwrap_or(usize::MAX), Ordering::Relaxed);
    }

    fn module(&self) -> Result<Arc<CudaModule>> {
        let fatbin = embedded_kernels(zkntt_kernels::FATBIN)?;
        self.inner
            .module
            .get_or_init(|| {
                self.inner
                    .ctx
                    .load_module(cudarc::nvrtc::Ptx::from_binary(fatbin.to_vec()))
                    .map_err(|e| format!("{e}"))
            })
            .clone()
            .map_err(|e| {
                Error::NoDevice(format!(
                    "the kernel module does not load on this device ({e}); built for {:?}",
                    zkntt_kernels::ARCHS
                ))
            })
    }

    /// The big-field kernel `kernel` of `field` (`zkntt_kernels::names`).
    pub(crate) fn field_function(
        &self,
        kernel: &zkntt_kernels::names::PerField,
        field: zkntt_core::FieldId,
    ) -> Result<CudaFunction> {
        use zkntt_core::FieldId;
        self.function(match field {
            FieldId::Bn254Fr => kernel.bn254_fr,
            FieldId::Bls12_381Fr => kernel.bls12_381_fr,
        })
    }

    /// The kernel `name` from the embedded module (any `extern "C"` kernel under `cuda/`), loaded
    /// once and cached. For crates with their own kernels in the shared fatbin (zkntt-small).
    /// Launch it only while a handle of this `Gpu` lives: the module unloads with the last one,
    /// and the launch functions' memory of its raised shared-memory limit is cleared then.
    pub fn function(&self, name: &str) -> Result<CudaFunction> {
        let module = self.module()?;
        let mut cache = self
            .inner
            .functions
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(f) = cache.get(name) {
            return Ok(f.clone());
        }
        let f = module.load_function(name).during("cuModuleGetFunction")?;
        cache.insert(name.to_string(), f.clone());
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_kernels_are_an_error() {
        assert!(matches!(
            embedded_kernels(None),
            Err(Error::KernelsNotBuilt { .. })
        ));
        assert!(embedded_kernels(Some(&[1, 2, 3])).is_ok());
    }

    #[test]
    fn no_driver_is_no_device() {
        if !driver_present() {
            assert!(matches!(Gpu::new(0), Err(Error::NoDevice(_))));
            assert_eq!(Gpu::device_count(), 0);
        } else {
            // With a driver, an ordinal past the last device is still a clean error.
            assert!(matches!(Gpu::new(1 << 20), Err(Error::NoDevice(_))));
        }
    }
}
