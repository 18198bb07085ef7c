//! The distributed NTT model (ranks as threads, one all-to-all) against ark-poly, the exchanged
//! byte counts, batches, explicit splits and bad input.

use ark_ff::FftField;
use ark_std::rand::{SeedableRng, rngs::StdRng};
use zkntt_core::distributed::{Split, Stats, ntt_distributed, ntt_distributed_with_split};
use zkntt_core::{BatchLayout, Error, NttConfig, Ordering, reference};

mod common;
use common::{ark_poly_cases, random_vec};

/// The first index where `got` and `want` differ, for a failure message naming it.
fn first_difference<F: PartialEq>(got: &[F], want: &[F]) -> Option<usize> {
    got.iter().zip(want).position(|(g, w)| g != w)
}

/// Each rank sends (ranks - 1) chunks of N / ranks^2 elements of 32 bytes, nothing to itself.
fn check_bytes(label: &str, stats: &Stats, log_n: u32, ranks: usize, transforms: usize) {
    let n = 1u64 << log_n;
    let k = ranks as u64;
    let per_pair = n / (k * k) * 32 * transforms as u64;
    assert_eq!(stats.element_bytes, 32, "{label}");
    assert_eq!(stats.transforms, transforms, "{label}");
    assert_eq!(stats.split.ranks(), ranks, "{label}");
    assert_eq!(stats.bytes_sent.len(), ranks, "{label}");
    for (g, row) in stats.bytes_sent.iter().enumerate() {
        assert_eq!(row.len(), ranks, "{label}");
        for (h, &bytes) in row.iter().enumerate() {
            let want = if g == h { 0 } else { per_pair };
            assert_eq!(bytes, want, "{label}: bytes rank {g} -> rank {h}");
        }
        assert_eq!(stats.bytes_sent_by(g), (k - 1) * per_pair, "{label}");
    }
    assert_eq!(stats.total_bytes(), k * (k - 1) * per_pair, "{label}");
}

fn check_ark_poly<F: FftField>(label: &str, max_log: u32) {
    let mut rng = StdRng::seed_from_u64(7);
    for ranks in [1usize, 2, 4, 8] {
        let min_log = 2 * ranks.trailing_zeros();
        for log_n in min_log..=max_log {
            let ark = ark_poly_cases::<F>(&mut rng, log_n);
            for (what, cfg, input, want) in &ark.cases {
                let case = format!("{label} {what} 2^{log_n} over {ranks} ranks");
                let mut got = input.clone();
                let stats = ntt_distributed(&mut got, cfg, ranks).unwrap();
                if let Some(i) = first_difference(&got, want) {
                    panic!("{case}: element {i} differs from ark-poly");
                }
                check_bytes(&case, &stats, log_n, ranks, 1);
                // The balanced split: N1 takes the odd bit, both divisible by the ranks.
                assert_eq!(stats.split.log_n1(), log_n.div_ceil(2), "{case}");
                assert_eq!(stats.split.log_n2(), log_n / 2, "{case}");
            }
            // The inverses undo the forwards.
            assert!(ark.cases[1].3 == ark.coeffs, "{label} 2^{log_n}");
        }
    }
}

#[test]
fn ark_poly_bn254_every_rank_count() {
    check_ark_poly::<ark_bn254::Fr>("bn254", 14);
}

#[test]
fn ark_poly_bls12_381_every_rank_count() {
    check_ark_poly::<ark_bls12_381::Fr>("bls12_381", 14);
}

/// Every split N1 x N2 that the ranks divide, against the reference, both directions with cosets.
#[test]
fn every_split_matches_reference() {
    type F = ark_bn254::Fr;
    let mut rng = StdRng::seed_from_u64(5);
    for log_n in 0..=10u32 {
        let input: Vec<F> = random_vec(&mut rng, 1 << log_n);
        for cfg in [
            NttConfig::forward().with_coset(F::GENERATOR),
            NttConfig::inverse().with_coset(F::from(5u64)),
        ] {
            let mut want = input.clone();
            reference::ntt(&mut want, &cfg).unwrap();
            for log_n1 in 0..=log_n {
                let log_n2 = log_n - log_n1;
                for log_ranks in 0..=log_n1.min(log_n2) {
                    let ranks = 1usize << log_ranks;
                    let split = Split::new(log_n1, log_n2, ranks).unwrap();
                    let mut got = input.clone();
                    let stats = ntt_distributed_with_split(&mut got, &cfg, split).unwrap();
                    let case = format!(
                        "2^{log_n} as 2^{log_n1} x 2^{log_n2} over {ranks} ranks {:?}",
                        cfg.direction
                    );
                    if let Some(i) = first_difference(&got, &want) {
                        panic!("{case}: element {i} differs from the reference");
                    }
                    check_bytes(&case, &stats, log_n, ranks, 1);
                }
            }
        }
    }
}

