//! GPU tests of the runtime: field kernels against ark-ff, and error paths. Each test skips with
//! one line where no GPU is present and fails instead under ZKNTT_REQUIRE_GPU=1.

mod host;
mod interop;
mod multi;
mod ntt;

use ark_ff::{BigInteger, PrimeField, UniformRand};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use zkntt_gpu::field_ops::{self, BinaryOp};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::{DeviceVec, Error, Gpu, GpuField};

/// Canonical values and Montgomery-limb patterns that stress carries and the final subtraction.
fn edge_values<F: PrimeField>() -> Vec<F> {
    let p = F::MODULUS;
    let mut out = vec![
        F::zero(),
        F::one(),
        F::from(2u64),
        -F::one(),
        -F::from(2u64),
    ];
    // Canonical values just below 2^253 and 2^254 where the field holds them.
    for bits in [253u32, 254] {
        let two_k = F::BigInt::from(1u64) << bits;
        if two_k < p {
            for d in 1..=2u64 {
                let mut v = two_k;
                v.sub_with_borrow(&F::BigInt::from(d));
                out.push(F::from_bigint(v).unwrap());
            }
        }
    }
    // Elements whose stored Montgomery limbs are p-1, p-2, 1 and 2^64-1 (x = raw * R^-1).
    let r_inv = F::from(2u64)
        .pow([F::MODULUS.as_ref().len() as u64 * 64])
        .inverse()
        .unwrap();
    for d in [1u64, 2] {
        let mut raw = p;
        raw.sub_with_borrow(&F::BigInt::from(d));
        out.push(F::from_bigint(raw).unwrap() * r_inv);
    }
    out.push(r_inv);
    out.push(F::from(u64::MAX) * r_inv);
    out
}

fn check_field<F: GpuField>(gpu: &Gpu, label: &str) {
    let mut rng = StdRng::seed_from_u64(0x5eed_0000 + label.len() as u64);
    let n = 1 << 20;
    let mut a: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
    let mut b: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
    // All ordered pairs of edge values at the front.
    let edges = edge_values::<F>();
    let mut k = 0;
    for x in &edges {
        for y in &edges {
            a[k] = *x;
            b[k] = *y;
            k += 1;
        }
    }
    let da = DeviceVec::from_host(gpu, &a).unwrap();
    let db = DeviceVec::from_host(gpu, &b).unwrap();
    let mut out = DeviceVec::<F>::zeros(gpu, n).unwrap();
    type Case<F> = (BinaryOp, fn(F, F) -> F);
    let cases: [Case<F>; 3] = [
        (BinaryOp::Add, |x, y| x + y),
        (BinaryOp::Sub, |x, y| x - y),
        (BinaryOp::Mul, |x, y| x * y),
    ];
    for (op, f) in cases {
        field_ops::binary(gpu, op, &da, &db, &mut out).unwrap();
        let got = out.to_host(gpu).unwrap();
        for i in 0..n {
            assert_eq!(
                got[i],
                f(a[i], b[i]),
                "{label} {op:?}: element {i} (a={}, b={})",
                a[i],
                b[i]
            );
        }
    }
    field_ops::square(gpu, &da, &mut out).unwrap();
    let got = out.to_host(gpu).unwrap();
    for i in 0..n {
        assert_eq!(
            got[i],
            a[i].square(),
            "{label} square: element {i} (a={})",
            a[i]
        );
    }
    // In place: a op b into a's buffer, for each op in turn on the previous result.
    let mut acc = DeviceVec::from_host(gpu, &a).unwrap();
    let mut want = a.clone();
    for (op, f) in cases {
        field_ops::binary_in_place(gpu, op, &mut acc, &db).unwrap();
        want.iter_mut().zip(&b).for_each(|(w, y)| *w = f(*w, *y));
        let got = acc.to_host(gpu).unwrap();
        if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
            panic!("{label} {op:?} in place: element {i} (b={})", b[i]);
        }
    }
    // By one scalar, into another buffer and in place: every edge value as the scalar.
    for s in edges.iter().copied().chain([F::rand(&mut rng)]) {
        field_ops::scale(gpu, &da, s, &mut out).unwrap();
        let got = out.to_host(gpu).unwrap();
        if let Some(i) = (0..n).find(|&i| got[i] != a[i] * s) {
            panic!("{label} scale by {s}: element {i} (a={})", a[i]);
        }
    }
    let s = F::rand(&mut rng);
    let mut x = DeviceVec::from_host(gpu, &a).unwrap();
    field_ops::scale_in_place(gpu, &mut x, s).unwrap();
    let got = x.to_host(gpu).unwrap();
    if let Some(i) = (0..n).find(|&i| got[i] != a[i] * s) {
        panic!("{label} scale in place by {s}: element {i} (a={})", a[i]);
    }
    println!(
        "{label}: add, sub, mul, square, in place, scale match ark-ff on {n} elements ({} edge pairs)",
        k
    );
}

#[test]
fn field_kernels_match_ark_ff() {
    let Some(gpu) = gpu_or_skip("field_kernels_match_ark_ff") else {
        return;
    };
    println!("{}", gpu.info().unwrap());
    check_field::<ark_bn254::Fr>(&gpu, "bn254_fr");
    check_field::<ark_bls12_381::Fr>(&gpu, "bls12_381_fr");
}

