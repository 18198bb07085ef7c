//! `ntt/bn254_fr/cpu`: the CPU reference (one core, written for clarity) beside ark-poly on all
//! cores. The GPU engine joins this file with sppark in the same groups.

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use zkntt_benches::random_elements;
use zkntt_core::{NttConfig, reference};

fn cpu(c: &mut Criterion) {
    let mut g = c.benchmark_group("ntt/bn254_fr/cpu");
    g.sample_size(10);
    for log_n in [10u32, 14, 18] {
        let n = 1usize << log_n;
        let input: Vec<Fr> = random_elements(n, log_n as u64);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(
            BenchmarkId::new("zkntt-reference", log_n),
            &input,
            |b, x| {
                let mut data = x.clone();
                b.iter(|| reference::ntt(&mut data, &NttConfig::forward()).unwrap())
            },
        );
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        g.bench_with_input(BenchmarkId::new("ark-poly", log_n), &input, |b, x| {
            let mut data = x.clone();
            b.iter(|| domain.fft_in_place(&mut data))
        });
    }
    g.finish();
}

criterion_group!(benches, cpu);
criterion_main!(benches);
