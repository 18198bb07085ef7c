//! The modmul study's chain kernels (`cuda/small/modmul_chain.cu`) from Rust: each element times
//! a fixed multiplier 16 times, in one form, for the blog's four moduli.

use crate::error::DriverContext;
use crate::modmul::{BLOG_MODULI, ModMulForm, Modulus};
use crate::{Error, Result};
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use zkntt_gpu::Gpu;

/// Operands on the device for one modulus, in every form's representation.
#[derive(Debug)]
pub struct ChainInputs {
    pub modulus: Modulus,
    pub bits: u32,
    pub a: CudaSlice<u32>,
    /// b as is (the `%`, Barrett and Shoup forms).
    pub b_plain: CudaSlice<u32>,
    /// floor(b * 2^32 / q) (Shoup).
    pub b_shoup: CudaSlice<u32>,
    /// b * 2^32 mod q (Montgomery).
    pub b_mont: CudaSlice<u32>,
    pub out: CudaSlice<u32>,
}

impl ChainInputs {
    /// Uploads `a` and `b` (equal lengths; b canonical) with b's encodings.
    pub fn new(gpu: &Gpu, q: u32, a: &[u32], b: &[u32]) -> Result<Self> {
        if a.len() != b.len() {
            return Err(Error::LengthMismatch {
                expected: a.len(),
                got: b.len(),
            });
        }
        crate::reference::check_below(b, q as u64)?;
        let bits = BLOG_MODULI
            .iter()
            .find(|m| m.1 == q)
            .map(|m| m.0)
            .ok_or(Error::NoKernel {
                form: "chain16",
                q,
                available: "65521, 1048573, 16769023, 268369921",
            })?;
        let modulus = Modulus::new(q)?;
        let s = gpu.stream();
        let shoup: Vec<u32> = b.iter().map(|&x| modulus.shoup_companion(x)).collect();
        let mont: Vec<u32> = b.iter().map(|&x| modulus.to_mont(x)).collect();
        Ok(Self {
            modulus,
            bits,
            a: s.clone_htod(a).during("upload")?,
            b_plain: s.clone_htod(b).during("upload")?,
            b_shoup: s.clone_htod(&shoup).during("upload")?,
            b_mont: s.clone_htod(&mont).during("upload")?,
            out: s.alloc_zeros::<u32>(a.len()).during("alloc")?,
        })
    }

    /// The bound `a` must respect for `form` (see [`ModMulForm::operand_bound`]).
    pub fn operand_bound(&self, form: ModMulForm) -> u64 {
        form.operand_bound(self.modulus.q)
    }
}

/// `modmul_chain16_{form}_q{bits}`.
pub fn chain_kernel_name(form: ModMulForm, bits: u32) -> String {
    format!("modmul_chain16_{}_q{bits}", form.name())
}

/// Queues `out[i] = a[i] * b[i]^16 mod q` in `form` on the GPU's stream (the blog's geometry:
/// 256 threads per block, one element per thread).
/// The fields of `inputs` are public: every buffer must still hold `a`'s length and `bits` name
/// the kernel of the modulus (errors otherwise, before anything is queued).
pub fn launch_chain(gpu: &Gpu, form: ModMulForm, inputs: &mut ChainInputs) -> Result<()> {
    let len = inputs.a.len();
    for other in [
        &inputs.b_plain,
        &inputs.b_shoup,
        &inputs.b_mont,
        &inputs.out,
    ] {
        if other.len() != len {
            return Err(Error::LengthMismatch {
                expected: len,
                got: other.len(),
            });
        }
    }
    let q = inputs.modulus.q;
    if !BLOG_MODULI.contains(&(inputs.bits, q)) {
        return Err(Error::NoKernel {
            form: "chain16",
            q,
            available: "65521, 1048573, 16769023, 268369921",
        });
    }
    let f = gpu.function(&chain_kernel_name(form, inputs.bits))?;
    let n = len as u64;
    if n == 0 {
        return Ok(());
    }
    let blocks = n.div_ceil(256);
    if blocks > i32::MAX as u64 {
        return Err(Error::LengthMismatch {
            expected: (i32::MAX as usize) * 256,
            got: n as usize,
        });
    }
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let b = match form {
        ModMulForm::Montgomery | ModMulForm::MontgomeryLazy => &inputs.b_mont,
        _ => &inputs.b_plain,
    };
    let null = 0u64;
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&inputs.a).arg(b);
    if form.has_companion() {
        launch.arg(&inputs.b_shoup);
    } else {
        launch.arg(&null);
    }
    launch.arg(&mut inputs.out).arg(&n).arg(&q);
    // SAFETY: (const u32* a, const u32* b, const u32* b_aux or null, u32* out, u64 n, u32 q);
    // all buffers hold n elements; the grid covers n.
    unsafe { launch.launch(cfg) }.during("modmul chain launch")?;
    Ok(())
}
