//! `GpuQap` against ark-groth16's `LibsnarkReduction`, bit for bit: witness maps of random
//! constraint systems and of the (x+k)^5 chain, whole proofs (byte-identical with the same RNG,
//! verified, a wrong public input rejected), ark's errors on bad input; BN254 and BLS12-381.
//!
//! The tests without `gpu` in their name run everywhere (CI: `GpuQap` on its CPU fallback; with a
//! GPU, the sizes from `2^gpu_min_log_size` up go to it). The `gpu_` tests force the GPU path
//! (`Backend::Gpu`) at 2^10..2^20 (`ZKNTT_ARK_MAX_LOG=k` lowers the top); they print one SKIP line
//! without a GPU and fail instead under `ZKNTT_REQUIRE_GPU=1`.
#![cfg(feature = "groth16")]

use ark_ec::pairing::Pairing;
use ark_ff::{PrimeField, UniformRand};
use ark_groth16::Groth16;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain, Radix2EvaluationDomain};
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, Matrix, R1CS_PREDICATE_LABEL, SynthesisError,
};
use ark_serialize::CanonicalSerialize;
use ark_snark::{CircuitSpecificSetupSNARK, SNARK};
use ark_std::rand::{Rng, SeedableRng, rngs::StdRng};
use std::sync::{Mutex, MutexGuard};
use zkntt_ark::circuits::Pow5Chain;
use zkntt_ark::{Backend, CpuReason, GpuDomain, GpuQap, Placement, last_placement, with_backend};

type Bn254Fr = ark_bn254::Fr;
type Bls12_381Fr = ark_bls12_381::Fr;

/// The GPU tests change the shared pipeline's memory budget: one at a time.
static GPU: Mutex<()> = Mutex::new(());

fn gpu_exclusive(test: &str) -> Option<MutexGuard<'static, ()>> {
    zkntt_gpu::testing::gpu_or_skip(test)?;
    Some(GPU.lock().unwrap_or_else(|p| p.into_inner()))
}

/// The witness map's input: sparse rows of one to three terms (coefficients one or random, as
/// ark's `evaluate_constraint` treats one apart), over `1 + inputs + witnesses` variables with
/// random values. Not a satisfied system: the witness map is defined for any.
struct RandomR1cs<F: PrimeField> {
    matrices: Vec<Matrix<F>>,
    num_inputs: usize,
    num_constraints: usize,
    assignment: Vec<F>,
}

impl<F: PrimeField> RandomR1cs<F> {
    fn new(rng: &mut StdRng, num_constraints: usize, num_inputs: usize) -> Self {
        let num_variables = num_inputs + num_constraints / 2 + 3;
        let mut assignment: Vec<F> = (0..num_variables).map(|_| F::rand(rng)).collect();
        assignment[0] = F::one();
        let matrix = |rng: &mut StdRng| -> Matrix<F> {
            (0..num_constraints)
                .map(|_| {
                    (0..rng.gen_range(1..=3))
                        .map(|_| {
                            let coeff = if rng.gen_bool(0.5) {
                                F::one()
                            } else {
                                F::rand(rng)
                            };
                            (coeff, rng.gen_range(0..num_variables))
                        })
                        .collect()
                })
                .collect()
        };
        let matrices = vec![matrix(rng), matrix(rng), matrix(rng)];
        Self {
            matrices,
            num_inputs,
            num_constraints,
            assignment,
        }
    }

    fn witness_map<Q: R1CSToQAP, D: EvaluationDomain<F>>(&self) -> Result<Vec<F>, SynthesisError> {
        Q::witness_map_from_matrices::<F, D>(
            &self.matrices,
            self.num_inputs,
            self.num_constraints,
            &self.assignment,
        )
    }
}

fn assert_same<F: PrimeField>(got: &[F], want: &[F], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
        panic!(
            "{what}: element {i} of {} differs: {} vs ark's {}",
            got.len(),
            got[i],
            want[i]
        );
    }
}

