//! CPU twin of the GPU engine: the same plan ([`Plan`]), the same three in-place stages (column,
//! middle, column: `cuda/ntt/column.cu`, `middle.cu`) with the same index arithmetic and the same
//! twiddle exponents, so a GPU result can be compared with it stage by stage. See [`crate::plan`]
//! for the scheme; the derivation:
//!
//! With j = a*R + c (R = Q*P, c = m*P + b) and k = k1 + P*k2, k2 = k2a + Q*k2b:
//! - first column stage: `Y[k1][c] = w_N^(c*k1) * sum_a x[a*R + c] w_P^(a*k1)`, stored at k1*R + c.
//! - middle stage: `Z[k1][k2a][b] = w_N^(P*b*k2a) * sum_m Y[k1][m*P + b] w_Q^(m*k2a)`, stored at b*R + k2a*P + k1.
//! - last column stage: `X[k1 + P*k2a + P*Q*k2b] = sum_b Z[k1][k2a][b] w_P^(b*k2b)`, stored at k2b*R + k2a*P + k1,
//!   which is that very index: natural order.

use crate::plan::Plan;
use crate::reference::{self, radix2_nn};
use crate::{NttConfig, Result};
use ark_ff::FftField;

/// P-point NTTs down every column of the P x R matrix held in `a`, then `a[k1*R + c] *= w^(c*k1)`
/// when `twiddle` is set (`w` the N-th root).
pub fn column_stage<F: FftField>(a: &mut [F], log_p: u32, omega: F, twiddle: bool) {
    let r = a.len() >> log_p;
    column_stage_range(a, log_p, omega, twiddle, 0..r);
}

/// [`column_stage`] on the columns `cols` only (the host pipeline launches the column stages a
/// range of columns at a time, as their data arrives or leaves); the others are untouched.
pub fn column_stage_range<F: FftField>(
    a: &mut [F],
    log_p: u32,
    omega: F,
    twiddle: bool,
    cols: std::ops::Range<usize>,
) {
    let n = a.len();
    let p = 1usize << log_p;
    let r = n >> log_p;
    let omega_p = omega.pow([r as u64]);
    let mut col = vec![F::zero(); p];
    for c in cols {
        for (i, v) in col.iter_mut().enumerate() {
            *v = a[i * r + c];
        }
        radix2_nn(&mut col, omega_p);
        for (k1, v) in col.iter().enumerate() {
            let t = if twiddle {
                omega.pow([(c * k1) as u64])
            } else {
                F::one()
            };
            a[k1 * r + c] = *v * t;
        }
    }
}

/// Q-point NTTs on the groups (a, *, b) = {a*R + m*P + b}, times w^(P*b*k), written to group
/// (b, *, a). In place over the pair of groups, as the GPU's tile pairs.
pub fn middle_stage<F: FftField>(x: &mut [F], log_p: u32, log_q: u32, omega: F) {
    let p = 1usize << log_p;
    let q = 1usize << log_q;
    let r = p * q;
    let omega_q = omega.pow([p as u64 * p as u64]);
    let src = x.to_vec();
    let mut g = vec![F::zero(); q];
    for a in 0..p {
        for b in 0..p {
            for (m, v) in g.iter_mut().enumerate() {
                *v = src[a * r + m * p + b];
            }
            radix2_nn(&mut g, omega_q);
            for (k, v) in g.iter().enumerate() {
                x[b * r + k * p + a] = *v * omega.pow([(p * b * k) as u64]);
            }
        }
    }
}

/// The natural-order transform `a[k] <- sum_j a[j] * omega^(j*k)` as the GPU runs it under `plan`.
pub fn transform<F: FftField>(a: &mut [F], omega: F, plan: Plan) {
    match plan {
        Plan::Single { .. } => radix2_nn(a, omega),
        Plan::ThreeStage { log_p, log_q, .. } => {
            column_stage(a, log_p, omega, true);
            middle_stage(a, log_p, log_q, omega);
            column_stage(a, log_p, omega, false);
        }
    }
}

/// The batch `cfg` describes, each transform by the GPU's scheme under `plan`.
pub fn ntt<F: FftField>(data: &mut [F], cfg: &NttConfig<F>, plan: Plan) -> Result<()> {
    let log_n = cfg.log_size(data.len())?;
    debug_assert_eq!(log_n, plan.log_n());
    reference::ntt_with(data, cfg, &|a: &mut [F], omega: F| {
        transform(a, omega, plan)
    })
}
