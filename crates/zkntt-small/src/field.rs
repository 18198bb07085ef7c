//! The three 32-bit NTT primes, their roots of unity, and plain modular arithmetic on `u32`.

use crate::{Direction, Error, Result};

/// An NTT-friendly prime below 2^31.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SmallField {
    /// q = 268369921 = 2^28 - 2^16 + 1; q - 1 = 2^16 * 4095.
    Q28,
    /// BabyBear, q = 2013265921 = 2^31 - 2^27 + 1; q - 1 = 2^27 * 15.
    BabyBear,
    /// KoalaBear, q = 2130706433 = 2^31 - 2^24 + 1; q - 1 = 2^24 * 127.
    KoalaBear,
}

/// log2 of the largest transform one kernel launch computes (the on-chip tile).
pub const TILE_LOG: u32 = 12;

impl SmallField {
    pub const ALL: [SmallField; 3] = [SmallField::Q28, SmallField::BabyBear, SmallField::KoalaBear];

    /// The modulus.
    pub const fn modulus(self) -> u32 {
        match self {
            SmallField::Q28 => 268_369_921,
            SmallField::BabyBear => 2_013_265_921,
            SmallField::KoalaBear => 2_130_706_433,
        }
    }

    /// Name used in kernel names and reports.
    pub const fn name(self) -> &'static str {
        match self {
            SmallField::Q28 => "q28",
            SmallField::BabyBear => "babybear",
            SmallField::KoalaBear => "koalabear",
        }
    }

    /// The largest k with 2^k | q - 1.
    pub const fn two_adicity(self) -> u32 {
        (self.modulus() - 1).trailing_zeros()
    }

    /// log2 of the largest supported transform: the two-adicity for Q28 (2^16) and KoalaBear
    /// (2^24), 2^26 for BabyBear (2^12-point columns, then 2^14-point rows on thread-block
    /// clusters). What one GPU and kernel take can be less: `SmallNtt::max_log_n`.
    pub const fn max_log_n(self) -> u32 {
        match self {
            SmallField::Q28 => 16,
            SmallField::KoalaBear => 24,
            SmallField::BabyBear => 26,
        }
    }

    /// Whether values may stay unreduced in [0, 2q) between layers (4q < 2^32).
    pub const fn harvey_lazy(self) -> bool {
        (self.modulus() as u64) * 4 <= 1 << 32
    }

    /// `SizeUnsupported` unless 2^log_n is supported.
    pub fn check_log_n(self, log_n: u32) -> Result<()> {
        if log_n > self.max_log_n() {
            return Err(Error::SizeUnsupported {
                field: self.name(),
                log_n,
                max: self.max_log_n(),
            });
        }
        Ok(())
    }

    pub fn add(self, a: u32, b: u32) -> u32 {
        ((a as u64 + b as u64) % self.modulus() as u64) as u32
    }

    pub fn sub(self, a: u32, b: u32) -> u32 {
        let q = self.modulus() as u64;
        ((a as u64 + q - (b as u64 % q)) % q) as u32
    }

    pub fn mul(self, a: u32, b: u32) -> u32 {
        ((a as u64 * b as u64) % self.modulus() as u64) as u32
    }

    pub fn pow(self, base: u32, mut e: u64) -> u32 {
        let mut acc = 1u32;
        let mut b = base % self.modulus();
        while e > 0 {
            if e & 1 == 1 {
                acc = self.mul(acc, b);
            }
            b = self.mul(b, b);
            e >>= 1;
        }
        acc
    }

    /// a^-1 by Fermat; `None` for 0.
    pub fn inv(self, a: u32) -> Option<u32> {
        (a % self.modulus() != 0).then(|| self.pow(a, self.modulus() as u64 - 2))
    }

    /// The smallest generator of the multiplicative group (31 for BabyBear, 3 for KoalaBear, as in
    /// Plonky3, whose two-adic generators are these roots: checked by `tests/plonky3.rs`).
    pub fn generator(self) -> u32 {
        let q = self.modulus();
        let factors = prime_factors(q - 1);
        (2..q)
            .find(|&g| {
                factors
                    .iter()
                    .all(|&p| self.pow(g, ((q - 1) / p) as u64) != 1)
            })
            .unwrap_or(1)
    }

    /// The primitive 2^log_n-th root of unity g^((q-1) / 2^log_n), for log_n up to the
    /// two-adicity. Powers of one root serve all sizes: root(k)^2 = root(k-1).
    pub fn root_of_unity(self, log_n: u32) -> Result<u32> {
        if log_n > self.two_adicity() {
            return Err(Error::SizeUnsupported {
                field: self.name(),
                log_n,
                max: self.two_adicity(),
            });
        }
        let q = self.modulus() as u64;
        Ok(self.pow(self.generator(), (q - 1) >> log_n))
    }

    /// The root for `direction`: w or w^-1.
    pub fn directed_root(self, log_n: u32, direction: Direction) -> Result<u32> {
        let w = self.root_of_unity(log_n)?;
        Ok(match direction {
            Direction::Forward => w,
            Direction::Inverse => self.inv(w).unwrap_or(1),
        })
    }
}

fn prime_factors(mut n: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        if n % p == 0 {
            out.push(p);
            while n % p == 0 {
                n /= p;
            }
        }
        p += 1;
    }
    if n > 1 {
        out.push(n);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants() {
        assert_eq!(SmallField::Q28.modulus(), (1 << 28) - (1 << 16) + 1);
        assert_eq!(SmallField::BabyBear.modulus(), (1 << 31) - (1 << 27) + 1);
        assert_eq!(SmallField::Q28.two_adicity(), 16);
        assert_eq!(SmallField::KoalaBear.modulus(), (1 << 31) - (1 << 24) + 1);
        assert_eq!(SmallField::BabyBear.two_adicity(), 27);
        assert_eq!(SmallField::KoalaBear.two_adicity(), 24);
        assert_eq!(SmallField::BabyBear.generator(), 31);
        assert_eq!(SmallField::KoalaBear.generator(), 3);
        assert!(SmallField::Q28.harvey_lazy());
        // 2q < 2^32 < 4q: only the multiplier's input stays unreduced.
        assert!(!SmallField::BabyBear.harvey_lazy());
        assert!(!SmallField::KoalaBear.harvey_lazy());
        for f in SmallField::ALL {
            assert!(f.max_log_n() <= f.two_adicity());
        }
    }

    #[test]
    fn roots_have_exact_order() {
        for f in SmallField::ALL {
            for k in 0..=f.two_adicity() {
                let w = f.root_of_unity(k).unwrap();
                assert_eq!(f.pow(w, 1 << k), 1, "{f:?} 2^{k}");
                if k > 0 {
                    assert_eq!(f.pow(w, 1 << (k - 1)), f.modulus() - 1, "{f:?} 2^{k}");
                    assert_eq!(f.mul(w, w), f.root_of_unity(k - 1).unwrap());
                }
                let wi = f.directed_root(k, Direction::Inverse).unwrap();
                assert_eq!(f.mul(w, wi), 1);
            }
            assert!(matches!(
                f.root_of_unity(f.two_adicity() + 1),
                Err(Error::SizeUnsupported { .. })
            ));
        }
    }
}
