//! 32-bit modular multiplication in the forms of seed 002, as CPU twins of
//! `cuda/small/modmul.cuh`: the same operations in the same order, so results are bit-identical,
//! lazy (unreduced) results included.

use crate::{Error, Result};

/// How a product modulo q is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModMulForm {
    /// `(a * b) % q` with q known only at run time: a 64-bit remainder routine on the GPU.
    Dynamic,
    /// `(a * b) % Q` with Q a compile-time constant: nvcc's magic-number division (the blog's
    /// "Barrett (compiler)").
    ConstMod,
    /// Explicit Barrett reduction with mu = floor(2^(2k) / q). Operands below q.
    Barrett,
    /// Shoup: a fixed multiplier w carries w' = floor(w * 2^32 / q).
    Shoup,
    /// Shoup without the final subtraction: a result in [0, 2q), for any a < 2^32.
    ShoupLazy,
    /// Montgomery (R = 2^32) with the multiplier in Montgomery form: mont(a, wR) = a*w mod q.
    Montgomery,
    /// Montgomery without the final subtraction: a result in (0, 2q), for any a < 2^32, w < q.
    MontgomeryLazy,
}

impl ModMulForm {
    pub const ALL: [ModMulForm; 7] = [
        ModMulForm::Dynamic,
        ModMulForm::ConstMod,
        ModMulForm::Barrett,
        ModMulForm::Shoup,
        ModMulForm::ShoupLazy,
        ModMulForm::Montgomery,
        ModMulForm::MontgomeryLazy,
    ];

    /// The name in kernel names.
    pub const fn name(self) -> &'static str {
        match self {
            ModMulForm::Dynamic => "dynamic",
            ModMulForm::ConstMod => "const_mod",
            ModMulForm::Barrett => "barrett",
            ModMulForm::Shoup => "shoup",
            ModMulForm::ShoupLazy => "shoup_lazy",
            ModMulForm::Montgomery => "montgomery",
            ModMulForm::MontgomeryLazy => "montgomery_lazy",
        }
    }

    /// A label for tables.
    pub const fn label(self) -> &'static str {
        match self {
            ModMulForm::Dynamic => "dynamic %",
            ModMulForm::ConstMod => "Barrett (compiler, % by constant)",
            ModMulForm::Barrett => "Barrett (explicit mu)",
            ModMulForm::Shoup => "Shoup",
            ModMulForm::ShoupLazy => "Shoup lazy",
            ModMulForm::Montgomery => "Montgomery",
            ModMulForm::MontgomeryLazy => "Montgomery lazy",
        }
    }

    /// Whether products come back in [0, 2q) rather than reduced.
    pub const fn is_lazy(self) -> bool {
        matches!(self, ModMulForm::ShoupLazy | ModMulForm::MontgomeryLazy)
    }

    /// Whether a multiplier carries a second word (the Shoup companion).
    pub const fn has_companion(self) -> bool {
        matches!(self, ModMulForm::Shoup | ModMulForm::ShoupLazy)
    }

    /// The largest first operand (exclusive) the form multiplies correctly, the second operand
    /// being a canonical multiplier: q for the reduced forms (q^2 < 2^64 makes `%` correct for
    /// anything, but Barrett needs a < q), 2^32 for the lazy ones.
    pub fn operand_bound(self, q: u32) -> u64 {
        match self {
            ModMulForm::Barrett => q as u64,
            _ => 1 << 32,
        }
    }
}

/// `x` in [0, 2m) to [0, m): the unsigned minimum of x and x - m (the GPU's branch-free form).
pub fn reduce_once(x: u32, m: u32) -> u32 {
    x.min(x.wrapping_sub(m))
}

/// The constants of an odd modulus q < 2^31 that the forms use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modulus {
    pub q: u32,
    /// Bit length of q.
    pub k: u32,
    /// floor(2^(2k) / q), below 2^32.
    pub mu: u64,
    /// q^-1 mod 2^32.
    pub qinv: u32,
}

impl Modulus {
    pub fn new(q: u32) -> Result<Self> {
        if q % 2 == 0 || !(3..1 << 31).contains(&q) {
            return Err(Error::BadModulus(q as u64));
        }
        let k = 32 - q.leading_zeros();
        let mut qinv = q;
        for _ in 0..5 {
            qinv = qinv.wrapping_mul(2u32.wrapping_sub(q.wrapping_mul(qinv)));
        }
        Ok(Self {
            q,
            k,
            mu: (1u64 << (2 * k)) / q as u64,
            qinv,
        })
    }

