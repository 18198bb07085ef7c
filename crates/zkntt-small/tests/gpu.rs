//! GPU tests of the small-word kernels against their CPU references and twins, bit for bit. Each
//! test skips with one line where no GPU is present and fails instead under ZKNTT_REQUIRE_GPU=1.
//! Sizes up to 2^ZKNTT_TEST_MAX_LOG (default 26, every size here; `make emu-test` sets 14): a size
//! above it is left out with one line; `a_second_gpu_after_the_first_is_dropped` runs its 2^22
//! under any bound (about 2 s on the emulator).

use cudarc::driver::DevicePtrMut;
use rand::{Rng, SeedableRng, rngs::StdRng};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::{Gpu, Ordering};
use zkntt_small::coset;
use zkntt_small::modmul::{BLOG_MODULI, Modulus};
use zkntt_small::modmul_gpu::{ChainInputs, launch_chain};
use zkntt_small::{
    Direction, Error, Kernel, ModMulForm, PinnedBuffer, SmallField, SmallNtt, reference,
};

/// Whether 2^log_n is above the tests' bound (2^ZKNTT_TEST_MAX_LOG, default 2^26); says so on
/// stderr when it is.
fn above_bound(test: &str, log_n: u32) -> bool {
    !zkntt_gpu::testing::within_test_max_log(test, log_n, 26)
}

fn random_below(n: usize, bound: u64, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(0..bound) as u32).collect()
}

/// Random canonical elements with 0 and q-1 at the front.
fn inputs(field: SmallField, n: usize, seed: u64) -> Vec<u32> {
    let mut x = random_below(n, field.modulus() as u64, seed);
    x[0] = 0;
    if n > 1 {
        x[1] = field.modulus() - 1;
    }
    x
}

/// Equal, or a message naming the first differing transform and element.
fn assert_same(got: &[u32], want: &[u32], log_n: u32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
        let bad = got.iter().zip(want).filter(|(g, w)| g != w).count();
        panic!(
            "{what}, 2^{log_n}: transform {} element {}: got {} want {} ({bad} of {} differ)",
            i >> log_n,
            i & ((1 << log_n) - 1),
            got[i],
            want[i],
            got.len()
        );
    }
}

fn on_gpu(
    gpu: &Gpu,
    ntt: &SmallNtt,
    x: &[u32],
    log_n: u32,
    dir: Direction,
    kernel: Kernel,
) -> Vec<u32> {
    let mut d = gpu.stream().clone_htod(x).unwrap();
    ntt.run(&mut d, log_n, dir, kernel).unwrap();
    let out = gpu.stream().clone_dtoh(&d).unwrap();
    gpu.synchronize().unwrap();
    out
}

/// `run_into` of `x` (the input buffer is scratch).
fn on_gpu_into(
    gpu: &Gpu,
    ntt: &SmallNtt,
    x: &[u32],
    log_n: u32,
    dir: Direction,
    kernel: Kernel,
) -> Vec<u32> {
    let mut input = gpu.stream().clone_htod(x).unwrap();
    let mut out = gpu.stream().alloc_zeros::<u32>(x.len()).unwrap();
    ntt.run_into(&mut input, &mut out, log_n, dir, kernel)
        .unwrap();
    gpu.stream().clone_dtoh(&out).unwrap()
}

/// `run_raw` of `x` in `ordering` one word past an allocation (4-byte aligned, not 16: the
/// kernels' word-by-word loads and stores), read back.
fn run_raw_at_plus_4(
    gpu: &Gpu,
    ntt: &SmallNtt,
    x: &[u32],
    log_n: u32,
    dir: Direction,
    ordering: Ordering,
) -> Vec<u32> {
    let mut d = gpu.stream().alloc_zeros::<u32>(x.len() + 1).unwrap();
    let mut tail = d.slice_mut(1..);
    gpu.stream().memcpy_htod(x, &mut tail).unwrap();
    {
        let (ptr, _g) = tail.device_ptr_mut(gpu.stream());
        // SAFETY: `tail` holds x.len() words of this GPU, used by nothing else until the copy
        // back below, on the same stream.
        unsafe { ntt.run_raw(ptr, x.len(), log_n, dir, ordering) }.unwrap();
    }
    gpu.stream().clone_dtoh(&tail).unwrap()
}

#[test]
fn modmul_chains_match_cpu_twins() {
    let Some(gpu) = gpu_or_skip("modmul_chains_match_cpu_twins") else {
        return;
    };
    let n = 1 << 16;
    for (bits, q) in BLOG_MODULI {
        let m = Modulus::new(q).unwrap();
        let mut b = random_below(n, q as u64, bits as u64);
        b[..4].copy_from_slice(&[0, 1, q - 1, q - 2]);
        // Canonical a for the reduced forms; a up to 2^32 - 1 for the lazy ones.
        for (lazy, bound) in [(false, q as u64), (true, 1u64 << 32)] {
            let mut a = random_below(n, bound, bits as u64 + 100);
            a[..4].copy_from_slice(&[0, (bound - 1) as u32, 1, (bound - 1) as u32]);
            let mut inp = ChainInputs::new(&gpu, q, &a, &b).unwrap();
            for form in ModMulForm::ALL.into_iter().filter(|f| f.is_lazy() == lazy) {
                launch_chain(&gpu, form, &mut inp).unwrap();
                let got = gpu.stream().clone_dtoh(&inp.out).unwrap();
                gpu.synchronize().unwrap();
                let want: Vec<u32> = a
                    .iter()
                    .zip(&b)
                    .map(|(&x, &y)| {
                        let plain = (0..16).fold(x, |acc, _| m.mul_dynamic(acc, y));
                        assert_eq!(m.chain16(form, x, y), plain, "CPU twin {form:?} q={q}");
                        plain
                    })
                    .collect();
                assert_same(&got, &want, 0, &format!("chain16 {form:?} q={q}"));
            }
        }
    }
}

