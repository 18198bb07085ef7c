//! The NTT engine on the GPU against ark-poly's Radix2EvaluationDomain and the CPU reference, bit
//! for bit. Sizes up to 2^ZKNTT_TEST_MAX_LOG (default 24; the sanitizer runs set 18).

use ark_ff::{FftField, Field, PrimeField, UniformRand, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{Rng, SeedableRng, rngs::StdRng};
use std::sync::Arc;
use zkntt_core::reference::{self, bit_reverse_permute};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::{
    BatchLayout, Blocks, Chain, DeviceVec, Direction, Error, GpuField, HostPipeline, Kernels, Lde,
    Natural, NttConfig, NttEngine, Ordering, Product, Stage1, Stage2, Trigger,
};

pub(crate) fn max_log() -> u32 {
    zkntt_gpu::testing::test_max_log(24)
}

/// Held alone by the tests that read the device's free memory or twiddle bytes
/// ([`device_memory`]), and shared by those that allocate 128 MiB or more at once
/// ([`large_allocations`]: here, in host.rs and in multi.rs), so that no allocation shows in a
/// measurement (the tests run in parallel; runs had the 2^23 peak read 128 MiB of another
/// test's) while the large tests still run side by side.
static DEVICE_MEMORY: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn device_memory() -> std::sync::RwLockWriteGuard<'static, ()> {
    DEVICE_MEMORY.write().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn large_allocations() -> std::sync::RwLockReadGuard<'static, ()> {
    DEVICE_MEMORY.read().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn engine(test: &str) -> Option<NttEngine> {
    gpu_or_skip(test).map(NttEngine::new)
}

/// A host pipeline on a new engine of device 0, or `None` (skip).
pub(crate) fn host(test: &str) -> Option<HostPipeline> {
    engine(test).map(|e| HostPipeline::new(Arc::new(e)))
}

/// Random input with the edge values 0 and p-1 at both ends.
pub(crate) fn input<F: PrimeField>(rng: &mut impl Rng, n: usize) -> Vec<F> {
    let mut v: Vec<F> = (0..n).map(|_| F::rand(rng)).collect();
    if n >= 2 {
        v[0] = F::zero();
        v[n - 1] = -F::one();
    }
    v
}

fn first_difference<F: PartialEq>(a: &[F], b: &[F]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

/// `x` as a transform in `cfg`'s ordering reads it: bit-reversed where the input is (RN).
fn ordered_input<F: GpuField>(x: &[F], cfg: &NttConfig<F>) -> Vec<F> {
    let mut v = x.to_vec();
    if cfg.ordering.input_reversed() {
        bit_reverse_permute(&mut v);
    }
    v
}

pub(crate) fn assert_same<F: PartialEq + std::fmt::Display>(got: &[F], want: &[F], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = first_difference(got, want) {
        panic!(
            "{what}: element {i} differs: got {} want {}",
            got[i], want[i]
        );
    }
}

/// Every size 2^1..2^max, forward and inverse, coset forward/inverse with the generator and a
/// random offset, orderings NN/NR/RN: against ark-poly (the reference equals it, CI checks).
fn sizes_directions_orders<F: GpuField>(engine: &NttEngine, label: &str, max: u32) {
    let mut rng = StdRng::seed_from_u64(0xf00d);
    for log_n in 1..=max {
        let n = 1usize << log_n;
        let x: Vec<F> = input(&mut rng, n);
        let domain = Radix2EvaluationDomain::<F>::new(n).unwrap();
        let random_offset = F::rand(&mut rng);
        let cases: Vec<(NttConfig<F>, Vec<F>)> = vec![
            (NttConfig::forward(), domain.fft(&x)),
            (NttConfig::inverse(), domain.ifft(&x)),
            (
                NttConfig::forward().with_coset(F::GENERATOR),
                domain.get_coset(F::GENERATOR).unwrap().fft(&x),
            ),
            (
                NttConfig::inverse().with_coset(F::GENERATOR),
                domain.get_coset(F::GENERATOR).unwrap().ifft(&x),
            ),
            (
                NttConfig::forward().with_coset(random_offset),
                domain.get_coset(random_offset).unwrap().fft(&x),
            ),
            (
                NttConfig::inverse().with_coset(random_offset),
                domain.get_coset(random_offset).unwrap().ifft(&x),
            ),
        ];
        let mut d = DeviceVec::from_host(engine.gpu(), &x).unwrap();
        for (i, (cfg, want)) in cases.iter().enumerate() {
            d.copy_from_host(engine.gpu(), &x).unwrap();
            engine.ntt_in_place(&mut d, cfg).unwrap();
            let got = d.to_host(engine.gpu()).unwrap();
            assert_same(
                &got,
                want,
                &format!(
                    "{label} 2^{log_n} case {i} {:?} coset={}",
                    cfg.direction,
                    cfg.coset.is_some()
                ),
            );
            // The same transform with the orderings: NR = bitrev(NN out), RN takes bitrev(in).
            let mut want_nr = want.clone();
            bit_reverse_permute(&mut want_nr);
            d.copy_from_host(engine.gpu(), &x).unwrap();
            engine
                .ntt_in_place(&mut d, &cfg.with_ordering(Ordering::NR))
                .unwrap();
            assert_same(
                &d.to_host(engine.gpu()).unwrap(),
                &want_nr,
                &format!("{label} 2^{log_n} case {i} NR"),
            );
            let mut x_rev = x.clone();
            bit_reverse_permute(&mut x_rev);
            d.copy_from_host(engine.gpu(), &x_rev).unwrap();
            engine
                .ntt_in_place(&mut d, &cfg.with_ordering(Ordering::RN))
                .unwrap();
            assert_same(
                &d.to_host(engine.gpu()).unwrap(),
                want,
                &format!("{label} 2^{log_n} case {i} RN"),
            );
        }
        // The CPU reference (the kernels' twin) at sizes where it is quick.
        if log_n <= 16 {
            let mut r = x.clone();
            reference::ntt(&mut r, &NttConfig::forward()).unwrap();
            assert_same(&r, &cases[0].1, &format!("{label} 2^{log_n} reference"));
        }
    }
    println!("{label}: sizes 2^1..2^{max}, 6 configs x NN/NR/RN equal to ark-poly");
}

#[test]
fn bn254_every_size_direction_coset_order() {
    let Some(e) = engine("bn254_every_size_direction_coset_order") else {
        return;
    };
    let _large = large_allocations();
    sizes_directions_orders::<ark_bn254::Fr>(&e, "bn254", max_log());
}

#[test]
fn bls12_381_every_size_direction_coset_order() {
    let Some(e) = engine("bls12_381_every_size_direction_coset_order") else {
        return;
    };
    let _large = large_allocations();
    sizes_directions_orders::<ark_bls12_381::Fr>(&e, "bls12_381", max_log().min(22));
}

#[test]
fn batches_rows_and_columns() {
    type F = ark_bn254::Fr;
    let Some(h) = host("batches_rows_and_columns") else {
        return;
    };
    let _large = large_allocations();
    let mut rng = StdRng::seed_from_u64(5);
    for log_n in [1u32, 5, 11, 12, 14, 16] {
        if log_n > max_log() {
            continue;
        }
        let n = 1usize << log_n;
        for batch in [1usize, 3, 64] {
            for layout in [BatchLayout::Rows, BatchLayout::Columns] {
                for cfg in [
                    NttConfig::<F>::forward(),
                    NttConfig::inverse()
                        .with_coset(F::GENERATOR)
                        .with_ordering(Ordering::NR),
                ] {
                    let cfg = cfg.with_batch(batch).with_layout(layout);
                    let x: Vec<F> = input(&mut rng, n * batch);
                    let mut want = x.clone();
                    reference::ntt(&mut want, &cfg).unwrap();
                    let mut got = x.clone();
                    h.ntt(&mut got, &cfg).unwrap();
                    if let Some(i) = first_difference(&got, &want) {
                        let (b, k) = match layout {
                            BatchLayout::Rows => (i / n, i % n),
                            BatchLayout::Columns => (i % batch, i / batch),
                        };
                        panic!(
                            "2^{log_n} batch {batch} {layout:?} {:?}: transform {b} element {k} differs",
                            cfg.direction
                        );
                    }
                }
            }
        }
    }
}

/// 2^25..2^28: forward and inverse. 2^25 and 2^26 against ark-poly in full; beyond, every output
/// of a sparse input is known in closed form (checked at 4096 random positions), and a dense
/// input must come back from inverse(forward(x)).
#[test]
fn bn254_large_sizes() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("bn254_large_sizes") else {
        return;
    };
    let _large = large_allocations();
    let max = max_log().min(28);
    let mut rng = StdRng::seed_from_u64(25);
    for log_n in 25..=max {
        let n = 1usize << log_n;
        let x: Vec<F> = input(&mut rng, n);
        let mut d = DeviceVec::from_host(e.gpu(), &x).unwrap();
        e.ntt_in_place(&mut d, &NttConfig::forward()).unwrap();
        let fwd = d.to_host(e.gpu()).unwrap();
        if log_n <= 26 {
            let domain = Radix2EvaluationDomain::<F>::new(n).unwrap();
            assert_same(
                &fwd,
                &domain.fft(&x),
                &format!("2^{log_n} forward vs ark-poly"),
            );
        }
        e.ntt_in_place(&mut d, &NttConfig::inverse()).unwrap();
        assert_same(
            &d.to_host(e.gpu()).unwrap(),
            &x,
            &format!("2^{log_n} inverse(forward)"),
        );
        drop(d);

        // Sparse: 16 non-zeros; X[k] = sum_j x_j w^(jk) for any k.
        let w = F::get_root_of_unity(n as u64).unwrap();
        let mut sparse = vec![F::zero(); n];
        let support: Vec<(usize, F)> = (0..16)
            .map(|_| (rng.gen_range(0..n), F::rand(&mut rng)))
            .collect();
        for (j, v) in &support {
            sparse[*j] += v;
        }
        let mut d = DeviceVec::from_host(e.gpu(), &sparse).unwrap();
        e.ntt_in_place(&mut d, &NttConfig::forward()).unwrap();
        let got = d.to_host(e.gpu()).unwrap();
        for _ in 0..4096 {
            let k = rng.gen_range(0..n);
            let want: F = support
                .iter()
                .map(|(j, v)| *v * w.pow([(*j as u64 * k as u64) % n as u64]))
                .sum();
            assert!(got[k] == want, "2^{log_n} sparse forward: element {k}");
        }
        println!("2^{log_n}: forward/inverse checked");
    }
}

#[test]
fn bad_input_is_an_error_and_leaves_data_untouched() {
    type F = ark_bn254::Fr;
    let Some(h) = host("ntt_bad_input") else {
        return;
    };
    let _memory = device_memory();
    let e = h.engine();
    let gpu = e.gpu();
    let x: Vec<F> = input(&mut StdRng::seed_from_u64(1), 12);
    let mut d = DeviceVec::from_host(gpu, &x).unwrap();
    assert!(matches!(
        e.ntt_in_place(&mut d, &NttConfig::forward()),
        Err(Error::Config(zkntt_core::Error::BadLength {
            len: 12,
            batch: 1
        }))
    ));
    assert!(matches!(
        e.ntt_in_place(&mut d, &NttConfig::forward().with_batch(5)),
        Err(Error::Config(zkntt_core::Error::BadLength { .. }))
    ));
    assert!(matches!(
        e.ntt_in_place(
            &mut d,
            &NttConfig::forward().with_batch(3).with_coset(F::from(0u64))
        ),
        Err(Error::Config(zkntt_core::Error::ZeroCosetOffset))
    ));
    assert_same(&d.to_host(gpu).unwrap(), &x, "untouched after errors");
    let mut host = x.clone();
    assert!(h.ntt(&mut host, &NttConfig::forward()).is_err());
    assert_same(&host, &x, "host untouched after error");

    // Above the two-adicity: 2^29 BN254 elements (16 GiB) fit on an H100, the transform does not.
    if let Ok(mut big) = DeviceVec::<F>::zeros(gpu, 1 << 29) {
        assert!(matches!(
            e.ntt_in_place(&mut big, &NttConfig::forward()),
            Err(Error::Config(zkntt_core::Error::DomainTooLarge {
                log_n: 29,
                max: 28
            }))
        ));
    }

    // Not enough device memory for the host path: OutOfMemory before anything runs. A memory
    // budget on a handle of its own stands in for a full device (tests run in parallel).
    let small = HostPipeline::new(Arc::new(NttEngine::new(zkntt_gpu::Gpu::new(0).unwrap())));
    small.gpu().set_memory_budget(Some(64 << 20));
    let big: Vec<F> = vec![F::from(3u64); 1 << 22]; // 128 MiB
    let mut big_copy = big.clone();
    match small.ntt(&mut big_copy, &NttConfig::forward()) {
        Err(Error::OutOfMemory { needed, free }) => assert!(needed > free, "{needed} > {free}"),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    assert!(big_copy == big, "host data untouched after OutOfMemory");
    // And it works once the memory is there.
    small.gpu().set_memory_budget(None);
    small.ntt(&mut big_copy, &NttConfig::forward()).unwrap();
    // Up to 2^22 the stage twiddles are all N powers (as much memory as the data); above, two
    // tables of about sqrt(N) powers.
    let full = small.engine().twiddle_bytes();
    assert!(
        ((128 << 20)..(130 << 20)).contains(&full),
        "2^22 keeps its N powers: {full} bytes"
    );
    if max_log() >= 23 {
        let mut d23 = DeviceVec::<F>::zeros(small.gpu(), 1 << 23).unwrap();
        small
            .engine()
            .ntt_in_place(&mut d23, &NttConfig::forward())
            .unwrap();
        let split = small.engine().twiddle_bytes() - full;
        assert!(split < 1 << 20, "2^23 twiddles stay compact: {split} bytes");
    }
    if max_log() < 22 {
        return; // the rest is slow under the sanitizers
    }
    // Where the full table does not fit, the compact one is used (2^22 inverse: 128 MiB of
    // data, room for it but not for 128 MiB more of twiddles).
    small.clear_cache();
    small.gpu().synchronize().unwrap();
    let x22: Vec<F> = input(&mut StdRng::seed_from_u64(22), 1 << 22);
    let mut d = DeviceVec::from_host(small.gpu(), &x22).unwrap();
    let (free, _) = small.gpu().memory().unwrap();
    small.gpu().set_memory_budget(Some(free.min(64 << 20)));
    small
        .engine()
        .ntt_in_place(&mut d, &NttConfig::inverse())
        .unwrap();
    small.gpu().set_memory_budget(None);
    assert!(
        small.engine().twiddle_bytes() < 1 << 20,
        "compact twiddles when memory is short: {} bytes",
        small.engine().twiddle_bytes()
    );
    let mut want = x22;
    reference::ntt(&mut want, &NttConfig::inverse()).unwrap();
    assert_same(
        &d.to_host(small.gpu()).unwrap(),
        &want,
        "2^22 inverse, compact twiddles",
    );
}

/// A plain inverse with no mid-table launch (NR and RN in two launches, NN in two passes) takes
/// its 1/N in the full stage-twiddle table times 1/N, which the first call that needs it builds
/// (N x 32 bytes, once); where that copy does not fit, the 1/N stays a product of the last launch
/// and nothing is built. Every case matches the reference.
#[test]
fn inverse_scale_in_the_full_table() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("inverse_scale_in_the_full_table") else {
        return;
    };
    let _memory = device_memory();
    let log_n = 16.min(max_log());
    let n = 1usize << log_n;
    let x: Vec<F> = input(&mut StdRng::seed_from_u64(0x5ca1ed), n);
    // `budget`: the device memory the call may assume free (the data allocated before it).
    let run = |cfg: NttConfig<F>, budget: Option<usize>, what: &str| {
        let input = ordered_input(&x, &cfg);
        let mut d = DeviceVec::from_host(e.gpu(), &input).unwrap();
        e.gpu().set_memory_budget(budget);
        let done = e.ntt_in_place(&mut d, &cfg);
        e.gpu().set_memory_budget(None);
        done.unwrap();
        let mut want = input;
        reference::ntt(&mut want, &cfg).unwrap();
        assert_same(
            &d.to_host(e.gpu()).unwrap(),
            &want,
            &format!("2^{log_n} {what}"),
        );
    };
    let nr = NttConfig::inverse().with_ordering(Ordering::NR);
    let rn = NttConfig::inverse().with_ordering(Ordering::RN);
    // The inverse's own tables first (a coset inverse: its 1/N is in its coset table).
    let coset = NttConfig::inverse().with_coset(F::from(5u64));
    run(coset, None, "coset inverse");
    let before = e.twiddle_bytes();
    // No room for the scaled copy: POST_CONST, nothing built.
    let short = Some(n * 32 - 1);
    run(nr, short, "inverse NR, no room for the scaled table");
    run(rn, short, "inverse RN, no room for the scaled table");
    assert_eq!(e.twiddle_bytes(), before, "no scaled table without room");
    // With room: built once, then shared by NR, RN and the two-pass NN.
    run(nr, None, "inverse NR");
    let once = e.twiddle_bytes();
    assert_eq!(once, before + n * 32, "the scaled table, once");
    run(rn, None, "inverse RN");
    run(NttConfig::inverse(), None, "inverse NN");
    assert_eq!(e.twiddle_bytes(), once, "the scaled table, shared");
}

/// The full twiddle table above its default limit (`set_full_twiddles_max_log`): 2^23 keeps its
/// N powers per direction and every ordering still matches the reference, the inverse's 1/N in
/// the mid table included; back at the default the tables are compact again.
#[test]
fn full_twiddles_above_the_default() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("full_twiddles_above_the_default") else {
        return;
    };
    let _memory = device_memory();
    if max_log() < 23 {
        return;
    }
    assert_eq!(
        e.full_twiddles_max_log(),
        zkntt_gpu::FULL_TWIDDLES_DEFAULT_MAX_LOG
    );
    e.set_full_twiddles_max_log(23);
    let n = 1usize << 23;
    let x: Vec<F> = input(&mut StdRng::seed_from_u64(123), n);
    for (cfg, what) in [
        (NttConfig::forward(), "forward NN"),
        (
            NttConfig::inverse().with_ordering(Ordering::NR),
            "inverse NR",
        ),
        (
            NttConfig::inverse().with_ordering(Ordering::RN),
            "inverse RN",
        ),
    ] {
        let input = ordered_input(&x, &cfg);
        let mut d = DeviceVec::from_host(e.gpu(), &input).unwrap();
        e.ntt_in_place(&mut d, &cfg).unwrap();
        let mut want = input;
        reference::ntt(&mut want, &cfg).unwrap();
        assert_same(
            &d.to_host(e.gpu()).unwrap(),
            &want,
            &format!("2^23 {what}, full twiddles"),
        );
    }
    let full = e.twiddle_bytes();
    assert!(
        full >= 2 * (n * 32),
        "2^23 keeps N powers per direction: {full} bytes"
    );
    e.set_full_twiddles_max_log(zkntt_gpu::FULL_TWIDDLES_DEFAULT_MAX_LOG);
    assert_eq!(
        e.twiddle_bytes(),
        0,
        "the setting drops the cached twiddles"
    );
    let mut d = DeviceVec::from_host(e.gpu(), &x).unwrap();
    e.ntt_in_place(&mut d, &NttConfig::forward()).unwrap();
    assert!(
        e.twiddle_bytes() < 1 << 20,
        "2^23 compact again: {} bytes",
        e.twiddle_bytes()
    );
}

