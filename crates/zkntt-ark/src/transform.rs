//! The transform both domains share (`GpuDomain` on ark-poly 0.6, `v05::GpuDomain05` on 0.5): the
//! backend choice, ark's resize, the coset, the CPU rerun on any GPU error, the placement record.
//! What differs between the versions is only how a domain sees that its coefficients are a field
//! with kernels, which it says by handing over a [`KernelField`].
//!
//! zkntt-gpu takes only its sealed [`GpuField`] types, checked at compile time; the domains take
//! any `FftField`. The step between them is here and only here: a [`KernelField`] carries the
//! [`FieldId`] of its field, found at run time, and [`transform`] matches on it to name the
//! concrete `GpuField` type (`ark_bn254::Fr`, `ark_bls12_381::Fr`) it calls the pipeline with.

use crate::backend::{self, Backend, CpuReason, Placement, current_backend};
use crate::log::log_once;
use ark_ff::FftField;
use std::any::{Any, TypeId};
use std::marker::PhantomData;
use zkntt_core::{Direction, FieldId, GpuField, NttConfig};
use zkntt_gpu::HostPipeline;

/// Leave to view coefficients `T` as `G`, a field with GPU kernels: `T` is `G`, or `G`'s ark-ff
/// 0.5 twin (same size, alignment and bytes for every value). `field` is `G`'s kernels.
pub(crate) struct KernelField<T, G> {
    field: FieldId,
    _types: PhantomData<fn() -> (T, G)>,
}

impl<T: Copy, G: FftField> KernelField<T, G> {
    /// When `T` is `G` and `G` has kernels; otherwise why a `Vec<T>` stays on the CPU.
    pub(crate) fn same() -> Result<Self, CpuReason> {
        if FieldId::of::<G>().is_none() {
            Err(CpuReason::FieldWithoutKernels)
        } else if typeid::of::<T>() != TypeId::of::<G>() {
            Err(CpuReason::CoefficientType)
        } else {
            // SAFETY: T and G have the same TypeId up to lifetimes, and G (an ark field type with
            // kernels) has no lifetime parameters: T is G.
            Ok(unsafe { Self::new_unchecked() })
        }
    }

    /// # Safety
    /// `G` has kernels, and `T` has `G`'s size and alignment and, for every value, its bytes.
    ///
    /// # Panics
    /// When that contract is plainly broken: different layouts, or a `G` without kernels.
    pub(crate) unsafe fn new_unchecked() -> Self {
        assert!(
            size_of::<T>() == size_of::<G>() && align_of::<T>() == align_of::<G>(),
            "KernelField of types of different layouts"
        );
        let field = FieldId::of::<G>().expect("KernelField of a field without kernels");
        Self {
            field,
            _types: PhantomData,
        }
    }

    /// The same leave with `G` named as `K`, a [`GpuField`] type; `None` unless `G` is `K`.
    fn as_gpu_field<K: GpuField>(&self) -> Option<KernelField<T, K>> {
        (TypeId::of::<G>() == TypeId::of::<K>()).then_some(KernelField {
            field: K::ID,
            _types: PhantomData,
        })
    }

    fn slice<'a>(&self, v: &'a mut [T]) -> &'a mut [G] {
        // SAFETY: T and G have the same layout and bytes (the constructors' contract); the slice
        // covers v's elements and borrows v.
        unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<G>(), v.len()) }
    }

    fn coefficient(&self, x: G) -> T {
        // SAFETY: as in `slice`: the bytes of every G are a T of the same value.
        unsafe { std::mem::transmute_copy(&x) }
    }
}

/// One `fft_in_place`/`ifft_in_place` of a domain of `2^log_n` points with coset offset `offset`
/// (one on the subgroup), of coefficients that are `G` (`kernel`): on the GPU when the backend
/// says so and the domain's fields agree (`consistent`, asked only then), else, and after any GPU
/// error, by `cpu` (ark-poly's code) from the caller's input.
pub(crate) fn transform<T: Copy, G: FftField>(
    v: &mut Vec<T>,
    kernel: KernelField<T, G>,
    log_n: u32,
    offset: G,
    direction: Direction,
    consistent: impl FnOnce() -> bool,
    cpu: impl FnOnce(&mut Vec<T>),
) {
    let pipeline = match backend::choose(log_n) {
        Ok(pipeline) => pipeline,
        Err(reason) => return on_cpu(v, reason, cpu),
    };
    if !consistent() {
        return on_cpu(v, CpuReason::InconsistentDomain, cpu);
    }
    // ark's resize: zero-pads a short vector, truncates an over-long one. (ark's degree-aware path
    // for inputs of at most size/4 computes the same values as the padded transform.)
    v.resize(1 << log_n, kernel.coefficient(G::zero()));
    // The run-time field picks the compile-time one: zkntt-gpu is called with a GpuField type.
    let ran = match kernel.field {
        FieldId::Bn254Fr => ntt_as::<_, _, ark_bn254::Fr>(pipeline, &kernel, v, offset, direction),
        FieldId::Bls12_381Fr => {
            ntt_as::<_, _, ark_bls12_381::Fr>(pipeline, &kernel, v, offset, direction)
        }
    };
    match ran {
        Ok(()) => backend::record(Placement::Gpu),
        // The input could not be put back (kept on a device that was lost, which only a pipeline
        // set to `InputCopy::Device` risks): no CPU rerun can start from `v`, and ark's API has
        // no error to return, so stop rather than return a wrong transform.
        Err(e @ zkntt_gpu::Error::InputLost { .. }) => {
            panic!("zkntt-ark: the GPU transform failed and its input is lost: {e}")
        }
        // On Err the pipeline leaves `v` holding its input (resized as ark would): the CPU starts
        // from there, and the caller never sees a half-transformed vector.
        Err(e) => on_cpu(v, gpu_failed(e), cpu),
    }
}

