//! [`GpuDomain05`]: the same drop-in domain for ark-poly 0.5 (feature `ark-poly-05`), for provers
//! still on arkworks 0.5 (Jolt and others). Same semantics, same GPU path, same fallback.
//!
//! ark-ff 0.5 and 0.6 store a field element the same way: `Fp(BigInt<N>, PhantomData)`, the
//! Montgomery limbs with `R = 2^(64 N)`. So a 0.5 BN254 `Fr` and a 0.6 BN254 `Fr` holding the same
//! value have the same bytes (asserted for the sizes at compile time, checked value by value in the
//! tests): a `Vec` of 0.5 elements goes to the GPU as the 0.6 type, with no conversion.

use crate::CpuReason;
use crate::transform::{self, KernelField};
use ark_ff_05::FftField;
use ark_poly_05::domain::{DomainCoeff, radix2::Elements};
use ark_poly_05::{EvaluationDomain, Radix2EvaluationDomain};
use ark_serialize_05::{
    CanonicalDeserialize, CanonicalSerialize, Compress, SerializationError, Valid, Validate,
};
use std::any::TypeId;
use std::fmt;
use zkntt_core::Direction;

const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<ark_bn254_05::Fr>() == size_of::<ark_bn254::Fr>());
    assert!(align_of::<ark_bn254_05::Fr>() == align_of::<ark_bn254::Fr>());
    assert!(size_of::<ark_bls12_381_05::Fr>() == size_of::<ark_bls12_381::Fr>());
    assert!(align_of::<ark_bls12_381_05::Fr>() == align_of::<ark_bls12_381::Fr>());
};

/// `Radix2EvaluationDomain<F>` of ark-poly 0.5 with its FFTs on the GPU. See [`crate::GpuDomain`];
/// everything said there holds here. Serializes to the same bytes as the domain it wraps.
#[derive(Copy, Clone, Hash, Eq, PartialEq)]
pub struct GpuDomain05<F: FftField> {
    inner: Radix2EvaluationDomain<F>,
}

/// The ark-ff 0.6 type with the same field and representation as the 0.5 type `F`, when it has
/// kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Twin {
    Bn254Fr,
    Bls12_381Fr,
}

fn twin<F: 'static>() -> Option<Twin> {
    let t = TypeId::of::<F>();
    if t == TypeId::of::<ark_bn254_05::Fr>() {
        Some(Twin::Bn254Fr)
    } else if t == TypeId::of::<ark_bls12_381_05::Fr>() {
        Some(Twin::Bls12_381Fr)
    } else {
        None
    }
}

/// The 0.6 element with the bytes of `x`. Call only with `G` the twin of `F`.
fn to_twin<F: 'static + Copy, G: 'static + Copy>(x: F) -> G {
    assert!(
        std::mem::size_of::<F>() == std::mem::size_of::<G>(),
        "to_twin on types of different sizes"
    );
    // SAFETY: F and G are twins (same size, asserted above and at compile time; same limb
    // layout and Montgomery form, checked in the tests), so the bytes of x are a valid G.
    unsafe { std::mem::transmute_copy(&x) }
}

impl<F: FftField> GpuDomain05<F> {
    fn transform<T: DomainCoeff<F>>(&self, v: &mut Vec<T>, direction: Direction) {
        let cpu = |v: &mut Vec<T>| self.cpu(v, direction);
        let twin = twin::<F>();
        if twin.is_some() && typeid::of::<T>() != TypeId::of::<F>() {
            return transform::on_cpu(v, CpuReason::CoefficientType, cpu);
        }
        // SAFETY (both arms): T is F (checked above: same TypeId, and F: 'static has no
        // lifetimes), and the type named is F's twin.
        match twin {
            Some(Twin::Bn254Fr) => unsafe { self.as_twin::<T, ark_bn254::Fr>(v, direction, cpu) },
            Some(Twin::Bls12_381Fr) => unsafe {
                self.as_twin::<T, ark_bls12_381::Fr>(v, direction, cpu)
            },
            None => transform::on_cpu(v, CpuReason::FieldWithoutKernels, cpu),
        }
    }

