// The conformance suite of `GpuDomain`, included by `domain.rs` (ark-poly 0.6) and `domain05.rs`
// (ark-poly 0.5). The including file brings the arkworks names of its version into scope:
// `FftField`, `Field`, `UniformRand`, `EvaluationDomain`, `Radix2EvaluationDomain`,
// `CanonicalSerialize`, `CanonicalDeserialize`, `Compress`, `Validate`, `StdRng`, `SeedableRng`,
// `Bn254Fr`, `Bn254G1`, `Bls12_381Fr`, and `GpuDomain` (the domain type under test).

/// GPU tests that change the shared pipeline's state (its memory budget) take this for writing;
/// every other GPU test holds it for reading, so none of them runs on a crippled pipeline.
static PIPELINE_STATE: RwLock<()> = RwLock::new(());

fn pipeline_shared() -> RwLockReadGuard<'static, ()> {
    PIPELINE_STATE.read().unwrap_or_else(|p| p.into_inner())
}

fn max_log(default: u32) -> u32 {
    std::env::var("ZKNTT_ARK_MAX_LOG")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn rand_vec<F: UniformRand>(rng: &mut StdRng, len: usize) -> Vec<F> {
    (0..len).map(|_| F::rand(rng)).collect()
}

/// The index of the first difference, for failure messages that name it.
fn first_diff<F: PartialEq>(a: &[F], b: &[F]) -> Option<usize> {
    if a.len() != b.len() {
        return Some(a.len().min(b.len()));
    }
    a.iter().zip(b).position(|(x, y)| x != y)
}

#[track_caller]
fn assert_same<F: PartialEq + std::fmt::Debug>(got: &[F], want: &[F], what: &str) {
    if let Some(i) = first_diff(got, want) {
        panic!(
            "{what}: differs at element {i} (lengths {} vs {}): got {:?}, want {:?}",
            got.len(),
            want.len(),
            got.get(i),
            want.get(i)
        );
    }
}

/// Input lengths for a domain of `n` points: exact, short (through ark's degree-aware path at
/// n/4 and below), over-long (ark truncates). Fewer at large sizes, where ark-poly is slow.
fn lengths(n: usize) -> Vec<usize> {
    let mut l = if n <= 1 << 12 {
        vec![
            n,
            0,
            1,
            n / 4,
            n / 4 + 1,
            n / 2,
            n.saturating_sub(1),
            n + 1,
            2 * n + 3,
        ]
    } else if n <= 1 << 16 {
        vec![n, n / 4, n - 1, 2 * n]
    } else {
        vec![n, n / 4 + 1, n + 5]
    };
    l.sort_unstable();
    l.dedup();
    l
}

/// One forward and one inverse transform of `input` on both domains, in place and through the
/// allocating `fft`/`ifft`, compared bit for bit. Returns where our forward transform ran.
fn check_transforms<F: FftField>(
    ours: &GpuDomain<F>,
    ark: &Radix2EvaluationDomain<F>,
    input: &[F],
    what: &str,
) -> Option<Placement> {
    let n = ark.size();
    let mut want = input.to_vec();
    ark.fft_in_place(&mut want);
    let mut got = input.to_vec();
    ours.fft_in_place(&mut got);
    let placed = last_placement();
    assert_same(&got, &want, &format!("fft_in_place {what}, n = {n}"));
    assert_same(&ours.fft(input), &want, &format!("fft {what}, n = {n}"));

    let mut want_i = input.to_vec();
    ark.ifft_in_place(&mut want_i);
    let mut got_i = input.to_vec();
    ours.ifft_in_place(&mut got_i);
    assert_same(&got_i, &want_i, &format!("ifft_in_place {what}, n = {n}"));
    assert_same(&ours.ifft(input), &want_i, &format!("ifft {what}, n = {n}"));
    placed
}

/// Checks that where a transform ran fits the backend under test.
fn check_placement(backend: Backend, placed: Option<Placement>, what: &str) {
    match backend {
        Backend::Gpu => assert_eq!(placed, Some(Placement::Gpu), "{what}"),
        Backend::Cpu => assert_eq!(placed, Some(Placement::Cpu(CpuReason::Forced)), "{what}"),
        Backend::Auto => assert!(placed.is_some(), "{what}"),
    }
}

fn check_parameters<F: FftField>() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut counts = vec![
        0usize,
        1,
        2,
        3,
        4,
        5,
        7,
        8,
        9,
        1000,
        1024,
        1025,
        (1 << 20) + 1,
    ];
    counts.push(1usize << F::TWO_ADICITY); // the largest domain
    counts.push((1usize << F::TWO_ADICITY) + 1); // one past it: None
    counts.push(1usize << (F::TWO_ADICITY + 1));
    for &c in &counts {
        assert_eq!(
            GpuDomain::<F>::compute_size_of_domain(c),
            Radix2EvaluationDomain::<F>::compute_size_of_domain(c),
            "compute_size_of_domain({c})"
        );
        let ours = GpuDomain::<F>::new(c);
        let ark = Radix2EvaluationDomain::<F>::new(c);
        assert_eq!(ours.is_some(), ark.is_some(), "new({c})");
        let (Some(ours), Some(ark)) = (ours, ark) else {
            assert!(
                c > 1 << F::TWO_ADICITY,
                "new({c}) is None within the two-adicity"
            );
            continue;
        };
        let offsets = [F::ONE, F::GENERATOR, F::rand(&mut rng), -F::ONE];
        for (k, &g) in offsets.iter().enumerate() {
            let ours_c = ours.get_coset(g).unwrap();
            let ark_c = ark.get_coset(g).unwrap();
            assert_eq!(
                GpuDomain::<F>::new_coset(c, g).unwrap(),
                ours_c,
                "new_coset({c}, offset {k})"
            );
            assert_eq!(*ours_c.as_radix2(), ark_c, "get_coset({c}, offset {k})");
            let what = format!("n = {c}, offset {k}");
            assert_eq!(ours_c.size(), ark_c.size(), "size {what}");
            assert_eq!(
                ours_c.log_size_of_group(),
                ark_c.log_size_of_group(),
                "log {what}"
            );
            assert_eq!(ours_c.size_inv(), ark_c.size_inv(), "size_inv {what}");
            assert_eq!(
                ours_c.size_as_field_element(),
                ark_c.size_as_field_element(),
                "{what}"
            );
            assert_eq!(ours_c.group_gen(), ark_c.group_gen(), "group_gen {what}");
            assert_eq!(ours_c.group_gen_inv(), ark_c.group_gen_inv(), "{what}");
            assert_eq!(ours_c.coset_offset(), ark_c.coset_offset(), "{what}");
            assert_eq!(
                ours_c.coset_offset_inv(),
                ark_c.coset_offset_inv(),
                "{what}"
            );
            assert_eq!(
                ours_c.coset_offset_pow_size(),
                ark_c.coset_offset_pow_size(),
                "{what}"
            );
        }
        assert!(
            ours.get_coset(F::ZERO).is_none(),
            "a zero offset has no coset"
        );
        assert!(GpuDomain::<F>::new_coset(c, F::ZERO).is_none());
    }
}