    pub fn mul_dynamic(&self, a: u32, b: u32) -> u32 {
        (a as u64 * b as u64 % self.q as u64) as u32
    }

    /// Twin of `mul_barrett<Q>`: correct for a, b < q.
    pub fn mul_barrett(&self, a: u32, b: u32) -> u32 {
        let q = self.q as u64;
        let x = a as u64 * b as u64;
        let t = (((x >> (self.k - 1)) as u32 as u64) * (self.mu as u32 as u64)) >> (self.k + 1);
        let r = x.wrapping_sub((t as u32 as u64).wrapping_mul(q));
        let r = if r >= 2 * q { r - 2 * q } else { r };
        (if r >= q { r - q } else { r }) as u32
    }

    /// floor(w * 2^32 / q), for w < q.
    pub fn shoup_companion(&self, w: u32) -> u32 {
        (((w as u64) << 32) / self.q as u64) as u32
    }

    /// Twin of `mul_shoup_lazy<Q>`: a*w mod q in [0, 2q) for any a < 2^32, w < q.
    pub fn mul_shoup_lazy(&self, a: u32, w: u32, w_shoup: u32) -> u32 {
        let qhat = ((a as u64 * w_shoup as u64) >> 32) as u32;
        a.wrapping_mul(w).wrapping_sub(qhat.wrapping_mul(self.q))
    }

    pub fn mul_shoup(&self, a: u32, w: u32, w_shoup: u32) -> u32 {
        reduce_once(self.mul_shoup_lazy(a, w, w_shoup), self.q)
    }

    /// w * 2^32 mod q.
    pub fn to_mont(&self, w: u32) -> u32 {
        (((w as u64) << 32) % self.q as u64) as u32
    }

    /// Twin of `mul_mont_lazy<Q>`: a*b/2^32 mod q in (0, 2q), for a < 2^32, b < q.
    pub fn mul_mont_lazy(&self, a: u32, b: u32) -> u32 {
        let ab = a as u64 * b as u64;
        let m = (ab as u32).wrapping_mul(self.qinv);
        let mq_hi = ((m as u64 * self.q as u64) >> 32) as u32;
        ((ab >> 32) as u32).wrapping_sub(mq_hi).wrapping_add(self.q)
    }

    /// Twin of `mul_mont<Q>`: a*b/2^32 mod q, reduced.
    pub fn mul_mont(&self, a: u32, b: u32) -> u32 {
        let ab = a as u64 * b as u64;
        let m = (ab as u32).wrapping_mul(self.qinv);
        let d = ((ab >> 32) as u32).wrapping_sub(((m as u64 * self.q as u64) >> 32) as u32);
        d.min(d.wrapping_add(self.q))
    }

    /// A canonical multiplier w in `form`'s representation: (w, 0), (w, w'), or (wR mod q, 0).
    pub fn encode(&self, form: ModMulForm, w: u32) -> [u32; 2] {
        match form {
            ModMulForm::Dynamic | ModMulForm::ConstMod | ModMulForm::Barrett => [w, 0],
            ModMulForm::Shoup | ModMulForm::ShoupLazy => [w, self.shoup_companion(w)],
            ModMulForm::Montgomery | ModMulForm::MontgomeryLazy => [self.to_mont(w), 0],
        }
    }

    /// x times an encoded multiplier, exactly as the form's device code computes it.
    pub fn mul(&self, form: ModMulForm, x: u32, w: [u32; 2]) -> u32 {
        match form {
            ModMulForm::Dynamic | ModMulForm::ConstMod => self.mul_dynamic(x, w[0]),
            ModMulForm::Barrett => self.mul_barrett(x, w[0]),
            ModMulForm::Shoup => self.mul_shoup(x, w[0], w[1]),
            ModMulForm::ShoupLazy => self.mul_shoup_lazy(x, w[0], w[1]),
            ModMulForm::Montgomery => self.mul_mont(x, w[0]),
            ModMulForm::MontgomeryLazy => self.mul_mont_lazy(x, w[0]),
        }
    }

