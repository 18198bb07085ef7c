//! [`GpuQap`]: ark-groth16's R1CS-to-QAP reduction with the witness map on the GPU.
//!
//! The witness map is `LibsnarkReduction`'s: the constraint matrices evaluated against the
//! assignment (a, b, c, on the host, as ark does), three inverse transforms on the subgroup,
//! three forward transforms on the coset `F::GENERATOR * H`, `(a * b - c) / Z_H(g)` point by point,
//! and one inverse transform from the coset. Here the vectors go to the device once each, every
//! step after runs there on the engine's stream (each inverse and its coset forward as one coset
//! LDE, `NttEngine::coset_lde_in_place`), and h comes back once. Field arithmetic is exact,
//! so the result is ark's bit for bit, and so are the proofs.

use crate::backend::{self, Backend, CpuReason, Placement};
use crate::transform::gpu_failed;
use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP, evaluate_constraint};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_relations::gr1cs::{ConstraintSystemRef, Matrix, Result as R1CSResult, SynthesisError};
use rayon::prelude::*;
use std::any::{Any, TypeId};
use zkntt_core::{FieldId, GpuField, NttConfig};
use zkntt_gpu::field_ops::{self, BinaryOp};
use zkntt_gpu::{DeviceVec, HostPipeline};

/// ark-groth16's [`R1CSToQAP`] with the witness map on the GPU: `Groth16::<Bn254, GpuQap>` in
/// place of `Groth16::<Bn254>` (whose reduction is `LibsnarkReduction`), nothing else changed.
///
/// ```no_run
/// use ark_bn254::Bn254;
/// use ark_groth16::Groth16;
/// use zkntt_ark::GpuQap;
///
/// type Prover = Groth16<Bn254, GpuQap>; // prove, verify and setup as `Groth16<Bn254>`
/// ```
///
/// - `witness_map_from_matrices` (and `witness_map`, which calls it) gives `LibsnarkReduction`'s
///   vector bit for bit. For BN254 Fr and BLS12-381 Fr on a radix-2 domain of at least
///   `2^`[`gpu_min_log_size`](crate::gpu_min_log_size) points it runs on the GPU of the process-wide
///   context ([`install`](crate::install), `ZKNTT_DEVICE`), under the same rules as `GpuDomain`
///   ([`with_backend`](crate::with_backend), `ZKNTT_FORCE_CPU`); everywhere else, and after any
///   GPU error, it is `LibsnarkReduction`'s own code. [`last_placement`](crate::last_placement)
///   says where the last one on this thread ran.
/// - `instance_map_with_evaluation` and `h_query_scalars` (the setup's) are `LibsnarkReduction`'s.
/// - Errors are ark's: a domain above the field's two-adicity is
///   `SynthesisError::PolynomialDegreeTooLarge` before any work; input that ark's code would reject
///   another way goes to ark's code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct GpuQap;

impl R1CSToQAP for GpuQap {
    #[allow(clippy::type_complexity)]
    fn instance_map_with_evaluation<F: PrimeField, D: EvaluationDomain<F>>(
        cs: ConstraintSystemRef<F>,
        t: &F,
    ) -> R1CSResult<(Vec<F>, Vec<F>, Vec<F>, F, usize, usize)> {
        LibsnarkReduction::instance_map_with_evaluation::<F, D>(cs, t)
    }

    fn witness_map_from_matrices<F: PrimeField, D: EvaluationDomain<F>>(
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> R1CSResult<Vec<F>> {
        let cpu = || {
            LibsnarkReduction::witness_map_from_matrices::<F, D>(
                matrices,
                num_inputs,
                num_constraints,
                full_assignment,
            )
        };
        // ark's code throughout (a `GpuDomain` D would otherwise try the GPU again inside it).
        // The reason is recorded again after it, over the domain's own calls' records, and
        // before it, for input on which ark's code panics.
        let on_cpu = |reason: CpuReason| {
            backend::record(Placement::Cpu(reason.clone()));
            let h = backend::with_backend(Backend::Cpu, cpu);
            backend::record(Placement::Cpu(reason));
            h
        };
        let domain =
            D::new(num_constraints + num_inputs).ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        let witness = Witness {
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
        };
        let field = match gpu_field::<F, D>(&domain, &witness) {
            Ok(field) => field,
            Err(reason) => return on_cpu(reason),
        };
        let log_n = domain.size().trailing_zeros();
        let pipeline = match backend::choose(log_n) {
            Ok(pipeline) => pipeline,
            Err(reason) => return on_cpu(reason),
        };
        // 1 / Z_H(g) on the coset, as ark computes it (g is outside H: never zero).
        let Some(z_inv) = domain.evaluate_vanishing_polynomial(F::GENERATOR).inverse() else {
            return on_cpu(CpuReason::InconsistentDomain);
        };
        let n = domain.size();
        // The run-time field picks the compile-time one: zkntt-gpu is called with a GpuField type.
        let ran = match field {
            FieldId::Bn254Fr => on_gpu::<F, ark_bn254::Fr>(pipeline, &witness, n, z_inv),
            FieldId::Bls12_381Fr => on_gpu::<F, ark_bls12_381::Fr>(pipeline, &witness, n, z_inv),
        };
        match ran {
            Ok(h) => {
                backend::record(Placement::Gpu);
                Ok(h)
            }
            // Nothing of the caller's was touched: ark's code starts from the same input.
            Err(e) => on_cpu(gpu_failed(e)),
        }
    }

    fn h_query_scalars<F: PrimeField, D: EvaluationDomain<F>>(
        max_power: usize,
        t: F,
        zt: F,
        delta_inverse: F,
    ) -> R1CSResult<Vec<F>> {
        LibsnarkReduction::h_query_scalars::<F, D>(max_power, t, zt, delta_inverse)
    }
}

/// The witness map's input, as ark-groth16 passes it.
struct Witness<'a, F: PrimeField> {
    matrices: &'a [Matrix<F>],
    num_inputs: usize,
    num_constraints: usize,
    full_assignment: &'a [F],
}

