//! CPU twin of a big-field Montgomery product on the FP64 pipe (issue 18): five 52-bit limbs,
//! partial products from pairs of IEEE fused multiply-adds (Emmart, Zheng and Weems, ARITH 2018),
//! column sums and the Montgomery reduction in 64-bit integers. `f64::mul_add` is the IEEE fused
//! multiply-add (one rounding), the operation the GPU's DFMA computes, so this twin and a kernel
//! built on the same steps agree bit for bit.
//!
//! Radix R' = 2^260 instead of ark-ff's R = 2^256. Data stays in ark's form (`a·R mod p`): a
//! twiddle `w` is stored pre-scaled as [`Mont52::prescale`]`(w) = w·R'/R mod p`, and then
//! `mont'(a, prescale(w)) = a·w·(R'/R)/R' = a·w/R = mont(a, w)`: the product of ark's Montgomery
//! forms, which is what today's integer product computes.
//! The conversions between eight 32-bit words and five 52-bit limbs are bit regroupings.
//!
//! Two forms: [`Mont52::mul`] (round-to-nearest pairs, two bias subtractions each) and
//! [`Mont52::mul_folded`] (the hi rounded toward zero, one subtraction per pair, the bit-pattern
//! offsets folded into the columns' starting values).

use crate::FieldDesc;
use num_bigint::BigUint;

/// Bits per limb: a product of two limbs (< 2^104) is exact as hi·2^52 + lo from two FMAs.
pub const LIMB_BITS: u32 = 52;
/// Limbs per element: 5 x 52 = 260 bits, room for p < 2^255 and R' = 2^260 > 4p.
pub const LIMBS: usize = 5;
const MASK: u64 = (1 << LIMB_BITS) - 1;
/// 2^104: `fma(x, y, 2^104)` lands in [2^104, 2^105], where the spacing of doubles is 2^52.
const BIAS_HI: f64 = (1u128 << 104) as f64;
/// 3·2^51: `lo + 3·2^51` lands in [2^52, 2^53], where doubles are the integers.
const BIAS_LO: f64 = (3u64 << 51) as f64;

/// `x·y = hi·2^52 + lo` exactly, for integers `x, y < 2^52` held in doubles: `hi` in [0, 2^52],
/// `lo` in [-2^51, 2^51]. Two FMAs, two subtractions of bit patterns (a double of a fixed binade
/// read as an integer is its mantissa plus a constant, and the first double of the next binade
/// continues the count).
pub fn dfma_product(x: f64, y: f64) -> (i64, i64) {
    let s = x.mul_add(y, BIAS_HI); // 2^104 + x·y rounded to a multiple of 2^52
    let hi = s.to_bits() as i64 - BIAS_HI.to_bits() as i64;
    // 3·2^51 - (s - 2^104): exact (an odd multiple of 2^51 below 2^104 in magnitude).
    let t = BIAS_LO - (s - BIAS_HI);
    let lo = x.mul_add(y, t).to_bits() as i64 - BIAS_LO.to_bits() as i64;
    (hi, lo)
}

/// 2^52: a double of the binade [2^52, 2^53) read as an integer is bits(2^52) plus its value
/// minus 2^52.
const TWO52: f64 = (1u64 << 52) as f64;
/// C1 = 2^104 + 2^52, the hi's addend in [`dfma_product_folded`]: a multiple of 2^52 in the binade
/// of 2^104 (any would do); not 2^104 itself, whose pattern is a 32-bit immediate to ptxas, which
/// then moves the DFMA's constant limb (of p, or the step) into registers at every use.
const FOLD_HI: f64 = ((1u128 << 104) + (1u128 << 52)) as f64;
/// C2 = C1 + 2^52, the lo's: `C2 - s` for `s = C1 + hi·2^52` is (1 - hi)·2^52.
const FOLD_LO: f64 = ((1u128 << 104) + (1u128 << 53)) as f64;
/// The constants the raw bit patterns of [`dfma_product_folded`] carry: every hi adds `HI_BITS`,
/// every lo `LO_BITS` (a multiple of 2^52).
const HI_BITS: u64 = FOLD_HI.to_bits();
const LO_BITS: u64 = TWO52.to_bits();

