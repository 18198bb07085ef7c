//! Shared by the integration tests: random inputs and ark-poly's transforms of them.

use ark_ff::{FftField, Field};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::Rng;
use zkntt_core::NttConfig;

pub fn random_vec<F: Field>(rng: &mut impl Rng, n: usize) -> Vec<F> {
    (0..n).map(|_| F::rand(rng)).collect()
}

/// One case: (name, configuration, input, ark-poly's output).
pub type ArkPolyCase<F> = (&'static str, NttConfig<F>, Vec<F>, Vec<F>);

/// A random input of 2^log_n and the four cases ark-poly defines on it: (name, configuration,
/// input, ark-poly's output). The coset offset is the generator at even sizes and random at odd
/// ones; the inverse cases start from ark-poly's forward outputs, so theirs is `coeffs` again.
pub struct ArkPolyCases<F> {
    pub coeffs: Vec<F>,
    pub cases: Vec<ArkPolyCase<F>>,
}

pub fn ark_poly_cases<F: FftField>(rng: &mut impl Rng, log_n: u32) -> ArkPolyCases<F> {
    let n = 1usize << log_n;
    let coeffs: Vec<F> = random_vec(rng, n);
    let offset = if log_n % 2 == 0 {
        F::GENERATOR
    } else {
        F::rand(rng)
    };
    let domain = Radix2EvaluationDomain::<F>::new(n).unwrap();
    let coset = domain.get_coset(offset).unwrap();
    let evals = domain.fft(&coeffs);
    let coset_evals = coset.fft(&coeffs);
    let cases = vec![
        ("fft", NttConfig::forward(), coeffs.clone(), evals.clone()),
        (
            "ifft",
            NttConfig::inverse(),
            evals.clone(),
            domain.ifft(&evals),
        ),
        (
            "coset fft",
            NttConfig::forward().with_coset(offset),
            coeffs.clone(),
            coset_evals.clone(),
        ),
        (
            "coset ifft",
            NttConfig::inverse().with_coset(offset),
            coset_evals.clone(),
            coset.ifft(&coset_evals),
        ),
    ];
    ArkPolyCases { coeffs, cases }
}