/// Witness maps of random systems of several sizes (domains 2^3..2^12, exact and padded), with
/// ark's default domain type, the radix-2 one and `GpuDomain`.
fn witness_maps_match<F: PrimeField>(label: &str) {
    let mut rng = StdRng::seed_from_u64(19);
    for (num_constraints, num_inputs) in [(5, 1), (6, 2), (100, 3), (1022, 2), (1500, 7), (4090, 6)]
    {
        let r = RandomR1cs::<F>::new(&mut rng, num_constraints, num_inputs);
        let what = format!("{label}: {num_constraints} constraints, {num_inputs} inputs");
        let want = r
            .witness_map::<LibsnarkReduction, GeneralEvaluationDomain<F>>()
            .unwrap();
        let got = r
            .witness_map::<GpuQap, GeneralEvaluationDomain<F>>()
            .unwrap();
        assert_same(&got, &want, &what);
        let got = r
            .witness_map::<GpuQap, Radix2EvaluationDomain<F>>()
            .unwrap();
        assert_same(&got, &want, &format!("{what}, Radix2EvaluationDomain"));
        let got = r.witness_map::<GpuQap, GpuDomain<F>>().unwrap();
        assert_same(&got, &want, &format!("{what}, GpuDomain"));
    }
}

#[test]
fn witness_map_equals_libsnark_reduction() {
    witness_maps_match::<Bn254Fr>("bn254");
    witness_maps_match::<Bls12_381Fr>("bls12-381");
}

/// Setup once; then proofs through `LibsnarkReduction` and `GpuQap` from one RNG state:
/// byte-identical, verified, and rejected with a wrong public input.
fn proofs_match<E: Pairing>(label: &str, log_n: u32) {
    let mut rng = StdRng::seed_from_u64(0x6216);
    let steps = Pow5Chain::<E::ScalarField>::steps_for_domain(log_n);
    let (pk, vk) = Groth16::<E, GpuQap>::setup(Pow5Chain::shape(steps), &mut rng).unwrap();
    let x = E::ScalarField::rand(&mut rng);
    let circuit = Pow5Chain::new(steps, x);
    let y = circuit.y.unwrap();
    let seed: u64 = rng.r#gen();
    let ark = Groth16::<E>::prove(&pk, circuit, &mut StdRng::seed_from_u64(seed)).unwrap();
    let ours = Groth16::<E, GpuQap>::prove(&pk, circuit, &mut StdRng::seed_from_u64(seed)).unwrap();
    let bytes = |p: &ark_groth16::Proof<E>| {
        let mut v = Vec::new();
        p.serialize_compressed(&mut v).unwrap();
        v
    };
    assert_eq!(bytes(&ours), bytes(&ark), "{label} 2^{log_n}: proof bytes");
    let pvk = Groth16::<E, GpuQap>::process_vk(&vk).unwrap();
    assert!(
        Groth16::<E, GpuQap>::verify_with_processed_vk(&pvk, &[y], &ours).unwrap(),
        "{label} 2^{log_n}: the proof does not verify"
    );
    let wrong = y + E::ScalarField::from(1u64);
    assert!(
        !Groth16::<E, GpuQap>::verify_with_processed_vk(&pvk, &[wrong], &ours).unwrap(),
        "{label} 2^{log_n}: a wrong public input is accepted"
    );
}

#[test]
fn proves_and_verifies_bn254() {
    proofs_match::<ark_bn254::Bn254>("bn254", 10);
}

#[test]
fn proves_and_verifies_bls12_381() {
    proofs_match::<ark_bls12_381::Bls12_381>("bls12-381", 10);
}

