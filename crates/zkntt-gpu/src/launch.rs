//! One kernel launch with what the NTT kernels need beyond cudarc's builder: dynamic shared
//! memory above the default 48 KiB, and programmatic dependent launch (sm_90+, the kernel side in
//! `cuda/launch_dependent.cuh`). Used by the engine and by zkntt-small's panel kernel.

use crate::Result;
use crate::error::DriverContext;
use cudarc::driver::sys::{
    CUfunction_attribute, CUlaunchAttribute, CUlaunchAttributeID, CUlaunchConfig, cuLaunchKernelEx,
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
    if cfg.shared_mem_bytes > 48 * 1024 {
        // SAFETY: a valid function handle of this context; the attribute only raises a limit.
        unsafe {
            cudarc::driver::result::function::set_function_attribute(
                f.cu_function(),
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                cfg.shared_mem_bytes as i32,
            )
        }
        .during("cuFuncSetAttribute")?;
    }
    if dependent {
        let mut attr = CUlaunchAttribute {
            id: CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
            pad: [0; 4],
            // SAFETY: plain data; the attribute's value is this one int.
            value: unsafe { std::mem::zeroed() },
        };
        attr.value.programmaticStreamSerializationAllowed = 1;
        let ex = CUlaunchConfig {
            gridDimX: cfg.grid_dim.0,
            gridDimY: cfg.grid_dim.1,
            gridDimZ: cfg.grid_dim.2,
            blockDimX: cfg.block_dim.0,
            blockDimY: cfg.block_dim.1,
            blockDimZ: cfg.block_dim.2,
            sharedMemBytes: cfg.shared_mem_bytes,
            hStream: stream.cu_stream(),
            attrs: &mut attr,
            numAttrs: 1,
        };
        let mut arg = p as *const P as *mut std::ffi::c_void;
        // SAFETY: the caller's contract; `arg` points at the one by-value parameter, alive for
        // the call (the driver copies parameters at launch).
        return unsafe { cuLaunchKernelEx(&ex, f.cu_function(), &mut arg, std::ptr::null_mut()) }
            .result()
            .during("kernel launch (dependent)");
    }
    let mut b = stream.launch_builder(f);
    b.arg(p);
    // SAFETY: the caller's contract.
    unsafe { b.launch(cfg) }.during("kernel launch")?;
    Ok(())
}