#[test]
fn peak_memory_of_2_23_in_place() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("peak_memory_of_2_23_in_place") else {
        return;
    };
    let _memory = device_memory();
    if max_log() < 23 {
        return;
    }
    let gpu = e.gpu();
    let n = 1usize << 23;
    let x: Vec<F> = input(&mut StdRng::seed_from_u64(23), n);
    gpu.synchronize().unwrap();
    let (free_before, _) = gpu.memory().unwrap();
    let mut d = DeviceVec::from_host(gpu, &x).unwrap();
    e.ntt_in_place(&mut d, &NttConfig::forward().with_coset(F::GENERATOR))
        .unwrap();
    e.ntt_in_place(&mut d, &NttConfig::inverse().with_coset(F::GENERATOR))
        .unwrap();
    gpu.synchronize().unwrap();
    let (free_after, _) = gpu.memory().unwrap();
    let used = free_before.saturating_sub(free_after);
    let data = n * 32;
    println!(
        "2^23 in place: {} MiB used for {} MiB of data ({:.3}x), twiddles {} KiB",
        used >> 20,
        data >> 20,
        used as f64 / data as f64,
        e.twiddle_bytes() >> 10
    );
    assert!(
        (used as f64) <= 1.15 * data as f64,
        "peak {used} bytes for {data} of data"
    );
    assert_same(&d.to_host(gpu).unwrap(), &x, "2^23 coset round trip");
    let _ = Direction::Forward;
}

