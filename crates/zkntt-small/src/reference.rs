//! CPU references, written for clarity: the O(N^2) definition, an iterative radix-2 NTT, and
//! naive cyclic convolution. Natural order in and out; the inverse is scaled by 1/N.

use crate::{Direction, Error, Result, SmallField};

/// `ValueOutOfRange` unless every element is below `bound`.
pub fn check_below(data: &[u32], bound: u64) -> Result<()> {
    match data.iter().position(|&x| x as u64 >= bound) {
        Some(index) => Err(Error::ValueOutOfRange {
            index,
            value: data[index] as u64,
            bound,
        }),
        None => Ok(()),
    }
}

/// log2 of `len`, or an error when it is not a power of two the field supports.
fn log2_len(field: SmallField, len: usize) -> Result<u32> {
    if !len.is_power_of_two() {
        return Err(Error::NotPowerOfTwo { len });
    }
    let log_n = len.trailing_zeros();
    if log_n > field.two_adicity() {
        return Err(Error::SizeUnsupported {
            field: field.name(),
            log_n,
            max: field.two_adicity(),
        });
    }
    Ok(log_n)
}

/// X_k = sum_n x_n w^(nk) (forward) or (1/N) sum_n x_n w^(-nk) (inverse), by the definition.
pub fn naive_ntt(field: SmallField, x: &[u32], direction: Direction) -> Result<Vec<u32>> {
    let log_n = log2_len(field, x.len())?;
    check_below(x, field.modulus() as u64)?;
    let n = x.len();
    let w = field.directed_root(log_n, direction)?;
    let scale = match direction {
        Direction::Forward => 1,
        Direction::Inverse => field.inv(n as u32 % field.modulus()).unwrap_or(1),
    };
    Ok((0..n)
        .map(|k| {
            let wk = field.pow(w, k as u64);
            let mut acc = 0u32;
            let mut wnk = 1u32;
            for &xn in x {
                acc = field.add(acc, field.mul(xn, wnk));
                wnk = field.mul(wnk, wk);
            }
            field.mul(acc, scale)
        })
        .collect())
}

/// In-place radix-2 NTT: bit-reversal permutation, then Cooley-Tukey layers.
pub fn ntt(field: SmallField, data: &mut [u32], direction: Direction) -> Result<()> {
    log2_len(field, data.len())?;
    check_below(data, field.modulus() as u64)?;
    let n = data.len();
    if n == 1 {
        return Ok(());
    }
    zkntt_core::reference::bit_reverse_permute(data);
    let mut half = 1;
    let mut level = 1;
    while half < n {
        let w_len = field.directed_root(level, direction)?;
        for start in (0..n).step_by(2 * half) {
            let mut w = 1u32;
            for j in start..start + half {
                let t = field.mul(data[j + half], w);
                data[j + half] = field.sub(data[j], t);
                data[j] = field.add(data[j], t);
                w = field.mul(w, w_len);
            }
        }
        half *= 2;
        level += 1;
    }
    if direction == Direction::Inverse {
        let n_inv = field.inv(n as u32).unwrap_or(1);
        for x in data.iter_mut() {
            *x = field.mul(*x, n_inv);
        }
    }
    Ok(())
}

/// `ntt` on each consecutive transform of 2^log_n elements.
pub fn ntt_batch(
    field: SmallField,
    data: &mut [u32],
    log_n: u32,
    direction: Direction,
) -> Result<()> {
    if log_n > field.two_adicity() {
        return Err(Error::SizeUnsupported {
            field: field.name(),
            log_n,
            max: field.two_adicity(),
        });
    }
    if data.len() % (1usize << log_n) != 0 {
        return Err(Error::NotWholeTransforms {
            len: data.len(),
            log_n,
        });
    }
    for chunk in data.chunks_exact_mut(1 << log_n) {
        ntt(field, chunk, direction)?;
    }
    Ok(())
}

