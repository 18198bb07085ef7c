//! The Plonky3 backend against Plonky3's `Radix2DitParallel`, bit for bit: `dft_batch`,
//! `idft_batch`, `coset_dft_batch`, `coset_idft_batch`, `coset_lde_batch` (added_bits 1..3) and
//! the trait's defaults on top of them, BabyBear and KoalaBear, heights 2^0.., widths 1, 2, 3, 7,
//! 16, 256, random cosets.
//!
//! On a GPU machine every call that fits the GPU must have run there (`last_ran_on_gpu`), up to
//! 2^22 rows; elsewhere the same suite runs on the fallback, up to 2^16 rows, after one SKIP line
//! for its GPU half (with `ZKNTT_REQUIRE_GPU=1` that is a failure instead). The CPU twin of the
//! GPU's steps is checked against Plonky3 everywhere. On the GPU, transforms up to
//! 2^ZKNTT_TEST_MAX_LOG rows where that is set (`make emu-test` sets 14), the larger calls left out
//! with a line.
#![cfg(feature = "plonky3")]

use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_matrix::Matrix;
use p3_matrix::bitrev::BitReversibleMatrix;
use p3_matrix::dense::RowMajorMatrix;
use rand::{Rng, SeedableRng, rngs::StdRng};
use zkntt_small::plonky3::{BabyBear, GpuDft, GpuField, KoalaBear, Op, twin_transform};

const WIDTHS: [usize; 6] = [1, 2, 3, 7, 16, 256];

/// The GPU half's largest transform: 2^ZKNTT_TEST_MAX_LOG rows (unset: every call here).
fn test_max_log() -> u32 {
    zkntt_gpu::testing::test_max_log(u32::MAX)
}

/// Random elements, with 0, 1 and -1 first.
fn random_matrix<F: GpuField>(h: usize, w: usize, seed: u64) -> RowMajorMatrix<F> {
    let mut rng = StdRng::seed_from_u64(seed);
    let q = F::FIELD.modulus();
    let mut values: Vec<F> = (0..h * w)
        .map(|_| F::from_u32(rng.gen_range(0..q)))
        .collect();
    for (v, x) in values.iter_mut().zip([F::ZERO, F::ONE, F::NEG_ONE]) {
        *v = x;
    }
    RowMajorMatrix::new(values, w)
}

fn random_shift<F: GpuField>(seed: u64) -> F {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
    F::from_u32(rng.gen_range(1..F::FIELD.modulus()))
}

/// Equal, or a message naming the first differing row and column.
fn assert_same<F: GpuField>(got: &RowMajorMatrix<F>, want: &RowMajorMatrix<F>, what: &str) {
    assert_eq!(
        (got.width(), got.height()),
        (want.width(), want.height()),
        "{what}: shape"
    );
    if let Some(i) = got
        .values
        .iter()
        .zip(&want.values)
        .position(|(g, w)| g != w)
    {
        let bad = got
            .values
            .iter()
            .zip(&want.values)
            .filter(|(g, w)| g != w)
            .count();
        panic!(
            "{what}: row {} column {}: got {} want {} ({bad} of {} differ)",
            i / got.width(),
            i % got.width(),
            got.values[i],
            want.values[i],
            got.values.len()
        );
    }
}

/// The cases: every height 2^0..2^max_log_h, each width whose matrix has at most `budget`
/// elements (width 1 always), LDE blowups whose output has at most 8 x `budget`.
fn cases(max_log_h: u32, budget: usize) -> Vec<(u32, usize)> {
    let mut out = Vec::new();
    for log_h in 0..=max_log_h {
        for w in WIDTHS {
            if w == 1 || (w << log_h) <= budget {
                out.push((log_h, w));
            }
        }
    }
    out
}