/// Every plan shape once per size (forward NN, inverse coset NR), against the CPU reference: the
/// light test the sanitizers run (racecheck instruments every shared-memory access).
#[test]
fn each_plan_once() {
    type F = ark_bn254::Fr;
    let Some(h) = host("each_plan_once") else {
        return;
    };
    let _large = large_allocations();
    let mut rng = StdRng::seed_from_u64(18);
    for (stage1, stage2, blocks, chain) in [
        (Stage1::Shared, Stage2::Shared, Blocks::Wide, Chain::Auto),
        (Stage1::Shared, Stage2::Shared, Blocks::Narrow, Chain::Auto),
        (Stage1::Shared, Stage2::Shared, Blocks::Cluster, Chain::Auto),
        (
            Stage1::Shared,
            Stage2::Shared,
            Blocks::Narrow,
            Chain::Dependent,
        ),
        (Stage1::Shared, Stage2::Shared, Blocks::Wide, Chain::Plain),
        (Stage1::Shared, Stage2::Warp, Blocks::Auto, Chain::Auto),
        (Stage1::Shuffle, Stage2::Shared, Blocks::Auto, Chain::Auto),
        (Stage1::Shuffle, Stage2::Warp, Blocks::Auto, Chain::Auto),
    ] {
        h.engine().set_kernels(Kernels {
            stage1,
            stage2,
            blocks,
            chain,
            product: Product::Auto,
            lde: Lde::Auto,
            natural: Natural::SelfSorting,
            ..Kernels::default()
        });
        // 2^22: the first P = 2^10 plan (blocks of one 2^10 column: the seed's stage1 in two phases).
        let sizes = (1..=max_log().min(19)).chain((max_log() >= 22).then_some(22));
        for log_n in sizes {
            let x: Vec<F> = input(&mut rng, 1 << log_n);
            for cfg in [
                NttConfig::<F>::forward(),
                NttConfig::inverse()
                    .with_coset(F::GENERATOR)
                    .with_ordering(Ordering::NR),
                NttConfig::forward()
                    .with_coset(F::GENERATOR)
                    .with_ordering(Ordering::RN),
            ] {
                let mut want = x.clone();
                reference::ntt(&mut want, &cfg).unwrap();
                let mut got = x.clone();
                h.ntt(&mut got, &cfg).unwrap();
                let what = format!(
                    "{stage1:?}/{stage2:?}/{blocks:?}/{chain:?} 2^{log_n} {:?} {:?}",
                    cfg.direction, cfg.ordering
                );
                assert_same(&got, &want, &what);
            }
        }
    }
    // Two-pass natural order on the device (the host path above runs the in-place stages where it
    // goes by column ranges), narrow and wide blocks, forward and coset inverse, to 2^20.
    let e = h.engine();
    for blocks in [Blocks::Narrow, Blocks::Wide] {
        e.set_kernels(Kernels {
            natural: Natural::TwoPass,
            blocks,
            ..Kernels::default()
        });
        for log_n in 9..=max_log().min(20) {
            let x: Vec<F> = input(&mut rng, 1 << log_n);
            for cfg in [
                NttConfig::<F>::forward(),
                NttConfig::inverse().with_coset(F::GENERATOR),
            ] {
                let mut want = x.clone();
                reference::ntt(&mut want, &cfg).unwrap();
                let mut d = DeviceVec::from_host(e.gpu(), &x).unwrap();
                e.ntt_in_place(&mut d, &cfg).unwrap();
                let what = format!("two-pass {blocks:?} 2^{log_n} {:?}", cfg.direction);
                assert_same(&d.to_host(e.gpu()).unwrap(), &want, &what);
            }
        }
    }
    assert!(e.scratch_bytes() > 0, "a two-pass call holds its scratch");
    e.clear_cache();
    assert_eq!(e.scratch_bytes(), 0);
    e.set_kernels(Kernels::default());
}