/// `fma(x, y, C1)` rounded toward zero (the GPU's `__fma_rz`) for integers `x, y < 2^52`:
/// `C1 + floor(x·y / 2^52)·2^52`. Rust's `mul_add` rounds to nearest; its exact residual
/// `x·y - (s - C1)` is negative exactly when it rounded up, and then one ulp (2^52) comes off.
fn fma_rz_hi(x: f64, y: f64) -> f64 {
    let s = x.mul_add(y, FOLD_HI);
    if x.mul_add(y, -(s - FOLD_HI)) < 0.0 {
        s - TWO52
    } else {
        s
    }
}

/// `x·y = hi·2^52 + lo` for integers `x, y < 2^52`, as raw bit patterns `(bits(s), bits(r))`
/// with `hi = bits(s) - HI_BITS` and `lo = bits(r) - LO_BITS`, both in [0, 2^52) (Emmart, Zheng and
/// Weems's form). Exact: `x·y ≤ (2^52 - 1)²`, so `s = RZ(x·y + C1)` stays in the binade
/// [2^104, 2^105), whose spacing is 2^52: `s = C1 + hi·2^52`, `hi = floor(x·y / 2^52)`;
/// `t = C2 - s = (1 - hi)·2^52` is exact (|1 - hi| < 2^52); `r = fma(x, y, t) = lo + 2^52` is an
/// integer in [2^52, 2^53), where doubles are the integers, so exact in any rounding. One
/// subtraction per pair instead of two; the patterns' offsets are left to the column sums.
pub fn dfma_product_folded(x: f64, y: f64) -> (u64, u64) {
    let s = fma_rz_hi(x, y);
    let r = x.mul_add(y, FOLD_LO - s);
    (s.to_bits(), r.to_bits())
}

/// Where [`Mont52::mul_folded`]'s columns start: minus the offsets of every pattern they will
/// receive (a·b and m·p put their pairs in the same places), modulo 2^64. Every hi of column k is
/// in before `m_k` is taken, and the one lo still to come (m_k·p_0's) has an offset that is a
/// multiple of 2^52, so no `m` sees the offsets; each column is exact once its last pair is in.
const FOLDED_START: [u64; 2 * LIMBS] = {
    let mut c = [0u64; 2 * LIMBS];
    let mut i = 0;
    while i < LIMBS {
        let mut j = 0;
        while j < LIMBS {
            c[i + j] = c[i + j].wrapping_sub(LO_BITS.wrapping_mul(2));
            c[i + j + 1] = c[i + j + 1].wrapping_sub(HI_BITS.wrapping_mul(2));
            j += 1;
        }
        i += 1;
    }
    c
};

/// Eight little-endian 32-bit words (ark's limbs) as five 52-bit limbs.
pub fn to_limbs52(words: &[u32; 8]) -> [u64; LIMBS] {
    to_limbs52_shifted(words, 0)
}

/// The words' value times 2^`shift` (not reduced; `shift` at most 4, so below 2^260) as five
/// 52-bit limbs: the bits moved up by `shift` (`to52<P, SHIFT>` in `cuda/field/mont52.cuh`).
/// With `shift` 4, a multiplier of [`Mont52::mul_folded`] that gives ark's product (R'/R = 16)
/// without a pre-scaled table: [`Mont52::mul_ark`].
pub fn to_limbs52_shifted(words: &[u32; 8], shift: u32) -> [u64; LIMBS] {
    assert!(
        shift <= 4,
        "below 2^256 times 2^{shift} must stay under 2^260"
    );
    let mut x = 0u128;
    let mut bits = shift;
    let mut out = [0u64; LIMBS];
    let mut k = 0;
    for &w in words {
        x |= (w as u128) << bits;
        bits += 32;
        while bits >= LIMB_BITS && k < LIMBS {
            out[k] = (x as u64) & MASK;
            x >>= LIMB_BITS;
            bits -= LIMB_BITS;
            k += 1;
        }
    }
    // The last 48 + shift bits: a partial limb, or (shift 4) the fifth limb filled in the loop.
    if k < LIMBS {
        out[k] = x as u64;
    }
    out
}

