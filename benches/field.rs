//! `field/{field}/gpu`: element-wise Montgomery kernels on the GPU, 2^24 elements. Each reads two
//! and writes one 32-byte element (96 bytes per element), so this is a memory-bound figure, not
//! the multiplier's rate.

use ark_bn254::Fr;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use zkntt_benches::random_elements;
use zkntt_gpu::DeviceVec;
use zkntt_gpu::field_ops::{self, BinaryOp};
use zkntt_gpu::testing::gpu_or_skip;

fn gpu(c: &mut Criterion) {
    let Some(gpu) = gpu_or_skip("bench field/bn254_fr/gpu") else {
        return;
    };
    let n = 1usize << 24;
    let a = DeviceVec::from_host(&gpu, &random_elements::<Fr>(n, 1)).unwrap();
    let b = DeviceVec::from_host(&gpu, &random_elements::<Fr>(n, 2)).unwrap();
    let mut out = DeviceVec::<Fr>::zeros(&gpu, n).unwrap();
    let mut g = c.benchmark_group("field/bn254_fr/gpu");
    g.throughput(Throughput::Elements(n as u64));
    for op in [BinaryOp::Add, BinaryOp::Mul] {
        g.bench_function(BenchmarkId::new(format!("{op:?}"), 24), |bch| {
            bch.iter(|| {
                field_ops::binary(&gpu, op, &a, &b, &mut out).unwrap();
                gpu.synchronize().unwrap();
            })
        });
    }
    g.finish();
}

criterion_group!(benches, gpu);
criterion_main!(benches);