/// The warp-only stage2 forced, at every three-stage size to 2^max (every Q it takes, 2^1..2^6,
/// and the shared-memory middle beyond), both fields, forward, inverse coset, NR and RN, and a
/// column-layout batch (strided elements): against ark-poly. `ZKNTT_KERNELS=stage2=warp` runs
/// every other suite with it as well.
#[test]
fn stage2_warp_every_three_stage_size() {
    every_three_stage_size(
        "stage2_warp_every_three_stage_size",
        Kernels {
            stage1: Stage1::Shared,
            stage2: Stage2::Warp,
            blocks: Blocks::Auto,
            chain: Chain::Auto,
            product: Product::Auto,
            lde: Lde::Auto,
            natural: Natural::SelfSorting,
            ..Kernels::default()
        },
    );
}

/// Narrow blocks forced (a radix-2 butterfly per thread, at most 2^8 elements per block, wherever
/// a column or group fits), as the warp stage2 test; the wide blocks and the cluster launch (every
/// size it runs, batches included, on sm_90+; narrow blocks elsewhere) forced likewise (the default
/// below 2^18 is narrow). `ZKNTT_KERNELS=blocks=narrow|wide|cluster` runs every other suite with
/// any of them.
#[test]
fn narrow_and_wide_blocks_every_three_stage_size() {
    for blocks in [Blocks::Narrow, Blocks::Wide, Blocks::Cluster] {
        every_three_stage_size(
            "narrow_and_wide_blocks_every_three_stage_size",
            Kernels {
                stage1: Stage1::Shared,
                stage2: Stage2::Shared,
                blocks,
                chain: Chain::Auto,
                product: Product::Auto,
                lde: Lde::Auto,
                natural: Natural::SelfSorting,
                ..Kernels::default()
            },
        );
    }
}