/// The pipeline's transform of `v`, whose coefficients `kernel` views as `G`, with `G` named as the
/// [`GpuField`] type `K` of `kernel`'s field (the coset `offset` too). `G` is `K` whenever `K` is
/// the type of `kernel.field`; otherwise (a bug) an `Internal` error, so the CPU redoes the call.
fn ntt_as<T: Copy, G: FftField, K: GpuField>(
    pipeline: &HostPipeline,
    kernel: &KernelField<T, G>,
    v: &mut [T],
    offset: G,
    direction: Direction,
) -> zkntt_gpu::Result<()> {
    let (Some(kernel), Some(&offset)) = (
        kernel.as_gpu_field::<K>(),
        (&offset as &dyn Any).downcast_ref::<K>(),
    ) else {
        return Err(zkntt_gpu::Error::Internal(format!(
            "zkntt-ark: the field {} was dispatched as {}",
            std::any::type_name::<G>(),
            std::any::type_name::<K>()
        )));
    };
    let mut cfg = NttConfig::forward().with_direction(direction);
    if !offset.is_one() {
        cfg = cfg.with_coset(offset);
    }
    pipeline.ntt(kernel.slice(v), &cfg)
}

/// `cpu` on `v`, recording why.
pub(crate) fn on_cpu<T>(v: &mut Vec<T>, reason: CpuReason, cpu: impl FnOnce(&mut Vec<T>)) {
    backend::record(Placement::Cpu(reason));
    cpu(v);
}

/// Turns a GPU error into the reason for the CPU rerun, logging it once per kind of error (an
/// out-of-memory at every call of a loop would otherwise flood the log).
///
/// # Panics
/// Under [`Backend::Gpu`], which never falls back.
pub(crate) fn gpu_failed(e: zkntt_gpu::Error) -> CpuReason {
    if current_backend() == Backend::Gpu {
        panic!("zkntt-ark: Backend::Gpu requested and the GPU failed: {e}");
    }
    let kind = e.kind();
    log_once(
        &failure_key(&kind),
        format_args!("GPU transform failed, redone on the CPU (logged once per kind): {e}"),
    );
    CpuReason::GpuFailed {
        kind,
        message: e.to_string(),
    }
}

fn failure_key(kind: &str) -> String {
    format!("gpu-failed:{kind}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use zkntt_gpu::Error;

    #[test]
    fn failures_of_one_kind_share_a_key() {
        let a = Error::OutOfMemory { needed: 1, free: 0 };
        let b = Error::OutOfMemory {
            needed: 1 << 30,
            free: 5,
        };
        assert_eq!(failure_key(&a.kind()), failure_key(&b.kind()));
        assert_ne!(
            failure_key(&a.kind()),
            failure_key(&Error::NoDevice("x".into()).kind())
        );
        assert_eq!(failure_key(&a.kind()), "gpu-failed:out-of-memory");
    }

    #[test]
    fn a_gpu_failure_names_its_kind() {
        let reason = gpu_failed(Error::OutOfMemory { needed: 8, free: 0 });
        match reason {
            CpuReason::GpuFailed { kind, message } => {
                assert_eq!(kind, "out-of-memory");
                assert!(message.contains("out of device memory"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_the_field_itself_is_viewed_as_the_field() {
        assert!(KernelField::<Fr, Fr>::same().is_ok());
        assert_eq!(
            KernelField::<ark_bn254::G1Projective, Fr>::same().err(),
            Some(CpuReason::CoefficientType)
        );
        assert_eq!(
            KernelField::<ark_bls12_381::Fr, Fr>::same().err(),
            Some(CpuReason::CoefficientType)
        );
        assert_eq!(
            KernelField::<ark_bn254::Fq, ark_bn254::Fq>::same().err(),
            Some(CpuReason::FieldWithoutKernels),
            "no kernels for Fq"
        );
        let kernel = KernelField::<Fr, Fr>::same().unwrap();
        let mut v = vec![Fr::from(3u64), Fr::from(4u64)];
        kernel.slice(&mut v)[1] = Fr::from(5u64);
        assert_eq!(v, [Fr::from(3u64), Fr::from(5u64)]);
        assert_eq!(kernel.coefficient(Fr::from(0u64)), Fr::from(0u64));
    }

    #[test]
    fn the_run_time_field_names_the_gpu_field_type() {
        let bn = KernelField::<Fr, Fr>::same().unwrap();
        assert_eq!(bn.field, FieldId::Bn254Fr);
        let viewed = bn.as_gpu_field::<Fr>().expect("Fr is a GpuField");
        assert_eq!(viewed.field, <Fr as GpuField>::ID);
        assert!(bn.as_gpu_field::<ark_bls12_381::Fr>().is_none());
        let bls = KernelField::<ark_bls12_381::Fr, ark_bls12_381::Fr>::same().unwrap();
        assert_eq!(bls.field, FieldId::Bls12_381Fr);
        assert!(bls.as_gpu_field::<ark_bls12_381::Fr>().is_some());
        assert!(bls.as_gpu_field::<Fr>().is_none());
        let mut v = vec![Fr::from(3u64)];
        viewed.slice(&mut v)[0] = Fr::from(9u64);
        assert_eq!(v, [Fr::from(9u64)]);
    }
}
