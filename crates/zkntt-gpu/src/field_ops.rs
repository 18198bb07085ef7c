//! Element-wise field arithmetic on the GPU: `out[i] = a[i] op b[i]`, `out[i] = a[i]^2` and
//! `out[i] = a[i] * s`, into another buffer or in place. The kernels are
//! `cuda/field/elementwise.cu`; results are canonical Montgomery form. `F` is a field with kernels
//! ([`GpuField`]).

use crate::device_vec::words;
use crate::error::DriverContext;
use crate::timing::median_ms;
use crate::{DeviceVec, Gpu, Result};
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{DeviceRepr, LaunchConfig, PushKernelArg};
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
    a.order_on(gpu)?;
    b.order_on(gpu)?;
    out.order_on_exclusive(gpu)?;
    let f = gpu.field_function(op.kernel(), F::ID)?;
    let n64 = n as u64;
    let mut launch = gpu.stream().launch_builder(&f);
    launch
        .arg(&*a.buf)
        .arg(&*b.buf)
        .arg(&mut *out.buf)
        .arg(&n64);
    // SAFETY: the kernel's signature is (const F*, const F*, F*, uint64_t n); all buffers hold n
    // elements (checked above).
    unsafe { launch.launch(launch_config(n)) }.during("element-wise kernel launch")?;
    Ok(())
}

/// `a[i] = a[i] op b[i]`, in place. Both of one length on this GPU. Asynchronous on `gpu`'s stream.
pub fn binary_in_place<F: GpuField>(
    gpu: &Gpu,
    op: BinaryOp,
    a: &mut DeviceVec<F>,
    b: &DeviceVec<F>,
) -> Result<()> {
    let n = a.len();
    a.check(gpu, n)?;
    b.check(gpu, n)?;
    a.order_on_exclusive(gpu)?;
    b.order_on(gpu)?;
    let f = gpu.field_function(op.kernel(), F::ID)?;
    let (a_in, n64) = (a.raw_ptr(), n as u64);
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&a_in).arg(&*b.buf).arg(&mut *a.buf).arg(&n64);
    // SAFETY: the kernel's signature is (const F*, const F*, F*, uint64_t n); `a_in` is `a`'s
    // address (out may alias a input: each thread reads its element before writing it); both
    // hold n elements (checked above).
    unsafe { launch.launch(launch_config(n)) }.during("element-wise kernel launch")?;
    Ok(())
}

/// A field element as a kernel parameter passed by value: its four Montgomery words.
#[repr(C)]
struct ElementArg([u64; 4]);

// SAFETY: plain data of the kernels' element type's size (32 bytes), the same bytes.
unsafe impl DeviceRepr for ElementArg {}

impl ElementArg {
    fn of<F: GpuField>(x: F) -> Self {
        let w = words(std::slice::from_ref(&x));
        Self([w[0], w[1], w[2], w[3]])
    }
}

/// `out[i] = a[i] * s`. Both of one length on this GPU. Asynchronous on `gpu`'s stream.
pub fn scale<F: GpuField>(gpu: &Gpu, a: &DeviceVec<F>, s: F, out: &mut DeviceVec<F>) -> Result<()> {
    let n = a.len();
    a.check(gpu, n)?;
    a.order_on(gpu)?;
    launch_scale(gpu, a.raw_ptr(), s, out, n)
}

/// `x[i] *= s`, in place. Asynchronous on `gpu`'s stream.
pub fn scale_in_place<F: GpuField>(gpu: &Gpu, x: &mut DeviceVec<F>, s: F) -> Result<()> {
    let n = x.len();
    x.check(gpu, n)?;
    x.order_on_exclusive(gpu)?;
    launch_scale(gpu, x.raw_ptr(), s, x, n)
}

/// `field_scale` from the `n` elements at `a_in` (ordered on `gpu`'s stream) into `out`.
fn launch_scale<F: GpuField>(
    gpu: &Gpu,
    a_in: u64,
    s: F,
    out: &mut DeviceVec<F>,
    n: usize,
) -> Result<()> {
    out.check(gpu, n)?;
    out.order_on_exclusive(gpu)?;
    let f = gpu.field_function(&names::field::SCALE, F::ID)?;
    let (s, n64) = (ElementArg::of(s), n as u64);
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&a_in).arg(&s).arg(&mut *out.buf).arg(&n64);
    // SAFETY: the kernel's signature is (const F*, F s, F*, uint64_t n) with F 32 bytes, as
    // ElementArg; `a_in` addresses n elements (the callers' checks), out holds n and may alias it.
    unsafe { launch.launch(launch_config(n)) }.during("field_scale")?;
    Ok(())
}