/// The product microbenchmark's chains (integer, FP64, hybrid) equal ark-ff's x * step^iters on
/// the edge values and random elements, both fields; an odd length is an error for the hybrid.
#[test]
fn product_chains_match_ark_ff() {
    use field_ops::ProductForm;
    let Some(gpu) = gpu_or_skip("product_chains_match_ark_ff") else {
        return;
    };
    fn check<F: GpuField>(gpu: &Gpu, label: &str) {
        let mut rng = StdRng::seed_from_u64(1818);
        let mut x = edge_values::<F>();
        x.extend((0..4096).map(|_| F::rand(&mut rng)));
        x.truncate(x.len() & !1);
        for (step, iters) in [(F::rand(&mut rng), 37u32), (-F::one(), 3), (F::zero(), 1)] {
            let power = step.pow([iters as u64]);
            let want: Vec<F> = x.iter().map(|v| *v * power).collect();
            for form in ProductForm::ALL {
                let mut d = DeviceVec::from_host(gpu, &x).unwrap();
                field_ops::product_chain(gpu, form, &mut d, step, iters).unwrap();
                let got = d.to_host(gpu).unwrap();
                if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
                    panic!("{label} {form:?} x{iters}: element {i} ({}) differs", x[i]);
                }
            }
        }
        let mut odd = DeviceVec::from_host(gpu, &x[..3]).unwrap();
        for form in [ProductForm::Hybrid, ProductForm::HybridFolded] {
            assert!(matches!(
                field_ops::product_chain(gpu, form, &mut odd, F::one(), 1),
                Err(Error::LengthMismatch { .. })
            ));
        }
    }
    check::<ark_bn254::Fr>(&gpu, "bn254_fr");
    check::<ark_bls12_381::Fr>(&gpu, "bls12_381_fr");
}

#[test]
fn pipe_rates_are_measured() {
    use field_ops::Pipe;
    let Some(gpu) = gpu_or_skip("pipe_rates_are_measured") else {
        return;
    };
    for pipe in Pipe::ALL {
        let rate = field_ops::pipe_rate(&gpu, pipe, 64).unwrap();
        assert!(rate.is_finite() && rate > 0.0, "{pipe:?}: {rate}");
    }
    assert!(matches!(
        field_ops::pipe_rate(&gpu, Pipe::Dfma, 0),
        Err(Error::Unsupported(_))
    ));
}

#[test]
fn round_trip_and_bad_input() {
    let Some(gpu) = gpu_or_skip("round_trip_and_bad_input") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(7);
    let host: Vec<ark_bn254::Fr> = (0..1000).map(|_| ark_bn254::Fr::rand(&mut rng)).collect();
    let mut d = DeviceVec::from_host(&gpu, &host).unwrap();
    assert_eq!(d.to_host(&gpu).unwrap(), host);

    // Length mismatches: clear errors, buffers untouched.
    let mut short = vec![ark_bn254::Fr::from(0u64); 999];
    assert!(matches!(
        d.copy_to_host(&gpu, &mut short),
        Err(Error::LengthMismatch {
            expected: 1000,
            got: 999
        })
    ));
    assert!(matches!(
        d.copy_from_host(&gpu, &short),
        Err(Error::LengthMismatch { .. })
    ));
    let other = DeviceVec::<ark_bn254::Fr>::zeros(&gpu, 10).unwrap();
    let mut out = DeviceVec::<ark_bn254::Fr>::zeros(&gpu, 1000).unwrap();
    // The operand of the wrong length is the one named as got.
    assert!(matches!(
        field_ops::binary(&gpu, BinaryOp::Mul, &d, &other, &mut out),
        Err(Error::LengthMismatch {
            expected: 1000,
            got: 10
        })
    ));
    assert_eq!(d.to_host(&gpu).unwrap(), host);

    // A field without kernels (ark_bn254::Fq, u64) does not compile: the compile_fail doctests
    // of DeviceVec and HostPipeline::ntt.

    // More memory than the device has: OutOfMemory with the sizes, not a panic.
    let (free, total) = gpu.memory().unwrap();
    match DeviceVec::<ark_bn254::Fr>::zeros(&gpu, total / 32 * 2) {
        Err(Error::OutOfMemory { needed, .. }) => assert!(needed > free),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // The copy in place still works afterwards.
    d.copy_from_host(&gpu, &host).unwrap();
    let mut back = vec![ark_bn254::Fr::from(0u64); 1000];
    d.copy_to_host(&gpu, &mut back).unwrap();
    assert_eq!(back, host);

    // Empty vectors: a zero-byte allocation (zeroed or uploaded) round-trips nothing and drops.
    let empty = DeviceVec::<ark_bn254::Fr>::zeros(&gpu, 0).unwrap();
    assert!(empty.is_empty() && empty.num_bytes() == 0);
    assert!(empty.to_host(&gpu).unwrap().is_empty());
    let mut empty = DeviceVec::<ark_bn254::Fr>::from_host(&gpu, &[]).unwrap();
    empty.copy_from_host(&gpu, &[]).unwrap();
    empty.copy_to_host(&gpu, &mut []).unwrap();
    assert!(empty.to_host(&gpu).unwrap().is_empty());
    drop(empty);
    gpu.synchronize().unwrap();
    let _ = Gpu::device_count();
}
