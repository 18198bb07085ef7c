//! Circuits of a chosen size, for testing and measuring Groth16 provers (`GpuQap`'s tests,
//! `zkntt prove`): the witness map's cost depends only on the domain size, so each circuit is
//! sized by the domain it fills.

use ark_ff::PrimeField;
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystemRef, Result as R1CSResult, SynthesisError, Variable,
};
use ark_relations::lc;

/// The chain `s_0 = x`, `s_{i+1} = (s_i + k_i)^5` with `k_i = i + 1`, and the public output
/// `y = s_steps`: three constraints a step (`t^2`, `t^4`, `t^4 * t` with `t = s + k`) and one
/// binding the last state to `y`. `x` is the witness; `y` the one public input.
///
/// Without `x` (setup) every value is missing; with `x` and the wrong `y` the circuit is
/// unsatisfied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pow5Chain<F> {
    pub steps: usize,
    pub x: Option<F>,
    pub y: Option<F>,
}

impl<F: PrimeField> Pow5Chain<F> {
    /// Constraints per step.
    pub const CONSTRAINTS_PER_STEP: usize = 3;
    /// Public inputs counted in the witness map's domain: the constant one and `y`.
    const INSTANCE_VARIABLES: usize = 2;

    /// The circuit for `steps` steps from `x`, with its correct output.
    pub fn new(steps: usize, x: F) -> Self {
        Self {
            steps,
            x: Some(x),
            y: Some(Self::output(steps, x)),
        }
    }

    /// The circuit's shape only, for setup.
    pub fn shape(steps: usize) -> Self {
        Self {
            steps,
            x: None,
            y: None,
        }
    }

    /// The most steps whose witness map fits a domain of `2^log_n` points (constraints plus
    /// public inputs at most `2^log_n`); zero when not even one fits.
    pub fn steps_for_domain(log_n: u32) -> usize {
        let room = (1usize << log_n).saturating_sub(1 + Self::INSTANCE_VARIABLES);
        room / Self::CONSTRAINTS_PER_STEP
    }

    /// The number of constraints of a chain of `steps` steps.
    pub fn num_constraints(steps: usize) -> usize {
        steps * Self::CONSTRAINTS_PER_STEP + 1
    }

    /// `s_steps` from `s_0 = x`, computed directly.
    pub fn output(steps: usize, x: F) -> F {
        (0..steps).fold(x, |s, i| pow5(s + round_constant::<F>(i)))
    }
}

fn round_constant<F: PrimeField>(i: usize) -> F {
    F::from(i as u64 + 1)
}

fn pow5<F: PrimeField>(t: F) -> F {
    t.square().square() * t
}

impl<F: PrimeField> ConstraintSynthesizer<F> for Pow5Chain<F> {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> R1CSResult<()> {
        let missing = || SynthesisError::AssignmentMissing;
        let y = cs.new_input_variable(|| self.y.ok_or_else(missing))?;
        let mut s_val = self.x;
        let mut s = cs.new_witness_variable(|| s_val.ok_or_else(missing))?;
        for i in 0..self.steps {
            let k = round_constant::<F>(i);
            let t_val = s_val.map(|s| s + k);
            let t2_val = t_val.map(|t| t.square());
            let t4_val = t2_val.map(|t2| t2.square());
            let next_val = t4_val.zip(t_val).map(|(t4, t)| t4 * t);
            let t2 = cs.new_witness_variable(|| t2_val.ok_or_else(missing))?;
            let t4 = cs.new_witness_variable(|| t4_val.ok_or_else(missing))?;
            let next = cs.new_witness_variable(|| next_val.ok_or_else(missing))?;
            let t = move || lc!() + s + (k, Variable::One);
            cs.enforce_r1cs_constraint(t, t, || lc!() + t2)?;
            cs.enforce_r1cs_constraint(|| lc!() + t2, || lc!() + t2, || lc!() + t4)?;
            cs.enforce_r1cs_constraint(|| lc!() + t4, t, || lc!() + next)?;
            (s, s_val) = (next, next_val);
        }
        cs.enforce_r1cs_constraint(|| lc!() + s, || lc!() + Variable::One, || lc!() + y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_relations::gr1cs::{ConstraintSystem, ConstraintSystemRef};

    fn synthesize(c: Pow5Chain<Fr>) -> ConstraintSystemRef<Fr> {
        let cs = ConstraintSystem::new_ref();
        c.generate_constraints(cs.clone()).unwrap();
        cs.finalize();
        cs
    }

    #[test]
    fn the_chain_has_its_size_and_is_satisfied_only_by_its_output() {
        let steps = Pow5Chain::<Fr>::steps_for_domain(10);
        assert_eq!(steps, 340);
        let x = Fr::from(3u64);
        let cs = synthesize(Pow5Chain::new(steps, x));
        assert_eq!(
            cs.num_constraints(),
            Pow5Chain::<Fr>::num_constraints(steps)
        );
        assert!(cs.num_constraints() + cs.num_instance_variables() <= 1 << 10);
        assert!(Pow5Chain::<Fr>::num_constraints(steps + 1) + 2 > 1 << 10);
        assert!(cs.is_satisfied().unwrap());
        let wrong = Pow5Chain {
            y: Some(Pow5Chain::output(steps, x) + Fr::from(1u64)),
            ..Pow5Chain::new(steps, x)
        };
        assert!(!synthesize(wrong).is_satisfied().unwrap());
        assert_eq!(
            Pow5Chain::<Fr>::output(1, x),
            Fr::from(4u64 * 4 * 4 * 4 * 4)
        );
    }
}