/// `out[i] = a[i]^2`. Asynchronous on `gpu`'s stream.
pub fn square<F: GpuField>(gpu: &Gpu, a: &DeviceVec<F>, out: &mut DeviceVec<F>) -> Result<()> {
    let n = a.len();
    a.check(gpu, n)?;
    out.check(gpu, n)?;
    a.order_on(gpu)?;
    out.order_on_exclusive(gpu)?;
    let f = gpu.field_function(&names::field::SQR, F::ID)?;
    let n64 = n as u64;
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&*a.buf).arg(&mut *out.buf).arg(&n64);
    // SAFETY: the kernel's signature is (const F*, F*, uint64_t n); both hold n elements.
    unsafe { launch.launch(launch_config(n)) }.during("field_sqr")?;
    Ok(())
}

/// Which Montgomery product a [`product_chain`] runs (issue 18's microbenchmark).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProductForm {
    /// Today's integer product on 32-bit limbs (`cuda/field/mont.cuh`, the NTT's).
    Integer,
    /// Five 52-bit limbs, partial products from DFMA pairs (`cuda/field/mont52.cuh`; CPU twin
    /// `zkntt_core::fp64`).
    Fp64,
    /// [`Self::Fp64`] with the hi DFMA rounded toward zero: one DADD per pair instead of two, and
    /// the bit patterns' offsets folded into the columns' starting values (`fp64::mul_folded`;
    /// twin `Mont52::mul_folded`).
    Fp64Folded,
    /// Both at once: the first half of the elements on the integer chain, the second half on the
    /// FP64 chain, interleaved in one thread (both pipes busy). Needs an even length.
    Hybrid,
    /// [`Self::Hybrid`] with [`Self::Fp64Folded`]'s product on the FP64 chain. Needs an even length.
    HybridFolded,
}

impl ProductForm {
    /// Every form, in the order the bench prints them.
    pub const ALL: [ProductForm; 5] = [
        ProductForm::Integer,
        ProductForm::Fp64,
        ProductForm::Fp64Folded,
        ProductForm::Hybrid,
        ProductForm::HybridFolded,
    ];

    fn kernel(self) -> &'static PerField {
        match self {
            ProductForm::Integer => &names::field::CHAIN_INT,
            ProductForm::Fp64 => &names::field::CHAIN_FP64,
            ProductForm::Fp64Folded => &names::field::CHAIN_FP64_FOLDED,
            ProductForm::Hybrid => &names::field::CHAIN_HYBRID,
            ProductForm::HybridFolded => &names::field::CHAIN_HYBRID_FOLDED,
        }
    }

    /// Two chains per thread, one on each pipe.
    fn is_hybrid(self) -> bool {
        matches!(self, ProductForm::Hybrid | ProductForm::HybridFolded)
    }
}

