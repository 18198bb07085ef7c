//! The decomposition on the CPU, in f32 or f64: the same stages, order and twiddles as the fp16
//! kernel (`cuda/small/fft_tc.cu`), and the plain f64 DFT everything is checked against.
//!
//! Forward is `X[k] = sum_n x[n] e^{-2 pi i nk/N}`; inverse has `+` and no `1/N`, so
//! `inverse(forward(x)) = N x`.
//!
//! The stages run in place, decimation in frequency. A stage of radix R on sub-problems of L
//! points (m = L/R) takes, for every sub-problem s and every n2 < m, the R points
//! `x[s L + n1 m + n2]`, computes their R-point DFT (for R = 16, the 16x16 DFT matrix times a
//! column: on the GPU a Tensor Core tile of 16 such columns), multiplies output k1 by the
//! twiddle `w_L^{n2 k1}` and writes it back to `s L + k1 m + n2`. The sub-problems of the next
//! stage are the runs of m points. Radices: `2^(log_n mod 4)` first where that is not 1, then 16s.
//! The result sits in digit-reversed order, and [`digit_reversed_index`] undoes it.
//!
//! Sizes above [`ONE_LAUNCH_MAX_LOG`] (2^13..2^20) use the four-step split of [`split`]:
//! N = N1 x N2, x[n1 N2 + n2]; the N1-point transforms above on the columns (stride N2), each output
//! k1 of column n2 multiplied by `w_N^{n2 k1}`, the N2-point transforms above on the rows, and a
//! transpose, so that `X[k1 + N1 k2]` is in natural order. On the GPU the columns are one launch
//! and the rows another that writes its outputs to their transposed places (2^13..2^17,
//! [`transpose_folded`]; from 2^18 in bands of 8 rows a block where the GPU has the shared memory,
//! else the rows and then a transpose launch), with the data rounded to fp16 between the launches
//! (where this model keeps `T`); the transpose moves data only.
//!
//! The kernel runs these same stages, fused differently: two consecutive stages per warp tile of
//! 256 points with the data in registers between them (the radix-`2^(log_n mod 4)` stage of
//! N = 32..128 as a block-diagonal 16x16 matrix in the first of the two), and the digit reversal
//! folded into the last stage's store addresses. It rounds to fp16 where this model keeps `T`:
//! after every stage (data between stages are fp16 there) and in the DFT matrices; and in the
//! 512..4096 kernel it applies the twiddle between a tile's two stages in fp16 arithmetic with
//! fp16 twiddles (`twiddle_h2` in `cuda/small/fft_tc.cu`).

use crate::Direction;

/// A complex number as (re, im).
pub type C<T> = (T, T);