/// Natural order in two passes through the scratch forced (`Natural::TwoPass`, the default up to
/// 2^17 in all), narrow and wide blocks, as the warp stage2 test: every size to 2^20 in two
/// launches (the in-place stages beyond), and a column-layout batch of 4 x 2^14 through the
/// scratch in the same layout. `ZKNTT_KERNELS=natural=twopass|selfsorting` runs every other
/// suite with either.
#[test]
fn two_pass_natural_every_size() {
    for blocks in [Blocks::Narrow, Blocks::Wide] {
        every_three_stage_size(
            "two_pass_natural_every_size",
            Kernels {
                natural: Natural::TwoPass,
                blocks,
                ..Kernels::default()
            },
        );
    }
}

/// The hybrid product forced (one product of each independent pair of the wide column launches on
/// the FP64 pipe), wide blocks everywhere so that every column launch takes it, as the warp stage2
/// test. `ZKNTT_KERNELS=product=hybrid` runs every other suite with it.
#[test]
fn hybrid_product_every_three_stage_size() {
    every_three_stage_size(
        "hybrid_product_every_three_stage_size",
        Kernels {
            stage1: Stage1::Shared,
            stage2: Stage2::Auto,
            blocks: Blocks::Wide,
            chain: Chain::Auto,
            product: Product::Hybrid,
            lde: Lde::Auto,
            natural: Natural::SelfSorting,
            ..Kernels::default()
        },
    );
}

