//! `products`: issue 18's microbenchmark. Chains of dependent Montgomery products on every SM
//! (`zkntt_gpu::field_ops::product_chain`): today's integer product, the FP64 product (five 52-bit
//! limbs from DFMA pairs), and the hybrid (one chain of each per thread). G products/s, median of
//! 5, CUDA events; every form's result checked against ark-ff (x * step^iters for every element,
//! edge values included) in the same run. Both fields.

use ark_ff::PrimeField;
use zkntt_benches::random_elements;
use zkntt_gpu::field_ops::{ProductForm, product_chain};
use zkntt_gpu::testing::gpu_or_skip;
use zkntt_gpu::timing::median_ms;
use zkntt_gpu::{DeviceVec, Gpu, GpuField};

/// Edge values first (0, 1, p-1, p-2, 2^253 and neighbours), then random elements.
fn inputs<F: PrimeField>(n: usize) -> Vec<F> {
    let mut v: Vec<F> = random_elements(n, 18);
    let two_253 = F::from(2u64).pow([253u64]);
    let edges = [
        F::zero(),
        F::one(),
        -F::one(),
        -F::from(2u64),
        two_253,
        two_253 - F::one(),
        two_253 + F::one(),
        F::from(2u64).inverse().unwrap(),
    ];
    v[..edges.len()].copy_from_slice(&edges);
    v
}

fn run<F: GpuField>(gpu: &Gpu, label: &str) {
    let sms = gpu
        .info()
        .map(|i| i.multiprocessors as usize)
        .unwrap_or(132);
    let (n, iters, reps) = (sms * 2048 * 2, 1000u32, 5);
    let x: Vec<F> = inputs(n);
    let step = random_elements::<F>(1, 7)[0];
    let power = step.pow([iters as u64]);
    let want: Vec<F> = x.iter().map(|v| *v * power).collect();
    let mut base = None;
    for form in [ProductForm::Integer, ProductForm::Fp64, ProductForm::Hybrid] {
        let mut d = DeviceVec::from_host(gpu, &x).unwrap();
        product_chain(gpu, form, &mut d, step, iters).unwrap();
        let got = d.to_host(gpu).unwrap();
        let wrong = got.iter().zip(&want).filter(|(a, b)| a != b).count();
        let ms = median_ms(gpu.stream(), 1, reps, || {
            product_chain(gpu, form, &mut d, step, iters)
        })
        .unwrap();
        let rate = (n as f64 * iters as f64) / (ms * 1e6);
        let base_rate = *base.get_or_insert(rate);
        println!(
            "| {label} | {form:?} | {ms:.3} | {rate:.2} | {:.3} | {} |",
            rate / base_rate,
            if wrong == 0 {
                format!("all {n} equal to ark-ff")
            } else {
                format!("**{wrong} of {n} differ**")
            }
        );
    }
}

fn main() {
    let Some(gpu) = gpu_or_skip("bench products") else {
        return;
    };
    let info = gpu.info().unwrap();
    println!(
        "## products: chains of 1000 dependent Montgomery products, 2 x 2048 chains per SM, {}, median of 5",
        info.name
    );
    println!("| field | form | ms | G products/s | vs integer | check |");
    println!("|---|---|---|---|---|---|");
    run::<ark_bn254::Fr>(&gpu, "BN254 Fr");
    run::<ark_bls12_381::Fr>(&gpu, "BLS12-381 Fr");
}
