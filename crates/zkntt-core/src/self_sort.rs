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
//!
//! The bit-reversed orderings run the plan's three column launches instead ([`column_launch`],
//! [`transform_ordered`]; the derivation is in [`crate::plan`]).

use crate::plan::{self, Form, Kernel, Kernels, Plan, WarpShape, flags};
use crate::reference::{self, bit_reverse_index, radix2_nn};
use crate::{Direction, Error, NttConfig, Ordering, Result};
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
            layer_in_registers(&mut xs, &ss, j, rb, &tw, log_q as usize);
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

/// Twin of `cuda/ntt/stage1_block.cu`, lane by lane and register by register: the same result as
/// [`column_stage`], computed as the GPU's blocks do (2^log_cols columns per block of 128 threads,
/// slots in shared memory, phase A with slot bits swapped from lanes into registers as the
/// shuffles do, phase B through shared memory for the slot bits held by warps), so the kernel's
/// index arithmetic and layer schedule are checked here. Needs log_p + log_cols in
/// [`plan::STAGE1_LOG_SLOTS`].
pub fn stage1_block<F: FftField>(a: &mut [F], log_p: u32, log_cols: u32, omega: F, twiddle: bool) {
    let shape = Stage1Shape::new(log_p, log_cols);
    let (p, cols) = (1usize << log_p, 1usize << log_cols);
    let r = a.len() >> log_p;
    let omega_p = omega.pow([r as u64]);
    let tw: Vec<F> = (0..p / 2).map(|t| omega_p.pow([t as u64])).collect();
    for c0 in (0..r).step_by(cols) {
        // Word loads: element (row, column c0 + t) into slot t*P + rev(row).
        let mut sm = vec![F::zero(); shape.slots()];
        for e in 0..shape.slots() {
            let (t, row) = (e & (cols - 1), e >> log_cols);
            sm[shape.input_slot(t, row)] = a[row * r + c0 + t];
        }
        for phase in shape.phases() {
            for warp in 0..4 {
                let mut ss = shape.first_slots(phase, warp);
                let mut xs: Vec<Vec<F>> = ss
                    .iter()
                    .map(|lane| lane.iter().map(|&s| sm[s]).collect())
                    .collect();
                for (j, step) in shape.steps(phase) {
                    if let Step::Swap { rbit, lbit } = step {
                        swap_register_lane_bit(&mut xs, &mut ss, rbit, lbit);
                        continue;
                    }
                    let Step::Layer { rb } = step else {
                        unreachable!()
                    };
                    layer_in_registers(&mut xs, &ss, j, rb, &tw, log_p as usize);
                }
                for lane in 0..32 {
                    for reg in 0..shape.el() {
                        sm[ss[lane][reg]] = xs[lane][reg];
                    }
                }
            }
        }
        // Slot t*P + k holds entry k of column c0 + t: to (k, c0 + t), times w^((c0+t)*k).
        for (slot, v) in sm.iter().enumerate() {
            let (k, t) = (slot & (p - 1), slot >> log_p);
            let w = if twiddle {
                omega.pow([((c0 + t) * k) as u64])
            } else {
                F::one()
            };
            a[k * r + c0 + t] = *v * w;
        }
    }
}

/// The seed's stage1 for one block shape: which slot each lane and register holds when, in the
/// kernel's order. Shared by the twin and the bank model.
#[derive(Debug, Clone, Copy)]
struct Stage1Shape {
    log_p: usize,
    log_cols: usize,
    log_el: usize,
}

/// One step of a phase: a layer on register bit `rb`, or a register bit and a lane bit trading
/// places (shuffles).
#[derive(Debug, Clone, Copy)]
enum Step {
    Layer { rb: usize },
    Swap { rbit: usize, lbit: usize },
}