/// The column launches' trigger at their start forced (`Trigger::Start`: the next, dependent
/// launch may start right after each block's own wait), narrow and wide blocks, as the warp
/// stage2 test. `ZKNTT_KERNELS=trigger=start` runs every other suite with it.
#[test]
fn trigger_start_every_three_stage_size() {
    for blocks in [Blocks::Narrow, Blocks::Wide] {
        every_three_stage_size(
            "trigger_start_every_three_stage_size",
            Kernels {
                trigger: Trigger::Start,
                blocks,
                ..Kernels::default()
            },
        );
    }
}

/// The seed's stage1 forced (both column launches, blocks of 2^9 and 2^10 slots, every P the plan
/// makes), as the warp stage2 test. `ZKNTT_KERNELS=stage1=shuffle` runs every other suite with it.
#[test]
fn stage1_shuffle_every_three_stage_size() {
    every_three_stage_size(
        "stage1_shuffle_every_three_stage_size",
        Kernels {
            stage1: Stage1::Shuffle,
            stage2: Stage2::Shared,
            blocks: Blocks::Auto,
            chain: Chain::Auto,
            product: Product::Auto,
            lde: Lde::Auto,
            natural: Natural::SelfSorting,
            ..Kernels::default()
        },
    );
}

/// `kernels` forced at every three-stage size to 2^max, both fields, forward, inverse coset NR,
/// forward RN, and a column-layout batch (strided elements): against ark-poly.
fn every_three_stage_size(name: &str, kernels: Kernels) {
    let Some(e) = engine(name) else {
        return;
    };
    let _large = large_allocations();
    e.set_kernels(kernels);
    fn check<F: GpuField>(e: &NttEngine, log_n: u32, rng: &mut StdRng) {
        let n = 1usize << log_n;
        let x: Vec<F> = input(rng, n);
        let domain = Radix2EvaluationDomain::<F>::new(n).unwrap();
        let mut d = DeviceVec::from_host(e.gpu(), &x).unwrap();
        e.ntt_in_place(&mut d, &NttConfig::forward()).unwrap();
        let fwd = domain.fft(&x);
        assert_same(
            &d.to_host(e.gpu()).unwrap(),
            &fwd,
            &format!("2^{log_n} fwd"),
        );
        let cfg = NttConfig::inverse()
            .with_coset(F::GENERATOR)
            .with_ordering(Ordering::NR);
        let mut want = domain.get_coset(F::GENERATOR).unwrap().ifft(&x);
        bit_reverse_permute(&mut want);
        d.copy_from_host(e.gpu(), &x).unwrap();
        e.ntt_in_place(&mut d, &cfg).unwrap();
        assert_same(
            &d.to_host(e.gpu()).unwrap(),
            &want,
            &format!("2^{log_n} inv coset NR"),
        );
        let mut x_rev = x.clone();
        bit_reverse_permute(&mut x_rev);
        d.copy_from_host(e.gpu(), &x_rev).unwrap();
        e.ntt_in_place(&mut d, &NttConfig::forward().with_ordering(Ordering::RN))
            .unwrap();
        assert_same(&d.to_host(e.gpu()).unwrap(), &fwd, &format!("2^{log_n} RN"));
    }
    let mut rng = StdRng::seed_from_u64(0x5742);
    let max = max_log();
    for log_n in (zkntt_core::plan::MAX_SINGLE_LOG + 1)..=max {
        check::<ark_bn254::Fr>(&e, log_n, &mut rng);
        if log_n <= 20 || log_n == max {
            check::<ark_bls12_381::Fr>(&e, log_n, &mut rng);
        }
    }
    // Four transforms of 2^14 stored as columns (element stride 4).
    type F = ark_bn254::Fr;
    let (batch, log_n) = (4usize, 14u32);
    let x: Vec<F> = input(&mut rng, batch << log_n);
    let cfg = NttConfig::forward()
        .with_batch(batch)
        .with_layout(BatchLayout::Columns);
    let mut d = DeviceVec::from_host(e.gpu(), &x).unwrap();
    e.ntt_in_place(&mut d, &cfg).unwrap();
    let got = d.to_host(e.gpu()).unwrap();
    let domain = Radix2EvaluationDomain::<F>::new(1 << log_n).unwrap();
    for t in 0..batch {
        let col: Vec<F> = x.iter().skip(t).step_by(batch).copied().collect();
        let got_col: Vec<F> = got.iter().skip(t).step_by(batch).copied().collect();
        assert_same(&got_col, &domain.fft(&col), &format!("column {t}"));
    }
    println!(
        "{kernels:?}: 2^12..2^{max} fwd / inv coset NR / RN, a column batch: equal to ark-poly"
    );
}