fn conformance<F: GpuField>(test: &str) {
    let on_gpu =
        zkntt_gpu::testing::gpu_or_skip(&format!("{test} on the GPU (the CPU fallback runs)"))
            .is_some();
    let (max_log_h, budget) = if on_gpu {
        let k = test_max_log().min(22);
        (k, 1 << k)
    } else {
        (16, 1 << 12)
    };
    let gpu = GpuDft::<F>::new().with_cpu_below(0);
    let cpu = Radix2DitParallel::<F>::default();
    let max_log = F::FIELD.max_log_n();
    let check_ran = |log_out: u32, what: &str| {
        let want = on_gpu && log_out <= max_log;
        assert_eq!(
            gpu.last_ran_on_gpu(),
            Some(want),
            "{what}: ran on the {} (fallback: {:?})",
            if want {
                "CPU, not the GPU"
            } else {
                "GPU, not the CPU"
            },
            gpu.last_fallback()
        );
    };
    for (log_h, w) in cases(max_log_h, budget) {
        let h = 1usize << log_h;
        let seed = ((log_h as u64) << 16) | w as u64;
        let m = random_matrix::<F>(h, w, seed);
        let shift = random_shift::<F>(seed);
        let what = |op: &str| format!("{:?} {op} 2^{log_h} x {w}", F::FIELD);

        // The evaluations as stored (rows in bit-reversed order), as a PCS takes them.
        let got = gpu.dft_batch(m.clone()).bit_reverse_rows();
        check_ran(log_h, &what("dft_batch"));
        assert_same(
            &got,
            &cpu.dft_batch(m.clone()).bit_reverse_rows(),
            &what("dft_batch"),
        );

        let got = gpu.idft_batch(m.clone());
        check_ran(log_h, &what("idft_batch"));
        assert_same(&got, &cpu.idft_batch(m.clone()), &what("idft_batch"));

        let got = gpu.coset_dft_batch(m.clone(), shift).bit_reverse_rows();
        check_ran(log_h, &what("coset_dft_batch"));
        let want = cpu.coset_dft_batch(m.clone(), shift).bit_reverse_rows();
        assert_same(&got, &want, &what("coset_dft_batch"));

        let got = gpu.coset_idft_batch(m.clone(), shift);
        check_ran(log_h, &what("coset_idft_batch"));
        assert_same(
            &got,
            &cpu.coset_idft_batch(m.clone(), shift),
            &what("coset_idft_batch"),
        );

        for added_bits in 1..=3usize {
            if (w << (log_h as usize + added_bits)) > 8 * budget && w > 1 {
                continue;
            }
            let log_out = log_h + added_bits as u32;
            // Past the field's two-adicity (KoalaBear 2^24) Plonky3 itself has no transform.
            if log_out as usize > F::TWO_ADICITY {
                continue;
            }
            for s in [shift, F::GENERATOR] {
                let op = format!("coset_lde_batch +{added_bits} bits");
                let got = gpu
                    .coset_lde_batch(m.clone(), added_bits, s)
                    .bit_reverse_rows();
                check_ran(log_out, &what(&op));
                let want = cpu
                    .coset_lde_batch(m.clone(), added_bits, s)
                    .bit_reverse_rows();
                assert_same(&got, &want, &what(&op));
            }
        }
    }
    // The trait's defaults over the overridden methods: lde_batch, dft, coset_lde.
    let m = random_matrix::<F>(1 << 10, 3, 9);
    let got = gpu.lde_batch(m.clone(), 2).to_row_major_matrix();
    check_ran(12, "lde_batch");
    assert_same(
        &got,
        &cpu.lde_batch(m.clone(), 2).to_row_major_matrix(),
        "lde_batch",
    );
    let v = random_matrix::<F>(1 << 12, 1, 10).values;
    assert_eq!(gpu.dft(v.clone()), cpu.dft(v.clone()), "dft");
    let s = random_shift::<F>(11);
    assert_eq!(
        gpu.coset_lde(v.clone(), 1, s),
        cpu.coset_lde(v, 1, s),
        "coset_lde"
    );
    // Beyond the GPU's largest transform (2^24 rows): the fallback, the same result. KoalaBear's
    // two-adicity is 24, so Plonky3 has no larger transform there to compare with.
    // Whether the calls below whose largest transform has 2^log rows run.
    let large = |what: &str, log: u32| {
        on_gpu && zkntt_gpu::testing::within_test_max_log(&format!("{test}: {what}"), log, u32::MAX)
    };
    if F::TWO_ADICITY >= 25 && large("coset_lde_batch 2^23 + 2 bits", 25) {
        let m = random_matrix::<F>(1 << 23, 1, 12);
        let got = gpu
            .coset_lde_batch(m.clone(), 2, F::GENERATOR)
            .to_row_major_matrix();
        check_ran(25, "coset_lde_batch 2^23 + 2 bits");
        let want = cpu
            .coset_lde_batch(m, 2, F::GENERATOR)
            .to_row_major_matrix();
        assert_same(&got, &want, "coset_lde_batch 2^23 + 2 bits");
    }
    // Copies in 16 MiB chunks (4 Mi words): 2^21 x 3 is one and a half of them each way (two
    // of the download ring's slots).
    if large("the chunked copies (2^21 x 3, 2^20 x 37)", 22) {
        let m = random_matrix::<F>(1 << 21, 3, 13);
        let got = gpu.dft_batch(m.clone()).to_row_major_matrix();
        check_ran(21, "dft_batch 2^21 x 3");
        assert_same(
            &got,
            &cpu.dft_batch(m.clone()).to_row_major_matrix(),
            "dft_batch 2^21 x 3",
        );
        let p = gpu.last_profile().expect("a profile of the GPU call");
        assert_eq!((p.bytes_in, p.bytes_out), (24 << 20, 24 << 20), "{p:?}");
        assert!(
            p.staged_in <= p.first_out && p.first_out <= p.total,
            "{p:?}"
        );
        let s = random_shift::<F>(14);
        let got = gpu.coset_lde_batch(m.clone(), 1, s).bit_reverse_rows();
        check_ran(22, "coset_lde_batch 2^21 x 3 + 1 bit");
        let want = cpu.coset_lde_batch(m, 1, s).bit_reverse_rows();
        assert_same(&got, &want, "coset_lde_batch 2^21 x 3 + 1 bit");
        // More chunks than the download ring's 8 slots, each way, the last one partial: 2^20 x 37
        // is 9.25 chunks in, and its LDE 18.5 out.
        let m = random_matrix::<F>(1 << 20, 37, 15);
        let got = gpu.dft_batch(m.clone()).to_row_major_matrix();
        check_ran(20, "dft_batch 2^20 x 37");
        let want = cpu.dft_batch(m.clone()).to_row_major_matrix();
        assert_same(&got, &want, "dft_batch 2^20 x 37");
        let got = gpu.coset_lde_batch(m.clone(), 1, s).bit_reverse_rows();
        check_ran(21, "coset_lde_batch 2^20 x 37 + 1 bit");
        let want = cpu.coset_lde_batch(m, 1, s).bit_reverse_rows();
        assert_same(&got, &want, "coset_lde_batch 2^20 x 37 + 1 bit");
        let (g, c) = gpu.calls();
        eprintln!("{test}: {g} calls on the GPU, {c} on the CPU");
    }
}