impl<F: PrimeField> Witness<'_, F> {
    /// Whether ark's code runs through this input without an indexing panic for want of rows or
    /// of inputs (entries that name a variable past the assignment still panic in
    /// `evaluate_constraint`, ark's function, as in ark).
    fn well_formed(&self) -> bool {
        self.matrices.len() >= 3
            && self.matrices[2].len() >= self.num_constraints
            && self.full_assignment.len() >= self.num_inputs
    }

    /// Writes matrix `m` evaluated against the assignment into `out` (every element: the rows,
    /// then zeros to the end; the inputs after the constraints in a (`m == 0`)). ark zips a's
    /// and b's rows with each other, so a matrix with fewer rows than the constraints cuts both;
    /// c is indexed to `num_constraints`.
    fn evaluate_into(&self, m: usize, out: &mut [F]) {
        let rows = match m {
            2 => self.num_constraints,
            _ => self
                .num_constraints
                .min(self.matrices[0].len())
                .min(self.matrices[1].len()),
        };
        let (evaluated, rest) = out.split_at_mut(rows);
        evaluated
            .par_iter_mut()
            .zip(&self.matrices[m][..rows])
            .for_each(|(v, row)| *v = evaluate_constraint(row, self.full_assignment));
        rest.par_chunks_mut(1 << 14)
            .for_each(|c| c.iter_mut().for_each(|v| *v = F::zero()));
        if m == 0 {
            let start = self.num_constraints;
            out[start..start + self.num_inputs]
                .copy_from_slice(&self.full_assignment[..self.num_inputs]);
        }
    }
}

/// The field with kernels that `F` is, when the witness map of `domain` can run on the GPU.
fn gpu_field<F: PrimeField, D: EvaluationDomain<F>>(
    domain: &D,
    witness: &Witness<'_, F>,
) -> Result<FieldId, CpuReason> {
    let field = FieldId::of::<F>().ok_or(CpuReason::FieldWithoutKernels)?;
    // The engine's transforms are Radix2EvaluationDomain's: D must have its points (ark's
    // GeneralEvaluationDomain is that domain for every size these fields have).
    let radix2 = Radix2EvaluationDomain::<F>::new(domain.size());
    let same_points = radix2
        .is_some_and(|r| r.size() == domain.size() && r.group_gen() == domain.group_gen())
        && domain.coset_offset().is_one();
    if !same_points {
        return Err(CpuReason::NotRadix2Domain);
    }
    if !witness.well_formed() {
        return Err(CpuReason::MalformedInput);
    }
    Ok(field)
}

/// `v` as a vector of `B`, which `A` is (checked: an `Internal` error otherwise). No copy.
fn same_vec<A: 'static, B: 'static>(v: Vec<A>) -> zkntt_gpu::Result<Vec<B>> {
    (Box::new(v) as Box<dyn Any>)
        .downcast::<Vec<B>>()
        .map(|v| *v)
        .map_err(|_| dispatch_error::<A, B>())
}

fn dispatch_error<F, K>() -> zkntt_gpu::Error {
    zkntt_gpu::Error::Internal(format!(
        "zkntt-ark: the field {} was dispatched as {}",
        std::any::type_name::<F>(),
        std::any::type_name::<K>()
    ))
}

