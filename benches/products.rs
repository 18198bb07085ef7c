//! `products`: issue 18's microbenchmark. Chains of dependent Montgomery products on every SM
//! (`zkntt_gpu::field_ops::product_chain`): today's integer product, the FP64 products (five 52-bit
//! limbs from DFMA pairs; as first built, and folded: one DADD per pair), and the hybrids (one
//! chain of each per thread). G products/s, median of 5, CUDA events; every form's result checked
//! against ark-ff (x * step^iters for every element, edge values included) in the same run. Both
//! fields. First the raw DFMA and IMAD.WIDE.U32 rates (`field_ops::pipe_rate`); each product's row
//! then shows how many of each pipe's operations per product its rate leaves room for.

use ark_ff::PrimeField;
use zkntt_benches::random_elements;
use zkntt_gpu::field_ops::{Pipe, ProductForm, pipe_rate, product_chain};
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

/// `pipes`: the raw DFMA and IMAD.WIDE.U32 rates, operations per second.
fn run<F: GpuField>(gpu: &Gpu, label: &str, pipes: [f64; 2]) {
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
    for form in ProductForm::ALL {
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
            "| {label} | {form:?} | {ms:.3} | {rate:.2} | {:.3} | {:.0} | {:.0} | {} |",
            rate / base_rate,
            pipes[0] / (rate * 1e9),
            pipes[1] / (rate * 1e9),
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
        "## pipes: raw rates, every SM full, 8 independent chains a thread, {}, median of 5",
        info.name
    );
    println!("| pipe | T ops/s |");
    println!("|---|---|");
    let pipes = Pipe::ALL.map(|pipe| {
        let rate = pipe_rate(&gpu, pipe, 1 << 12).unwrap();
        println!("| {pipe:?} | {:.2} |", rate / 1e12);
        rate
    });
    println!();
    println!(
        "## products: chains of 1000 dependent Montgomery products, 2 x 2048 chains per SM, {}, median of 5",
        info.name
    );
    println!(
        "| field | form | ms | G products/s | vs integer | DFMA / product at the pipe's rate | IMAD.WIDE / product at the pipe's rate | check |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    run::<ark_bn254::Fr>(&gpu, "BN254 Fr", pipes);
    run::<ark_bls12_381::Fr>(&gpu, "BLS12-381 Fr", pipes);
}