/// An unsatisfied circuit (a wrong public output): the same witness map as ark's, the same proof
/// from the same randomness, and that proof does not verify. (`Groth16::prove` itself stops
/// there with ark's `debug_assert!(cs.is_satisfied())` in debug builds, before any reduction.)
fn unsatisfied_matches<E: Pairing>(label: &str) {
    let mut rng = StdRng::seed_from_u64(0xbad);
    let steps = Pow5Chain::<E::ScalarField>::steps_for_domain(10);
    let (pk, vk) = Groth16::<E>::setup(Pow5Chain::shape(steps), &mut rng).unwrap();
    let x = E::ScalarField::rand(&mut rng);
    let wrong_y = Pow5Chain::output(steps, x) + E::ScalarField::from(1u64);
    let cs = ConstraintSystem::new_ref();
    Pow5Chain {
        y: Some(wrong_y),
        ..Pow5Chain::new(steps, x)
    }
    .generate_constraints(cs.clone())
    .unwrap();
    cs.finalize();
    assert!(!cs.is_satisfied().unwrap());
    let matrices = &cs.to_matrices().unwrap()[R1CS_PREDICATE_LABEL];
    let (num_inputs, num_constraints) = (cs.num_instance_variables(), cs.num_constraints());
    let assignment = [
        cs.borrow().unwrap().instance_assignment().unwrap(),
        cs.borrow().unwrap().witness_assignment().unwrap(),
    ]
    .concat();
    type D<F> = GeneralEvaluationDomain<F>;
    let want = LibsnarkReduction::witness_map::<E::ScalarField, D<E::ScalarField>>(cs.clone());
    let got = GpuQap::witness_map::<E::ScalarField, D<E::ScalarField>>(cs.clone());
    assert_same(
        &got.unwrap(),
        &want.unwrap(),
        &format!("{label}: unsatisfied"),
    );
    let (r, s) = (
        E::ScalarField::rand(&mut rng),
        E::ScalarField::rand(&mut rng),
    );
    let prove = |qap_is_ours: bool| {
        let f = if qap_is_ours {
            Groth16::<E, GpuQap>::create_proof_with_reduction_and_matrices
        } else {
            Groth16::<E>::create_proof_with_reduction_and_matrices
        };
        f(
            &pk,
            r,
            s,
            matrices,
            num_inputs,
            num_constraints,
            &assignment,
        )
        .unwrap()
    };
    let (ours, ark) = (prove(true), prove(false));
    assert_eq!(ours, ark, "{label}: unsatisfied proofs");
    let pvk = Groth16::<E>::process_vk(&vk).unwrap();
    for y in [wrong_y, Pow5Chain::output(steps, x)] {
        assert!(!Groth16::<E>::verify_with_processed_vk(&pvk, &[y], &ours).unwrap());
    }
}

#[test]
fn unsatisfied_circuit_gives_arks_witness_map_and_no_valid_proof() {
    unsatisfied_matches::<ark_bn254::Bn254>("bn254");
    unsatisfied_matches::<ark_bls12_381::Bls12_381>("bls12-381");
}

/// ark's errors, not others: a domain larger than the field has (ark-groth16's
/// `GeneralEvaluationDomain` goes past the two-adicity with a mixed-radix domain, up to
/// `2^TWO_ADICITY * SMALL_SUBGROUP_BASE^SMALL_SUBGROUP_BASE_ADICITY` points; the radix-2 domain
/// stops at `2^TWO_ADICITY`), and a prover without its witness.
#[test]
fn bad_input_gives_arks_error() {
    fn too_large<F: PrimeField, D: EvaluationDomain<F>>(max: usize) {
        let empty: Vec<Matrix<F>> = vec![vec![], vec![], vec![]];
        let call = |ours: bool| {
            let f = if ours {
                GpuQap::witness_map_from_matrices::<F, D>
            } else {
                LibsnarkReduction::witness_map_from_matrices::<F, D>
            };
            // One input: the domain needs max + 1 points.
            f(&empty, 1, max, &[F::one()])
        };
        assert_eq!(call(false), Err(SynthesisError::PolynomialDegreeTooLarge));
        assert_eq!(call(true), Err(SynthesisError::PolynomialDegreeTooLarge));
    }
    fn both<F: PrimeField>() {
        let radix2 = 1usize << F::TWO_ADICITY;
        let small = F::SMALL_SUBGROUP_BASE.map_or(1, |b| {
            (b as usize).pow(F::SMALL_SUBGROUP_BASE_ADICITY.unwrap_or(0))
        });
        assert!(Radix2EvaluationDomain::<F>::new(radix2).is_some());
        too_large::<F, Radix2EvaluationDomain<F>>(radix2);
        assert!(GeneralEvaluationDomain::<F>::new(radix2 * small).is_some());
        too_large::<F, GeneralEvaluationDomain<F>>(radix2 * small);
    }
    both::<Bn254Fr>();
    both::<Bls12_381Fr>();

    type E = ark_bn254::Bn254;
    let mut rng = StdRng::seed_from_u64(3);
    let (pk, _) = Groth16::<E, GpuQap>::setup(Pow5Chain::shape(4), &mut rng).unwrap();
    let no_witness = Pow5Chain::<Bn254Fr>::shape(4);
    let ark = Groth16::<E>::prove(&pk, no_witness, &mut rng).map(|_| ());
    let ours = Groth16::<E, GpuQap>::prove(&pk, no_witness, &mut rng).map(|_| ());
    assert_eq!(ark, Err(SynthesisError::AssignmentMissing));
    assert_eq!(ours, ark);
}

