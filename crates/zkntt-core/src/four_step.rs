//! CPU model of the 2-D (four-step) decomposition the GPU uses for sizes beyond one launch.
//!
//! N = P x Q with P = 2^log_p, Q = 2^(log_n - log_p). The input, natural order, is read as a
//! row-major P x Q matrix: element j = Q*j1 + j2 sits in row j1, column j2. Then
//!
//! 1. a P-size NTT down each of the Q columns (root w^Q),
//! 2. element (k1, j2) is multiplied by w^(k1*j2),
//! 3. a Q-size NTT along each of the P rows (root w^P),
//! 4. element (k1, k2) is output k1 + P*k2: the result is the transpose, a Q x P matrix.
//!
//! because w^(j*k) = w_P^(j1*k1) * w^(j2*k1) * w_Q^(j2*k2) for j = Q*j1 + j2, k = k1 + P*k2.
//! The GPU folds the transpose into its access pattern; the model writes it out so it can be
//! compared with the radix-2 reference at every split.

use crate::reference::{self, radix2_nn};
use crate::{Error, NttConfig, Result};
use ark_ff::FftField;

/// The natural-order transform `a[k] <- sum_j a[j] * omega^(j*k)` by the four-step method with
/// P = 2^log_p. `omega` must be a primitive `a.len()`-th root of unity.
pub fn four_step_nn<F: FftField>(a: &mut [F], omega: F, log_p: u32) {
    let n = a.len();
    let log_n = n.trailing_zeros();
    debug_assert!(log_p <= log_n);
    let p = 1usize << log_p;
    let q = n >> log_p;
    let omega_p = omega.pow([q as u64]);
    let omega_q = omega.pow([p as u64]);

    // 1. P-size NTTs on the columns.
    let mut column = vec![F::zero(); p];
    for j2 in 0..q {
        for j1 in 0..p {
            column[j1] = a[j1 * q + j2];
        }
        radix2_nn(&mut column, omega_p);
        // 2. The twiddle w^(k1*j2), stepped by w^j2 down the column.
        let step = omega.pow([j2 as u64]);
        let mut t = F::one();
        for (k1, v) in column.iter().enumerate() {
            a[k1 * q + j2] = *v * t;
            t *= step;
        }
    }
    // 3. Q-size NTTs on the rows.
    for row in a.chunks_exact_mut(q) {
        radix2_nn(row, omega_q);
    }
    // 4. Transpose P x Q -> Q x P.
    let c = a.to_vec();
    for k1 in 0..p {
        for k2 in 0..q {
            a[k2 * p + k1] = c[k1 * q + k2];
        }
    }
}

/// The batch of transforms `cfg` describes, each by the four-step method with P = 2^log_p.
/// Equal, bit for bit, to [`reference::ntt`] for every `log_p` in `0..=log_n`.
pub fn ntt<F: FftField>(data: &mut [F], cfg: &NttConfig<F>, log_p: u32) -> Result<()> {
    let log_n = cfg.log_size(data.len())?;
    if log_p > log_n {
        return Err(Error::BadSplit { log_n, log_p });
    }
    reference::ntt_with(data, cfg, &|a: &mut [F], omega: F| {
        four_step_nn(a, omega, log_p)
    })
}