/// Five 52-bit limbs (value below 2^256) as eight 32-bit words.
pub fn from_limbs52(limbs: &[u64; LIMBS]) -> [u32; 8] {
    let mut x = 0u128;
    let mut bits = 0;
    let mut out = [0u32; 8];
    let mut k = 0;
    for &l in limbs {
        x |= (l as u128) << bits;
        bits += LIMB_BITS;
        while bits >= 32 && k < 8 {
            out[k] = x as u32;
            x >>= 32;
            bits -= 32;
            k += 1;
        }
    }
    out
}

/// A field's constants for the 52-bit Montgomery product.
#[derive(Debug, Clone)]
pub struct Mont52 {
    p: [u64; LIMBS],
    p_f: [f64; LIMBS],
    /// -p^-1 mod 2^52.
    ninv: u64,
    modulus: BigUint,
}

impl Mont52 {
    /// From a field descriptor (8 x 32-bit limbs, p < 2^256).
    pub fn new(desc: &FieldDesc) -> Self {
        let words: [u32; 8] = desc.modulus[..8].try_into().expect("8 limbs");
        let p = to_limbs52(&words);
        // Newton iteration for p0^-1 mod 2^64, then negated and cut to 52 bits.
        let mut inv: u64 = 1;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p[0].wrapping_mul(inv)));
        }
        Mont52 {
            p,
            p_f: p.map(|l| l as f64),
            ninv: inv.wrapping_neg() & MASK,
            modulus: BigUint::from_slice(&desc.modulus),
        }
    }

    /// `w·2^4 mod p` (R'/R = 2^4): a twiddle stored this way makes [`Self::mul`] of ark forms
    /// return ark's Montgomery product.
    pub fn prescale(&self, w: &[u32; 8]) -> [u32; 8] {
        let x = (BigUint::from_slice(w) << 4u32) % &self.modulus;
        let mut out = [0u32; 8];
        for (o, d) in out.iter_mut().zip(x.to_u32_digits()) {
            *o = d;
        }
        out
    }

    /// `a·b·2^-260 mod p`, in [0, 2p) for `a, b` in [0, 2p) (the kernels' lazy range): 25 FMA pairs
    /// for a·b, 25 for the reduction's m·p, column sums and carries in 64-bit integers.
    pub fn mul(&self, a: &[u64; LIMBS], b: &[u64; LIMBS]) -> [u64; LIMBS] {
        let (af, bf) = (a.map(|l| l as f64), b.map(|l| l as f64));
        // col[k]: the signed digit sum at 2^(52k); every column stays within +-2^58.
        let mut col = [0i64; 2 * LIMBS];
        for i in 0..LIMBS {
            for j in 0..LIMBS {
                let (hi, lo) = dfma_product(af[i], bf[j]);
                col[i + j] += lo;
                col[i + j + 1] += hi;
            }
        }
        for k in 0..LIMBS {
            // m·p0 cancels column k modulo 2^52 (two's complement: a negative column too).
            let m = ((col[k] as u64).wrapping_mul(self.ninv)) & MASK;
            let mf = m as f64;
            for j in 0..LIMBS {
                let (hi, lo) = dfma_product(mf, self.p_f[j]);
                col[k + j] += lo;
                col[k + j + 1] += hi;
            }
            debug_assert_eq!(col[k] & MASK as i64, 0, "column {k} cancelled");
            col[k + 1] += col[k] >> LIMB_BITS;
        }
        let mut r = [0u64; LIMBS];
        let mut carry = 0i64;
        for (k, limb) in r.iter_mut().enumerate() {
            let v = col[LIMBS + k] + carry;
            *limb = (v as u64) & MASK;
            carry = v >> LIMB_BITS;
        }
        debug_assert_eq!(carry, 0, "the result is below 2^260");
        r
    }

    /// [`Self::mul`] with [`dfma_product_folded`]'s pairs (one subtraction each) and columns
    /// that start at [`FOLDED_START`] (the bit-pattern offsets, paid once at compile time): the
    /// same result, bit for bit. Columns are unsigned (every digit is), at most 20 digits below
    /// 2^52 and a carry each, far below 2^64.
    pub fn mul_folded(&self, a: &[u64; LIMBS], b: &[u64; LIMBS]) -> [u64; LIMBS] {
        let (af, bf) = (a.map(|l| l as f64), b.map(|l| l as f64));
        let mut col = FOLDED_START;
        for i in 0..LIMBS {
            for j in 0..LIMBS {
                let (hi, lo) = dfma_product_folded(af[i], bf[j]);
                col[i + j] = col[i + j].wrapping_add(lo);
                col[i + j + 1] = col[i + j + 1].wrapping_add(hi);
            }
        }
        for k in 0..LIMBS {
            let m = col[k].wrapping_mul(self.ninv) & MASK;
            let mf = m as f64;
            for j in 0..LIMBS {
                let (hi, lo) = dfma_product_folded(mf, self.p_f[j]);
                col[k + j] = col[k + j].wrapping_add(lo);
                col[k + j + 1] = col[k + j + 1].wrapping_add(hi);
            }
            debug_assert_eq!(col[k] & MASK, 0, "column {k} cancelled");
            col[k + 1] = col[k + 1].wrapping_add(col[k] >> LIMB_BITS);
        }
        let mut r = [0u64; LIMBS];
        let mut carry = 0u64;
        for (k, limb) in r.iter_mut().enumerate() {
            let v = col[LIMBS + k] + carry;
            *limb = v & MASK;
            carry = v >> LIMB_BITS;
        }
        debug_assert_eq!(carry, 0, "the result is below 2^260");
        r
    }

    /// ark's Montgomery product `a·w·2^-256 mod p` of two elements given as ark's words, as the
    /// NTT's hybrid kernels take it on the FP64 pipe (`fp64::mul_ark` in `cuda/field/mont52.cuh`):
    /// [`Self::mul_folded`] of `a`'s limbs and [`to_limbs52_shifted`]`(w, 4)` (16·w not reduced,
    /// so no table is pre-scaled), canonical when `canonical` (fields without a lazy range). The result
    /// is below `a·16w/2^260 + p`: under 2p while `a·w < 2^256·p/16`, e.g. `a, w < 2p` with
    /// `p < 2^254` (BN254 Fr's lazy range) or `a, w < p` with `p < 2^255` (BLS12-381 Fr).
    pub fn mul_ark(&self, a: &[u32; 8], w: &[u32; 8], canonical: bool) -> [u32; 8] {
        let r = self.mul_folded(&to_limbs52(a), &to_limbs52_shifted(w, 4));
        from_limbs52(&if canonical { self.canonical(&r) } else { r })
    }

    /// `x mod p` for `x` in [0, 2p).
    pub fn canonical(&self, x: &[u64; LIMBS]) -> [u64; LIMBS] {
        let mut d = [0u64; LIMBS];
        let mut borrow = 0i64;
        for k in 0..LIMBS {
            let v = x[k] as i64 - self.p[k] as i64 + borrow;
            d[k] = (v as u64) & MASK;
            borrow = v >> LIMB_BITS;
        }
        if borrow < 0 { *x } else { d }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::mont_words as words;
    use crate::{FieldId, GpuField};
    use ark_std::rand::{Rng, SeedableRng, rngs::StdRng};

    #[test]
    fn fma_pairs_give_exact_limb_products() {
        let mut rng = StdRng::seed_from_u64(52);
        let edges = [0u64, 1, 2, (1 << 51) - 1, 1 << 51, MASK - 1, MASK];
        let mut xs: Vec<u64> = edges.to_vec();
        xs.extend((0..300).map(|_| rng.r#gen::<u64>() & MASK));
        for &x in &xs {
            for &y in &xs {
                let (hi, lo) = dfma_product(x as f64, y as f64);
                assert!(
                    (0..=1 << 52).contains(&hi) && lo.abs() <= 1 << 51,
                    "{x} {y}"
                );
                let got = ((hi as i128) << 52) + lo as i128;
                assert_eq!(got, x as i128 * y as i128, "{x} x {y}");
            }
        }
    }

    #[test]
    fn folded_pairs_give_exact_limb_products() {
        assert_eq!(HI_BITS, 0x4670_0000_0000_0001);
        assert_eq!(FOLD_LO.to_bits(), 0x4670_0000_0000_0002);
        assert_eq!(LO_BITS, 0x4330_0000_0000_0000);
        let mut rng = StdRng::seed_from_u64(104);
        // Times 1 and 3, 2^51 and its neighbours put remainders on and beside round-to-nearest's
        // ties (2^51 mod 2^52), where it and toward-zero part.
        let edges = [
            0u64,
            1,
            2,
            3,
            (1 << 51) - 1,
            1 << 51,
            (1 << 51) + 1,
            MASK - 1,
            MASK,
        ];
        let mut xs: Vec<u64> = edges.to_vec();
        xs.extend((0..300).map(|_| rng.r#gen::<u64>() & MASK));
        for &x in &xs {
            for &y in &xs {
                let xy = x as u128 * y as u128;
                let (hb, lb) = dfma_product_folded(x as f64, y as f64);
                // The emulated RZ is the definition: C1 + floor(x·y / 2^52)·2^52.
                assert_eq!(hb - HI_BITS, (xy >> 52) as u64, "hi {x} x {y}");
                assert_eq!(lb - LO_BITS, (xy as u64) & MASK, "lo {x} x {y}");
            }
        }
    }

    type MulFn = fn(&Mont52, &[u64; LIMBS], &[u64; LIMBS]) -> [u64; LIMBS];

    fn check_field<F: GpuField>(id: FieldId) {
        for (form, mul) in [
            ("mul", Mont52::mul as MulFn),
            ("mul_folded", Mont52::mul_folded as MulFn),
        ] {
            check_form::<F>(id, form, mul);
        }
    }

    fn check_form<F: GpuField>(id: FieldId, form: &str, mul: MulFn) {
        let m = Mont52::new(&id.desc());
        let mut rng = StdRng::seed_from_u64(18);
        let p_minus = |k: u64| -F::from(k);
        let mut values: Vec<F> = vec![F::zero(), F::one(), p_minus(1), p_minus(2), F::from(2u64)];
        // Values near 2^254 (as integers) and near p/2.
        let two_253 = F::from(2u64).pow([253u64]);
        values.extend([
            two_253,
            two_253 - F::one(),
            two_253 * F::from(3u64) / F::from(2u64),
        ]);
        values.extend((0..200).map(|_| F::rand(&mut rng)));
        for a in &values {
            let la = to_limbs52(&words(a));
            assert_eq!(from_limbs52(&la), words(a), "limb round trip");
            for w in &values {
                let tw = to_limbs52(&m.prescale(&words(w)));
                let got = m.canonical(&mul(&m, &la, &tw));
                assert_eq!(
                    from_limbs52(&got),
                    words(&(*a * w)),
                    "{} {form}: {a} x {w}",
                    id.name()
                );
            }
        }
        // Inputs anywhere in the lazy range [0, 2p): a + p for a in the list.
        let p = to_limbs52(&id.desc().modulus[..].try_into().unwrap());
        for a in values.iter().take(60) {
            let mut la = to_limbs52(&words(a));
            let mut carry = 0u64;
            for k in 0..LIMBS {
                let v = la[k] + p[k] + carry;
                la[k] = v & MASK;
                carry = v >> LIMB_BITS;
            }
            for w in values.iter().take(60) {
                let tw = to_limbs52(&m.prescale(&words(w)));
                let lazy = mul(&m, &la, &tw);
                assert_eq!(
                    lazy,
                    m.mul(&la, &tw),
                    "{form}: both forms, the same lazy result"
                );
                assert_eq!(
                    from_limbs52(&m.canonical(&lazy)),
                    words(&(*a * w)),
                    "{form} lazy"
                );
            }
        }
        // A chain of products, as the microbenchmark runs them.
        let (mut x, step) = (F::rand(&mut rng), F::rand(&mut rng));
        let (mut lx, ls) = (
            to_limbs52(&words(&x)),
            to_limbs52(&m.prescale(&words(&step))),
        );
        for _ in 0..1000 {
            x *= step;
            lx = mul(&m, &lx, &ls);
        }
        assert_eq!(from_limbs52(&m.canonical(&lx)), words(&x), "{form} chain");
    }

    /// [`Mont52::mul_ark`] over the operand ranges the hybrid NTT kernels give it: both in [0, 2p)
    /// for BN254 Fr (lazy), both canonical for BLS12-381 Fr; edge values and random ones.
    fn check_mul_ark<F: GpuField>(id: FieldId, lazy: bool) {
        let m = Mont52::new(&id.desc());
        let p = BigUint::from_slice(&id.desc().modulus);
        let mut rng = StdRng::seed_from_u64(1018);
        let p_minus = |k: u64| -F::from(k);
        let two_253 = F::from(2u64).pow([253u64]);
        let mut values: Vec<F> = vec![
            F::zero(),
            F::one(),
            p_minus(1),
            p_minus(2),
            two_253,
            two_253 - F::one(),
        ];
        values.extend((0..120).map(|_| F::rand(&mut rng)));
        let big = |x: &[u32; 8]| BigUint::from_slice(x);
        let to_words = |x: &BigUint| {
            let mut out = [0u32; 8];
            for (o, d) in out.iter_mut().zip(x.to_u32_digits()) {
                *o = d;
            }
            out
        };
        // Each value as itself and, in the lazy range, plus p.
        let reps = |x: &F| {
            let w = words(x);
            let mut v = vec![w];
            if lazy {
                v.push(to_words(&(big(&w) + &p)));
            }
            v
        };
        for a in &values {
            for w in &values {
                let want = words(&(*a * w));
                for ra in reps(a) {
                    for rw in reps(w) {
                        let got = m.mul_ark(&ra, &rw, !lazy);
                        assert!(big(&got) < (&p << 1u32), "{} below 2p", id.name());
                        assert!(lazy || big(&got) < p, "{} canonical", id.name());
                        assert_eq!(
                            to_words(&(big(&got) % &p)),
                            want,
                            "{}: {a} x {w}",
                            id.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn hybrid_products_equal_ark() {
        check_mul_ark::<ark_bn254::Fr>(FieldId::Bn254Fr, true);
        check_mul_ark::<ark_bls12_381::Fr>(FieldId::Bls12_381Fr, false);
    }

    #[test]
    fn bn254_products_equal_ark() {
        check_field::<ark_bn254::Fr>(FieldId::Bn254Fr);
    }

    #[test]
    fn bls12_381_products_equal_ark() {
        check_field::<ark_bls12_381::Fr>(FieldId::Bls12_381Fr);
    }
}