/// Batches, both layouts: one distributed transform (and one all-to-all) per member.
#[test]
fn batches_match_reference() {
    type F = ark_bls12_381::Fr;
    let mut rng = StdRng::seed_from_u64(6);
    let (log_n, batch, ranks) = (8u32, 3usize, 4usize);
    let input: Vec<F> = random_vec(&mut rng, batch << log_n);
    for layout in [BatchLayout::Rows, BatchLayout::Columns] {
        for cfg in [
            NttConfig::forward(),
            NttConfig::inverse().with_coset(F::GENERATOR),
        ] {
            let cfg = cfg.with_batch(batch).with_layout(layout);
            let mut want = input.clone();
            reference::ntt(&mut want, &cfg).unwrap();
            let mut got = input.clone();
            let stats = ntt_distributed(&mut got, &cfg, ranks).unwrap();
            let case = format!("batch {batch} {layout:?} {:?}", cfg.direction);
            if let Some(i) = first_difference(&got, &want) {
                panic!("{case}: element {i} differs from the reference");
            }
            check_bytes(&case, &stats, log_n, ranks, batch);
        }
    }
}

#[test]
fn bad_input_is_an_error_and_leaves_data_untouched() {
    type F = ark_bn254::Fr;
    let mut rng = StdRng::seed_from_u64(9);
    let original: Vec<F> = random_vec(&mut rng, 16);
    let mut data = original.clone();
    let fwd = NttConfig::<F>::forward();
    // Not a power of two, zero ranks.
    for ranks in [0usize, 3, 6] {
        assert_eq!(
            ntt_distributed(&mut data, &fwd, ranks),
            Err(Error::BadRanks {
                ranks,
                log_n1: 2,
                log_n2: 2
            })
        );
    }
    // N < ranks^2: 16 over 8 ranks, 8 over 4 ranks (2^2 x 2^1), 1 over 2 ranks.
    assert_eq!(
        ntt_distributed(&mut data, &fwd, 8),
        Err(Error::BadRanks {
            ranks: 8,
            log_n1: 2,
            log_n2: 2
        })
    );
    assert_eq!(
        ntt_distributed(&mut data[..8], &fwd, 4),
        Err(Error::BadRanks {
            ranks: 4,
            log_n1: 2,
            log_n2: 1
        })
    );
    assert!(matches!(
        ntt_distributed(&mut data[..1], &fwd, 2),
        Err(Error::BadRanks { ranks: 2, .. })
    ));
    assert!(matches!(
        Split::new(3, 1, 4),
        Err(Error::BadRanks { ranks: 4, .. })
    ));
    // A split that is not the buffer's size.
    assert_eq!(
        ntt_distributed_with_split(&mut data, &fwd, Split::new(2, 1, 2).unwrap()),
        Err(Error::BadSplit { log_n: 4, log_p: 2 })
    );
    // Bit-reversed orderings are not modelled.
    for ordering in [Ordering::NR, Ordering::RN] {
        assert_eq!(
            ntt_distributed(&mut data, &fwd.with_ordering(ordering), 2),
            Err(Error::OrderingNotModelled { ordering })
        );
    }
    // The configuration's own checks.
    assert_eq!(
        ntt_distributed(&mut data[..12], &fwd, 2),
        Err(Error::BadLength { len: 12, batch: 1 })
    );
    assert_eq!(
        ntt_distributed(&mut data, &fwd.with_coset(F::from(0u64)), 2),
        Err(Error::ZeroCosetOffset)
    );
    assert_eq!(
        ntt_distributed(&mut data, &fwd.with_batch(0), 2),
        Err(Error::ZeroBatch)
    );
    assert!(ntt_distributed::<F>(&mut [], &fwd, 1).is_err());
    assert_eq!(data, original);
}