fn check_transforms_all_sizes<F: FftField>(backend: Backend, max: u32, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    for log_n in 0..=max {
        let ark = Radix2EvaluationDomain::<F>::new(1 << log_n).unwrap();
        let ours = GpuDomain::<F>::new(1 << log_n).unwrap();
        let random_offset = F::rand(&mut rng);
        let mut cosets = vec![("subgroup", F::ONE), ("generator coset", F::GENERATOR)];
        if log_n <= 16 {
            cosets.push(("random coset", random_offset));
        }
        for len in lengths(1 << log_n) {
            let input: Vec<F> = rand_vec(&mut rng, len);
            for &(name, g) in &cosets {
                // Large sizes: the exact length on every coset, the others on the subgroup.
                if log_n > 16 && len != 1 << log_n && g != F::ONE {
                    continue;
                }
                let what = format!("{name}, input length {len}");
                let placed = check_transforms(
                    &ours.get_coset(g).unwrap(),
                    &ark.get_coset(g).unwrap(),
                    &input,
                    &what,
                );
                check_placement(backend, placed, &format!("{what}, n = 2^{log_n}"));
            }
        }
    }
}

fn check_elements_and_evaluations<F: FftField>() {
    let mut rng = StdRng::seed_from_u64(3);
    for log_n in 0..=10u32 {
        for g in [F::ONE, F::GENERATOR, F::rand(&mut rng)] {
            let ours = GpuDomain::<F>::new(1 << log_n)
                .unwrap()
                .get_coset(g)
                .unwrap();
            let ark = Radix2EvaluationDomain::<F>::new(1 << log_n)
                .unwrap()
                .get_coset(g)
                .unwrap();
            let what = format!("n = 2^{log_n}, offset {g}");
            let elems: Vec<F> = ours.elements().collect();
            assert_same(&elems, &ark.elements().collect::<Vec<_>>(), &what);
            for i in [
                0,
                1,
                ours.size() / 2,
                ours.size().saturating_sub(1),
                3 * ours.size(),
            ] {
                assert_eq!(ours.element(i), ark.element(i), "element({i}) {what}");
            }
            let tau = F::rand(&mut rng);
            assert_eq!(
                ours.evaluate_vanishing_polynomial(tau),
                ark.evaluate_vanishing_polynomial(tau),
                "{what}"
            );
            assert_eq!(ours.vanishing_polynomial(), ark.vanishing_polynomial());
            assert_same(
                &ours.evaluate_all_lagrange_coefficients(tau),
                &ark.evaluate_all_lagrange_coefficients(tau),
                &format!("lagrange at a random point, {what}"),
            );
            let inside = elems[elems.len() / 2];
            assert_same(
                &ours.evaluate_all_lagrange_coefficients(inside),
                &ark.evaluate_all_lagrange_coefficients(inside),
                &format!("lagrange at a domain element, {what}"),
            );
            let a: Vec<F> = rand_vec(&mut rng, ours.size());
            let b: Vec<F> = rand_vec(&mut rng, ours.size());
            assert_same(
                &ours.mul_polynomials_in_evaluation_domain(&a, &b),
                &ark.mul_polynomials_in_evaluation_domain(&a, &b),
                &format!("mul_polynomials_in_evaluation_domain {what}"),
            );
            // Same seed, same sample: the default method draws through our evaluations.
            let s1 = ours.sample_element_outside_domain(&mut StdRng::seed_from_u64(log_n as u64));
            let s2 = ark.sample_element_outside_domain(&mut StdRng::seed_from_u64(log_n as u64));
            assert_eq!(s1, s2, "{what}");
            if log_n >= 1 {
                let sub = GpuDomain::<F>::new(1 << (log_n - 1)).unwrap();
                let ark_sub = Radix2EvaluationDomain::<F>::new(1 << (log_n - 1)).unwrap();
                for index in [0, 1, ours.size() - 1] {
                    assert_eq!(
                        ours.reindex_by_subdomain(sub, index),
                        ark.reindex_by_subdomain(ark_sub, index),
                        "reindex_by_subdomain {what}"
                    );
                }
                if log_n <= 6 && g == F::ONE {
                    assert_eq!(
                        ours.filter_polynomial(&sub),
                        ark.filter_polynomial(&ark_sub)
                    );
                    assert_eq!(
                        ours.evaluate_filter_polynomial(&sub, tau),
                        ark.evaluate_filter_polynomial(&ark_sub, tau)
                    );
                }
            }
        }
    }
    // distribute_powers* are associated functions; any length, not only domain sizes.
    for len in [0usize, 1, 5, 1000, 4096, 10_000] {
        let v: Vec<F> = rand_vec(&mut rng, len);
        let (g, c) = (F::rand(&mut rng), F::rand(&mut rng));
        let (mut a, mut b) = (v.clone(), v.clone());
        GpuDomain::<F>::distribute_powers(&mut a, g);
        Radix2EvaluationDomain::<F>::distribute_powers(&mut b, g);
        assert_same(&a, &b, &format!("distribute_powers, length {len}"));
        let (mut a, mut b) = (v.clone(), v);
        GpuDomain::<F>::distribute_powers_and_mul_by_const(&mut a, g, c);
        Radix2EvaluationDomain::<F>::distribute_powers_and_mul_by_const(&mut b, g, c);
        assert_same(
            &a,
            &b,
            &format!("distribute_powers_and_mul_by_const, {len}"),
        );
    }
}