/// c_k = sum_{i + j = k mod N} a_i b_j, by the definition.
pub fn cyclic_convolution(field: SmallField, a: &[u32], b: &[u32]) -> Result<Vec<u32>> {
    if a.len() != b.len() {
        return Err(Error::LengthMismatch {
            expected: a.len(),
            got: b.len(),
        });
    }
    check_below(a, field.modulus() as u64)?;
    check_below(b, field.modulus() as u64)?;
    let n = a.len();
    let mut c = vec![0u32; n];
    for (i, &ai) in a.iter().enumerate() {
        for (j, &bj) in b.iter().enumerate() {
            let k = (i + j) % n;
            c[k] = field.add(c[k], field.mul(ai, bj));
        }
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    pub(crate) fn random(field: SmallField, n: usize, seed: u64) -> Vec<u32> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n).map(|_| rng.gen_range(0..field.modulus())).collect()
    }

    #[test]
    fn radix2_matches_definition() {
        for field in SmallField::ALL {
            for log_n in 0..=7 {
                let x = random(field, 1 << log_n, log_n as u64);
                for dir in [Direction::Forward, Direction::Inverse] {
                    let mut got = x.clone();
                    ntt(field, &mut got, dir).unwrap();
                    assert_eq!(
                        got,
                        naive_ntt(field, &x, dir).unwrap(),
                        "{field:?} 2^{log_n}"
                    );
                }
            }
        }
    }

    #[test]
    fn known_answer() {
        // 4-point NTT with w = a primitive 4th root: X = [sum, x0 - x2 + w(x1 - x3), ...].
        let f = SmallField::Q28;
        let w = f.root_of_unity(2).unwrap();
        let x = [1, 2, 3, 4];
        let got = naive_ntt(f, &x, Direction::Forward).unwrap();
        assert_eq!(got[0], 10);
        assert_eq!(got[2], f.sub(4, 6));
        assert_eq!(got[1], f.add(f.sub(1, 3), f.mul(w, f.sub(2, 4))));
    }

    #[test]
    fn inverse_undoes_forward_with_edges() {
        for field in SmallField::ALL {
            let q = field.modulus();
            for log_n in [1, 5, 12, 16] {
                let mut x = random(field, 1 << log_n, 7);
                x[0] = 0;
                x[1] = q - 1;
                let mut y = x.clone();
                ntt(field, &mut y, Direction::Forward).unwrap();
                ntt(field, &mut y, Direction::Inverse).unwrap();
                assert_eq!(y, x, "{field:?} 2^{log_n}");
            }
        }
    }

    #[test]
    fn convolution_theorem() {
        for field in SmallField::ALL {
            for log_n in [0, 1, 3, 6, 9] {
                let a = random(field, 1 << log_n, 1);
                let b = random(field, 1 << log_n, 2);
                let (mut fa, mut fb) = (a.clone(), b.clone());
                ntt(field, &mut fa, Direction::Forward).unwrap();
                ntt(field, &mut fb, Direction::Forward).unwrap();
                let mut c: Vec<u32> = fa.iter().zip(&fb).map(|(&x, &y)| field.mul(x, y)).collect();
                ntt(field, &mut c, Direction::Inverse).unwrap();
                assert_eq!(
                    c,
                    cyclic_convolution(field, &a, &b).unwrap(),
                    "{field:?} 2^{log_n}"
                );
            }
        }
    }

    #[test]
    fn bad_inputs_are_errors() {
        let f = SmallField::Q28;
        let mut x = vec![0u32; 3];
        assert!(matches!(
            ntt(f, &mut x, Direction::Forward),
            Err(Error::NotPowerOfTwo { len: 3 })
        ));
        let mut x = vec![f.modulus(); 4];
        assert!(matches!(
            ntt(f, &mut x, Direction::Forward),
            Err(Error::ValueOutOfRange { .. })
        ));
        let mut x = vec![0u32; 1 << 17];
        assert!(matches!(
            ntt(f, &mut x, Direction::Forward),
            Err(Error::SizeUnsupported { .. })
        ));
        let mut x = vec![0u32; 12];
        assert!(matches!(
            ntt_batch(f, &mut x, 3, Direction::Forward),
            Err(Error::NotWholeTransforms { .. })
        ));
        assert!(matches!(
            cyclic_convolution(f, &[1], &[1, 2]),
            Err(Error::LengthMismatch { .. })
        ));
        // A size no shift can take: an error, not an overflow.
        for log_n in [f.two_adicity() + 1, 64, u32::MAX] {
            assert!(matches!(
                ntt_batch(f, &mut x, log_n, Direction::Forward),
                Err(Error::SizeUnsupported { .. })
            ));
        }
    }
}