impl Stage1Shape {
    fn new(log_p: u32, log_cols: u32) -> Self {
        let log_e = log_p + log_cols;
        assert!(
            plan::STAGE1_LOG_SLOTS.contains(&log_e),
            "stage1: blocks of 2^9 or 2^10 slots"
        );
        Stage1Shape {
            log_p: log_p as usize,
            log_cols: log_cols as usize,
            log_el: log_e as usize - 7,
        }
    }
    fn log_e(&self) -> usize {
        self.log_p + self.log_cols
    }
    fn slots(&self) -> usize {
        1 << self.log_e()
    }
    fn el(&self) -> usize {
        1 << self.log_el
    }
    /// Slot bits a warp holds in phase A (registers and lanes).
    fn lane_layers(&self) -> usize {
        self.log_el + 5
    }
    fn input_slot(&self, t: usize, row: usize) -> usize {
        (t << self.log_p) | reference::bit_reverse_index(row, self.log_p as u32)
    }
    /// Phase A always; phase B where the column has layers beyond the slot bits of phase A.
    fn phases(&self) -> std::ops::Range<usize> {
        0..if self.log_p > self.lane_layers() {
            2
        } else {
            1
        }
    }
    /// ss[lane][reg] at the start of a phase: A registers = slot bits [0, log_el), lanes the next
    /// 5, warps the rest; B lanes = slot bits [0, 5), warps next, registers the top log_el.
    fn first_slots(&self, phase: usize, warp: usize) -> Vec<Vec<usize>> {
        let top = self.log_e() - self.log_el;
        (0..32)
            .map(|lane| {
                (0..self.el())
                    .map(|reg| match phase {
                        0 => reg | lane << self.log_el | warp << self.lane_layers(),
                        _ => lane | warp << 5 | reg << top,
                    })
                    .collect()
            })
            .collect()
    }
    /// The phase's steps in the kernel's order, each with its layer j.
    fn steps(&self, phase: usize) -> Vec<(usize, Step)> {
        let mut out = Vec::new();
        if phase == 0 {
            let layers = self.log_p.min(self.lane_layers());
            for j in 0..layers {
                let (block, rb) = (j / self.log_el, j % self.log_el);
                if block > 0 && rb == 0 {
                    for i in (0..self.log_el).take_while(|i| j + i < layers) {
                        out.push((
                            j,
                            Step::Swap {
                                rbit: i,
                                lbit: (block - 1) * self.log_el + i,
                            },
                        ));
                    }
                }
                out.push((j, Step::Layer { rb }));
            }
        } else {
            let top = self.log_e() - self.log_el;
            for rb in 0..self.log_el {
                let j = rb + top;
                if j >= self.lane_layers() && j < self.log_p {
                    out.push((j, Step::Layer { rb }));
                }
            }
        }
        out
    }
}

/// Worst bank conflicts (ways: the most distinct words of one warp instruction in one bank; 1 is
/// conflict-free) of the seed's stage1's shared-memory accesses for a block shape, as the kernel
/// lays them out (word stride [`plan::stage1_word_stride`], slot padding `slot + slot / 32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage1Banks {
    /// Word loads (8 lanes per element, lanes 16-31 in reversed word order) into shared memory.
    pub word_loads: usize,
    /// Reads of a phase's registers (one word of one register per instruction).
    pub phase_reads: usize,
    /// Writes of a phase's registers after its swaps.
    pub phase_writes: usize,
    /// Word reads for the word stores.
    pub word_stores: usize,
}

/// The bank model of [`Stage1Banks`] for 2^log_p-point columns, 2^log_cols per block.
pub fn stage1_bank_ways(log_p: u32, log_cols: u32) -> Stage1Banks {
    let shape = Stage1Shape::new(log_p, log_cols);
    let stride = plan::stage1_word_stride(shape.slots() as u32) as usize;
    let pad = |s: usize| s + (s >> 5);
    let ways = |addrs: &[usize]| {
        let mut banks = [0usize; 32];
        let mut seen = addrs.to_vec();
        seen.sort_unstable();
        seen.dedup();
        for a in seen {
            banks[a % 32] += 1;
        }
        banks.into_iter().max().unwrap_or(0)
    };
    let cols = 1usize << shape.log_cols;
    let word_of = |lane: usize| {
        if lane & 16 != 0 {
            7 - (lane & 7)
        } else {
            lane & 7
        }
    };
    let (mut loads, mut stores) = (0, 0);
    for e0 in (0..shape.slots()).step_by(4) {
        let addr = |natural: bool| -> Vec<usize> {
            (0..32)
                .map(|lane| {
                    let e = e0 + (lane >> 3);
                    let (t, row) = (e & (cols - 1), e >> shape.log_cols);
                    let slot = if natural {
                        (t << shape.log_p) | row
                    } else {
                        shape.input_slot(t, row)
                    };
                    word_of(lane) * stride + pad(slot)
                })
                .collect()
        };
        loads = loads.max(ways(&addr(false)));
        stores = stores.max(ways(&addr(true)));
    }
    let (mut reads, mut writes) = (0, 0);
    for phase in shape.phases() {
        for warp in 0..4 {
            let mut ss = shape.first_slots(phase, warp);
            let slot_ways = |ss: &[Vec<usize>]| {
                (0..shape.el())
                    .map(|reg| ways(&(0..32).map(|l| pad(ss[l][reg])).collect::<Vec<_>>()))
                    .max()
                    .unwrap_or(0)
            };
            reads = reads.max(slot_ways(&ss));
            for (_, step) in shape.steps(phase) {
                if let Step::Swap { rbit, lbit } = step {
                    let mut dummy = ss.clone();
                    swap_register_lane_bit(&mut dummy, &mut ss, rbit, lbit);
                }
            }
            writes = writes.max(slot_ways(&ss));
        }
    }
    Stage1Banks {
        word_loads: loads,
        phase_reads: reads,
        phase_writes: writes,
        word_stores: stores,
    }
}

