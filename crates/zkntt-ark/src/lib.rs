#![doc = include_str!("../README.md")]

#[macro_use]
mod delegate;
mod backend;
#[cfg(feature = "ark-poly-05")]
pub mod v05;

pub use backend::{
    Backend, CpuReason, DEFAULT_GPU_MIN_LOG_SIZE, FORCE_CPU_ENV, GPU_MIN_LOG_ENV, Placement,
    current_backend, gpu_engine, gpu_min_log_size, inject_gpu_failure_on_this_thread,
    last_placement, set_gpu_min_log_size, with_backend,
};

use ark_ff::FftField;
use ark_poly::domain::{DomainCoeff, radix2::Elements};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use std::fmt;
use zkntt_core::{Direction, NttConfig};

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
    /// The radix-2 domain this one wraps (its public fields, its inherent methods).
    pub fn as_radix2(&self) -> &Radix2EvaluationDomain<F> {
        &self.inner
    }

    pub fn into_radix2(self) -> Radix2EvaluationDomain<F> {
        self.inner
    }

    fn transform<T: DomainCoeff<F>>(&self, v: &mut Vec<T>, direction: Direction) {
        let cpu = |v: &mut Vec<T>| match direction {
            Direction::Forward => self.inner.fft_in_place(v),
            Direction::Inverse => self.inner.ifft_in_place(v),
        };
        if !backend::is_gpu_field::<F, T>() {
            let reason = if zkntt_core::FieldId::of::<F>().is_none() {
                CpuReason::FieldWithoutKernels
            } else {
                CpuReason::CoefficientType
            };
            backend::record(Placement::Cpu(reason));
            return cpu(v);
        }
        let engine = match backend::choose::<F>(self.inner.log_size_of_group) {
            Ok(engine) => engine,
            Err(reason) => {
                backend::record(Placement::Cpu(reason));
                return cpu(v);
            }
        };
        let data = backend::as_field_vec::<F, T>(v);
        // ark's resize: zero-pads a short vector, truncates an over-long one. (ark's degree-aware
        // path for inputs of at most size/4 computes the same values as the padded transform.)
        data.resize(self.size(), F::zero());
        let offset = self.inner.offset;
        let mut cfg = NttConfig::forward().with_direction(direction);
        if !offset.is_one() {
            cfg = cfg.with_coset(offset);
        }
        match backend::gpu_transform(engine, data, &cfg) {
            Ok(()) => backend::record(Placement::Gpu),
            Err(e) => {
                // `data` is the caller's input, resized as ark would: the CPU starts from there.
                let reason = backend::gpu_failed(e);
                backend::record(Placement::Cpu(reason));
                cpu(v);
            }
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

    #[test]
    fn wraps_and_unwraps_the_radix2_domain() {
        let r = Radix2EvaluationDomain::<Fr>::new(1 << 10).unwrap();
        let g = GpuDomain::from(r);
        assert_eq!(*g.as_radix2(), r);
        assert_eq!(Radix2EvaluationDomain::from(g), r);
        assert_eq!(g.into_radix2(), r);
    }
}
