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

/// Eight little-endian 32-bit words (ark's limbs) as five 52-bit limbs.
pub fn to_limbs52(words: &[u32; 8]) -> [u64; LIMBS] {
    let mut x = 0u128;
    let mut bits = 0;
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
    out[k] = x as u64; // the last 48 bits
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

    fn check_field<F: GpuField>(id: FieldId) {
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
                let got = m.canonical(&m.mul(&la, &tw));
                assert_eq!(
                    from_limbs52(&got),
                    words(&(*a * w)),
                    "{}: {a} x {w}",
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
                let lazy = m.mul(&la, &tw);
                assert_eq!(from_limbs52(&m.canonical(&lazy)), words(&(*a * w)));
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
            lx = m.mul(&lx, &ls);
        }
        assert_eq!(from_limbs52(&m.canonical(&lx)), words(&x), "chain");
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