#[test]
fn every_size_kernel_and_form_matches_reference() {
    let Some(gpu) = gpu_or_skip("every_size_kernel_and_form_matches_reference") else {
        return;
    };
    for field in SmallField::ALL {
        for form in ModMulForm::ALL {
            let ntt = SmallNtt::new(&gpu, field, form).unwrap();
            for log_n in 0..=12u32 {
                // Two whole tiles and a partial one.
                let batch = ((2usize << 12) >> log_n) + 1 + (log_n % 3) as usize;
                let x = inputs(field, batch << log_n, log_n as u64);
                for dir in [Direction::Forward, Direction::Inverse] {
                    let mut want = x.clone();
                    reference::ntt_batch(field, &mut want, log_n, dir).unwrap();
                    // The ablation kernels exist for the Montgomery lazy form only.
                    let ablations = match form {
                        ModMulForm::MontgomeryLazy => &Kernel::ABLATIONS[..],
                        _ => &[],
                    };
                    for kernel in Kernel::ALL.into_iter().chain(ablations.iter().copied()) {
                        let got = on_gpu(&gpu, &ntt, &x, log_n, dir, kernel);
                        let what = format!("{field:?} {form:?} {kernel:?} {dir:?} batch {batch}");
                        assert_same(&got, &want, log_n, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn naive_definition_and_round_trip() {
    let Some(gpu) = gpu_or_skip("naive_definition_and_round_trip") else {
        return;
    };
    for field in SmallField::ALL {
        let ntt = SmallNtt::new(&gpu, field, ModMulForm::MontgomeryLazy).unwrap();
        for log_n in [1u32, 3, 6, 8] {
            let x = inputs(field, 1 << log_n, 77 + log_n as u64);
            let want = reference::naive_ntt(field, &x, Direction::Forward).unwrap();
            let got = on_gpu(&gpu, &ntt, &x, log_n, Direction::Forward, Kernel::Wsx);
            assert_same(&got, &want, log_n, &format!("{field:?} naive"));
        }
        for log_n in [1u32, 7, 12, 14, 16] {
            if above_bound("naive_definition_and_round_trip", log_n) {
                continue;
            }
            let x = inputs(field, 4 << log_n, 5);
            let mut d = gpu.stream().clone_htod(&x).unwrap();
            ntt.run(&mut d, log_n, Direction::Forward, Kernel::Wsx)
                .unwrap();
            ntt.run(&mut d, log_n, Direction::Inverse, Kernel::Wsx)
                .unwrap();
            let back = gpu.stream().clone_dtoh(&d).unwrap();
            assert_same(&back, &x, log_n, &format!("{field:?} INTT(NTT(x))"));
        }
    }
}

#[test]
fn convolution_theorem_on_gpu() {
    let Some(gpu) = gpu_or_skip("convolution_theorem_on_gpu") else {
        return;
    };
    for field in SmallField::ALL {
        let ntt = SmallNtt::new(&gpu, field, ModMulForm::Shoup).unwrap();
        for log_n in [2u32, 7, 10] {
            let a = inputs(field, 1 << log_n, 1);
            let b = inputs(field, 1 << log_n, 2);
            let fa = on_gpu(&gpu, &ntt, &a, log_n, Direction::Forward, Kernel::Wsx);
            let fb = on_gpu(&gpu, &ntt, &b, log_n, Direction::Forward, Kernel::Wsx);
            let prod: Vec<u32> = fa.iter().zip(&fb).map(|(&x, &y)| field.mul(x, y)).collect();
            let c = on_gpu(&gpu, &ntt, &prod, log_n, Direction::Inverse, Kernel::Wsx);
            let want = reference::cyclic_convolution(field, &a, &b).unwrap();
            assert_same(&c, &want, log_n, &format!("{field:?} convolution"));
        }
    }
}

#[test]
fn unreduced_inputs_below_2q_for_harvey_lazy_forms() {
    let Some(gpu) = gpu_or_skip("unreduced_inputs_below_2q_for_harvey_lazy_forms") else {
        return;
    };
    let field = SmallField::Q28;
    let q = field.modulus();
    for form in [ModMulForm::ShoupLazy, ModMulForm::MontgomeryLazy] {
        let ntt = SmallNtt::new(&gpu, field, form).unwrap();
        for log_n in [5u32, 12] {
            let x = inputs(field, 3 << log_n, 3);
            let mut unreduced: Vec<u32> = x.iter().map(|&v| v + q).collect();
            unreduced[1] = 2 * q - 1;
            let mut want = x.clone();
            reference::ntt_batch(field, &mut want, log_n, Direction::Forward).unwrap();
            for kernel in Kernel::ALL {
                let got = on_gpu(&gpu, &ntt, &unreduced, log_n, Direction::Forward, kernel);
                assert_same(
                    &got,
                    &want,
                    log_n,
                    &format!("{form:?} {kernel:?} in [0, 2q)"),
                );
            }
        }
    }
}

#[test]
fn two_d_sizes_match_reference() {
    let Some(gpu) = gpu_or_skip("two_d_sizes_match_reference") else {
        return;
    };
    let cases = [
        (SmallField::Q28, 13u32, 3usize),
        (SmallField::Q28, 16, 2),
        (SmallField::BabyBear, 13, 2),
        (SmallField::BabyBear, 17, 1),
        (SmallField::BabyBear, 20, 2),
        (SmallField::BabyBear, 24, 1),
        (SmallField::KoalaBear, 13, 2),
        (SmallField::KoalaBear, 18, 1),
        (SmallField::KoalaBear, 24, 1),
    ];
    for form in [
        ModMulForm::Montgomery,
        ModMulForm::ShoupLazy,
        ModMulForm::Barrett,
    ] {
        for &(field, log_n, batch) in &cases {
            if above_bound("two_d_sizes_match_reference", log_n) {
                continue;
            }
            if log_n == 24 && form != ModMulForm::Montgomery {
                continue;
            }
            let ntt = SmallNtt::new(&gpu, field, form).unwrap();
            let x = inputs(field, batch << log_n, log_n as u64);
            for dir in [Direction::Forward, Direction::Inverse] {
                let mut want = x.clone();
                reference::ntt_batch(field, &mut want, log_n, dir).unwrap();
                let got = on_gpu(&gpu, &ntt, &x, log_n, dir, Kernel::Wsx);
                assert_same(
                    &got,
                    &want,
                    log_n,
                    &format!("{field:?} {form:?} {dir:?} 2-D"),
                );
                let got = on_gpu_into(&gpu, &ntt, &x, log_n, dir, Kernel::BlockSync);
                assert_same(
                    &got,
                    &want,
                    log_n,
                    &format!("{field:?} {form:?} {dir:?} run_into"),
                );
            }
        }
    }
}

/// Panels of 8 tiles (both passes of 2^24, two groups of 4 tiles on 1024 threads) in every form
/// of both 31-bit fields, forward and inverse, in place and out of place, against one reference
/// per field and direction; RN too (its rows pass's 32-byte runs and 16-word twiddle chains).
#[test]
fn eight_tile_panels_in_every_form() {
    let Some(gpu) = gpu_or_skip("eight_tile_panels_in_every_form") else {
        return;
    };
    let log_n = 24;
    if above_bound("eight_tile_panels_in_every_form", log_n) {
        return;
    }
    for field in [SmallField::BabyBear, SmallField::KoalaBear] {
        let x = inputs(field, 1 << log_n, 2400);
        let reversed = bit_reverse_each(&x, log_n);
        for dir in [Direction::Forward, Direction::Inverse] {
            let mut want = x.clone();
            reference::ntt_batch(field, &mut want, log_n, dir).unwrap();
            for form in ModMulForm::ALL {
                let ntt = SmallNtt::new(&gpu, field, form).unwrap();
                let what = format!("{field:?} {form:?} {dir:?} 8-tile panels");
                let got = on_gpu(&gpu, &ntt, &x, log_n, dir, Kernel::Wsx);
                assert_same(&got, &want, log_n, &what);
                let got = on_gpu_into(&gpu, &ntt, &x, log_n, dir, Kernel::Wsx);
                assert_same(&got, &want, log_n, &format!("{what} run_into"));
                let mut d = gpu.stream().clone_htod(&reversed).unwrap();
                ntt.run_ordered(&mut d, log_n, dir, Kernel::Wsx, Ordering::RN)
                    .unwrap();
                let got = gpu.stream().clone_dtoh(&d).unwrap();
                assert_same(&got, &want, log_n, &format!("{what} RN"));
            }
        }
    }
}

/// RN's rows pass at every row length it runs on the panels, in every form of both 31-bit fields,
/// forward and inverse, clusters off: rows of 2^6..2^9 (2^13..2^19, the 2-D twiddles as products
/// over the reversed row bits, `Leave::Bits`), 2^10 (2^20, chained along the row), and batches
/// whose panels span matrices (the row index taken modulo the matrix's rows).
#[test]
fn rn_rows_of_every_length_in_every_form() {
    let Some(gpu) = gpu_or_skip("rn_rows_of_every_length_in_every_form") else {
        return;
    };
    let cases = [
        (13u32, 1usize),
        (14, 1),
        (15, 2),
        (16, 3),
        (17, 1),
        (18, 2),
        (19, 1),
        (20, 1),
    ];
    for field in [SmallField::BabyBear, SmallField::KoalaBear] {
        for &(log_n, batch) in &cases {
            if above_bound("rn_rows_of_every_length_in_every_form", log_n) {
                continue;
            }
            let x = inputs(field, batch << log_n, 1300 + log_n as u64);
            let reversed = bit_reverse_each(&x, log_n);
            for dir in [Direction::Forward, Direction::Inverse] {
                let mut want = x.clone();
                reference::ntt_batch(field, &mut want, log_n, dir).unwrap();
                for form in ModMulForm::ALL {
                    let ntt = SmallNtt::new(&gpu, field, form).unwrap();
                    ntt.set_clusters(false);
                    let mut d = gpu.stream().clone_htod(&reversed).unwrap();
                    ntt.run_ordered(&mut d, log_n, dir, Kernel::Wsx, Ordering::RN)
                        .unwrap();
                    let got = gpu.stream().clone_dtoh(&d).unwrap();
                    let what = format!("{field:?} {form:?} {dir:?} RN 2^{log_n} x {batch}, panels");
                    assert_same(&got, &want, log_n, &what);
                }
            }
        }
    }
}

/// The panel passes at a few small 2-D sizes (partial panels, panels spanning matrices): what
/// `issue20.sh sanitize` runs under compute-sanitizer.
#[test]
fn panel_small_sizes_match_twin() {
    let Some(gpu) = gpu_or_skip("panel_small_sizes_match_twin") else {
        return;
    };
    let field = SmallField::BabyBear;
    for form in [ModMulForm::ShoupLazy, ModMulForm::Montgomery] {
        let ntt = SmallNtt::new(&gpu, field, form).unwrap();
        ntt.set_clusters(false);
        for (log_n, batch) in [(13u32, 3usize), (14, 1), (16, 2)] {
            if above_bound("panel_small_sizes_match_twin", log_n) {
                continue;
            }
            assert!(!ntt.takes_cluster(log_n, batch as u64, Kernel::Wsx));
            let x = inputs(field, batch << log_n, log_n as u64);
            for dir in [Direction::Forward, Direction::Inverse] {
                let mut want = x.clone();
                zkntt_small::twin::two_d_panels(field, form, dir, log_n, &mut want, Ordering::NN)
                    .unwrap();
                let got = on_gpu(&gpu, &ntt, &x, log_n, dir, Kernel::Wsx);
                assert_same(
                    &got,
                    &want,
                    log_n,
                    &format!("{form:?} {dir:?} panels vs twin"),
                );
                // RN's two panel passes (the RN panel kernel) against their twin.
                let mut want = x.clone();
                zkntt_small::twin::two_d_panels(field, form, dir, log_n, &mut want, Ordering::RN)
                    .unwrap();
                let mut d = gpu.stream().clone_htod(&x).unwrap();
                ntt.run_ordered(&mut d, log_n, dir, Kernel::Wsx, Ordering::RN)
                    .unwrap();
                let got = gpu.stream().clone_dtoh(&d).unwrap();
                assert_same(
                    &got,
                    &want,
                    log_n,
                    &format!("{form:?} {dir:?} RN panels vs twin"),
                );
            }
        }
    }
}

/// The cluster kernel (2^13..2^16 in one launch, sm_90) against its CPU twin, bit for bit: every
/// cluster size, field and form, both directions, batches of one and three, in place (`run`) and
/// out of place (`run_into`), and RN in place. On sm_90 it must be the path `run` takes, 2^16
/// included.
#[test]
fn cluster_kernel_matches_twin() {
    let Some(gpu) = gpu_or_skip("cluster_kernel_matches_twin") else {
        return;
    };
    let sm90 = gpu.info().is_ok_and(|i| i.compute_capability.0 >= 9);
    for field in SmallField::ALL {
        for form in ModMulForm::ALL {
            let ntt = SmallNtt::new(&gpu, field, form).unwrap();
            if !sm90 {
                assert_eq!(ntt.cluster_max_log_n(), 12);
                continue;
            }
            assert_eq!(
                ntt.cluster_max_log_n(),
                16,
                "{field:?} {form:?}: cluster sizes"
            );
            for log_n in 13..=16u32 {
                if above_bound("cluster_kernel_matches_twin", log_n) {
                    continue;
                }
                let batch = if log_n == 14 { 3 } else { 1 };
                assert!(ntt.takes_cluster(log_n, batch as u64, Kernel::Wsx));
                let x = inputs(field, batch << log_n, 300 + log_n as u64);
                for dir in [Direction::Forward, Direction::Inverse] {
                    let what = format!("{field:?} {form:?} {dir:?} cluster");
                    let mut want = x.clone();
                    zkntt_small::twin::cluster(field, form, dir, log_n, &mut want, Ordering::NN)
                        .unwrap();
                    assert_same(
                        &on_gpu(&gpu, &ntt, &x, log_n, dir, Kernel::Wsx),
                        &want,
                        log_n,
                        &what,
                    );
                    let got = on_gpu_into(&gpu, &ntt, &x, log_n, dir, Kernel::Wsx);
                    assert_same(&got, &want, log_n, &format!("{what} run_into"));
                    // RN: the same input read bit-reversed, every form's RN instantiation.
                    let mut want = x.clone();
                    zkntt_small::twin::cluster(field, form, dir, log_n, &mut want, Ordering::RN)
                        .unwrap();
                    let mut d = gpu.stream().clone_htod(&x).unwrap();
                    ntt.run_ordered(&mut d, log_n, dir, Kernel::Wsx, Ordering::RN)
                        .unwrap();
                    let got = gpu.stream().clone_dtoh(&d).unwrap();
                    assert_same(&got, &want, log_n, &format!("{what} RN"));
                }
            }
        }
    }
}

/// The WSX kernel's 2-D path (two panel passes) at every size above one tile, in place (`run`)
/// and out of place (`run_into`), batches of one and two; the cluster kernel switched off.
#[test]
fn panel_passes_at_every_size_match_reference() {
    let Some(gpu) = gpu_or_skip("panel_passes_at_every_size_match_reference") else {
        return;
    };
    for field in SmallField::ALL {
        let ntt = SmallNtt::new(&gpu, field, ModMulForm::ShoupLazy).unwrap();
        ntt.set_clusters(false);
        // Up to two tiles: above, the rows run on the wide tile kernel (`babybear_above_two_tiles`).
        for log_n in 13..=field.max_log_n().min(24) {
            if above_bound("panel_passes_at_every_size_match_reference", log_n) {
                continue;
            }
            let batch = if log_n <= 20 { 2 } else { 1 };
            let x = inputs(field, batch << log_n, 100 + log_n as u64);
            for dir in [Direction::Forward, Direction::Inverse] {
                let mut want = x.clone();
                reference::ntt_batch(field, &mut want, log_n, dir).unwrap();
                let got = on_gpu(&gpu, &ntt, &x, log_n, dir, Kernel::Wsx);
                assert_same(
                    &got,
                    &want,
                    log_n,
                    &format!("{field:?} {dir:?} panels in place"),
                );
                let got = on_gpu_into(&gpu, &ntt, &x, log_n, dir, Kernel::Wsx);
                assert_same(
                    &got,
                    &want,
                    log_n,
                    &format!("{field:?} {dir:?} panels run_into"),
                );
            }
        }
    }
}

#[test]
fn coset_kernel_matches_twin() {
    let Some(gpu) = gpu_or_skip("coset_kernel_matches_twin") else {
        return;
    };
    for field in SmallField::ALL {
        let max = field.max_log_n();
        for (log_in, log_out, columns) in [
            (0u32, 0u32, 5usize),
            (0, 3, 2),
            (5, 8, 3),
            (12, 13, 2),
            (14, 14, 3),
            (15, 16, 1),
        ] {
            if log_out > max || above_bound("coset_kernel_matches_twin", log_out) {
                continue;
            }
            let x = inputs(field, columns << log_in, log_in as u64);
            let s = inputs(field, 3, log_out as u64)[2];
            let want = coset::expand_twin(field, &x, s, log_in, log_out).unwrap();
            let input = gpu.stream().clone_htod(&x).unwrap();
            let mut out = gpu.stream().alloc_zeros::<u32>(columns << log_out).unwrap();
            coset::expand_into(&gpu, field, &input, &mut out, s, log_in, log_out).unwrap();
            let got = gpu.stream().clone_dtoh(&out).unwrap();
            assert_same(
                &got,
                &want,
                log_out,
                &format!("{field:?} expand 2^{log_in} -> 2^{log_out}"),
            );
            if log_in == log_out {
                let mut d = gpu.stream().clone_htod(&x).unwrap();
                coset::scale_in_place(&gpu, field, &mut d, s, log_in).unwrap();
                let got = gpu.stream().clone_dtoh(&d).unwrap();
                assert_same(
                    &got,
                    &want,
                    log_in,
                    &format!("{field:?} scale in place 2^{log_in}"),
                );
            }
        }
    }
}

#[test]
fn host_to_host_over_streams() {
    let Some(gpu) = gpu_or_skip("host_to_host_over_streams") else {
        return;
    };
    let field = SmallField::BabyBear;
    let ntt = SmallNtt::new(&gpu, field, ModMulForm::Montgomery).unwrap();
    let log_n = 10;
    let x = inputs(field, 1000 << log_n, 11);
    let mut want = x.clone();
    reference::ntt_batch(field, &mut want, log_n, Direction::Forward).unwrap();
    for streams in [1usize, 2, 4, 8] {
        let mut host = x.clone();
        ntt.run_host(&mut host, log_n, Direction::Forward, Kernel::Wsx, streams)
            .unwrap();
        assert_same(&host, &want, log_n, &format!("run_host, {streams} streams"));
        let mut pinned = PinnedBuffer::new(&gpu, x.len()).unwrap();
        pinned.as_mut_slice().copy_from_slice(&x);
        ntt.run_pinned(&mut pinned, log_n, Direction::Forward, Kernel::Wsx, streams)
            .unwrap();
        assert_same(
            pinned.as_slice(),
            &want,
            log_n,
            &format!("run_pinned, {streams} streams"),
        );
    }
}

/// Each transform of 2^log_n reordered: output k to position rev(k).
fn bit_reverse_each(x: &[u32], log_n: u32) -> Vec<u32> {
    let mut y = x.to_vec();
    y.chunks_mut(1 << log_n)
        .for_each(zkntt_core::reference::bit_reverse_permute);
    y
}

/// NR (natural in, bit-reversed out: against the reference bit-reversed) and RN (bit-reversed
/// in, natural out: the reference of the input bit-reversed), in place, out of place and by
/// address, forward and inverse, BabyBear and KoalaBear, at every path's sizes: one tile (2^1,
/// 2^4, 2^8, 2^9, 2^10, 2^11, 2^12, batches, whole and partial tiles), the cluster kernel
/// (2^13..2^16, on sm_90) and the panel passes forced there too, the 2-D panels to 2^24 (8-tile
/// panels) and batches of them, RN also on an input only 4-byte aligned; the default form (Shoup
/// lazy) and Montgomery (to 2^20). The name keeps the `nr_matches` filter of `issue20.sh
/// sanitize`.
#[test]
fn nr_matches_reference_bit_reversed() {
    let Some(gpu) = gpu_or_skip("nr_matches_reference_bit_reversed") else {
        return;
    };
    let sm90 = gpu.info().is_ok_and(|i| i.compute_capability.0 >= 9);
    let cases = [
        (1u32, 5usize),
        (4, 3),
        (8, 2),
        (9, 9),
        (10, 5),
        (11, 3),
        (12, 2),
        (13, 2),
        (14, 1),
        (15, 1),
        (16, 1),
        (16, 2),
        (17, 1),
        (19, 1),
        (20, 3),
        (22, 1),
        (23, 1),
        (24, 1),
    ];
    for field in [SmallField::BabyBear, SmallField::KoalaBear] {
        for form in [ModMulForm::ShoupLazy, ModMulForm::Montgomery] {
            let ntt = SmallNtt::new(&gpu, field, form).unwrap();
            // One transform of 2^16 takes a 16-block cluster where the GPU has them.
            assert_eq!(
                ntt.takes_cluster(16, 1, Kernel::Wsx),
                sm90 && ntt.cluster_max_log_n() >= 16
            );
            for &(log_n, batch) in &cases {
                if above_bound("nr_matches_reference_bit_reversed", log_n) {
                    continue;
                }
                if form == ModMulForm::Montgomery && log_n > 20 {
                    continue;
                }
                let natural = inputs(field, batch << log_n, 77 + log_n as u64);
                for (dir, ordering) in [Direction::Forward, Direction::Inverse]
                    .into_iter()
                    .flat_map(|d| [(d, Ordering::NR), (d, Ordering::RN)])
                {
                    let mut want = natural.clone();
                    reference::ntt_batch(field, &mut want, log_n, dir).unwrap();
                    let (x, want) = match ordering {
                        Ordering::NR => (natural.clone(), bit_reverse_each(&want, log_n)),
                        _ => (bit_reverse_each(&natural, log_n), want),
                    };
                    let what =
                        format!("{field:?} {form:?} {dir:?} {ordering:?} 2^{log_n} x {batch}");
                    for clusters in [true, false] {
                        if !clusters && !(13..=16).contains(&log_n) {
                            continue;
                        }
                        ntt.set_clusters(clusters);
                        let mut d = gpu.stream().clone_htod(&x).unwrap();
                        ntt.run_ordered(&mut d, log_n, dir, Kernel::Wsx, ordering)
                            .unwrap();
                        let got = gpu.stream().clone_dtoh(&d).unwrap();
                        assert_same(&got, &want, log_n, &format!("{what}, clusters {clusters}"));
                        let mut input = gpu.stream().clone_htod(&x).unwrap();
                        let mut out = gpu.stream().alloc_zeros::<u32>(x.len()).unwrap();
                        ntt.run_into_ordered(
                            &mut input,
                            &mut out,
                            log_n,
                            dir,
                            Kernel::Wsx,
                            ordering,
                        )
                        .unwrap();
                        let got = gpu.stream().clone_dtoh(&out).unwrap();
                        assert_same(
                            &got,
                            &want,
                            log_n,
                            &format!("{what} run_into, clusters {clusters}"),
                        );
                        // The same by address (run_raw).
                        let mut d = gpu.stream().clone_htod(&x).unwrap();
                        {
                            let (ptr, _g) = d.device_ptr_mut(gpu.stream());
                            // SAFETY: `d` holds x.len() words of this GPU, used by nothing
                            // else until the copy back below, on the same stream.
                            unsafe { ntt.run_raw(ptr, x.len(), log_n, dir, ordering) }.unwrap();
                        }
                        let got = gpu.stream().clone_dtoh(&d).unwrap();
                        assert_same(
                            &got,
                            &want,
                            log_n,
                            &format!("{what} run_raw, clusters {clusters}"),
                        );
                        // RN reads 16 bytes at a time where the input is 16-byte aligned (the
                        // one-tile kernel at 2^10..2^12, the rows on it from 2^16, the panels'
                        // rows pass at 2^20): one word past an allocation it is not.
                        if ordering == Ordering::RN && ((10..=12).contains(&log_n) || log_n >= 16) {
                            let got = run_raw_at_plus_4(&gpu, &ntt, &x, log_n, dir, ordering);
                            assert_same(&got, &want, log_n, &format!("{what} run_raw at +4 bytes"));
                        }
                    }
                    ntt.set_clusters(true);
                }
            }
            eprintln!(
                "{field:?} {form:?}: NR equals the reference bit-reversed, RN the reference of \
                 the bit-reversed input, every path"
            );
        }
    }
}

/// NN's rows kernel (`cuda/small/ntt_nn_rows.cu`: the rows pass on clusters of 8 blocks, stored
/// across the rows in natural order, from 2^23 words) at each row length it takes, 2^9..2^12 (8,
/// 4, 2 and 1 rows a tile), in batches of 2^23 words: forward and inverse, in place, out of place
/// and by address at +4 bytes (runs that start mid-sector), BabyBear and KoalaBear in the default
/// form, BabyBear also in Montgomery form. The first and last cases (rows of 2^9 and of 2^12)
/// run at any ZKNTT_TEST_MAX_LOG, so that the CPU emulator in CI runs both of the kernel's
/// copies. Where this GPU has no clusters of 8 the
/// same cases run the older paths; below 2^23 words (2^22 alone) NN keeps them on every GPU.
#[test]
fn nn_rows_kernel_matches_reference() {
    let Some(gpu) = gpu_or_skip("nn_rows_kernel_matches_reference") else {
        return;
    };
    // The last field: run at any ZKNTT_TEST_MAX_LOG, so that CI's emulator runs the kernel's rows of
    // 2^9 (eight a tile, copied word by word) and of 2^12 (one a tile, copied in 16-byte groups).
    let cases = [
        (
            SmallField::BabyBear,
            ModMulForm::ShoupLazy,
            17u32,
            64usize,
            true,
        ),
        (SmallField::KoalaBear, ModMulForm::ShoupLazy, 19, 16, false),
        (SmallField::BabyBear, ModMulForm::Montgomery, 20, 8, false),
        (SmallField::KoalaBear, ModMulForm::ShoupLazy, 21, 4, false),
        (SmallField::BabyBear, ModMulForm::ShoupLazy, 22, 2, false),
        (SmallField::BabyBear, ModMulForm::ShoupLazy, 23, 1, true),
    ];
    let sm90 = gpu.info().is_ok_and(|i| i.compute_capability.0 >= 9);
    for (field, form, log_n, batch, always) in cases {
        if !always && above_bound("nn_rows_kernel_matches_reference", log_n) {
            continue;
        }
        let ntt = SmallNtt::new(&gpu, field, form).unwrap();
        assert_eq!(
            ntt.takes_nn_rows(log_n, batch as u64),
            sm90,
            "2^{log_n} x {batch}"
        );
        assert!(
            !ntt.takes_nn_rows(log_n, (batch / 2) as u64),
            "2^{log_n} x {}",
            batch / 2
        );
        nn_matches_reference(&gpu, &ntt, log_n, batch, 900 + log_n as u64);
    }
}

/// NN's wide rows kernel (BabyBear's rows of 2^13/2^14, 8 rows a cluster stored across the rows):
/// 2^25 and 2^26 (rows of two and of four tiles) forward and inverse out of place (`run_into`)
/// against the reference, at any ZKNTT_TEST_MAX_LOG, so that CI's CPU emulator runs the kernel at
/// both row lengths (`babybear_above_two_tiles` takes it at 2^25 x 2 and 2^26 in every entry
/// point where the bound allows). Where this GPU has no 2^25 (no clusters) the test says so and
/// stops.
#[test]
fn nn_rows_wide_kernel_matches_reference() {
    let Some(gpu) = gpu_or_skip("nn_rows_wide_kernel_matches_reference") else {
        return;
    };
    let field = SmallField::BabyBear;
    let ntt = SmallNtt::new(&gpu, field, ModMulForm::ShoupLazy).unwrap();
    if ntt.max_log_n(Kernel::Wsx) < 26 {
        eprintln!("SKIP nn_rows_wide_kernel_matches_reference: no 2^25, 2^26 on this GPU");
        return;
    }
    for log_n in [25u32, 26] {
        assert!(ntt.takes_nn_rows(log_n, 1));
        let x = inputs(field, 1 << log_n, 900 + log_n as u64);
        for dir in [Direction::Forward, Direction::Inverse] {
            let mut want = x.clone();
            reference::ntt_batch(field, &mut want, log_n, dir).unwrap();
            let got = on_gpu_into(&gpu, &ntt, &x, log_n, dir, Kernel::Wsx);
            assert_same(
                &got,
                &want,
                log_n,
                &format!("BabyBear {dir:?} NN 2^{log_n} run_into"),
            );
        }
    }
}

/// NN of `batch` random transforms of 2^log_n against the reference, forward and inverse: in
/// place (`run`, through the scratch), out of place (`run_into`) and by address at +4 bytes.
fn nn_matches_reference(gpu: &Gpu, ntt: &SmallNtt, log_n: u32, batch: usize, seed: u64) {
    let (field, form) = (ntt.field(), ntt.form());
    let x = inputs(field, batch << log_n, seed);
    for dir in [Direction::Forward, Direction::Inverse] {
        let mut want = x.clone();
        reference::ntt_batch(field, &mut want, log_n, dir).unwrap();
        let what = format!("{field:?} {form:?} {dir:?} NN 2^{log_n} x {batch}");
        let got = on_gpu(gpu, ntt, &x, log_n, dir, Kernel::Wsx);
        assert_same(&got, &want, log_n, &format!("{what} in place"));
        let got = on_gpu_into(gpu, ntt, &x, log_n, dir, Kernel::Wsx);
        assert_same(&got, &want, log_n, &format!("{what} run_into"));
        let got = run_raw_at_plus_4(gpu, ntt, &x, log_n, dir, Ordering::NN);
        assert_same(&got, &want, log_n, &format!("{what} run_raw at +4 bytes"));
    }
}

/// NN at 2^22..2^24 (the columns pass, in 16-transform panels at 2^22/2^23; then the rows on the
/// tile kernel and the transpose at 2^22 alone, NN's rows kernel from 2^23 words): one, three and
/// two matrices, forward and inverse, in place (`run`, through the scratch), out of place
/// (`run_into`) and by address at +4 bytes (`run_raw`: the transpose's word-by-word path), BabyBear
/// and KoalaBear, the default form and Montgomery (2^22).
#[test]
fn nn_from_2_22_matches_reference() {
    let Some(gpu) = gpu_or_skip("nn_from_2_22_matches_reference") else {
        return;
    };
    for field in [SmallField::BabyBear, SmallField::KoalaBear] {
        for form in [ModMulForm::ShoupLazy, ModMulForm::Montgomery] {
            let ntt = SmallNtt::new(&gpu, field, form).unwrap();
            for (log_n, batch) in [(22u32, 1usize), (22, 3), (23, 2), (24, 1)] {
                if above_bound("nn_from_2_22_matches_reference", log_n) {
                    continue;
                }
                if form == ModMulForm::Montgomery && log_n > 22 {
                    continue;
                }
                nn_matches_reference(&gpu, &ntt, log_n, batch, 500 + log_n as u64);
            }
        }
    }
}

/// BabyBear 2^25 and 2^26: columns of one tile (a panel pass), rows of 2^13 / 2^14 on the wide
/// tile kernel (NR) or on NN's wide rows kernel (NN: clusters of 8 rows stored across the rows;
/// on sm_90); RN the input's rows first, on the wide tile kernel's RN symbol.
/// NN, NR and RN against the reference, forward and inverse, in place, out of place and by
/// address, a batch of two at 2^25 (RN and NN there also by address at +4 bytes: the wide
/// kernel's word-by-word loads, NN's stores of runs that straddle sectors). The other kernels,
/// KoalaBear (two-adicity 24) and GPUs without clusters answer `SizeUnsupported`.
#[test]
fn babybear_above_two_tiles() {
    let Some(gpu) = gpu_or_skip("babybear_above_two_tiles") else {
        return;
    };
    let sm90 = gpu.info().is_ok_and(|i| i.compute_capability.0 >= 9);
    let field = SmallField::BabyBear;
    let ntt = SmallNtt::new(&gpu, field, ModMulForm::ShoupLazy).unwrap();
    assert_eq!(ntt.max_log_n(Kernel::BlockSync), 24);
    let koala = SmallNtt::new(&gpu, SmallField::KoalaBear, ModMulForm::ShoupLazy).unwrap();
    assert_eq!(koala.max_log_n(Kernel::Wsx), 24);
    let mut big = gpu.stream().alloc_zeros::<u32>(1 << 25).unwrap();
    for (n, kernel) in [(&koala, Kernel::Wsx), (&ntt, Kernel::BlockSync)] {
        assert!(matches!(
            n.run(&mut big, 25, Direction::Forward, kernel),
            Err(Error::SizeUnsupported { .. })
        ));
    }
    let max = ntt.max_log_n(Kernel::Wsx);
    if sm90 && ntt.cluster_max_log_n() >= 14 {
        assert_eq!(max, 26);
    }
    if max < 25 {
        assert!(matches!(
            ntt.run(&mut big, 25, Direction::Forward, Kernel::Wsx),
            Err(Error::SizeUnsupported { .. })
        ));
        eprintln!(
            "SKIP 2^25, 2^26: this GPU's clusters hold at most 2^{}",
            ntt.cluster_max_log_n()
        );
        return;
    }
    drop(big);
    // Where 2^25 runs on this GPU (clusters of 8), NN's rows take NN's wide rows kernel.
    assert!(ntt.takes_nn_rows(25, 1) && ntt.takes_nn_rows(26, 1));
    let mont = SmallNtt::new(&gpu, field, ModMulForm::Montgomery).unwrap();
    let barrett = SmallNtt::new(&gpu, field, ModMulForm::Barrett).unwrap();
    for (log_n, batch) in [(25u32, 2usize), (26, 1)] {
        if above_bound("babybear_above_two_tiles", log_n) {
            continue;
        }
        if log_n > max {
            continue;
        }
        let x = inputs(field, batch << log_n, 250 + log_n as u64);
        for dir in [Direction::Forward, Direction::Inverse] {
            let mut natural = x.clone();
            reference::ntt_batch(field, &mut natural, log_n, dir).unwrap();
            let reversed = bit_reverse_each(&x, log_n);
            for ordering in [Ordering::NN, Ordering::NR, Ordering::RN] {
                // NR: the transform bit-reversed; RN: the transform of the input bit-reversed.
                let (x, want) = match ordering {
                    Ordering::NR => (&x, bit_reverse_each(&natural, log_n)),
                    Ordering::RN => (&reversed, natural.clone()),
                    Ordering::NN => (&x, natural.clone()),
                };
                let what = format!("BabyBear {dir:?} {ordering:?} 2^{log_n} x {batch}");
                let mut d = gpu.stream().clone_htod(x).unwrap();
                ntt.run_ordered(&mut d, log_n, dir, Kernel::Wsx, ordering)
                    .unwrap();
                assert_same(&gpu.stream().clone_dtoh(&d).unwrap(), &want, log_n, &what);
                let mut input = gpu.stream().clone_htod(x).unwrap();
                let mut out = gpu.stream().alloc_zeros::<u32>(x.len()).unwrap();
                ntt.run_into_ordered(&mut input, &mut out, log_n, dir, Kernel::Wsx, ordering)
                    .unwrap();
                let got = gpu.stream().clone_dtoh(&out).unwrap();
                assert_same(&got, &want, log_n, &format!("{what} run_into"));
                let mut d = gpu.stream().clone_htod(x).unwrap();
                {
                    let (ptr, _g) = d.device_ptr_mut(gpu.stream());
                    // SAFETY: `d` holds x.len() words of this GPU, used by nothing else until
                    // the copy back below, on the same stream.
                    unsafe { ntt.run_raw(ptr, x.len(), log_n, dir, ordering) }.unwrap();
                }
                let got = gpu.stream().clone_dtoh(&d).unwrap();
                assert_same(&got, &want, log_n, &format!("{what} run_raw"));
            }
            // RN's 2-D twiddle chain (on the columns pass's loads) in a Montgomery form too
            // (above: Shoup lazy), and NR's rows on the wide tile kernel and NN's on NN's wide
            // rows kernel in forms whose symbols spill (Montgomery, Barrett).
            if log_n == 25 {
                // RN's rows on the wide tile kernel read word by word where the input is not
                // 16-byte aligned: one word past an allocation.
                let got = run_raw_at_plus_4(&gpu, &ntt, &reversed, log_n, dir, Ordering::RN);
                let what = format!("BabyBear {dir:?} RN 2^{log_n} x {batch} run_raw at +4 bytes");
                assert_same(&got, &natural, log_n, &what);
                // NN's wide rows store runs of 8 words that straddle sectors there.
                let got = run_raw_at_plus_4(&gpu, &ntt, &x, log_n, dir, Ordering::NN);
                let what = format!("BabyBear {dir:?} NN 2^{log_n} x {batch} run_raw at +4 bytes");
                assert_same(&got, &natural, log_n, &what);
                let mut d = gpu.stream().clone_htod(&reversed).unwrap();
                mont.run_ordered(&mut d, log_n, dir, Kernel::Wsx, Ordering::RN)
                    .unwrap();
                let what = format!("BabyBear Montgomery {dir:?} RN 2^{log_n} x {batch}");
                assert_same(
                    &gpu.stream().clone_dtoh(&d).unwrap(),
                    &natural,
                    log_n,
                    &what,
                );
                let nr_want = bit_reverse_each(&natural, log_n);
                for (n, form) in [(&mont, "Montgomery"), (&barrett, "Barrett")] {
                    for (ordering, want) in [(Ordering::NR, &nr_want), (Ordering::NN, &natural)] {
                        let mut d = gpu.stream().clone_htod(&x).unwrap();
                        n.run_ordered(&mut d, log_n, dir, Kernel::Wsx, ordering)
                            .unwrap();
                        let what = format!("BabyBear {form} {dir:?} {ordering:?} 2^{log_n}");
                        assert_same(&gpu.stream().clone_dtoh(&d).unwrap(), want, log_n, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn bad_requests_are_errors() {
    let Some(gpu) = gpu_or_skip("bad_requests_are_errors") else {
        return;
    };
    let ntt = SmallNtt::new(&gpu, SmallField::Q28, ModMulForm::Montgomery).unwrap();
    let mut d = gpu.stream().alloc_zeros::<u32>(12).unwrap();
    assert!(matches!(
        ntt.run(&mut d, 3, Direction::Forward, Kernel::Wsx),
        Err(Error::NotWholeTransforms { .. })
    ));
    let mut d = gpu.stream().alloc_zeros::<u32>(1 << 17).unwrap();
    assert!(matches!(
        ntt.run(&mut d, 17, Direction::Forward, Kernel::Wsx),
        Err(Error::SizeUnsupported { .. })
    ));
    let mut host = vec![0u32; 64];
    assert!(matches!(
        ntt.run_host(&mut host, 4, Direction::Forward, Kernel::Wsx, 0),
        Err(Error::Streams(0))
    ));
    assert!(matches!(
        ntt.run_host(&mut host, 13, Direction::Forward, Kernel::Wsx, 1),
        Err(Error::NotWholeTransforms { .. })
    ));
    // The ablation kernel exists in the Montgomery lazy form only: refused before any copy.
    host.iter_mut().enumerate().for_each(|(i, x)| *x = i as u32);
    let before = host.clone();
    assert!(matches!(
        ntt.run_host(&mut host, 4, Direction::Forward, Kernel::WsxHalf, 2),
        Err(Error::NoFormKernel { .. })
    ));
    assert_eq!(host, before, "run_host changed data it refused");
    let a = vec![1u32; 4];
    assert!(matches!(
        ChainInputs::new(&gpu, 97, &a, &a),
        Err(Error::NoKernel { .. })
    ));
    // The chain's public buffers swapped for a shorter one: refused, not written past its end.
    let mut inputs = ChainInputs::new(&gpu, 65_521, &a, &a).unwrap();
    inputs.out = gpu.stream().alloc_zeros::<u32>(2).unwrap();
    assert!(matches!(
        launch_chain(&gpu, ModMulForm::Montgomery, &mut inputs),
        Err(Error::LengthMismatch {
            expected: 4,
            got: 2
        })
    ));
    // run_raw: a null or misaligned address, a length that is not whole transforms.
    for address in [0, 4098] {
        assert!(matches!(
            unsafe { ntt.run_raw(address, 1 << 10, 10, Direction::Forward, Ordering::NN) },
            Err(Error::BadAddress { .. })
        ));
    }
    assert!(matches!(
        unsafe { ntt.run_raw(4096, 12, 3, Direction::Forward, Ordering::NN) },
        Err(Error::NotWholeTransforms { .. })
    ));
    // Orderings not built: the bit-reversed orders off the WSX kernel.
    let mut d = gpu.stream().alloc_zeros::<u32>(1 << 14).unwrap();
    for (kernel, ordering) in [
        (Kernel::BlockSync, Ordering::NR),
        (Kernel::WsxHalf, Ordering::NR),
        (Kernel::BlockSync, Ordering::RN),
        (Kernel::WsxHalf, Ordering::RN),
    ] {
        for log_n in [10, 14] {
            assert!(matches!(
                ntt.run_ordered(&mut d, log_n, Direction::Forward, kernel, ordering),
                Err(Error::OrderingUnsupported { .. })
            ));
        }
    }
}

/// A second `Gpu`, opened after the first is dropped, runs the panel kernel with more than 48 KiB
/// of dynamic shared memory (2^22: 8-tile panels, 144 KiB) as the first did. A raised limit
/// belongs to the module it was set in, and the driver may give a new module's function the
/// dropped one's address with the default limit (the emulator does so on purpose), so nothing
/// may remember the raise by that address past its module. 2^22 is the smallest transform whose
/// panels pass 48 KiB, so it runs under any ZKNTT_TEST_MAX_LOG (about 2 s on the emulator).
#[test]
fn a_second_gpu_after_the_first_is_dropped() {
    let test = "a_second_gpu_after_the_first_is_dropped";
    let (field, log_n) = (SmallField::BabyBear, 22);
    let x = inputs(field, 1 << log_n, 0x5ec0);
    let mut want = x.clone();
    reference::ntt_batch(field, &mut want, log_n, Direction::Forward).unwrap();
    for round in 0..2 {
        // The round's Gpu, and with it its module, is dropped at the round's end.
        let Some(gpu) = gpu_or_skip(test) else {
            return;
        };
        let ntt = SmallNtt::new(&gpu, field, ModMulForm::ShoupLazy).unwrap();
        let got = on_gpu(&gpu, &ntt, &x, log_n, Direction::Forward, Kernel::Wsx);
        assert_same(&got, &want, log_n, &format!("round {round}"));
    }
}