/// The witness map of `witness` on a domain of `n` points, on `pipeline`'s GPU with `F` named as
/// the [`GpuField`] type `K` it is. One stream throughout: each vector is evaluated on the host
/// straight into pinned memory while the GPU uploads and transforms the one before; the host
/// waits once, for h.
fn on_gpu<F: PrimeField, K: GpuField>(
    pipeline: &HostPipeline,
    witness: &Witness<'_, F>,
    n: usize,
    z_inv: F,
) -> zkntt_gpu::Result<Vec<F>> {
    if TypeId::of::<F>() != TypeId::of::<K>() {
        return Err(dispatch_error::<F, K>());
    }
    let scalar = |x: F| {
        (&x as &dyn Any)
            .downcast_ref::<K>()
            .copied()
            .ok_or_else(dispatch_error::<F, K>)
    };
    let (g, z_inv) = (scalar(F::GENERATOR)?, scalar(z_inv)?);
    let engine = pipeline.engine();
    let gpu = engine.gpu();
    let coset = NttConfig::forward().with_coset(g);
    let to_coset = |m: usize| -> zkntt_gpu::Result<DeviceVec<K>> {
        let mut d = pipeline.upload_with::<K>(n, |out| {
            // SAFETY: K is F (checked above), so the slice is the same memory of the same type.
            let out = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<F>(), n) };
            witness.evaluate_into(m, out)
        })?;
        // The inverse transform and the coset forward one, fused where they meet.
        engine.coset_lde_in_place(&mut d, &coset)?;
        Ok(d)
    };
    let mut ab = to_coset(0)?;
    let b = to_coset(1)?;
    field_ops::binary_in_place(gpu, BinaryOp::Mul, &mut ab, &b)?;
    drop(b); // freed in stream order
    let c = to_coset(2)?;
    field_ops::binary_in_place(gpu, BinaryOp::Sub, &mut ab, &c)?;
    drop(c);
    field_ops::scale_in_place(gpu, &mut ab, z_inv)?;
    engine.ntt_in_place(&mut ab, &NttConfig::inverse().with_coset(g))?;
    same_vec(pipeline.download(&ab)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::FftField;
    use ark_poly::GeneralEvaluationDomain;

    /// `evaluate_into` on a buffer of junk, as pinned memory is when reused: every element must
    /// be written.
    fn evaluate(w: &Witness<'_, Fr>, m: usize, n: usize) -> Vec<Fr> {
        let mut v = vec![Fr::from(0xdead_u64); n];
        w.evaluate_into(m, &mut v);
        v
    }

    fn identity_rows(n: usize, var: usize) -> Matrix<Fr> {
        (0..n).map(|_| vec![(Fr::from(1u64), var)]).collect()
    }

    #[test]
    fn only_radix2_domains_of_fields_with_kernels_go_to_the_gpu() {
        let m = vec![
            identity_rows(4, 1),
            identity_rows(4, 1),
            identity_rows(4, 1),
        ];
        let assignment = [Fr::from(1u64), Fr::from(3u64)];
        let w = Witness {
            matrices: &m,
            num_inputs: 1,
            num_constraints: 4,
            full_assignment: &assignment,
        };
        let d = GeneralEvaluationDomain::<Fr>::new(5).unwrap();
        assert_eq!(gpu_field(&d, &w), Ok(FieldId::Bn254Fr));
        let r = Radix2EvaluationDomain::<Fr>::new(5).unwrap();
        assert_eq!(gpu_field(&r, &w), Ok(FieldId::Bn254Fr));
        let shifted = r.get_coset(Fr::GENERATOR).unwrap();
        assert_eq!(gpu_field(&shifted, &w), Err(CpuReason::NotRadix2Domain));
        let short = Witness {
            matrices: &m[..2],
            ..w
        };
        assert_eq!(gpu_field(&d, &short), Err(CpuReason::MalformedInput));
        let few_rows = Witness {
            num_constraints: 5,
            ..w
        };
        assert_eq!(gpu_field(&d, &few_rows), Err(CpuReason::MalformedInput));
    }

    #[test]
    fn evaluation_pads_and_appends_the_inputs_to_a() {
        let m = vec![
            identity_rows(3, 1),
            identity_rows(2, 0),
            identity_rows(3, 1),
        ];
        let assignment = [Fr::from(1u64), Fr::from(7u64)];
        let w = Witness {
            matrices: &m,
            num_inputs: 2,
            num_constraints: 3,
            full_assignment: &assignment,
        };
        let (one, seven, zero) = (Fr::from(1u64), Fr::from(7u64), Fr::from(0u64));
        // b's shorter matrix cuts a's rows too, as ark's zip does.
        assert_eq!(
            evaluate(&w, 0, 8),
            [seven, seven, zero, one, seven, zero, zero, zero]
        );
        assert_eq!(
            evaluate(&w, 1, 8),
            [one, one, zero, zero, zero, zero, zero, zero]
        );
        assert_eq!(
            evaluate(&w, 2, 8),
            [seven, seven, seven, zero, zero, zero, zero, zero]
        );
    }
}
