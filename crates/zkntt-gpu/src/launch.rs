//! One kernel launch with what the NTT kernels need beyond cudarc's builder: dynamic shared
//! memory above the default 48 KiB, and programmatic dependent launch (sm_90+, the kernel side in
//! `cuda/launch_dependent.cuh`), and thread-block clusters (sm_90+). Used by the engine and by
//! zkntt-small's panel and cluster kernels.

use crate::Result;
use crate::error::DriverContext;
use cudarc::driver::sys::{
    CUfunction_attribute, CUlaunchAttribute, CUlaunchAttributeID, CUlaunchConfig, cuLaunchKernelEx,
    cuOccupancyMaxActiveClusters,
};
use cudarc::driver::{CudaFunction, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};

/// Launches `f` on `stream` with the one by-value parameter `p`. `dependent`: as a programmatic
/// dependent of the stream's previous kernel (only ask on sm_90+, for kernels that call
/// `wait_for_previous_grid` before touching global memory).
///
/// # Safety
/// As for any kernel launch: `p` is the kernel's parameter struct, and every pointer in it
/// addresses live device memory of the sizes the kernel indexes for this grid.
pub unsafe fn launch<P: DeviceRepr>(
    stream: &CudaStream,
    f: &CudaFunction,
    cfg: LaunchConfig,
    p: &P,
    dependent: bool,
) -> Result<()> {
    allow_shared_memory(f, cfg)?;
    if dependent {
        let mut attr =
            attribute(CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
        attr.value.programmaticStreamSerializationAllowed = 1;
        // SAFETY: the caller's contract.
        return unsafe { launch_ex(stream, f, cfg, p, &mut [attr]) }
            .during("kernel launch (dependent)");
    }
    let mut b = stream.launch_builder(f);
    b.arg(p);
    // SAFETY: the caller's contract.
    unsafe { b.launch(cfg) }.during("kernel launch")?;
    Ok(())
}

/// A launch attribute `id` with its value zeroed, for the caller to fill in.
fn attribute(id: CUlaunchAttributeID) -> CUlaunchAttribute {
    CUlaunchAttribute {
        id,
        pad: [0; 4],
        // SAFETY: plain data (a union of ints and small structs).
        value: unsafe { std::mem::zeroed() },
    }
}

/// The attribute for 1-D clusters of `cluster` blocks.
fn cluster_attribute(cluster: u32) -> CUlaunchAttribute {
    let mut attr = attribute(CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
    attr.value.clusterDim.x = cluster;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    attr
}

/// The driver's launch description of `cfg` on `stream` with the one attribute `attr`, which
/// must outlive the returned value's use.
fn ex_config(
    stream: &CudaStream,
    cfg: LaunchConfig,
    attrs: &mut [CUlaunchAttribute],
) -> CUlaunchConfig {
    CUlaunchConfig {
        gridDimX: cfg.grid_dim.0,
        gridDimY: cfg.grid_dim.1,
        gridDimZ: cfg.grid_dim.2,
        blockDimX: cfg.block_dim.0,
        blockDimY: cfg.block_dim.1,
        blockDimZ: cfg.block_dim.2,
        sharedMemBytes: cfg.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: attrs.as_mut_ptr(),
        numAttrs: attrs.len() as u32,
    }
}

/// `cuLaunchKernelEx` of `f` with the one by-value parameter `p` and the attributes `attrs`.
///
/// # Safety
/// As for [`launch`].
unsafe fn launch_ex<P: DeviceRepr>(
    stream: &CudaStream,
    f: &CudaFunction,
    cfg: LaunchConfig,
    p: &P,
    attrs: &mut [CUlaunchAttribute],
) -> std::result::Result<(), cudarc::driver::DriverError> {
    let ex = ex_config(stream, cfg, attrs);
    let mut arg = p as *const P as *mut std::ffi::c_void;
    // SAFETY: the caller's contract; `arg` points at the one by-value parameter, alive for the
    // call (the driver copies parameters at launch); `attrs` outlives `ex`'s use.
    unsafe { cuLaunchKernelEx(&ex, f.cu_function(), &mut arg, std::ptr::null_mut()) }.result()
}

/// The dynamic shared memory limits raised so far, by function handle (see [`forget_raised`]).
static RAISED: std::sync::Mutex<Option<std::collections::HashMap<usize, u32>>> =
    std::sync::Mutex::new(None);

/// Raises `f`'s dynamic shared memory limit to `cfg`'s where it is above the default 48 KiB,
/// once per function and size: the driver call is host time that a short launch would pay on
/// every call with its GPU idle.
fn allow_shared_memory(f: &CudaFunction, cfg: LaunchConfig) -> Result<()> {
    if cfg.shared_mem_bytes > 48 * 1024 {
        let key = f.cu_function() as usize;
        let mut raised = RAISED.lock().unwrap_or_else(|p| p.into_inner());
        let raised = raised.get_or_insert_with(Default::default);
        if raised.get(&key).is_some_and(|&b| b >= cfg.shared_mem_bytes) {
            return Ok(());
        }
        // SAFETY: a valid function handle of this context; the attribute only raises a limit.
        unsafe {
            cudarc::driver::result::function::set_function_attribute(
                f.cu_function(),
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                cfg.shared_mem_bytes as i32,
            )
        }
        .during("cuFuncSetAttribute")?;
        raised.insert(key, cfg.shared_mem_bytes);
    }
    Ok(())
}

/// Forgets the raised limits of `functions`, whose `Gpu`'s last handle is being dropped (its
/// module unloads with it): the driver may hand a later module's function the same address with
/// the default limit, which a remembered raise would then skip, failing that launch.
pub(crate) fn forget_raised<'a>(functions: impl IntoIterator<Item = &'a CudaFunction>) {
    let mut raised = RAISED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(raised) = raised.as_mut() {
        for f in functions {
            raised.remove(&(f.cu_function() as usize));
        }
    }
}

/// How many clusters of `cluster` blocks of `cfg`'s shape the GPU runs at once
/// (`cuOccupancyMaxActiveClusters`); 0 where such a cluster cannot run at all. Cluster sizes
/// above the portable 8 are allowed on `f` first (sm_90 runs 16). An error where the driver has
/// no clusters (before sm_90): callers treat it as "not available".
pub fn max_active_clusters(
    stream: &CudaStream,
    f: &CudaFunction,
    cfg: LaunchConfig,
    cluster: u32,
) -> Result<u32> {
    if cluster > 8 {
        // SAFETY: a valid function handle of this context; the attribute only allows a size.
        unsafe {
            cudarc::driver::result::function::set_function_attribute(
                f.cu_function(),
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                1,
            )
        }
        .during("cuFuncSetAttribute (non-portable cluster size)")?;
    }
    allow_shared_memory(f, cfg)?;
    let mut attr = cluster_attribute(cluster);
    let ex = ex_config(stream, cfg, std::slice::from_mut(&mut attr));
    let mut n: std::ffi::c_int = 0;
    // SAFETY: `ex` and its attribute live across the call; `n` is written by the driver.
    unsafe { cuOccupancyMaxActiveClusters(&mut n, f.cu_function(), &ex) }
        .result()
        .during("cuOccupancyMaxActiveClusters")?;
    Ok(n.max(0) as u32)
}

/// Launches `f` on `stream` as clusters of `cluster` blocks (1-D; sm_90+, `cfg.grid_dim.0` a
/// multiple of `cluster`) with the one by-value parameter `p`. Ask [`max_active_clusters`] first:
/// it also allows sizes above 8 on `f`. `dependent`: as a programmatic dependent of the previous
/// launch on `stream`, as in [`launch`] (the clusters may be scheduled before that kernel
/// finishes, so `f` must wait for it before its first global memory access).
///
/// # Safety
/// As for [`launch`].
pub unsafe fn launch_cluster<P: DeviceRepr>(
    stream: &CudaStream,
    f: &CudaFunction,
    cfg: LaunchConfig,
    p: &P,
    cluster: u32,
    dependent: bool,
) -> Result<()> {
    allow_shared_memory(f, cfg)?;
    let mut dep =
        attribute(CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
    dep.value.programmaticStreamSerializationAllowed = 1;
    let mut attrs = [cluster_attribute(cluster), dep];
    let n = if dependent { 2 } else { 1 };
    // SAFETY: the caller's contract.
    unsafe { launch_ex(stream, f, cfg, p, &mut attrs[..n]) }.during("kernel launch (cluster)")
}