fn check_serialization_and_identity<F: FftField>() {
    let mut rng = StdRng::seed_from_u64(4);
    let hash = |x: &dyn Fn(&mut DefaultHasher)| {
        let mut h = DefaultHasher::new();
        x(&mut h);
        h.finish()
    };
    for log_n in [0u32, 1, 5, 16, 20] {
        for g in [F::ONE, F::GENERATOR, F::rand(&mut rng)] {
            let ours = GpuDomain::<F>::new(1 << log_n)
                .unwrap()
                .get_coset(g)
                .unwrap();
            let ark = *ours.as_radix2();
            for compress in [Compress::Yes, Compress::No] {
                let mut a = Vec::new();
                let mut b = Vec::new();
                ours.serialize_with_mode(&mut a, compress).unwrap();
                ark.serialize_with_mode(&mut b, compress).unwrap();
                assert_eq!(a, b, "same bytes as Radix2EvaluationDomain, 2^{log_n}");
                assert_eq!(
                    ours.serialized_size(compress),
                    ark.serialized_size(compress)
                );
                let back = GpuDomain::<F>::deserialize_with_mode(
                    &b[..],
                    compress,
                    Validate::Yes,
                )
                .unwrap();
                assert_eq!(back, ours, "round trip through ark's bytes");
            }
            let copy = ours; // Copy
            assert_eq!(copy, ours);
            assert_eq!(hash(&|h| copy.hash(h)), hash(&|h| ours.hash(h)));
            if g != F::ONE {
                let sub = GpuDomain::<F>::new(1 << log_n).unwrap();
                assert_ne!(sub, ours, "offset is part of equality");
            }
        }
    }
}

