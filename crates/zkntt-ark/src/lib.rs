#![doc = include_str!("../README.md")]

#[macro_use]
mod delegate;
mod backend;
#[cfg(feature = "groth16")]
pub mod circuits;
mod context;
mod error;
mod log;
#[cfg(feature = "groth16")]
mod qap;
#[cfg(feature = "testing")]
pub mod testing;
mod transform;
#[cfg(feature = "ark-poly-05")]
pub mod v05;

pub use backend::{
    Backend, CpuReason, DEFAULT_GPU_MIN_LOG_SIZE, FORCE_CPU_ENV, GPU_MIN_LOG_ENV, Placement,
    current_backend, gpu_min_log_size, last_placement, set_gpu_min_log_size, with_backend,
};
pub use context::{DEVICE_ENV, DEVICES_ENV, gpu_pipeline, gpu_pipelines, install, install_devices};
pub use error::Error;
#[cfg(feature = "groth16")]
pub use qap::GpuQap;
/// The GPU runtime under the domains, whose types [`install`] and [`gpu_pipeline`] take and give.
pub use zkntt_gpu;

use ark_ff::FftField;
use ark_poly::domain::{DomainCoeff, radix2::Elements};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use std::fmt;
use transform::KernelField;
use zkntt_core::Direction;

/// `Radix2EvaluationDomain<F>` with its FFTs on the GPU: same values bit for bit, same
/// serialization, same `Copy + Hash + Eq` data (it is that domain, wrapped).
///
/// `fft_in_place`/`ifft_in_place` (and `fft`/`ifft`) of `Vec<F>` run on the GPU for BN254 Fr and
/// BLS12-381 Fr from `2^`[`gpu_min_log_size`] points up; everything else, and every call when no
/// GPU is usable or the GPU fails, runs ark-poly's own radix-2 code. See the crate docs.
#[derive(Copy, Clone, Hash, Eq, PartialEq, CanonicalSerialize, CanonicalDeserialize)]
pub struct GpuDomain<F: FftField> {
    inner: Radix2EvaluationDomain<F>,
}

impl<F: FftField> GpuDomain<F> {
    fn transform<T: DomainCoeff<F>>(&self, v: &mut Vec<T>, direction: Direction) {
        let cpu = |v: &mut Vec<T>| self.cpu(v, direction);
        match KernelField::<T, F>::same() {
            Ok(kernel) => {
                let log_n = self.inner.log_size_of_group;
                let offset = self.inner.offset;
                let consistent = || self.consistent();
                transform::transform(v, kernel, log_n, offset, direction, consistent, cpu);
            }
            Err(reason) => transform::on_cpu(v, reason, cpu),
        }
    }
}

radix2_domain_impls!(GpuDomain);

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;

    #[test]
    fn debug_names_size_and_offset() {
        let d = GpuDomain::<Fr>::new(5).unwrap();
        assert_eq!(
            format!("{d:?}"),
            "GPU radix-2 multiplicative subgroup of size 8"
        );
        let c = d.get_coset(Fr::from(7u64)).unwrap();
        assert_eq!(
            format!("{c:?}"),
            "GPU radix-2 multiplicative subgroup of size 8, coset offset 7"
        );
    }

    /// The fields checked against one another (the transforms of domains that fail it:
    /// `tests/common/conformance.rs`).
    #[test]
    fn consistent_checks_every_field() {
        use ark_ff::Field;
        let r = Radix2EvaluationDomain::<Fr>::new(1 << 12).unwrap();
        let coset = r.get_coset(Fr::from(7u64)).unwrap();
        for good in [r, coset] {
            assert!(GpuDomain::from(good).consistent());
        }
        let bad: [fn(&mut Radix2EvaluationDomain<Fr>); 9] = [
            |d| d.size = 1 << 11,
            |d| d.log_size_of_group = 11,
            |d| d.log_size_of_group = 64,
            |d| d.size_as_field_element = Fr::from(4095u64),
            |d| d.size_inv = d.size_inv.square(),
            |d| d.group_gen = d.group_gen.square(),
            |d| d.group_gen_inv = d.group_gen,
            |d| d.offset_inv = d.offset,
            |d| d.offset_pow_size = d.offset,
        ];
        for (i, spoil) in bad.iter().enumerate() {
            let mut d = coset;
            spoil(&mut d);
            assert!(!GpuDomain::from(d).consistent(), "case {i}");
        }
    }

    #[test]
    fn wraps_and_unwraps_the_radix2_domain() {
        let r = Radix2EvaluationDomain::<Fr>::new(1 << 10).unwrap();
        let g = GpuDomain::from(r);
        assert_eq!(*g.as_radix2(), r);
        assert_eq!(Radix2EvaluationDomain::from(g), r);
        assert_eq!(g.into_radix2(), r);
    }
}
