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

use crate::plan::{self, Plan, WarpShape};
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

/// Twin of `cuda/ntt/stage2_warp.cu`, lane by lane and register by register: the same result as
/// [`middle_stage`], computed as the GPU's warps do (tile pair `id` per warp, its elements in
/// registers, cross-lane layers by swapping a register bit with a lane bit, as the shuffles do), so
/// the kernel's index arithmetic is checked here. Needs 2^log_q within
/// [`plan::STAGE2_WARP_MAX_LOG_Q`] and P >= T.
pub fn stage2_warp<F: FftField>(x: &mut [F], log_p: u32, log_q: u32, omega: F) {
    let shape = WarpShape::for_q(log_q).expect("stage2_warp: Q within the warp kernel's range");
    let (p, q) = (1usize << log_p, 1usize << log_q);
    let r = p * q;
    let omega_q = omega.pow([(p * p) as u64]);
    let tw: Vec<F> = (0..q / 2).map(|t| omega_q.pow([t as u64])).collect();
    let (log_el, log_lanes, log_t) = (
        shape.log_el as usize,
        shape.log_lanes as usize,
        shape.log_tile as usize,
    );
    let (el, t) = (1usize << log_el, 1usize << log_t);
    for id in 0..shape.pairs(log_p) {
        let (ti, tj) = plan::tile_pair(id);
        let (ti, tj) = (ti as usize, tj as usize);
        // Lane bits, low to high: lane in group, bb, aa, sel (the kernel's order).
        let lane_of = |lane: usize| {
            let li = lane & ((1 << log_lanes) - 1);
            let bb = (lane >> log_lanes) & (t - 1);
            let aa = (lane >> (log_lanes + log_t)) & (t - 1);
            let sel = lane >> (log_lanes + 2 * log_t);
            let (ta, tb) = if sel == 1 { (tj, ti) } else { (ti, tj) };
            (li, ta * t + aa, tb * t + bb, sel)
        };
        let mut xs = vec![vec![F::zero(); el]; 32];
        let mut ss = vec![vec![0usize; el]; 32];
        for lane in 0..32 {
            let (li, a, b, _) = lane_of(lane);
            for reg in 0..el {
                let s = reg | (li << log_el);
                ss[lane][reg] = s;
                xs[lane][reg] = x[a * r + reference::bit_reverse_index(s, log_q) * p + b];
            }
        }
        for j in 0..log_q as usize {
            let (block, rb) = (j / log_el, j % log_el);
            if block > 0 && rb == 0 {
                for i in 0..log_el.min(log_q as usize - j) {
                    swap_register_lane_bit(&mut xs, &mut ss, i, (block - 1) * log_el + i);
                }
            }
            for lane in 0..32 {
                for reg in (0..el).filter(|reg| reg >> rb & 1 == 0) {
                    let reg1 = reg | 1 << rb;
                    let s = ss[lane][reg];
                    debug_assert_eq!(
                        ss[lane][reg1],
                        s | 1 << j,
                        "slot bit {j} in register bit {rb}"
                    );
                    let pos = s & ((1 << j) - 1);
                    let v = xs[lane][reg1] * tw[pos << (log_q as usize - 1 - j)];
                    let u = xs[lane][reg];
                    xs[lane][reg] = u + v;
                    xs[lane][reg1] = u - v;
                }
            }
        }
        for lane in 0..32 {
            let (_, a, b, sel) = lane_of(lane);
            if sel == 1 && ti == tj {
                continue; // a diagonal tile: these lanes hold the groups of sel 0 again
            }
            for reg in 0..el {
                let k = ss[lane][reg];
                x[b * r + k * p + a] = xs[lane][reg] * omega.pow([(p * b * k) as u64]);
            }
        }
    }
}

/// Register bit `rbit` and lane bit `lbit` (of the lane-in-group bits) trade places, as the
/// kernel's `__shfl_xor_sync` exchange does: the lane whose bit is 0 keeps its registers with
/// bit 0 and receives its partner's registers with bit 0 in place of its own with bit 1.
fn swap_register_lane_bit<F: Copy>(
    xs: &mut [Vec<F>],
    ss: &mut [Vec<usize>],
    rbit: usize,
    lbit: usize,
) {
    let (x0, s0) = (xs.to_vec(), ss.to_vec());
    for lane in 0..xs.len() {
        let up = lane >> lbit & 1 == 1;
        let partner = lane ^ (1 << lbit);
        for reg in (0..xs[lane].len()).filter(|reg| reg >> rbit & 1 == 0) {
            let reg1 = reg | 1 << rbit;
            // The partner sent the register it does not keep: its reg1 if it is the lower lane.
            let sent = if up { reg1 } else { reg };
            let into = if up { reg } else { reg1 };
            xs[lane][into] = x0[partner][sent];
            ss[lane][into] = s0[partner][sent];
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

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::UniformRand;

    #[test]
    fn stage2_warp_is_the_middle_stage() {
        let mut rng = ark_std::test_rng();
        for log_q in 1..=plan::STAGE2_WARP_MAX_LOG_Q {
            let shape = WarpShape::for_q(log_q).unwrap();
            for log_p in [shape.log_tile.max(1), 3, 5] {
                let n = 1usize << (2 * log_p + log_q);
                let omega = Fr::get_root_of_unity(n as u64).unwrap();
                let input: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
                let mut want = input.clone();
                middle_stage(&mut want, log_p, log_q, omega);
                let mut got = input;
                stage2_warp(&mut got, log_p, log_q, omega);
                assert!(got == want, "log_p {log_p}, log_q {log_q}");
            }
        }
    }
}