/// DIT layer `j` of 2^log_s-point sub-NTTs whose slot bit j lives in register bit `rb` of every
/// lane (`ss` holds each register's slot): the butterflies inside each lane, as the kernels run
/// them between registers. `tw` holds w_S^t, t < S/2.
fn layer_in_registers<F: FftField>(
    xs: &mut [Vec<F>],
    ss: &[Vec<usize>],
    j: usize,
    rb: usize,
    tw: &[F],
    log_s: usize,
) {
    for (x, s) in xs.iter_mut().zip(ss) {
        for reg in (0..x.len()).filter(|reg| reg >> rb & 1 == 0) {
            let reg1 = reg | 1 << rb;
            debug_assert_eq!(
                s[reg1],
                s[reg] | 1 << j,
                "slot bit {j} in register bit {rb}"
            );
            let pos = s[reg] & ((1 << j) - 1);
            let v = x[reg1] * tw[pos << (log_s - 1 - j)];
            let u = x[reg];
            x[reg] = u + v;
            x[reg1] = u - v;
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

/// Twin of `dif_in_shared` (`cuda/ntt/ntt_common.cuh`): an in-place DIF over the 2^log_s slots of
/// `a` (natural order in, slot k holding entry rev(k) out) with `tw[t] = w_S^t`, t < S/2, layer by
/// layer from the widest span: two layers at a time in radix-4 groups and a last radix-2 layer of
/// twiddle 1 where the count is odd (`radix4`, wide blocks), or radix-2 layers (narrow blocks);
/// the same butterflies, twiddle indices and skipped trivial products as the kernel.
pub fn dif_in_slots<F: FftField>(a: &mut [F], log_s: u32, tw: &[F], radix4: bool) {
    if log_s == 0 {
        return;
    }
    if !radix4 {
        for s in (0..log_s).rev() {
            let h = 1usize << s;
            for j in 0..1usize << (log_s - 1) {
                let pos = j & (h - 1);
                let i0 = ((j >> s) << (s + 1)) + pos;
                let (u, v) = (a[i0], a[i0 + h]);
                let mut d = u - v;
                if s > 0 {
                    d *= tw[pos << (log_s - 1 - s)];
                }
                a[i0] = u + v;
                a[i0 + h] = d;
            }
        }
        return;
    }
    let mut s = log_s as i64 - 2;
    while s >= 0 {
        let su = s as u32;
        let h = 1usize << su;
        for j in 0..1usize << (log_s - 2) {
            let pos = j & (h - 1);
            let i0 = ((j >> su) << (su + 2)) + pos;
            let (x0, x1, x2, x3) = (a[i0], a[i0 + h], a[i0 + 2 * h], a[i0 + 3 * h]);
            let (a0, a1) = (x0 + x2, x1 + x3);
            let (a2, a3, y1, y3);
            if su == 0 {
                a2 = x0 - x2;
                a3 = (x1 - x3) * tw[1 << (log_s - 2)];
                y1 = a0 - a1;
                y3 = a2 - a3;
            } else {
                a2 = (x0 - x2) * tw[pos << (log_s - 2 - su)];
                a3 = (x1 - x3) * tw[(pos + h) << (log_s - 2 - su)];
                let w1 = tw[pos << (log_s - 1 - su)];
                y1 = (a0 - a1) * w1;
                y3 = (a2 - a3) * w1;
            }
            a[i0] = a0 + a1;
            a[i0 + h] = y1;
            a[i0 + 2 * h] = a2 + a3;
            a[i0 + 3 * h] = y3;
        }
        s -= 2;
    }
    if log_s & 1 == 1 {
        for i in 0..1usize << (log_s - 1) {
            let (u, v) = (a[2 * i], a[2 * i + 1]);
            a[2 * i] = u + v;
            a[2 * i + 1] = u - v;
        }
    }
}

/// Twin of the fused launch of a coset LDE (`ntt_column_lde_*`, [`plan::fused_lde_launch`]): down
/// every column c of the P x R matrix, the inverse P-point NTT (`omega`^-1), entry k times
/// g^(k*R + c) / N, the forward P-point NTT (as the kernel runs it: [`dif_in_slots`], then entry
/// k1 from slot rev(k1)), then `a[k1*R + c] *= w^(c*k1)` where `twiddle` (`omega` the N-th root).
/// (The GPU applies the 1/N here or, where the inverse carries it in its mid table, in the middle
/// launch: the same product of factors.)
pub fn lde_column_stage<F: FftField>(a: &mut [F], log_p: u32, omega: F, g: F, twiddle: bool) {
    let n = a.len();
    let (p, r) = (1usize << log_p, n >> log_p);
    let omega_p = omega.pow([r as u64]);
    let omega_p_inv = omega_p.inverse().expect("root of unity is non-zero");
    let n_inv = F::from(n as u64).inverse().expect("n < p");
    let tw = reference::powers(omega_p, p / 2);
    let mut col = vec![F::zero(); p];
    for c in 0..r {
        for (i, v) in col.iter_mut().enumerate() {
            *v = a[i * r + c];
        }
        radix2_nn(&mut col, omega_p_inv);
        for (k, v) in col.iter_mut().enumerate() {
            *v *= g.pow([(k * r + c) as u64]) * n_inv;
        }
        // The forward half as the kernel runs it: a DIF on the natural order the inverse left,
        // entry k1 read from slot rev(k1).
        dif_in_slots(&mut col, log_p, &tw, true);
        for k1 in 0..p {
            let t = if twiddle {
                omega.pow([(c * k1) as u64])
            } else {
                F::one()
            };
            a[k1 * r + c] = col[bit_reverse_index(k1, log_p)] * t;
        }
    }
}

/// A coset low-degree extension `a <- FFT on gH (IFFT on H (a))` (ark's
/// `coset_fft(ifft(a))`, the evaluations at g·w^k of the polynomial a interpolates on H) as the
/// GPU runs it under `plan`: the inverse transform's first launches, the fused launch
/// ([`lde_column_stage`]), the coset forward transform's last launches.
pub fn coset_lde<F: FftField>(a: &mut [F], g: F, plan: Plan) {
    let omega = reference::root_of_unity::<F>(plan.log_n());
    let omega_inv = omega.inverse().expect("root of unity is non-zero");
    match plan {
        Plan::Single { log_n } => lde_column_stage(a, log_n, omega, g, false),
        Plan::ThreeStage { log_p, log_q, .. } => {
            column_stage(a, log_p, omega_inv, true);
            middle_stage(a, log_p, log_q, omega_inv);
            lde_column_stage(a, log_p, omega, g, true);
            middle_stage(a, log_p, log_q, omega);
            column_stage(a, log_p, omega, false);
        }
    }
}

/// Twin of the ordered fused LDE launch (`ntt_column_lde_ordered_*`): the inverse NR's last launch
/// (S-point columns of sub-transforms of 2^log_m, `omega`^-1, entry k bound for row rev(k)) and
/// the coset RN's first on the same columns: entry k times g^(rev_N(j)) / N, j the index of row
/// rev(k), then the forward S-point NTT ([`dif_in_slots`], entry k from slot rev(k)), entry k to
/// row k.
pub fn lde_ordered_launch<F: FftField>(a: &mut [F], log_s: u32, log_m: u32, omega: F, g: F) {
    let n = a.len();
    let log_n = n.trailing_zeros();
    let (s, r) = (1usize << log_s, 1usize << (log_m - log_s));
    let omega_s = omega.pow([(n >> log_s) as u64]);
    let omega_s_inv = omega_s.inverse().expect("root of unity is non-zero");
    let n_inv = F::from(n as u64).inverse().expect("n < p");
    let tw = reference::powers(omega_s, s / 2);
    let mut col = vec![F::zero(); s];
    for sub in 0..n >> log_m {
        for c in 0..r {
            let pos = |row: usize| (sub << log_m) + row * r + c;
            for (i, v) in col.iter_mut().enumerate() {
                *v = a[pos(i)];
            }
            radix2_nn(&mut col, omega_s_inv);
            for (k, v) in col.iter_mut().enumerate() {
                let e = bit_reverse_index(pos(bit_reverse_index(k, log_s)), log_n);
                *v *= g.pow([e as u64]) * n_inv;
            }
            dif_in_slots(&mut col, log_s, &tw, true);
            for k in 0..s {
                a[pos(k)] = col[bit_reverse_index(k, log_s)];
            }
        }
    }
}

/// [`coset_lde`] as an inverse NR and a coset forward RN (`plan::Lde::BitReversed`): the inverse
/// NR's launches but its last, [`lde_ordered_launch`], the coset RN's launches but its first.
pub fn coset_lde_bit_reversed<F: FftField>(a: &mut [F], g: F, plan: Plan) {
    let omega = reference::root_of_unity::<F>(plan.log_n());
    let omega_inv = omega.inverse().expect("root of unity is non-zero");
    let inv = plan.launches(ordered(Ordering::NR), Kernels::default());
    let fwd = plan.launches(ordered(Ordering::RN), Kernels::default());
    let last = *inv.last().expect("a transform has launches");
    run_column_launches(a, omega_inv, inv[..inv.len() - 1].to_vec());
    lde_ordered_launch(a, last.layers, last.log_m, omega, g);
    run_column_launches(a, omega, fwd[1..].to_vec());
}

/// The exponent of w_M that a narrow column launch reads for layer s (span h = 2^s), butterfly
/// position pos < h, where column c's stage twiddle is folded into its layers
/// (`LayerTwiddles::load_folded` in `cuda/ntt/ntt_common.cuh`): (S / 2h) * (c + pos * R), S =
/// 2^log_s, R = 2^log_r, below M / 2 (M = S R). The column's transform with input x_j g^j
/// (TWIDDLE_IN) or output X_k g^k (TWIDDLE_OUT), g = w_M^c, is the plain S-point one whose layer s
/// twiddles are g^(S/2h) w_(2h)^pos: this power.
pub fn folded_layer_exponent(log_s: u32, s: u32, pos: u64, c: u64, log_r: u32) -> u64 {
    (c + (pos << log_r)) << (log_s - 1 - s)
}

/// Twin of a narrow column launch's layers with the stage twiddle folded (`cuda/ntt/column.cu`,
/// `fold_in` / `fold_out`): column c's S = 2^log_s entries `x` (natural order), `omega_m` the M-th
/// root, M = S * 2^log_r. `twiddle_in`: the DIT of `dit_narrow` (entry j in slot rev(j), radix-2
/// layers from span 1 up, every butterfly's second input times its layer's folded twiddle, layer
/// 0 included), giving the NTT of x_j w_M^(j c) in natural order; else the DIF of `dif_narrow`
/// (entry j in slot j, from the widest span down, every difference times the folded twiddle),
/// giving the NTT's entry k times w_M^(c k), read from slot rev(k).
pub fn folded_column<F: FftField>(
    x: &[F],
    log_r: u32,
    c: u64,
    omega_m: F,
    twiddle_in: bool,
) -> Vec<F> {
    let log_s = x.len().trailing_zeros();
    let w =
        |s: u32, pos: usize| omega_m.pow([folded_layer_exponent(log_s, s, pos as u64, c, log_r)]);
    let half = x.len() / 2;
    let pair = |i: usize, s: u32| (((i >> s) << (s + 1)) + (i & ((1 << s) - 1)), 1usize << s);
    if twiddle_in {
        let mut a = vec![F::zero(); x.len()];
        for (j, v) in x.iter().enumerate() {
            a[bit_reverse_index(j, log_s)] = *v;
        }
        for s in 0..log_s {
            for i in 0..half {
                let (i0, h) = pair(i, s);
                let (u, v) = (a[i0], a[i0 + h] * w(s, i & (h - 1)));
                a[i0] = u + v;
                a[i0 + h] = u - v;
            }
        }
        a
    } else {
        let mut a = x.to_vec();
        for s in (0..log_s).rev() {
            for i in 0..half {
                let (i0, h) = pair(i, s);
                let (u, v) = (a[i0], a[i0 + h]);
                a[i0] = u + v;
                a[i0 + h] = (u - v) * w(s, i & (h - 1));
            }
        }
        (0..x.len())
            .map(|k| a[bit_reverse_index(k, log_s)])
            .collect()
    }
}

/// Twin of a column launch of `cuda/ntt/column.cu` with sub-transforms ([`plan::Launch::log_m`]):
/// S-point NTTs (S = 2^log_s) down the M/S columns of every sub-transform of M = 2^log_m
/// contiguous elements (column c: rows i at i * M/S + c), with the launch's ordering and twiddle
/// flags ([`flags::IN_BITREV`], [`flags::OUT_BITREV`], [`flags::TWIDDLE_IN`],
/// [`flags::TWIDDLE_OUT`] with w_M = omega^(N/M), `omega` the N-th root). The scaling flags are
/// applied by [`ntt`] around the launches.
pub fn column_launch<F: FftField>(a: &mut [F], log_s: u32, log_m: u32, fl: u32, omega: F) {
    let src = a.to_vec();
    column_launch_into(&src, a, log_s, log_m, fl, omega);
}

/// [`column_launch`] from `src` into `dst` (the same length): the kernel's loads read `src` (row i
/// of column c at c*S + i with [`flags::SCRATCH_IN`]: natural order, M = N, the matrix
/// transposed), its stores write `dst`.
pub fn column_launch_into<F: FftField>(
    src: &[F],
    dst: &mut [F],
    log_s: u32,
    log_m: u32,
    fl: u32,
    omega: F,
) {
    let n = src.len();
    debug_assert_eq!(dst.len(), n);
    let transposed = fl & flags::SCRATCH_IN != 0;
    let shift = n.trailing_zeros() - log_m;
    let (s, r) = (1usize << log_s, 1usize << (log_m - log_s));
    let omega_s = omega.pow([(n >> log_s) as u64]);
    let rev = |i: usize, on: u32| {
        if fl & on != 0 {
            bit_reverse_index(i, log_s)
        } else {
            i
        }
    };
    let mut col = vec![F::zero(); s];
    for g in 0..n >> log_m {
        for c in 0..r {
            let pos = |row: usize| (g << log_m) + row * r + c;
            for i in 0..s {
                let j = rev(i, flags::IN_BITREV);
                col[j] = match transposed {
                    true => src[(g << log_m) + c * s + i],
                    false => src[pos(i)],
                };
                if fl & flags::TWIDDLE_IN != 0 {
                    col[j] *= omega.pow([((j * c) as u64) << shift]);
                }
            }
            radix2_nn(&mut col, omega_s);
            for (k, v) in col.iter().enumerate() {
                let w = if fl & flags::TWIDDLE_OUT != 0 {
                    omega.pow([((c * k) as u64) << shift])
                } else {
                    F::one()
                };
                dst[pos(rev(k, flags::OUT_BITREV))] = *v * w;
            }
        }
    }
}

/// Twin of the cluster launch (`cuda/ntt/cluster.cu`, [`plan::cluster_launch`]): the transform of
/// `a` (2^log_n entries, `omega` the N-th root) as N = C x L four-step on C = 2^log_c blocks, with
/// the kernel's slots: block b takes the columns i2 = b L/C + t into slot t C + i1 (from position
/// i = i1 L + i2, or rev_n(i) with [`flags::IN_BITREV`]), runs their C-point DIFs (the L-point
/// table read at every (L/C)-th entry), sends slot t C + j, entry k1 = rev_c(j), times w_N^(i2 k1),
/// to block k1's row at slot i2; each row then runs its L-point DIF, and slot j of row k1 (entry
/// k2 = rev_l(j)) goes to k = k1 + C k2, or rev_n(k) with [`flags::OUT_BITREV`]. The scaling flags
/// are applied by [`ntt`] around it. Needs log_c <= log_n - log_c.
pub fn cluster_transform<F: FftField>(a: &mut [F], log_c: u32, fl: u32, omega: F) {
    let log_n = a.len().trailing_zeros();
    let (log_l, rev_in, rev_out) = (
        log_n - log_c,
        fl & flags::IN_BITREV != 0,
        fl & flags::OUT_BITREV != 0,
    );
    let log_w = log_l - log_c;
    let (c, l) = (1usize << log_c, 1usize << log_l);
    let w_l = omega.pow([c as u64]);
    let tw_l: Vec<F> = std::iter::successors(Some(F::one()), |x| Some(*x * w_l))
        .take(l / 2)
        .collect();
    let tw_c: Vec<F> = tw_l.iter().step_by(1 << log_w).copied().collect();
    let at = |i: usize, rev: bool| if rev { bit_reverse_index(i, log_n) } else { i };
    let mut rows = vec![vec![F::zero(); l]; c];
    for b in 0..c {
        let mut cols = vec![F::zero(); l];
        for t in 0..1usize << log_w {
            let i2 = (b << log_w) + t;
            for i1 in 0..c {
                cols[(t << log_c) + i1] = a[at((i1 << log_l) + i2, rev_in)];
            }
        }
        for col in cols.chunks_mut(c) {
            dif_in_slots(col, log_c, &tw_c, true);
        }
        for t in 0..1usize << log_w {
            let i2 = (b << log_w) + t;
            for j in 0..c {
                let k1 = bit_reverse_index(j, log_c);
                rows[k1][i2] = cols[(t << log_c) + j] * omega.pow([(i2 * k1) as u64]);
            }
        }
    }
    for (k1, row) in rows.iter_mut().enumerate() {
        dif_in_slots(row, log_l, &tw_l, true);
        for (j, v) in row.iter().enumerate() {
            a[at(k1 + (bit_reverse_index(j, log_l) << log_c), rev_out)] = *v;
        }
    }
}

/// The transform in `ordering` (NR: natural in, bit-reversed out; RN the other way;
/// `a[k] <- sum_j a[j] * omega^(j*k)` in those positions) as the GPU runs it under `plan`: the
/// self-sorting stages for NN, the plan's launch table of column launches otherwise.
pub fn transform_ordered<F: FftField>(a: &mut [F], omega: F, plan: Plan, ordering: Ordering) {
    if ordering == Ordering::NN {
        return transform(a, omega, plan);
    }
    run_column_launches(
        a,
        omega,
        plan.launches(ordered(ordering), Kernels::default()),
    );
}

/// [`transform_ordered`] with the columns of [`plan::ordered_launches`] given (any split of
/// log_n into column sizes, for tests of every split).
pub fn transform_with_columns<F: FftField>(
    a: &mut [F],
    omega: F,
    sizes: &[u32],
    ordering: Ordering,
) {
    let log_n = a.len().trailing_zeros();
    let launches =
        plan::ordered_launches(log_n, sizes, None, ordered(ordering), Kernels::default());
    run_column_launches(a, omega, launches);
}

/// The form of an unscaled transform in `ordering` (scalings are applied around the launches).
fn ordered(ordering: Ordering) -> Form {
    Form {
        ordering,
        ..Form::default()
    }
}

/// Runs a table of column launches on `a` as the engine does: in place, or through a scratch of
/// `a`'s size where a launch stores there ([`flags::SCRATCH_OUT`]) or reads from there
/// ([`flags::SCRATCH_IN`], storing into `a`).
pub fn run_column_launches<F: FftField>(a: &mut [F], omega: F, launches: Vec<plan::Launch>) {
    let mut scratch = Vec::new();
    for l in launches {
        debug_assert_eq!(l.kernel, Kernel::Column);
        let (s, m, fl) = (l.layers, l.log_m, l.flags);
        if fl & flags::SCRATCH_OUT != 0 {
            scratch = vec![F::zero(); a.len()];
            column_launch_into(a, &mut scratch, s, m, fl, omega);
        } else if fl & flags::SCRATCH_IN != 0 {
            column_launch_into(&scratch, a, s, m, fl, omega);
        } else {
            column_launch(a, s, m, fl, omega);
        }
    }
}

/// The batch `cfg` describes, each transform by the GPU's scheme under `plan`, with the coset
/// and 1/N scalings at the positions the kernels apply them (a reversed position's exponent is
/// its reversed index). A plan for another size is `Error::PlanSize`, `data` untouched.
pub fn ntt<F: FftField>(data: &mut [F], cfg: &NttConfig<F>, plan: Plan) -> Result<()> {
    let log_n = cfg.log_size(data.len())?;
    if log_n != plan.log_n() {
        return Err(Error::PlanSize {
            plan_log_n: plan.log_n(),
            log_n,
        });
    }
    let ordering = cfg.ordering;
    let omega = reference::root_of_unity::<F>(log_n);
    let scale = |a: &mut [F], x: F, reversed: bool| {
        for (i, v) in a.iter_mut().enumerate() {
            let j = if reversed {
                bit_reverse_index(i, log_n)
            } else {
                i
            };
            *v *= x.pow([j as u64]);
        }
    };
    reference::for_each_transform(data, log_n, cfg, |a| match cfg.direction {
        Direction::Forward => {
            if let Some(g) = cfg.coset {
                scale(a, g, ordering.input_reversed());
            }
            transform_ordered(a, omega, plan, ordering);
        }
        Direction::Inverse => {
            let omega_inv = omega.inverse().expect("root of unity is non-zero");
            transform_ordered(a, omega_inv, plan, ordering);
            let n_inv = F::from(a.len() as u64).inverse().expect("n < p");
            a.iter_mut().for_each(|x| *x *= n_inv);
            if let Some(g) = cfg.coset {
                let g_inv = g.inverse().expect("offset checked non-zero");
                scale(a, g_inv, ordering.output_reversed());
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::{Field, UniformRand};

    /// A plan for another size is an error and leaves the data as it was (it transformed wrongly
    /// and returned Ok in release builds).
    #[test]
    fn a_plan_for_another_size_is_refused() {
        let x: Vec<Fr> = (0..1u64 << 12).map(Fr::from).collect();
        let mut got = x.clone();
        let r = ntt(&mut got, &NttConfig::forward(), Plan::for_size(10).unwrap());
        assert_eq!(
            r,
            Err(Error::PlanSize {
                plan_log_n: 10,
                log_n: 12
            })
        );
        assert_eq!(got, x);
    }

    /// The cluster launch's twin at every size the plan gives it, in every ordering, against the
    /// column launches (and so ark-poly's order), BN254 and BLS12-381.
    #[test]
    fn cluster_transform_is_the_transform() {
        fn check<F: FftField + UniformRand>() {
            let mut rng = ark_std::test_rng();
            for log_n in plan::CLUSTER_LOGS {
                let n = 1usize << log_n;
                let omega = F::get_root_of_unity(n as u64).unwrap();
                let input: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
                for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                    let l = plan::cluster_launch(log_n, ordered(ordering));
                    let mut want = input.clone();
                    transform_ordered(&mut want, omega, Plan::for_size(log_n).unwrap(), ordering);
                    let mut got = input.clone();
                    cluster_transform(&mut got, l.log_cols, l.flags, omega);
                    assert!(got == want, "2^{log_n} {ordering:?}");
                }
            }
        }
        check::<Fr>();
        check::<ark_bls12_381::Fr>();
    }

    /// A two-pass natural-order transform (`Natural::TwoPass`: the first launch into the scratch,
    /// the second back from its rows) equals the self-sorting stages, every size it runs to 2^16
    /// (to 2^20 in release builds), both fields, narrow and wide blocks.
    #[test]
    fn two_pass_launches_are_the_transform() {
        fn check<F: FftField + UniformRand>(max: u32) {
            let mut rng = ark_std::test_rng();
            for log_n in (plan::MAX_SINGLE_LOG + 1)..=max {
                let n = 1usize << log_n;
                let omega = F::get_root_of_unity(n as u64).unwrap();
                let input: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
                let plan = Plan::for_size(log_n).unwrap();
                let mut want = input.clone();
                transform(&mut want, omega, plan);
                for blocks in [plan::Blocks::Narrow, plan::Blocks::Wide] {
                    let kernels = Kernels {
                        natural: plan::Natural::TwoPass,
                        blocks,
                        ..Kernels::default()
                    };
                    let launches = plan.launches(ordered(Ordering::NN), kernels);
                    let scratch = [plan::flags::SCRATCH_OUT, plan::flags::SCRATCH_IN];
                    assert_eq!(launches.len(), 2, "2^{log_n}");
                    for (l, f) in launches.iter().zip(scratch) {
                        assert!(l.flags & f != 0, "2^{log_n} {l:?}");
                    }
                    let mut got = input.clone();
                    run_column_launches(&mut got, omega, launches);
                    assert!(got == want, "2^{log_n} {blocks:?}");
                }
            }
        }
        let max = if cfg!(debug_assertions) { 16 } else { 20 };
        check::<Fr>(max);
        check::<ark_bls12_381::Fr>(max.min(14));
    }

    #[test]
    fn stage1_block_is_the_column_stage() {
        let mut rng = ark_std::test_rng();
        // Every block shape the plan makes (2^12..2^30), and the others of 2^9 and 2^10 slots.
        for log_e in plan::STAGE1_LOG_SLOTS {
            for log_p in 1..=log_e {
                let log_cols = log_e - log_p;
                let log_n = (log_e + 1).max(2 * log_p);
                let n = 1usize << log_n;
                let omega = Fr::get_root_of_unity(n as u64).unwrap();
                let input: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
                for twiddle in [true, false] {
                    let mut want = input.clone();
                    column_stage(&mut want, log_p, omega, twiddle);
                    let mut got = input.clone();
                    stage1_block(&mut got, log_p, log_cols, omega, twiddle);
                    assert!(got == want, "log_p {log_p}, log_cols {log_cols}");
                }
            }
        }
    }

    /// The DIF of the fused LDE launch, both block paths, every column size: the natural-order
    /// transform, bit-reversed.
    #[test]
    fn dif_in_slots_is_a_bit_reversed_transform() {
        let mut rng = ark_std::test_rng();
        for log_s in 0..=11u32 {
            let s = 1usize << log_s;
            let omega = reference::root_of_unity::<Fr>(log_s);
            let tw = reference::powers(omega, s / 2);
            let input: Vec<Fr> = (0..s).map(|_| Fr::rand(&mut rng)).collect();
            let mut want = input.clone();
            radix2_nn(&mut want, omega);
            reference::bit_reverse_permute(&mut want);
            for radix4 in [true, false] {
                let mut got = input.clone();
                dif_in_slots(&mut got, log_s, &tw, radix4);
                assert!(got == want, "2^{log_s} radix4 {radix4}");
            }
        }
    }

    /// The folded stage twiddle (both directions of fold, every narrow column size and a few
    /// columns of several widths): the column's transform with its input or output twiddled.
    #[test]
    fn folded_column_is_the_twiddled_column() {
        let mut rng = ark_std::test_rng();
        for log_s in 1..=9u32 {
            for log_r in [0u32, 1, 3, 8] {
                let (s, r) = (1usize << log_s, 1u64 << log_r);
                let omega_m = reference::root_of_unity::<Fr>(log_s + log_r);
                let omega_s = omega_m.pow([r]);
                for c in [0, 1, r / 2, r - 1].into_iter().filter(|&c| c < r) {
                    let x: Vec<Fr> = (0..s).map(|_| Fr::rand(&mut rng)).collect();
                    let g = omega_m.pow([c]);
                    let mut want_in: Vec<Fr> = x
                        .iter()
                        .enumerate()
                        .map(|(j, v)| *v * g.pow([j as u64]))
                        .collect();
                    radix2_nn(&mut want_in, omega_s);
                    assert!(
                        folded_column(&x, log_r, c, omega_m, true) == want_in,
                        "in 2^{log_s} R 2^{log_r} c {c}"
                    );
                    let mut want_out = x.clone();
                    radix2_nn(&mut want_out, omega_s);
                    want_out
                        .iter_mut()
                        .enumerate()
                        .for_each(|(k, v)| *v *= g.pow([k as u64]));
                    assert!(
                        folded_column(&x, log_r, c, omega_m, false) == want_out,
                        "out 2^{log_s} R 2^{log_r} c {c}"
                    );
                    // Every exponent the kernel reads is below M / 2.
                    for l in 0..log_s {
                        for pos in 0..1u64 << l {
                            assert!(
                                folded_layer_exponent(log_s, l, pos, c, log_r)
                                    < (1u64 << (log_s + log_r - 1))
                            );
                        }
                    }
                }
            }
        }
    }

    /// The fused LDE's plan (inverse launches, the fused one, forward launches) against ark's
    /// order of work: an inverse transform, then a coset forward one.
    #[test]
    fn coset_lde_is_an_inverse_then_a_coset_forward() {
        let mut rng = ark_std::test_rng();
        let g = Fr::from(7u64);
        for log_n in 0..=13u32 {
            let plan = Plan::for_size(log_n).unwrap();
            let input: Vec<Fr> = (0..1usize << log_n).map(|_| Fr::rand(&mut rng)).collect();
            let mut want = input.clone();
            reference::ntt(&mut want, &NttConfig::inverse()).unwrap();
            reference::ntt(&mut want, &NttConfig::forward().with_coset(g)).unwrap();
            let mut got = input.clone();
            coset_lde(&mut got, g, plan);
            assert!(got == want, "2^{log_n}");
            let mut got = input;
            coset_lde_bit_reversed(&mut got, g, plan);
            assert!(got == want, "2^{log_n} NR/RN");
        }
    }

    #[test]
    fn stage1_bank_conflicts() {
        for log_n in 12..=30 {
            let Plan::ThreeStage {
                log_p, log_cols, ..
            } = Plan::for_size(log_n).unwrap()
            else {
                unreachable!()
            };
            let b = stage1_bank_ways(log_p, log_cols);
            // The word stride's choice: at most 2-way on the word loads and stores.
            assert!(b.word_loads <= 2 && b.word_stores <= 2, "2^{log_n}: {b:?}");
            // Phase reads: lanes on slot bits [log_el, log_el + 5) or [0, 5): conflict-free.
            assert_eq!(b.phase_reads, 1, "2^{log_n}: {b:?}");
            eprintln!("2^{log_n} (P 2^{log_p}, 2^{log_cols} columns): {b:?}");
        }
    }

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