    /// The shared transform with `T` seen as `F`'s 0.6 twin `G`.
    ///
    /// # Safety
    /// `T` is `F`, and `G` is `F`'s twin.
    unsafe fn as_twin<T: DomainCoeff<F>, G: ark_ff::FftField>(
        &self,
        v: &mut Vec<T>,
        direction: Direction,
        cpu: impl FnOnce(&mut Vec<T>),
    ) {
        // SAFETY: G, F's twin, has kernels and the size, alignment and bytes of every F, which
        // is T (the caller's contract).
        let kernel = unsafe { KernelField::<T, G>::new_unchecked() };
        let offset = to_twin::<F, G>(self.inner.offset);
        let log_n = self.inner.log_size_of_group;
        let consistent = || self.consistent();
        transform::transform(v, kernel, log_n, offset, direction, consistent, cpu);
    }
}

// By hand: the derive macros of ark-serialize name the crate `ark_serialize`, which is 0.6 here.
impl<F: FftField> CanonicalSerialize for GpuDomain05<F> {
    fn serialize_with_mode<W: std::io::Write>(
        &self,
        writer: W,
        compress: Compress,
    ) -> Result<(), SerializationError> {
        self.inner.serialize_with_mode(writer, compress)
    }

    fn serialized_size(&self, compress: Compress) -> usize {
        self.inner.serialized_size(compress)
    }
}

impl<F: FftField> Valid for GpuDomain05<F> {
    fn check(&self) -> Result<(), SerializationError> {
        self.inner.check()
    }
}

impl<F: FftField> CanonicalDeserialize for GpuDomain05<F> {
    fn deserialize_with_mode<R: std::io::Read>(
        reader: R,
        compress: Compress,
        validate: Validate,
    ) -> Result<Self, SerializationError> {
        Radix2EvaluationDomain::deserialize_with_mode(reader, compress, validate).map(Self::from)
    }
}

radix2_domain_impls!(GpuDomain05);

#[cfg(test)]
mod tests {
    use super::*;

    /// The same values have the same bytes in both versions: small integers, the generator,
    /// 2-adic roots, -1, and values reduced from random bytes.
    fn twins_agree<F05: ark_ff_05::PrimeField, F06: ark_ff::PrimeField>() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut bytes = || -> Vec<u8> {
            (0..48)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect()
        };
        let mut pairs: Vec<(F05, F06)> = (0..64u64).map(|i| (F05::from(i), F06::from(i))).collect();
        pairs.push((F05::GENERATOR, F06::GENERATOR));
        pairs.push((F05::TWO_ADIC_ROOT_OF_UNITY, F06::TWO_ADIC_ROOT_OF_UNITY));
        pairs.push((-F05::one(), -F06::from(1u64)));
        for _ in 0..64 {
            let b = bytes();
            pairs.push((
                F05::from_le_bytes_mod_order(&b),
                F06::from_le_bytes_mod_order(&b),
            ));
        }
        for (i, (a, b)) in pairs.into_iter().enumerate() {
            assert!(to_twin::<F05, F06>(a) == b, "value {i}: {a} vs {b}");
        }
    }

    #[test]
    fn bn254_twins_have_the_same_bytes() {
        twins_agree::<ark_bn254_05::Fr, ark_bn254::Fr>();
    }

    #[test]
    fn bls12_381_twins_have_the_same_bytes() {
        twins_agree::<ark_bls12_381_05::Fr, ark_bls12_381::Fr>();
    }

    #[test]
    fn only_the_two_scalar_fields_have_twins() {
        assert_eq!(twin::<ark_bn254_05::Fr>(), Some(Twin::Bn254Fr));
        assert_eq!(twin::<ark_bls12_381_05::Fr>(), Some(Twin::Bls12_381Fr));
        assert_eq!(twin::<ark_bn254_05::Fq>(), None);
        assert_eq!(
            twin::<ark_bn254::Fr>(),
            None,
            "a 0.6 type is not a 0.5 twin"
        );
    }
}