#[test]
fn plonky3_conformance_babybear() {
    conformance::<BabyBear>("plonky3_conformance_babybear");
}

#[test]
fn plonky3_conformance_koalabear() {
    conformance::<KoalaBear>("plonky3_conformance_koalabear");
}

/// The GPU's steps on the CPU (Montgomery words through the kernels' NTT, plain-residue coset
/// powers, the LDE's order) reproduce Plonky3: runs everywhere, so CI checks the GPU path's
/// arithmetic, not only the fallback.
fn twin_matches_plonky3<F: GpuField>() {
    let cpu = Radix2DitParallel::<F>::default();
    let words = |m: &RowMajorMatrix<F>| -> Vec<u32> {
        m.values.iter().map(|x| x.to_unique_u32()).collect()
    };
    let field = F::FIELD;
    for (log_h, w) in cases(12, 1 << 12) {
        let m = random_matrix::<F>(1 << log_h, w, 100 + log_h as u64);
        let shift = random_shift::<F>(log_h as u64);
        let x = words(&m);
        let twin = |op| twin_transform(field, &x, w, log_h, op).unwrap();
        let what = |op: &str| format!("twin {field:?} {op} 2^{log_h} x {w}");
        assert_eq!(
            twin(Op::Dft),
            words(&cpu.dft_batch(m.clone()).bit_reverse_rows()),
            "{}",
            what("dft")
        );
        assert_eq!(
            twin(Op::Idft),
            words(&cpu.idft_batch(m.clone())),
            "{}",
            what("idft")
        );
        let s = shift.as_canonical_u32();
        assert_eq!(
            twin(Op::CosetDft { shift: s }),
            words(&cpu.coset_dft_batch(m.clone(), shift).bit_reverse_rows()),
            "{}",
            what("coset_dft")
        );
        let shift_inv = shift.inverse().as_canonical_u32();
        assert_eq!(
            twin(Op::CosetIdft { shift_inv }),
            words(&cpu.coset_idft_batch(m.clone(), shift)),
            "{}",
            what("coset_idft")
        );
        for added_bits in 1..=3u32 {
            let want = cpu
                .coset_lde_batch(m.clone(), added_bits as usize, shift)
                .bit_reverse_rows();
            assert_eq!(
                twin(Op::CosetLde {
                    added_bits,
                    shift: s
                }),
                words(&want),
                "{}",
                what(&format!("coset_lde +{added_bits}"))
            );
        }
    }
}