/// Eight threads at once, each on its own sizes, forward then inverse, each against ark.
fn check_threads<F: FftField>(backend: Backend, max: u32) {
    let top = max.min(18);
    std::thread::scope(|s| {
        for t in 0..8u32 {
            s.spawn(move || {
                with_backend(backend, || {
                    let mut rng = StdRng::seed_from_u64(100 + t as u64);
                    for round in 0..4u32 {
                        let log_n = (t * 3 + round * 5) % (top + 1);
                        let ark = Radix2EvaluationDomain::<F>::new(1 << log_n).unwrap();
                        let ours = GpuDomain::<F>::new(1 << log_n).unwrap();
                        let (ark, ours) = if round % 2 == 1 {
                            (
                                ark.get_coset(F::GENERATOR).unwrap(),
                                ours.get_coset(F::GENERATOR).unwrap(),
                            )
                        } else {
                            (ark, ours)
                        };
                        let input: Vec<F> = rand_vec(&mut rng, 1 << log_n);
                        let mut want = input.clone();
                        ark.fft_in_place(&mut want);
                        let mut got = input.clone();
                        ours.fft_in_place(&mut got);
                        let what = format!("thread {t}, round {round}, n = 2^{log_n}");
                        check_placement(backend, last_placement(), &what);
                        assert_same(&got, &want, &format!("fft {what}"));
                        ours.ifft_in_place(&mut got);
                        assert_same(&got, &input, &format!("ifft(fft(x)) {what}"));
                    }
                })
            });
        }
    });
}

/// Coefficients that are not the field (curve points, as KZG's Lagrange-basis setup uses) run
/// through ark's code with the same results.
fn check_other_coefficients(backend: Backend) {
    type Fr = Bn254Fr;
    type G1Projective = Bn254G1;
    let mut rng = StdRng::seed_from_u64(5);
    for log_n in [0u32, 2, 5] {
        let ark = Radix2EvaluationDomain::<Fr>::new(1 << log_n).unwrap();
        let ours = GpuDomain::<Fr>::new(1 << log_n).unwrap();
        let pts: Vec<G1Projective> = rand_vec(&mut rng, (1 << log_n) + 1);
        with_backend(backend, || {
            assert_eq!(ours.fft(&pts), ark.fft(&pts), "G1 fft, n = 2^{log_n}");
            assert_eq!(
                last_placement(),
                Some(Placement::Cpu(CpuReason::CoefficientType))
            );
            assert_eq!(ours.ifft(&pts), ark.ifft(&pts), "G1 ifft, n = 2^{log_n}");
        });
    }
}

/// Domains whose fields disagree with one another (built by hand; deserialising can do the same)
/// run ark's own code under every backend: the GPU computes from the size and offset alone.
/// Under `Backend::Gpu` the placement says why (`InconsistentDomain`); under `Backend::Cpu`, that
/// it was forced (the fields are checked only on the way to the GPU).
fn check_inconsistent_domains<F: FftField>(backend: Backend) {
    let mut rng = StdRng::seed_from_u64(9);
    let log_n = 10;
    let r = Radix2EvaluationDomain::<F>::new(1 << log_n).unwrap();
    let coset = r.get_coset(F::GENERATOR).unwrap();
    let mut cases = Vec::new();
    let mut d = r;
    d.group_gen = d.group_gen.square();
    cases.push(("a generator of the wrong order", d));
    let mut d = r;
    d.size_inv = d.size_inv.square();
    cases.push(("a wrong 1/size", d));
    let mut d = coset;
    d.offset = F::GENERATOR.square();
    cases.push(("an offset without its inverse and power", d));
    let x: Vec<F> = rand_vec(&mut rng, 1 << log_n);
    for (what, ark) in cases {
        let ours = GpuDomain::from(ark);
        let placed = || {
            let want = match backend {
                Backend::Gpu => CpuReason::InconsistentDomain,
                _ => CpuReason::Forced,
            };
            assert_eq!(last_placement(), Some(Placement::Cpu(want)), "{what}");
        };
        with_backend(backend, || {
            assert_eq!(ours.fft(&x), ark.fft(&x), "{what}: fft");
            placed();
            assert_eq!(ours.ifft(&x), ark.ifft(&x), "{what}: ifft");
            placed();
            let (mut a, mut b) = (x.clone(), x.clone());
            ours.fft_in_place(&mut a);
            placed();
            ark.fft_in_place(&mut b);
            assert_eq!(a, b, "{what}: fft_in_place");
        });
    }
}