/// Coset power tables are cached per (field, size, offset, table): repeated offsets, more
/// offsets than the cache holds (eviction), the same offset's forward, inverse and LDE tables
/// kept apart (g^j, g^-k / N, g^j / N), a repeated inverse served from the cache (no table
/// built), all still equal to ark-poly, and the cache stays small.
#[test]
fn coset_tables_cached_and_evicted() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("coset_tables_cached_and_evicted") else {
        return;
    };
    let gpu = e.gpu();
    let mut rng = StdRng::seed_from_u64(0xc05e7);
    let log_n = 14.min(max_log());
    let n = 1usize << log_n;
    let domain = Radix2EvaluationDomain::<F>::new(n).unwrap();
    let x: Vec<F> = input(&mut rng, n);
    let offsets: Vec<F> = (0..11).map(|_| F::rand(&mut rng)).collect();
    // The transform's own twiddles, both directions, before any coset; the inverse NR builds the
    // full table times 1/N that the LDE's NR half reads (the inverse NN may not, whatever kernels
    // ZKNTT_KERNELS forces).
    let mut d = DeviceVec::from_host(gpu, &x).unwrap();
    e.ntt_in_place(&mut d, &NttConfig::forward()).unwrap();
    e.ntt_in_place(&mut d, &NttConfig::inverse()).unwrap();
    let nr = NttConfig::inverse().with_ordering(Ordering::NR);
    e.ntt_in_place(&mut d, &nr).unwrap();
    gpu.synchronize().unwrap();
    let base = e.twiddle_bytes();
    // Each offset twice forward (a miss, then a hit), then offsets[0] again after 10 others
    // (evicted and rebuilt), then inverse with offset h^-1 of a cached h.
    let mut order: Vec<usize> = (0..offsets.len()).flat_map(|i| [i, i]).collect();
    order.push(0);
    for (step, &i) in order.iter().enumerate() {
        let g = offsets[i];
        let mut d = DeviceVec::from_host(gpu, &x).unwrap();
        e.ntt_in_place(&mut d, &NttConfig::forward().with_coset(g))
            .unwrap();
        let want = domain.get_coset(g).unwrap().fft(&x);
        assert_same(
            &d.to_host(gpu).unwrap(),
            &want,
            &format!("coset step {step}"),
        );
    }
    let h = offsets[0];
    let h_inv = h.inverse().unwrap();
    let mut d = DeviceVec::from_host(gpu, &x).unwrap();
    e.ntt_in_place(&mut d, &NttConfig::inverse().with_coset(h_inv))
        .unwrap();
    let want = domain.get_coset(h_inv).unwrap().ifft(&x);
    assert_same(&d.to_host(gpu).unwrap(), &want, "inverse coset of h^-1");
    // Offset h (cached forward): its inverse, an LDE and the inverse again, each its own table.
    let inverse_h = domain.get_coset(h).unwrap().ifft(&x);
    let lde_h = domain.get_coset(h).unwrap().fft(&domain.ifft(&x));
    for (step, lde) in [false, true, false].into_iter().enumerate() {
        let before = e.twiddle_bytes();
        let mut d = DeviceVec::from_host(gpu, &x).unwrap();
        let (what, want) = if lde {
            e.coset_lde_in_place(&mut d, &NttConfig::forward().with_coset(h))
                .unwrap();
            ("LDE", &lde_h)
        } else {
            e.ntt_in_place(&mut d, &NttConfig::inverse().with_coset(h))
                .unwrap();
            ("inverse", &inverse_h)
        };
        assert_same(
            &d.to_host(gpu).unwrap(),
            want,
            &format!("coset {what} of h, step {step}"),
        );
        if step == 2 {
            assert_eq!(
                e.twiddle_bytes(),
                before,
                "a repeated coset inverse builds no table"
            );
        }
    }
    // At most 8 coset tables of 2 x 2^ceil(log_n/2) elements (11 offsets were used).
    let per_table = (2 * 32) << log_n.div_ceil(2);
    let cosets = e.twiddle_bytes() - base;
    assert!(
        cosets > 0 && cosets <= 8 * per_table,
        "coset cache holds at most 8 tables: {cosets} bytes, {per_table} per table"
    );
}

