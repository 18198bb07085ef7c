//! Element-wise field arithmetic on the GPU: `out[i] = a[i] op b[i]` and `out[i] = a[i]^2`.
//! The kernels are `cuda/field/elementwise.cu`; results are canonical Montgomery form. `F` is a
//! field with kernels ([`GpuField`]).

use crate::error::DriverContext;
use crate::{DeviceVec, Gpu, Result};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use zkntt_core::GpuField;
use zkntt_kernels::names::{self, PerField};

/// A binary element-wise operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
}

impl BinaryOp {
    fn kernel(self) -> &'static PerField {
        match self {
            BinaryOp::Add => &names::field::ADD,
            BinaryOp::Sub => &names::field::SUB,
            BinaryOp::Mul => &names::field::MUL,
        }
    }
}

const BLOCK: u32 = 256;

fn launch_config(n: usize) -> LaunchConfig {
    // Grid-stride loop in the kernel: cap the grid, keep 64-bit indices there.
    let blocks = n.div_ceil(BLOCK as usize).clamp(1, 65_535) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `out[i] = a[i] op b[i]`. All three of one length on this GPU. Asynchronous on `gpu`'s stream.
pub fn binary<F: GpuField>(
    gpu: &Gpu,
    op: BinaryOp,
    a: &DeviceVec<F>,
    b: &DeviceVec<F>,
    out: &mut DeviceVec<F>,
) -> Result<()> {
    let n = a.len();
    a.check(gpu, n)?;
    b.check(gpu, n)?;
    out.check(gpu, n)?;
    for v in [a, b, &*out] {
        v.order_on(gpu)?;
    }
    let f = gpu.field_function(op.kernel(), F::ID)?;
    let n64 = n as u64;
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&a.buf).arg(&b.buf).arg(&mut out.buf).arg(&n64);
    // SAFETY: the kernel's signature is (const F*, const F*, F*, uint64_t n); all buffers hold n
    // elements (checked above).
    unsafe { launch.launch(launch_config(n)) }.during("element-wise kernel launch")?;
    Ok(())
}

/// `out[i] = a[i]^2`. Asynchronous on `gpu`'s stream.
pub fn square<F: GpuField>(gpu: &Gpu, a: &DeviceVec<F>, out: &mut DeviceVec<F>) -> Result<()> {
    let n = a.len();
    a.check(gpu, n)?;
    out.check(gpu, n)?;
    a.order_on(gpu)?;
    out.order_on(gpu)?;
    let f = gpu.field_function(&names::field::SQR, F::ID)?;
    let n64 = n as u64;
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&a.buf).arg(&mut out.buf).arg(&n64);
    // SAFETY: the kernel's signature is (const F*, F*, uint64_t n); both hold n elements.
    unsafe { launch.launch(launch_config(n)) }.during("field_sqr")?;
    Ok(())
}