/// f32 or f64: the arithmetic the model needs.
pub trait Real:
    Copy
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + Default
{
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Real for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Real for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// Largest log2 size the model (and the GPU, across launches) takes.
pub const MAX_LOG: u32 = 20;
/// Largest log2 size one kernel launch takes; above it, the four-step split of [`split`].
pub const ONE_LAUNCH_MAX_LOG: u32 = 12;

/// The four-step split of a 2^log_n-point transform above one launch: `(log N1, log N2)`, the
/// column transforms 2^4..2^8 points, the row transforms at most 2^12 (the one-launch kernels),
/// N1 as near sqrt(N) as that allows (2^13 = 128 x 64, 2^16 = 256 x 256, 2^20 = 256 x 4096): no
/// 16-row transposes or 16-point column slabs, the slowest shapes (see benches/NOTES.md).
pub const fn split(log_n: u32) -> (u32, u32) {
    // clamp(ceil(log_n / 2), max(log_n - 12, 4), 8), in const arithmetic.
    let lo = if log_n > ONE_LAUNCH_MAX_LOG + 4 {
        log_n - ONE_LAUNCH_MAX_LOG
    } else {
        4
    };
    let mut log_n1 = log_n.div_ceil(2);
    if log_n1 < lo {
        log_n1 = lo;
    }
    if log_n1 > 8 {
        log_n1 = 8;
    }
    (log_n1, log_n - log_n1)
}

/// Whether the GPU writes the row transforms of the four-step split transposed (`X[k1 + N1 k2]`,
/// in runs of 4096 / N2 words from one block's 4096 / N2 rows) instead of launching a transpose:
/// N2 <= 512, runs of at least 8 words (32 bytes), so 2^13..2^17. From 2^18 (N2 = 1024..4096,
/// runs of 4..1 words from a chunk) the GPU folds it only where a block can hold a band of 8
/// rows (`TcFft::banded`; benches/NOTES.md, "the rows in bands of 8"), else it keeps the separate
/// transpose, which measured faster than short runs ("the transpose folded into the row pass").
/// The arithmetic is the same either way.
pub const fn transpose_folded(log_n: u32) -> bool {
    log_n > ONE_LAUNCH_MAX_LOG && log_n <= 17
}

/// The radices of the stages of a 2^log_n-point transform, first stage first.
pub fn radices(log_n: u32) -> Vec<u32> {
    let mut r = Vec::new();
    if log_n % 4 != 0 {
        r.push(1 << (log_n % 4));
    }
    r.extend(std::iter::repeat_n(16, (log_n / 4) as usize));
    r
}

/// `e^{sign 2 pi i j / n}` in f64, with sign -1 forward and +1 inverse.
pub fn root(j: u64, n: u64, dir: Direction) -> C<f64> {
    let (s, c) = (2.0 * std::f64::consts::PI * (j % n) as f64 / n as f64).sin_cos();
    match dir {
        Direction::Forward => (c, -s),
        Direction::Inverse => (c, s),
    }
}

fn cmul<T: Real>(a: C<T>, b: C<T>) -> C<T> {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// Where output k of a 2^log_n-point transform sits after the stages (within its transform).
pub fn digit_reversed_index(k: usize, log_n: u32) -> usize {
    let n = 1usize << log_n;
    let (mut k, mut stride, mut p) = (k, n, 0);
    for r in radices(log_n) {
        let r = r as usize;
        stride /= r;
        p += (k % r) * stride;
        k /= r;
    }
    p
}

/// Batched FFTs of 2^log_n points in place, `data.len()` a multiple of 2^log_n. Panics
/// otherwise (a model for tests, not a library entry point).
pub fn fft<T: Real>(data: &mut [C<T>], log_n: u32, dir: Direction) {
    assert!(log_n <= MAX_LOG, "log_n {log_n} above {MAX_LOG}");
    let n = 1usize << log_n;
    assert_eq!(data.len() % n, 0, "not a whole number of transforms");
    if log_n > ONE_LAUNCH_MAX_LOG {
        return four_step(data, log_n, dir);
    }
    let conv = |c: C<f64>| (T::from_f64(c.0), T::from_f64(c.1));
    let mut l = n;
    for r in radices(log_n) {
        let r = r as usize;
        let m = l / r;
        // The R-point DFT matrix and the stage's twiddles, rounded once to T like the kernel's.
        let dft: Vec<C<T>> = (0..r * r)
            .map(|i| conv(root(((i / r) * (i % r)) as u64, r as u64, dir)))
            .collect();
        let tw: Vec<C<T>> = (0..l)
            .map(|j| conv(root(j as u64, l as u64, dir)))
            .collect();
        let mut col = vec![(T::default(), T::default()); r];
        for s in (0..data.len()).step_by(l) {
            for n2 in 0..m {
                for (n1, c) in col.iter_mut().enumerate() {
                    *c = data[s + n1 * m + n2];
                }
                for k1 in 0..r {
                    let mut acc = (T::default(), T::default());
                    for (n1, &c) in col.iter().enumerate() {
                        let p = cmul(dft[k1 * r + n1], c);
                        acc = (acc.0 + p.0, acc.1 + p.1);
                    }
                    data[s + k1 * m + n2] = cmul(acc, tw[(n2 * k1) % l]);
                }
            }
        }
        l = m;
    }
    let mut out = vec![(T::default(), T::default()); n];
    for t in data.chunks_exact_mut(n) {
        for (k, o) in out.iter_mut().enumerate() {
            *o = t[digit_reversed_index(k, log_n)];
        }
        t.copy_from_slice(&out);
    }
}

/// The four-step split (see the module doc): columns, twiddle `w_N^{n2 k1}`, rows, transpose.
fn four_step<T: Real>(data: &mut [C<T>], log_n: u32, dir: Direction) {
    let (log_n1, log_n2) = split(log_n);
    let (n, n1, n2) = (1usize << log_n, 1usize << log_n1, 1usize << log_n2);
    let zero = (T::default(), T::default());
    let mut cols = vec![zero; n];
    for t in data.chunks_exact_mut(n) {
        // Column n2 as the n2-th transform of a batch of N2.
        for (i, c) in cols.iter_mut().enumerate() {
            *c = t[(i % n1) * n2 + i / n1];
        }
        fft(&mut cols, log_n1, dir);
        for (i, &c) in cols.iter().enumerate() {
            let (k1, col) = (i % n1, i / n1);
            let (re, im) = root((col * k1) as u64, n as u64, dir);
            t[k1 * n2 + col] = cmul(c, (T::from_f64(re), T::from_f64(im)));
        }
        fft(t, log_n2, dir);
        // Row k1 holds X[k1 + N1 k2] at k2.
        for (i, c) in cols.iter_mut().enumerate() {
            *c = t[(i % n1) * n2 + i / n1];
        }
        t.copy_from_slice(&cols);
    }
}

/// An independent f64 reference for every size: recursive radix-2 decimation in time with
/// twiddles from f64 `sin_cos` (the O(N^2) [`dft`] is the reference up to 2^12; this one is
/// checked against it there and used above). Panics, as [`fft`] does, on a length that is not a
/// whole number of transforms.
pub fn reference_fft(x: &[C<f64>], log_n: u32, dir: Direction) -> Vec<C<f64>> {
    assert!(
        log_n < usize::BITS && x.len() % (1usize << log_n) == 0,
        "{} points are not a whole number of transforms of 2^{log_n}",
        x.len()
    );
    fn rec(x: &[C<f64>], stride: usize, n: usize, w: &[C<f64>], out: &mut [C<f64>]) {
        if n == 1 {
            out[0] = x[0];
            return;
        }
        let h = n / 2;
        let (lo, hi) = out.split_at_mut(h);
        rec(x, 2 * stride, h, w, lo);
        rec(&x[stride..], 2 * stride, h, w, hi);
        for k in 0..h {
            let t = cmul(w[k * stride], hi[k]);
            let e = lo[k];
            lo[k] = (e.0 + t.0, e.1 + t.1);
            hi[k] = (e.0 - t.0, e.1 - t.1);
        }
    }
    let n = 1usize << log_n;
    let w: Vec<C<f64>> = (0..n / 2).map(|j| root(j as u64, n as u64, dir)).collect();
    let mut y = vec![(0.0, 0.0); x.len()];
    for (xt, yt) in x.chunks_exact(n).zip(y.chunks_exact_mut(n)) {
        rec(xt, 1, n, &w, yt);
    }
    y
}

/// The plain O(N^2) DFT in f64 of each 2^log_n-point transform in `x`: the reference. Panics
/// as [`reference_fft`] does.
pub fn dft(x: &[C<f64>], log_n: u32, dir: Direction) -> Vec<C<f64>> {
    assert!(
        log_n < usize::BITS && x.len() % (1usize << log_n) == 0,
        "{} points are not a whole number of transforms of 2^{log_n}",
        x.len()
    );
    let n = 1usize << log_n;
    let w: Vec<C<f64>> = (0..n).map(|j| root(j as u64, n as u64, dir)).collect();
    let mut y = vec![(0.0, 0.0); x.len()];
    for (xt, yt) in x.chunks_exact(n).zip(y.chunks_exact_mut(n)) {
        for (k, yk) in yt.iter_mut().enumerate() {
            let (mut re, mut im) = (0.0, 0.0);
            for (j, &(a, b)) in xt.iter().enumerate() {
                let (c, s) = w[(j * k) % n];
                re += a * c - b * s;
                im += a * s + b * c;
            }
            *yk = (re, im);
        }
    }
    y
}

/// `||got - want|| / ||want||` over all elements (want not all zero).
pub fn rel_l2<T: Real>(got: &[C<T>], want: &[C<f64>]) -> f64 {
    assert_eq!(got.len(), want.len());
    let (mut num, mut den) = (0.0, 0.0);
    for (g, w) in got.iter().zip(want) {
        let (dr, di) = (g.0.to_f64() - w.0, g.1.to_f64() - w.1);
        num += dr * dr + di * di;
        den += w.0 * w.0 + w.1 * w.1;
    }
    (num / den).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    const SIZES: std::ops::RangeInclusive<u32> = 4..=12;

    fn random(len: usize, seed: u64) -> Vec<C<f64>> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..len)
            .map(|_| (rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
            .collect()
    }

    fn to32(x: &[C<f64>]) -> Vec<C<f32>> {
        x.iter().map(|&(a, b)| (a as f32, b as f32)).collect()
    }

    #[test]
    fn radices_multiply_to_n() {
        for log_n in 0..=MAX_LOG {
            let r = radices(log_n);
            assert_eq!(r.iter().product::<u32>(), 1 << log_n, "2^{log_n}");
            assert!(r.iter().skip(1).all(|&x| x == 16));
            let mut seen: Vec<usize> = (0..1 << log_n)
                .map(|k| digit_reversed_index(k, log_n))
                .collect();
            seen.sort_unstable();
            assert!(seen.iter().enumerate().all(|(i, &p)| i == p), "2^{log_n}");
        }
    }

    /// The model in f64 (to 1e-13) and in f32 (to 1e-6) against `want`; the f32 result.
    fn model_against(x: &[C<f64>], want: &[C<f64>], log_n: u32, dir: Direction) -> Vec<C<f32>> {
        let mut y = x.to_vec();
        fft(&mut y, log_n, dir);
        let e64 = rel_l2(&y, want);
        assert!(e64 < 1e-13, "f64 2^{log_n} {dir:?}: {e64:e}");
        let mut y32 = to32(x);
        fft(&mut y32, log_n, dir);
        let e32 = rel_l2(&y32, want);
        assert!(e32 < 1e-6, "f32 2^{log_n} {dir:?}: {e32:e}");
        y32
    }

    #[test]
    fn model_matches_dft_f64_and_f32() {
        for log_n in SIZES.chain([1, 2, 3]) {
            let n = 1 << log_n;
            let batch = if log_n <= 8 { 3 } else { 1 };
            for dir in [Direction::Forward, Direction::Inverse] {
                let x = random(n * batch, 7 + log_n as u64);
                model_against(&x, &dft(&x, log_n, dir), log_n, dir);
            }
        }
    }

    #[test]
    fn known_answers() {
        for log_n in SIZES {
            let n = 1usize << log_n;
            // Impulse at 0: all ones.
            let mut x = vec![(0.0f64, 0.0); n];
            x[0] = (1.0, 0.0);
            fft(&mut x, log_n, Direction::Forward);
            let want = vec![(1.0, 0.0); n];
            assert!(rel_l2(&x, &want) < 1e-14, "impulse 2^{log_n}");
            // Constant c: N c at bin 0, zero elsewhere.
            let c = (0.5, -0.25);
            let mut x = vec![c; n];
            fft(&mut x, log_n, Direction::Forward);
            let mut want = vec![(0.0, 0.0); n];
            want[0] = (c.0 * n as f64, c.1 * n as f64);
            assert!(rel_l2(&x, &want) < 1e-14, "constant 2^{log_n}");
            // Tone e^{+2 pi i f n/N}: N at bin f; the inverse transform puts it at N - f.
            let f = 3 % n;
            let tone: Vec<C<f64>> = (0..n)
                .map(|j| root((f * j) as u64, n as u64, Direction::Inverse))
                .collect();
            let mut x = tone.clone();
            fft(&mut x, log_n, Direction::Forward);
            let mut want = vec![(0.0, 0.0); n];
            want[f] = (n as f64, 0.0);
            assert!(rel_l2(&x, &want) < 1e-13, "tone 2^{log_n}");
            let mut x = tone;
            fft(&mut x, log_n, Direction::Inverse);
            let mut want = vec![(0.0, 0.0); n];
            want[(n - f) % n] = (n as f64, 0.0);
            assert!(rel_l2(&x, &want) < 1e-13, "inverse tone 2^{log_n}");
        }
    }

    #[test]
    fn reference_fft_matches_dft() {
        for log_n in 0..=11 {
            for dir in [Direction::Forward, Direction::Inverse] {
                let x = random(2 << log_n, 40 + log_n as u64);
                let e = rel_l2(&reference_fft(&x, log_n, dir), &dft(&x, log_n, dir));
                assert!(e < 1e-13, "2^{log_n} {dir:?}: {e:e}");
            }
        }
    }

    #[test]
    fn split_covers_the_large_sizes() {
        for log_n in ONE_LAUNCH_MAX_LOG + 1..=MAX_LOG {
            let (l1, l2) = split(log_n);
            // fft_columns instantiates log N1 = 7 and 8 only (cuda/small/fft_tc.cu).
            assert!((7..=8).contains(&l1) && l2 <= ONE_LAUNCH_MAX_LOG && l1 + l2 == log_n);
            // A slab of 4096 / N1 columns fits in a row of N2.
            assert!(l2 + l1 >= 12, "2^{log_n}");
            // The folded row kernels take N2 = 2^6..2^9 with these N1 (fft_rows_any,
            // fft_large_fold_any): runs of at least 8 words.
            let pairs = [(7, 6), (7, 7), (8, 7), (8, 8), (8, 9)];
            assert_eq!(
                transpose_folded(log_n),
                pairs.contains(&(l1, l2)),
                "2^{log_n}"
            );
            assert_eq!(transpose_folded(log_n), l2 <= 9, "2^{log_n}");
            // The const arithmetic is the clamp it stands for.
            let want = log_n
                .div_ceil(2)
                .clamp(log_n.saturating_sub(ONE_LAUNCH_MAX_LOG).max(4), 8);
            assert_eq!(l1, want, "2^{log_n}");
        }
    }

    /// The four-step sizes against the f64 reference: f64 to 1e-13, f32 to 1e-6, a batch of 2
    /// up to 2^16, both directions; known answers; Parseval and inverse(forward) = N x in f32.
    #[test]
    fn four_step_matches_reference() {
        for log_n in ONE_LAUNCH_MAX_LOG + 1..=MAX_LOG {
            let n = 1usize << log_n;
            let batch = if log_n <= 16 { 2 } else { 1 };
            for dir in [Direction::Forward, Direction::Inverse] {
                let x = random(n * batch, 900 + log_n as u64);
                let mut y32 = model_against(&x, &reference_fft(&x, log_n, dir), log_n, dir);
                if dir == Direction::Forward {
                    let e_x: f64 = x.iter().map(|c| c.0 * c.0 + c.1 * c.1).sum();
                    let e_y: f64 = y32.iter().map(|c| (c.0 * c.0 + c.1 * c.1) as f64).sum();
                    let ratio = e_y / (e_x * n as f64);
                    assert!((ratio - 1.0).abs() < 1e-5, "Parseval 2^{log_n}: {ratio}");
                    fft(&mut y32, log_n, Direction::Inverse);
                    let nx: Vec<C<f64>> =
                        x.iter().map(|c| (c.0 * n as f64, c.1 * n as f64)).collect();
                    let e = rel_l2(&y32, &nx);
                    assert!(e < 1e-6, "inverse(forward) 2^{log_n}: {e:e}");
                }
            }
            let mut x = vec![(0.0f64, 0.0); n];
            x[0] = (1.0, 0.0);
            fft(&mut x, log_n, Direction::Forward);
            assert!(
                rel_l2(&x, &vec![(1.0, 0.0); n]) < 1e-14,
                "impulse 2^{log_n}"
            );
            let f = 12345 % n;
            let mut x: Vec<C<f64>> = (0..n)
                .map(|j| root((f * j) as u64, n as u64, Direction::Inverse))
                .collect();
            fft(&mut x, log_n, Direction::Forward);
            let mut want = vec![(0.0, 0.0); n];
            want[f] = (n as f64, 0.0);
            assert!(rel_l2(&x, &want) < 1e-12, "tone 2^{log_n}");
        }
    }

    #[test]
    fn parseval_and_round_trip() {
        for log_n in SIZES {
            let n = 1usize << log_n;
            let x = random(n * 2, 100 + log_n as u64);
            let mut y = to32(&x);
            fft(&mut y, log_n, Direction::Forward);
            let e_x: f64 = x.iter().map(|c| c.0 * c.0 + c.1 * c.1).sum();
            let e_y: f64 = y.iter().map(|c| (c.0 * c.0 + c.1 * c.1) as f64).sum();
            let ratio = e_y / (e_x * n as f64);
            assert!((ratio - 1.0).abs() < 1e-5, "Parseval 2^{log_n}: {ratio}");
            fft(&mut y, log_n, Direction::Inverse);
            let nx: Vec<C<f64>> = x.iter().map(|c| (c.0 * n as f64, c.1 * n as f64)).collect();
            let e = rel_l2(&y, &nx);
            assert!(e < 1e-6, "inverse(forward) 2^{log_n}: {e:e}");
        }
    }
}