/// Without a GPU (CI) the witness map says why it ran on the CPU.
#[test]
fn without_a_gpu_the_witness_map_says_why() {
    if zkntt_ark::gpu_pipeline().is_some() {
        eprintln!("SKIP without_a_gpu_the_witness_map_says_why: a GPU is present");
        return;
    }
    let r = RandomR1cs::<Bn254Fr>::new(&mut StdRng::seed_from_u64(1), 2000, 2);
    r.witness_map::<GpuQap, GeneralEvaluationDomain<Bn254Fr>>()
        .unwrap();
    assert!(
        matches!(
            last_placement(),
            Some(Placement::Cpu(
                CpuReason::NoGpu { .. } | CpuReason::Forced | CpuReason::BelowThreshold
            ))
        ),
        "{:?}",
        last_placement()
    );
}

fn max_log() -> u32 {
    std::env::var("ZKNTT_ARK_MAX_LOG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

/// The GPU path at 2^10..2^20, both fields, exact and padded domains: ark's vector bit for bit,
/// and the placement says the GPU ran it.
#[test]
fn gpu_witness_map_is_bit_exact() {
    let Some(_gpu) = gpu_exclusive("gpu_witness_map_is_bit_exact") else {
        return;
    };
    fn check<F: PrimeField>(label: &str) {
        let mut rng = StdRng::seed_from_u64(0x9e0);
        for log_n in (10..=max_log()).step_by(2) {
            let n = 1usize << log_n;
            for (num_constraints, num_inputs) in [(n - 3, 3), (n / 2 + 17, 1)] {
                let r = RandomR1cs::<F>::new(&mut rng, num_constraints, num_inputs);
                let want = r
                    .witness_map::<LibsnarkReduction, GeneralEvaluationDomain<F>>()
                    .unwrap();
                let got = with_backend(Backend::Gpu, || {
                    r.witness_map::<GpuQap, GeneralEvaluationDomain<F>>()
                })
                .unwrap();
                assert_eq!(last_placement(), Some(Placement::Gpu), "{label} 2^{log_n}");
                let what = format!("{label} GPU: {num_constraints} constraints, 2^{log_n}");
                assert_same(&got, &want, &what);
            }
            println!("{label}: GpuQap witness map at 2^{log_n} equals LibsnarkReduction's");
        }
    }
    check::<Bn254Fr>("bn254");
    check::<Bls12_381Fr>("bls12-381");
}

/// Proofs with the witness map on the GPU: byte-identical to ark's, verified, a wrong input
/// rejected.
#[test]
fn gpu_proofs_verify() {
    let Some(_gpu) = gpu_exclusive("gpu_proofs_verify") else {
        return;
    };
    with_backend(Backend::Gpu, || {
        proofs_match::<ark_bn254::Bn254>("bn254 GPU", 14);
        assert_eq!(last_placement(), Some(Placement::Gpu));
        proofs_match::<ark_bls12_381::Bls12_381>("bls12-381 GPU", 14);
        assert_eq!(last_placement(), Some(Placement::Gpu));
    });
}

/// Out of device memory: the witness map completes on ark's CPU path with ark's result.
#[test]
fn gpu_out_of_memory_completes_on_the_cpu() {
    let Some(_gpu) = gpu_exclusive("gpu_out_of_memory_completes_on_the_cpu") else {
        return;
    };
    let pipeline = zkntt_ark::gpu_pipeline().expect("a GPU is present");
    struct LiftBudget<'a>(&'a zkntt_gpu::Gpu);
    impl Drop for LiftBudget<'_> {
        fn drop(&mut self) {
            self.0.set_memory_budget(None);
        }
    }
    pipeline.gpu().set_memory_budget(Some(1024));
    let _lift = LiftBudget(pipeline.gpu());
    let r = RandomR1cs::<Bls12_381Fr>::new(&mut StdRng::seed_from_u64(5), 1 << 14, 4);
    let got = r
        .witness_map::<GpuQap, GeneralEvaluationDomain<Bls12_381Fr>>()
        .unwrap();
    match last_placement() {
        Some(Placement::Cpu(CpuReason::GpuFailed { kind, message })) => {
            assert_eq!(kind, "out-of-memory", "{message}")
        }
        other => panic!("expected an out-of-memory fallback, got {other:?}"),
    }
    let want = r
        .witness_map::<LibsnarkReduction, GeneralEvaluationDomain<Bls12_381Fr>>()
        .unwrap();
    assert_same(&got, &want, "after out of memory");
}
