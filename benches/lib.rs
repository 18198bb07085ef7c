//! Shared helpers of the zkntt benches.

use ark_ff::UniformRand;
use ark_std::rand::{SeedableRng, rngs::StdRng};

/// `n` random elements from a fixed seed (never zeros: they hide unwritten outputs and can run
/// faster than real data).
pub fn random_elements<F: UniformRand>(n: usize, seed: u64) -> Vec<F> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| F::rand(&mut rng)).collect()
}