    /// Twin of the `modmul_chain16_*` kernels: a * b^16 mod q, reduced.
    pub fn chain16(&self, form: ModMulForm, a: u32, b: u32) -> u32 {
        let w = self.encode(form, b);
        let mut x = a;
        for _ in 0..16 {
            x = self.mul(form, x, w);
        }
        if form.is_lazy() {
            reduce_once(x, self.q)
        } else {
            x
        }
    }
}

/// The moduli of the blog's experiment, by bit width (16, 20, 24, 28).
pub const BLOG_MODULI: [(u32, u32); 4] = [
    (16, 65_521),
    (20, 1_048_573),
    (24, 16_769_023),
    (28, 268_369_921),
];

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn moduli() -> Vec<Modulus> {
        let mut qs: Vec<u32> = BLOG_MODULI.iter().map(|m| m.1).collect();
        qs.push(crate::SmallField::BabyBear.modulus());
        qs.push(crate::SmallField::KoalaBear.modulus());
        qs.push((1 << 31) - 1);
        qs.push(3);
        qs.into_iter().map(|q| Modulus::new(q).unwrap()).collect()
    }

    fn edges(q: u32) -> Vec<u32> {
        vec![0, 1, 2, q / 2, q - 2, q - 1]
    }

    #[test]
    fn bad_moduli_are_errors() {
        for q in [0u32, 1, 2, 1 << 20, 1 << 31, u32::MAX] {
            assert!(matches!(Modulus::new(q), Err(Error::BadModulus(_))), "{q}");
        }
    }

    #[test]
    fn constants_are_right() {
        for m in moduli() {
            assert_eq!(m.q.wrapping_mul(m.qinv), 1);
            assert!(m.mu < 1 << 32);
            assert!(m.q < 1 << m.k && m.q >= 1 << (m.k - 1));
        }
    }

    fn check_all_forms(m: &Modulus, a: u32, b: u32) {
        let want = m.mul_dynamic(a, b);
        for form in ModMulForm::ALL {
            let got = m.mul(form, a, m.encode(form, b));
            if form.is_lazy() {
                assert!(
                    got < 2 * m.q,
                    "{form:?} q={} {a}*{b}: {got} not below 2q",
                    m.q
                );
                assert_eq!(reduce_once(got, m.q), want, "{form:?} q={} {a}*{b}", m.q);
            } else {
                assert_eq!(got, want, "{form:?} q={} {a}*{b}", m.q);
            }
        }
    }

    #[test]
    fn every_form_agrees_on_edges() {
        for m in moduli() {
            for &a in &edges(m.q) {
                for &b in &edges(m.q) {
                    check_all_forms(&m, a, b);
                }
            }
        }
    }

    #[test]
    fn lazy_forms_take_unreduced_operands() {
        // Up to the lazy bound: any a < 2^32 (which covers 16q for Q28), multiplier canonical.
        for m in moduli() {
            for a in [
                2 * m.q - 1,
                4 * m.q.min(1 << 29) - 1,
                u32::MAX,
                u32::MAX - 1,
            ] {
                for b in edges(m.q) {
                    let want = m.mul_dynamic(a, b);
                    for form in [ModMulForm::ShoupLazy, ModMulForm::MontgomeryLazy] {
                        let got = m.mul(form, a, m.encode(form, b));
                        assert!(got < 2 * m.q);
                        assert_eq!(reduce_once(got, m.q), want, "{form:?} q={} {a}*{b}", m.q);
                    }
                }
            }
        }
        // Q28: 16q fits in 32 bits, so [0, 16q) is in range.
        let q = crate::SmallField::Q28.modulus();
        assert!(16 * (q as u64) < 1 << 32);
    }

    #[test]
    fn chains_agree() {
        for m in moduli() {
            for &(a, b) in &[(1, 2), (m.q - 1, m.q - 1), (12345 % m.q, 678 % m.q)] {
                let want = (0..16).fold(a, |x, _| m.mul_dynamic(x, b));
                for form in ModMulForm::ALL {
                    assert_eq!(m.chain16(form, a, b), want, "{form:?} q={}", m.q);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn random_operands(qi in 0usize..7, a: u32, b: u32) {
            let m = moduli()[qi];
            check_all_forms(&m, a % m.q, b % m.q);
            let want = m.mul_dynamic(a, b % m.q);
            for form in [ModMulForm::ShoupLazy, ModMulForm::MontgomeryLazy] {
                prop_assert_eq!(reduce_once(m.mul(form, a, m.encode(form, b % m.q)), m.q), want);
            }
        }
    }
}
