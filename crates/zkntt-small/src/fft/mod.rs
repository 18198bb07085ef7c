//! Batched complex FFTs of 2..2^20 points the way the Tensor Core FFT paper computes them: the
//! size-N DFT decomposed (iterative Cooley-Tukey, decimation in frequency) into 16-point DFT matrix
//! products with twiddle multiplications between the steps, and one radix-2/4/8 step first where
//! N is not a power of 16.
//!
//! - [`model`]: the decomposition on the CPU in f32 or f64, and the plain f64 DFT it is checked
//!   against (both run in CI).
//! - [`gpu`]: the fp16 kernels (`cuda/small/fft_tc.cu`): `mma.sync m16n8k16` products with fp32
//!   accumulation, two 16-point steps per warp tile with the data in registers between them (the
//!   radix-2/4/8 factor of N = 32..128 is a block-diagonal matrix in the first of them); N <= 256
//!   straight from and to global memory, N = 512..4096 through shared memory for the radix-R step;
//!   N = 2^13..2^20 by the four-step split of [`model::split`]: column transforms built from the
//!   same tiles with the twiddle `w_N^{n2 k1}` in fp32, then the rows written transposed through
//!   shared memory (two launches; from 2^18 a block writes a band of 8 rows, where the GPU gives
//!   it the shared memory), else the one-launch kernel on the rows and a transpose (three); fp16
//!   between the launches.
//! - [`half`]: fp16 bits to and from f32 on the host (round to nearest even).

pub mod gpu;
pub mod half;
pub mod model;

pub use gpu::TcFft;

#[cfg(test)]
mod gpu_tests;