/// The coset LDE (an inverse transform and a coset forward one, with the fused launch between
/// them, in NN/NN and in NR/RN) against ark-poly's `coset_fft(ifft(x))`: every size 2^0..2^max
/// for BN254 (2^0..2^18 and 2^max for BLS12-381), offsets the generator and a random one, a row
/// batch and a column batch,
/// the unfused path (the seed's stage1 forced, whose launches do not fuse), and the configurations
/// that are not an LDE (errors, the data untouched).
#[test]
fn coset_lde_matches_ark() {
    let Some(e) = engine("coset_lde_matches_ark") else {
        return;
    };
    let _large = large_allocations();
    fn lde_ark<F: GpuField>(x: &[F], g: F) -> Vec<F> {
        let domain = Radix2EvaluationDomain::<F>::new(x.len()).unwrap();
        domain.get_coset(g).unwrap().fft(&domain.ifft(x))
    }
    fn check<F: GpuField>(e: &NttEngine, log_n: u32, rng: &mut StdRng) {
        let n = 1usize << log_n;
        let x: Vec<F> = input(rng, n);
        for g in [F::GENERATOR, F::rand(rng)] {
            let mut d = DeviceVec::from_host(e.gpu(), &x).unwrap();
            e.coset_lde_in_place(&mut d, &NttConfig::forward().with_coset(g))
                .unwrap();
            assert_same(
                &d.to_host(e.gpu()).unwrap(),
                &lde_ark(&x, g),
                &format!("LDE 2^{log_n}"),
            );
        }
    }
    fn batches<F: GpuField>(e: &NttEngine, log_n: u32, batch: usize, rng: &mut StdRng) {
        let n = 1usize << log_n;
        let g = F::GENERATOR;
        let rows: Vec<Vec<F>> = (0..batch).map(|_| input(rng, n)).collect();
        let want: Vec<Vec<F>> = rows.iter().map(|r| lde_ark(r, g)).collect();
        let flat: Vec<F> = rows.concat();
        let mut d = DeviceVec::from_host(e.gpu(), &flat).unwrap();
        let cfg = NttConfig::forward().with_coset(g).with_batch(batch);
        e.coset_lde_in_place(&mut d, &cfg).unwrap();
        assert_same(
            &d.to_host(e.gpu()).unwrap(),
            &want.concat(),
            &format!("LDE {batch} x 2^{log_n} rows"),
        );
        // Column layout: element j of transform b at j * batch + b.
        let cols: Vec<F> = (0..n * batch).map(|i| rows[i % batch][i / batch]).collect();
        let want_cols: Vec<F> = (0..n * batch).map(|i| want[i % batch][i / batch]).collect();
        let mut d = DeviceVec::from_host(e.gpu(), &cols).unwrap();
        e.coset_lde_in_place(&mut d, &cfg.with_layout(BatchLayout::Columns))
            .unwrap();
        assert_same(
            &d.to_host(e.gpu()).unwrap(),
            &want_cols,
            &format!("LDE {batch} x 2^{log_n} columns"),
        );
    }
    let mut rng = StdRng::seed_from_u64(0x1de);
    let max = max_log();
    // Both forms: inverse NN + coset NN, inverse NR + coset RN (2^21 and up: three launches each).
    for lde in [Lde::Natural, Lde::BitReversed] {
        e.set_kernels(Kernels {
            lde,
            ..Kernels::default()
        });
        for log_n in 0..=max {
            check::<ark_bn254::Fr>(&e, log_n, &mut rng);
            if log_n <= 18 || log_n == max {
                check::<ark_bls12_381::Fr>(&e, log_n, &mut rng);
            }
        }
        for (log_n, batch) in [(6, 3), (12, 4), (16, 8), (19, 2)] {
            batches::<ark_bn254::Fr>(&e, log_n, batch, &mut rng);
            batches::<ark_bls12_381::Fr>(&e, log_n, batch, &mut rng);
        }
    }
    // The seed's stage1 forced in natural order: its column launches do not fuse, the call runs
    // both transforms.
    e.set_kernels(Kernels {
        stage1: Stage1::Shuffle,
        lde: Lde::Natural,
        ..Kernels::default()
    });
    for log_n in [12, 20] {
        check::<ark_bn254::Fr>(&e, log_n, &mut rng);
    }
    e.set_kernels(Kernels::default());
    // Not an LDE: an error before any launch, the data as it was.
    type Fr = ark_bn254::Fr;
    let x: Vec<Fr> = input(&mut rng, 1 << 10);
    let mut d = DeviceVec::from_host(e.gpu(), &x).unwrap();
    for cfg in [
        NttConfig::<Fr>::forward(),
        NttConfig::inverse().with_coset(Fr::GENERATOR),
        NttConfig::forward()
            .with_coset(Fr::GENERATOR)
            .with_ordering(Ordering::NR),
    ] {
        let err = e.coset_lde_in_place(&mut d, &cfg).unwrap_err();
        assert!(
            matches!(err, Error::Config(zkntt_core::Error::NotAnLde(_))),
            "{err}"
        );
    }
    assert!(matches!(
        e.coset_lde_in_place(&mut d, &NttConfig::forward().with_coset(Fr::zero())),
        Err(Error::Config(zkntt_core::Error::ZeroCosetOffset))
    ));
    assert!(matches!(
        e.coset_lde_in_place(
            &mut d,
            &NttConfig::forward().with_coset(Fr::GENERATOR).with_batch(3)
        ),
        Err(Error::Config(zkntt_core::Error::BadLength { .. }))
    ));
    assert_same(&d.to_host(e.gpu()).unwrap(), &x, "untouched after errors");
}