/// `x[i] *= step^iters`, each element a dependent chain of `iters` products of the form `form`;
/// canonical results, equal for every form. Asynchronous on `gpu`'s stream. For benchmarking the
/// product (`zkntt bench`-style timing around it); not an API for computing powers.
pub fn product_chain<F: GpuField>(
    gpu: &Gpu,
    form: ProductForm,
    x: &mut DeviceVec<F>,
    step: F,
    iters: u32,
) -> Result<()> {
    let n = x.len();
    x.check(gpu, n)?;
    if form.is_hybrid() && n % 2 == 1 {
        return Err(crate::Error::LengthMismatch {
            expected: n + 1,
            got: n,
        });
    }
    x.order_on_exclusive(gpu)?;
    // The FP64 product's radix is 2^260 against ark's 2^256: its multiplier is stored times 16.
    let steps = DeviceVec::from_host(gpu, &[step, step * F::from(16u64)])?;
    let f = gpu.field_function(form.kernel(), F::ID)?;
    let (n64, step16) = (n as u64, steps.raw_ptr() + 32);
    let mut launch = gpu.stream().launch_builder(&f);
    launch
        .arg(&mut *x.buf)
        .arg(&*steps.buf)
        .arg(&step16)
        .arg(&n64)
        .arg(&iters);
    // Whole waves of 256-thread blocks, one chain per thread (two for the hybrid).
    let sms = gpu.info().map_or(132, |i| i.multiprocessors as usize);
    let chains = if form.is_hybrid() { n / 2 } else { n };
    let cfg = LaunchConfig {
        grid_dim: (
            chains.div_ceil(BLOCK as usize).clamp(1, sms * 64) as u32,
            1,
            1,
        ),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: the kernels' signature is (F* x, const F* step, const F* step16, uint64_t n,
    // uint32_t iters); x holds n elements, `steps` two (step16 is its second), alive until the
    // stream passes the kernel (`steps` is freed stream-ordered on drop).
    unsafe { launch.launch(cfg) }.during("product chain kernel launch")?;
    Ok(())
}

/// A pipe whose raw rate [`pipe_rate`] measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pipe {
    /// The FP64 pipe: DFMA (`fma(double, double, double)`).
    Dfma,
    /// The integer multiplier: IMAD.WIDE.U32 (32 x 32 -> 64 bits plus a 64-bit addend).
    ImadWide,
}

impl Pipe {
    /// Both pipes, in the order the bench prints them.
    pub const ALL: [Pipe; 2] = [Pipe::Dfma, Pipe::ImadWide];
}

/// Operations per thread per round of the pipe kernels (`UNROLL x CHAINS` in
/// `cuda/field/product_chain.cu`).
const PIPE_OPS_PER_ROUND: u64 = 16 * 8;

/// The raw rate of `pipe` on this GPU, in operations per second (one operation: one thread's
/// DFMA or IMAD.WIDE.U32): every SM full of threads running 8 independent chains each, `rounds`
/// x 128 operations per thread, the median of 5 launches after one warm-up, timed by CUDA events.
/// Returns when done. `Error::Unsupported` for `rounds == 0`.
pub fn pipe_rate(gpu: &Gpu, pipe: Pipe, rounds: u32) -> Result<f64> {
    if rounds == 0 {
        return Err(crate::Error::Unsupported(
            "pipe_rate needs at least one round".into(),
        ));
    }
    let attribute = |a, what| {
        let v: i32 = gpu.context().attribute(a).during(what)?;
        Ok::<u32, crate::Error>(v.max(1) as u32)
    };
    let sms = attribute(
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        "multiprocessor count",
    )?;
    let per_sm = attribute(
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
        "threads per multiprocessor",
    )?;
    // One wave that fills every SM (the kernels need at most 32 registers a thread).
    let cfg = LaunchConfig {
        grid_dim: (sms * (per_sm / BLOCK).max(1), 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let threads = (cfg.grid_dim.0 * BLOCK) as usize;
    let mut out = gpu
        .stream()
        .alloc_zeros::<u64>(threads)
        .during("pipe rate output")?;
    let f = gpu.function(match pipe {
        Pipe::Dfma => names::pipe::DFMA,
        Pipe::ImadWide => names::pipe::IMAD_WIDE,
    })?;
    // DFMA: acc = acc * (1 - 2^-20) + 0.5 stays finite and normal; IMAD: any odd multiplier.
    let (x, y, m) = (1.0 - f64::powi(2.0, -20), 0.5f64, 0x9E37_79B9u32);
    let ms = median_ms::<crate::Error>(gpu.stream(), 1, 5, || {
        let mut launch = gpu.stream().launch_builder(&f);
        launch.arg(&mut out);
        match pipe {
            Pipe::Dfma => launch.arg(&x).arg(&y),
            Pipe::ImadWide => launch.arg(&m),
        };
        launch.arg(&rounds);
        // SAFETY: the kernels' signatures are (uint64_t* out, double x, double y, uint32_t rounds)
        // and (uint64_t* out, uint32_t m, uint32_t rounds); out holds one word per thread.
        unsafe { launch.launch(cfg) }.during("pipe rate kernel launch")?;
        Ok(())
    })?;
    let ops = threads as f64 * rounds as f64 * PIPE_OPS_PER_ROUND as f64;
    Ok(ops / (ms * 1e-3))
}