#[test]
fn twin_matches_plonky3_babybear() {
    twin_matches_plonky3::<BabyBear>();
}

#[test]
fn twin_matches_plonky3_koalabear() {
    twin_matches_plonky3::<KoalaBear>();
}

#[test]
fn small_calls_run_on_the_cpu_by_default() {
    let dft = GpuDft::<BabyBear>::default();
    assert_eq!(dft.last_ran_on_gpu(), None);
    let m = random_matrix::<BabyBear>(16, 4, 1);
    let got = dft.dft_batch(m.clone()).bit_reverse_rows();
    assert_eq!(dft.last_ran_on_gpu(), Some(false));
    let want = Radix2DitParallel::default().dft_batch(m).bit_reverse_rows();
    assert_same(&got, &want, "dft_batch 16 x 4");
    // Clones share the record.
    let clone = dft.clone();
    let _ = clone.idft_batch(random_matrix::<BabyBear>(8, 1, 2));
    assert_eq!(dft.calls(), (0, 2));
}

/// Calls from inside rayon tasks, several at once (a prover committing matrices in a `par_iter`):
/// each waits its turn for the GPU and equals `Radix2DitParallel`'s result. The calls' copies run
/// on threads of their own: were they on the caller's rayon pool, a worker waiting in one of the
/// copies' joins could take up another call, which would then wait for the lock its own thread
/// holds, and the calls would never end.
#[test]
fn calls_from_rayon_tasks_all_end() {
    use rayon::prelude::*;
    let on_gpu =
        zkntt_gpu::testing::gpu_or_skip("calls_from_rayon_tasks_all_end on the GPU").is_some();
    let gpu = GpuDft::<BabyBear>::new().with_cpu_below(0);
    let cpu = Radix2DitParallel::<BabyBear>::default();
    let (log_h, w, calls) = if on_gpu { (16, 32, 8) } else { (8, 4, 4) };
    let inputs: Vec<_> = (0..calls)
        .map(|i| random_matrix::<BabyBear>(1 << log_h, w, 200 + i))
        .collect();
    let shift = random_shift::<BabyBear>(15);
    let got: Vec<_> = inputs
        .par_iter()
        .map(|m| gpu.coset_lde_batch(m.clone(), 1, shift).bit_reverse_rows())
        .collect();
    for (i, (m, got)) in inputs.iter().zip(&got).enumerate() {
        let want = cpu.coset_lde_batch(m.clone(), 1, shift).bit_reverse_rows();
        assert_same(got, &want, &format!("call {i} from a rayon task"));
    }
    let (g, c) = gpu.calls();
    assert_eq!(g + c, calls);
    if on_gpu {
        assert_eq!(g, calls, "calls on the CPU ({:?})", gpu.last_fallback());
    }
}
