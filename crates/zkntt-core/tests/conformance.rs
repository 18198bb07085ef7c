//! The CPU reference against the independent fixtures, against ark-poly, against a naive DFT,
//! and the 2-D model against the reference.

use ark_ff::{FftField, PrimeField};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use num_bigint::BigUint;
use proptest::prelude::*;
use zkntt_core::reference::{self, bit_reverse_permute};
use zkntt_core::{BatchLayout, Direction, Error, NttConfig, Ordering, four_step};

mod common;
use common::{ark_poly_cases, random_vec};

// ---------------------------------------------------------------- fixtures (independent oracle)

fn parse_hex<F: PrimeField>(v: &serde_json::Value) -> F {
    let s = v.as_str().unwrap().trim_start_matches("0x");
    let x = BigUint::parse_bytes(s.as_bytes(), 16).unwrap();
    F::from_bigint(F::BigInt::try_from(x).unwrap()).expect("fixture value below the modulus")
}

/// Embedded so the test binary runs anywhere (the GPU machine has the binary, not this path).
const FIXTURE_BN254: &str = include_str!("../../../fixtures/bn254_fr.json");
const FIXTURE_BLS12_381: &str = include_str!("../../../fixtures/bls12_381_fr.json");

fn check_fixtures<F: PrimeField + FftField>(name: &str, text: &str) {
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    let modulus: BigUint = F::MODULUS.into();
    assert_eq!(
        doc["modulus"].as_str().unwrap(),
        format!("0x{modulus:x}"),
        "{name}: modulus"
    );
    assert_eq!(
        F::from(doc["generator"].as_u64().unwrap()),
        F::GENERATOR,
        "{name}: generator"
    );
    let mut checked = 0;
    for size in doc["sizes"].as_array().unwrap() {
        let log_n = size["log_n"].as_u64().unwrap() as u32;
        let input: Vec<F> = size["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(parse_hex)
            .collect();
        assert_eq!(input.len(), 1 << log_n);
        for case in size["cases"].as_array().unwrap() {
            let offset: F = parse_hex(&case["offset"]);
            let direction = match case["kind"].as_str().unwrap() {
                "forward" => Direction::Forward,
                "inverse" => Direction::Inverse,
                k => panic!("unknown kind {k}"),
            };
            let mut cfg = NttConfig::forward().with_direction(direction);
            if !offset.is_one() {
                cfg = cfg.with_coset(offset);
            }
            let want: Vec<F> = case["output"]
                .as_array()
                .unwrap()
                .iter()
                .map(parse_hex)
                .collect();
            let mut got = input.clone();
            reference::ntt(&mut got, &cfg).unwrap();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g, w,
                    "{name} 2^{log_n} {direction:?} offset {offset}: element {i}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 66, "{name}: every fixture case checked");
}

#[test]
fn fixtures_bn254() {
    check_fixtures::<ark_bn254::Fr>("bn254_fr", FIXTURE_BN254);
}

#[test]
fn fixtures_bls12_381() {
    check_fixtures::<ark_bls12_381::Fr>("bls12_381_fr", FIXTURE_BLS12_381);
}

// ---------------------------------------------------------------- ark-poly, 2^0..2^20

fn check_ark_poly<F: FftField>(label: &str, max_log: u32) {
    let mut rng = StdRng::seed_from_u64(42);
    for log_n in 0..=max_log {
        // Each inverse case's input is its forward's ark-poly output, which the forward case
        // checks ours against: ifft(fft) and coset ifft(fft) come back to the coefficients.
        let ark = ark_poly_cases::<F>(&mut rng, log_n);
        for (what, cfg, input, want) in &ark.cases {
            let mut ours = input.clone();
            reference::ntt(&mut ours, cfg).unwrap();
            assert!(ours == *want, "{label} {what} 2^{log_n}");
            if cfg.direction == Direction::Inverse {
                assert!(ours == ark.coeffs, "{label} {what}(fft) 2^{log_n}");
            }
        }
    }
}

#[test]
fn ark_poly_bn254_to_2_20() {
    check_ark_poly::<ark_bn254::Fr>("bn254", 20);
}

#[test]
fn ark_poly_bls12_381_to_2_20() {
    check_ark_poly::<ark_bls12_381::Fr>("bls12_381", 20);
}

// ---------------------------------------------------------------- naive DFT, orderings, batches

/// O(N^2) definition, independent of the radix-2 code.
fn naive<F: FftField>(a: &[F], cfg: &NttConfig<F>) -> Vec<F> {
    let n = a.len();
    let log_n = n.trailing_zeros();
    let mut input = a.to_vec();
    if cfg.ordering.input_reversed() {
        bit_reverse_permute(&mut input);
    }
    let w = F::get_root_of_unity(n as u64).unwrap();
    let g = cfg.coset.unwrap_or(F::one());
    let mut out = vec![F::zero(); n];
    match cfg.direction {
        Direction::Forward => {
            for (k, o) in out.iter_mut().enumerate() {
                let x = g * w.pow([k as u64]);
                *o = input
                    .iter()
                    .enumerate()
                    .map(|(j, v)| *v * x.pow([j as u64]))
                    .sum();
            }
        }
        Direction::Inverse => {
            let n_inv = F::from(n as u64).inverse().unwrap();
            let g_inv = g.inverse().unwrap();
            let w_inv = w.inverse().unwrap();
            for (j, o) in out.iter_mut().enumerate() {
                let s: F = input
                    .iter()
                    .enumerate()
                    .map(|(k, v)| *v * w_inv.pow([(j * k) as u64]))
                    .sum();
                *o = s * n_inv * g_inv.pow([j as u64]);
            }
        }
    }
    if cfg.ordering.output_reversed() {
        bit_reverse_permute(&mut out);
    }
    let _ = log_n;
    out
}

fn arb_config() -> impl Strategy<Value = (u32, bool, u8, Option<u64>, usize, bool)> {
    (
        0u32..=7,                             // log_n
        any::<bool>(),                        // inverse
        0u8..3,                               // ordering
        proptest::option::of(1u64..u64::MAX), // coset offset seed
        1usize..=4,                           // batch
        any::<bool>(),                        // columns
    )
}

fn build_cfg<F: FftField>(
    inverse: bool,
    ordering: u8,
    offset: Option<u64>,
    batch: usize,
    columns: bool,
) -> NttConfig<F> {
    let mut cfg = NttConfig::<F>::forward()
        .with_direction(if inverse {
            Direction::Inverse
        } else {
            Direction::Forward
        })
        .with_ordering([Ordering::NN, Ordering::NR, Ordering::RN][ordering as usize])
        .with_batch(batch)
        .with_layout(if columns {
            BatchLayout::Columns
        } else {
            BatchLayout::Rows
        });
    if let Some(o) = offset {
        // A random-looking offset: a power of the seed, never zero.
        cfg = cfg.with_coset(F::from(o).pow([0x9e37_79b9u64]));
    }
    cfg
}

/// Extracts transform `b` of a batch in the given layout.
fn transform_of<F: Copy>(
    data: &[F],
    n: usize,
    batch: usize,
    b: usize,
    layout: BatchLayout,
) -> Vec<F> {
    match layout {
        BatchLayout::Rows => data[b * n..(b + 1) * n].to_vec(),
        BatchLayout::Columns => (0..n).map(|i| data[i * batch + b]).collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn reference_matches_naive_dft((log_n, inverse, ordering, offset, batch, columns) in arb_config(), seed: u64) {
        type F = ark_bn254::Fr;
        let cfg = build_cfg::<F>(inverse, ordering, offset, batch, columns);
        let n = 1usize << log_n;
        let mut rng = StdRng::seed_from_u64(seed);
        let input: Vec<F> = random_vec(&mut rng, n * batch);
        let mut got = input.clone();
        reference::ntt(&mut got, &cfg).unwrap();
        let single = NttConfig { batch: 1, layout: BatchLayout::Rows, ..cfg };
        for b in 0..batch {
            let want = naive(&transform_of(&input, n, batch, b, cfg.layout), &single);
            let have = transform_of(&got, n, batch, b, cfg.layout);
            prop_assert_eq!(have, want, "2^{} batch index {}", log_n, b);
        }
    }

    #[test]
    fn inverse_undoes_forward((log_n, _inv, ordering, offset, batch, columns) in arb_config(), seed: u64) {
        type F = ark_bls12_381::Fr;
        let fwd = build_cfg::<F>(false, ordering, offset, batch, columns);
        // The inverse reads what the forward wrote: swap NR <-> RN.
        let inv_order = match fwd.ordering { Ordering::NR => Ordering::RN, Ordering::RN => Ordering::NR, o => o };
        let inv = NttConfig { direction: Direction::Inverse, ordering: inv_order, ..fwd };
        let mut rng = StdRng::seed_from_u64(seed);
        let input: Vec<F> = random_vec(&mut rng, (1usize << log_n) * batch);
        let mut data = input.clone();
        reference::ntt(&mut data, &fwd).unwrap();
        reference::ntt(&mut data, &inv).unwrap();
        prop_assert_eq!(data, input);
    }

    #[test]
    fn four_step_matches_reference((log_n, inverse, ordering, offset, batch, columns) in arb_config(), seed: u64, split in 0u32..=7) {
        type F = ark_bn254::Fr;
        let cfg = build_cfg::<F>(inverse, ordering, offset, batch, columns);
        let log_p = split.min(log_n);
        let mut rng = StdRng::seed_from_u64(seed);
        let input: Vec<F> = random_vec(&mut rng, (1usize << log_n) * batch);
        let mut want = input.clone();
        reference::ntt(&mut want, &cfg).unwrap();
        let mut got = input;
        four_step::ntt(&mut got, &cfg, log_p).unwrap();
        prop_assert_eq!(got, want);
    }
}

// ---------------------------------------------------------------- 2-D model at every split

#[test]
fn four_step_every_split() {
    type F = ark_bn254::Fr;
    let mut rng = StdRng::seed_from_u64(3);
    for log_n in 0..=16u32 {
        let input: Vec<F> = random_vec(&mut rng, 1 << log_n);
        for cfg in [
            NttConfig::forward(),
            NttConfig::inverse().with_coset(F::GENERATOR),
        ] {
            let mut want = input.clone();
            reference::ntt(&mut want, &cfg).unwrap();
            for log_p in 0..=log_n {
                let mut got = input.clone();
                four_step::ntt(&mut got, &cfg, log_p).unwrap();
                assert!(
                    got == want,
                    "2^{log_n} split 2^{log_p} x 2^{} {:?}",
                    log_n - log_p,
                    cfg.direction
                );
            }
        }
    }
}

// ---------------------------------------------------------------- bad input

#[test]
fn bad_input_is_an_error_and_leaves_data_untouched() {
    type F = ark_bn254::Fr;
    let mut rng = StdRng::seed_from_u64(9);
    let original: Vec<F> = random_vec(&mut rng, 12);
    let mut data = original.clone();
    assert_eq!(
        reference::ntt(&mut data, &NttConfig::forward()),
        Err(Error::BadLength { len: 12, batch: 1 })
    );
    assert_eq!(
        reference::ntt(&mut data, &NttConfig::forward().with_batch(5)),
        Err(Error::BadLength { len: 12, batch: 5 })
    );
    assert_eq!(
        reference::ntt(&mut data, &NttConfig::forward().with_batch(0)),
        Err(Error::ZeroBatch)
    );
    assert_eq!(
        reference::ntt(
            &mut data[..8],
            &NttConfig::forward().with_coset(F::from(0u64))
        ),
        Err(Error::ZeroCosetOffset)
    );
    assert_eq!(
        four_step::ntt(&mut data[..8], &NttConfig::forward(), 4),
        Err(Error::BadSplit { log_n: 3, log_p: 4 })
    );
    assert_eq!(data, original);
    // Batch 3 of 2^2 is fine.
    assert!(reference::ntt(&mut data, &NttConfig::forward().with_batch(3)).is_ok());
    // Above the two-adicity (checked from the length alone, nothing allocated).
    assert_eq!(
        NttConfig::<F>::forward().log_size(1 << 29),
        Err(Error::DomainTooLarge { log_n: 29, max: 28 })
    );
    assert_eq!(
        NttConfig::<ark_bls12_381::Fr>::forward().log_size(1 << 32),
        Ok(32)
    );
    // Empty input with batch 1 is not a power of two.
    assert!(reference::ntt::<F>(&mut [], &NttConfig::forward()).is_err());
}

// ---------------------------------------------------------------- the GPU's scheme, on the CPU

#[test]
fn self_sort_matches_reference_at_every_split() {
    use zkntt_core::{Plan, self_sort};
    type F = ark_bn254::Fr;
    let mut rng = StdRng::seed_from_u64(11);
    for log_n in 2..=14u32 {
        let input: Vec<F> = random_vec(&mut rng, 1 << log_n);
        for cfg in [
            NttConfig::forward(),
            NttConfig::inverse().with_coset(F::GENERATOR),
            NttConfig::forward()
                .with_ordering(Ordering::NR)
                .with_coset(F::GENERATOR),
            NttConfig::forward()
                .with_ordering(Ordering::RN)
                .with_coset(F::GENERATOR),
            NttConfig::inverse()
                .with_ordering(Ordering::NR)
                .with_coset(F::GENERATOR),
            NttConfig::inverse().with_ordering(Ordering::RN),
        ] {
            let mut want = input.clone();
            reference::ntt(&mut want, &cfg).unwrap();
            // Every P with Q = N / P^2 at least 1.
            for log_p in 1..=log_n / 2 {
                let plan = Plan::three_stage(log_n, log_p);
                let mut got = input.clone();
                self_sort::ntt(&mut got, &cfg, plan).unwrap();
                assert!(
                    got == want,
                    "2^{log_n} {plan:?} {:?} {:?}",
                    cfg.direction,
                    cfg.ordering
                );
            }
            let plan = Plan::for_size(log_n).unwrap();
            let mut got = input.clone();
            self_sort::ntt(&mut got, &cfg, plan).unwrap();
            assert!(got == want, "2^{log_n} {plan:?}");
        }
    }
}

/// The bit-reversed orderings' column launches give ark-poly's result (bit-reversed) for every
/// split of log_n into column sizes, in both directions.
#[test]
fn ordered_launches_match_reference_at_every_split() {
    use zkntt_core::self_sort::transform_with_columns;
    type F = ark_bn254::Fr;
    let mut rng = StdRng::seed_from_u64(13);
    for log_n in 1..=12u32 {
        let n = 1usize << log_n;
        let input: Vec<F> = random_vec(&mut rng, n);
        let omega = F::get_root_of_unity(n as u64).unwrap();
        let mut want = input.clone();
        reference::radix2_nn(&mut want, omega);
        // Every composition of log_n into parts of 1..=11 (2^(log_n-1) of them; all up to 2^8,
        // then those of at most three parts).
        let mut splits = vec![vec![]];
        for _ in 0..log_n {
            splits = splits
                .into_iter()
                .flat_map(|s: Vec<u32>| {
                    let mut add = s.clone();
                    add.push(1);
                    let mut grow = s;
                    if let Some(last) = grow.last_mut() {
                        *last += 1;
                        vec![add, grow]
                    } else {
                        vec![add]
                    }
                })
                .collect();
        }
        splits.retain(|s| s.iter().all(|&p| p <= 11) && (log_n <= 8 || s.len() <= 3));
        for sizes in splits {
            let mut nr = input.clone();
            transform_with_columns(&mut nr, omega, &sizes, Ordering::NR);
            let mut got = nr.clone();
            bit_reverse_permute(&mut got);
            assert!(got == want, "NR 2^{log_n} {sizes:?}");
            let mut rn = input.clone();
            bit_reverse_permute(&mut rn);
            transform_with_columns(&mut rn, omega, &sizes, Ordering::RN);
            assert!(rn == want, "RN 2^{log_n} {sizes:?}");
        }
    }
}

/// The host pipeline launches the column stages a range of columns at a time (as chunks of columns
/// arrive and leave): the ranges, in any order, give the whole stage, bit for bit.
#[test]
fn column_stage_by_ranges_equals_the_whole_stage() {
    use zkntt_core::self_sort::{column_stage, column_stage_range};
    type F = ark_bn254::Fr;
    let mut rng = StdRng::seed_from_u64(12);
    for (log_n, log_p) in [(6u32, 2u32), (12, 4), (13, 6)] {
        let n = 1usize << log_n;
        let r = n >> log_p;
        let omega = F::get_root_of_unity(n as u64).unwrap();
        let input: Vec<F> = random_vec(&mut rng, n);
        for twiddle in [true, false] {
            let mut want = input.clone();
            column_stage(&mut want, log_p, omega, twiddle);
            for chunks in [1usize, 2, 4, r] {
                let w = r / chunks;
                let mut got = input.clone();
                // Last range first: nothing depends on the order.
                for j in (0..chunks).rev() {
                    column_stage_range(&mut got, log_p, omega, twiddle, j * w..(j + 1) * w);
                }
                assert!(
                    got == want,
                    "2^{log_n} P=2^{log_p} {chunks} ranges twiddle {twiddle}"
                );
            }
        }
    }
}