macro_rules! conformance_suite {
    ($name:ident, $F:ty, $backend:expr, $default_max_log:expr, $gate:expr) => {
        mod $name {
            use super::*;
            type F = $F;
            const BACKEND: Backend = $backend;

            /// Whether this backend can run here (prints the skip line if not), and the guard
            /// that keeps pipeline-state tests out while it runs.
            fn gate(test: &str) -> Option<RwLockReadGuard<'static, ()>> {
                let gate: fn(&str) -> bool = $gate;
                gate(&format!("{}::{test}", stringify!($name))).then(pipeline_shared)
            }

            fn max() -> u32 {
                max_log($default_max_log).min(F::TWO_ADICITY)
            }

            #[test]
            fn parameters_match_radix2() {
                let Some(_g) = gate("parameters_match_radix2") else {
                    return;
                };
                check_parameters::<F>();
            }

            #[test]
            fn transforms_match_radix2_at_every_size() {
                let Some(_g) = gate("transforms_match_radix2_at_every_size") else {
                    return;
                };
                with_backend(BACKEND, || {
                    check_transforms_all_sizes::<F>(BACKEND, max(), 2)
                });
            }

            #[test]
            fn elements_and_evaluations_match_radix2() {
                let Some(_g) = gate("elements_and_evaluations_match_radix2") else {
                    return;
                };
                with_backend(BACKEND, check_elements_and_evaluations::<F>);
            }

            #[test]
            fn serialization_copy_hash_eq_match_radix2() {
                let Some(_g) = gate("serialization_copy_hash_eq_match_radix2") else {
                    return;
                };
                check_serialization_and_identity::<F>();
            }

            #[test]
            fn eight_threads_at_once() {
                let Some(_g) = gate("eight_threads_at_once") else {
                    return;
                };
                check_threads::<F>(BACKEND, max());
            }

            #[test]
            fn curve_point_coefficients_run_on_the_cpu() {
                let Some(_g) = gate("curve_point_coefficients_run_on_the_cpu") else {
                    return;
                };
                check_other_coefficients(BACKEND);
            }

            #[test]
            fn inconsistent_domains_run_arks_code() {
                let Some(_g) = gate("inconsistent_domains_run_arks_code") else {
                    return;
                };
                check_inconsistent_domains::<F>(BACKEND);
            }

            #[test]
            fn any_input_length_and_offset() {
                use proptest::prelude::*;
                let Some(_g) = gate("any_input_length_and_offset") else {
                    return;
                };
                let mut runner =
                    proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(24));
                let strategy = (0u32..=12, 0usize..=8200, 0u8..3, any::<u64>());
                runner
                    .run(&strategy, |(log_n, extra, coset, seed)| {
                        let log_n = log_n.min(max());
                        let n = 1usize << log_n;
                        let len = extra % (2 * n + 3);
                        let mut rng = StdRng::seed_from_u64(seed);
                        let g = match coset {
                            0 => F::ONE,
                            1 => F::GENERATOR,
                            _ => F::rand(&mut rng),
                        };
                        let ark = Radix2EvaluationDomain::<F>::new(n)
                            .unwrap()
                            .get_coset(g)
                            .unwrap();
                        let ours = GpuDomain::<F>::new(n).unwrap().get_coset(g).unwrap();
                        let input: Vec<F> = rand_vec(&mut rng, len);
                        let what = format!("proptest, length {len}, n = 2^{log_n}");
                        let placed =
                            with_backend(BACKEND, || check_transforms(&ours, &ark, &input, &what));
                        check_placement(BACKEND, placed, &what);
                        Ok(())
                    })
                    .unwrap();
            }
        }
    };
}

fn cpu_always(_: &str) -> bool {
    true
}

fn gpu_present(test: &str) -> bool {
    zkntt_gpu::testing::gpu_or_skip(test).is_some()
}

conformance_suite!(cpu_bn254, Bn254Fr, Backend::Cpu, 16, cpu_always);
conformance_suite!(
    cpu_bls12_381,
    Bls12_381Fr,
    Backend::Cpu,
    16,
    cpu_always
);
conformance_suite!(gpu_bn254, Bn254Fr, Backend::Gpu, 24, gpu_present);
conformance_suite!(
    gpu_bls12_381,
    Bls12_381Fr,
    Backend::Gpu,
    24,
    gpu_present
);

