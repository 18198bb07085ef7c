//! CPU reference NTTs: the definition the GPU kernels are tested against, bit-exact with
//! ark-poly's `Radix2EvaluationDomain` (same roots, same coset convention, same 1/N scaling).
//!
//! Written for clarity: every ordering and coset case is reduced to one natural-order radix-2
//! transform with explicit permutations and scalings around it.

use crate::{BatchLayout, Direction, NttConfig, Result};
use ark_ff::FftField;

/// Reverses the low `log_n` bits of `i`.
pub fn bit_reverse_index(i: usize, log_n: u32) -> usize {
    if log_n == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - log_n)
    }
}

/// Permutes `a` (length a power of two) into bit-reversed order, in place.
pub fn bit_reverse_permute<T>(a: &mut [T]) {
    let n = a.len();
    debug_assert!(n.is_power_of_two() || n == 0);
    let log_n = n.trailing_zeros();
    for i in 0..n {
        let j = bit_reverse_index(i, log_n);
        if i < j {
            a.swap(i, j);
        }
    }
}

/// The primitive n-th root of unity ark-poly uses for a domain of size n (a power of two).
/// Panics where 2^log_n is above the field's two-adicity (no such root; callers check first).
pub fn root_of_unity<F: FftField>(log_n: u32) -> F {
    assert!(
        log_n <= F::TWO_ADICITY,
        "no 2^{log_n}-th root of unity: the two-adicity is {}",
        F::TWO_ADICITY
    );
    F::get_root_of_unity(1u64 << log_n).expect("log_n checked against the two-adicity")
}

/// `[1, x, x^2, ..., x^(n-1)]`.
pub fn powers<F: FftField>(x: F, n: usize) -> Vec<F> {
    let mut out = Vec::with_capacity(n);
    let mut p = F::one();
    for _ in 0..n {
        out.push(p);
        p *= x;
    }
    out
}

/// Natural order in, natural order out: `a[k] <- sum_j a[j] * omega^(j*k)`, radix-2 decimation in
/// time after a bit-reversal permutation.
pub fn radix2_nn<F: FftField>(a: &mut [F], omega: F) {
    let n = a.len();
    if n <= 1 {
        return;
    }
    bit_reverse_permute(a);
    let twiddles = powers(omega, n / 2);
    let mut half = 1;
    while half < n {
        let step = n / (2 * half);
        for start in (0..n).step_by(2 * half) {
            for j in 0..half {
                let t = a[start + j + half] * twiddles[j * step];
                let u = a[start + j];
                a[start + j] = u + t;
                a[start + j + half] = u - t;
            }
        }
        half *= 2;
    }
}

/// One transform of `a` (length 2^log_n, which `ntt_with` has checked), as `cfg` says (its batch
/// fields are ignored), with the natural-order core transform `core`: orderings, coset scaling
/// and 1/N are applied around it.
fn ntt_one_with<F: FftField>(
    a: &mut [F],
    log_n: u32,
    cfg: &NttConfig<F>,
    core: &impl Fn(&mut [F], F),
) {
    debug_assert_eq!(a.len(), 1 << log_n);
    if cfg.ordering.input_reversed() {
        bit_reverse_permute(a);
    }
    let omega = root_of_unity::<F>(log_n);
    match cfg.direction {
        Direction::Forward => {
            if let Some(g) = cfg.coset {
                scale_by_powers(a, g);
            }
            core(a, omega);
        }
        Direction::Inverse => {
            core(a, omega.inverse().expect("root of unity is non-zero"));
            let n_inv = F::from(a.len() as u64).inverse().expect("n < p");
            a.iter_mut().for_each(|x| *x *= n_inv);
            if let Some(g) = cfg.coset {
                scale_by_powers(a, g.inverse().expect("offset checked non-zero"));
            }
        }
    }
    if cfg.ordering.output_reversed() {
        bit_reverse_permute(a);
    }
}

/// `a[j] *= x^j`.
pub fn scale_by_powers<F: FftField>(a: &mut [F], x: F) {
    let mut p = F::one();
    for v in a.iter_mut() {
        *v *= p;
        p *= x;
    }
}

/// Runs the batch of transforms `cfg` describes over `data`, in place.
///
/// Errors (length not `batch x 2^k`, size above the two-adicity, zero offset) leave `data` untouched.
pub fn ntt<F: FftField>(data: &mut [F], cfg: &NttConfig<F>) -> Result<()> {
    ntt_with(data, cfg, &radix2_nn)
}

/// [`ntt`] with the natural-order core transform `core(a, omega)` supplied, computing
/// `a[k] <- sum_j a[j] * omega^(j*k)` (the radix-2 reference and the 2-D model plug in):
/// orderings, coset scaling and 1/N are applied around `core` exactly as for the reference.
pub fn ntt_with<F: FftField>(
    data: &mut [F],
    cfg: &NttConfig<F>,
    core: &impl Fn(&mut [F], F),
) -> Result<()> {
    let log_n = cfg.log_size(data.len())?;
    for_each_transform(data, log_n, cfg, |a| ntt_one_with(a, log_n, cfg, core));
    Ok(())
}

/// Calls `f` on each transform of 2^log_n of the batch `cfg` describes (a copy of each column for
/// [`BatchLayout::Columns`], written back afterwards).
pub fn for_each_transform<F: FftField>(
    data: &mut [F],
    log_n: u32,
    cfg: &NttConfig<F>,
    mut f: impl FnMut(&mut [F]),
) {
    let n = 1usize << log_n;
    match cfg.layout {
        BatchLayout::Rows => data.chunks_exact_mut(n).for_each(f),
        BatchLayout::Columns => {
            let batch = cfg.batch;
            let mut column = vec![F::zero(); n];
            for b in 0..batch {
                for i in 0..n {
                    column[i] = data[i * batch + b];
                }
                f(&mut column);
                for i in 0..n {
                    data[i * batch + b] = column[i];
                }
            }
        }
    }
}
