//! The host pipeline (`HostPipeline::ntt`, host memory in and out) against ark-poly and the engine's
//! device-resident path, bit for bit: chunk sizes that cut elements and units every way, batches
//! over the three device slots and two copy streams, failures during the copy back, several
//! threads at once, the pinned pool, streamed calls with their input kept on the host or the
//! device.

use super::ntt::{assert_same, host as engine, input, large_allocations, max_log};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use zkntt_core::reference;
use zkntt_gpu::testing::{fail_next_copy_back_at, fail_next_input_restore, set_column_ranges};
use zkntt_gpu::{
    BatchLayout, DeviceVec, Error, GpuField, HostPipeline, InputCopy, NttConfig, Ordering,
};

/// The same transform on the device-resident path: what the host path must reproduce.
fn device_resident<F: GpuField>(e: &HostPipeline, x: &[F], cfg: &NttConfig<F>) -> Vec<F> {
    let mut d = DeviceVec::from_host(e.gpu(), x).unwrap();
    e.engine().ntt_in_place(&mut d, cfg).unwrap();
    d.to_host(e.gpu()).unwrap()
}

fn sizes_and_chunks<F: GpuField>(e: &HostPipeline, label: &str) {
    let mut rng = StdRng::seed_from_u64(0x4057);
    let max = max_log().min(22);
    for log_n in 1..=max {
        let n = 1usize << log_n;
        let x: Vec<F> = input(&mut rng, n);
        let domain = Radix2EvaluationDomain::<F>::new(n).unwrap();
        let g = F::GENERATOR;
        let cases = [
            (NttConfig::forward(), domain.fft(&x)),
            (NttConfig::inverse(), domain.ifft(&x)),
            (
                NttConfig::forward().with_coset(g),
                domain.get_coset(g).unwrap().fft(&x),
            ),
            (
                NttConfig::inverse().with_coset(g),
                domain.get_coset(g).unwrap().ifft(&x),
            ),
        ];
        // Automatic chunks, one element per chunk (small sizes), chunks that are not a power of
        // two and cut the data unevenly.
        let chunkings: &[Option<usize>] = if log_n <= 8 {
            &[None, Some(32), Some(96)]
        } else {
            &[None, Some(32 * 1000), Some(1 << 16)]
        };
        // From 2^12 single transforms go by column ranges; the contiguous-chunk path too, at the
        // automatic chunk (the last setting).
        let settings = chunkings.iter().map(|&c| (c, true)).chain([(None, false)]);
        for (chunk, columns) in settings {
            e.set_chunk_bytes(chunk);
            set_column_ranges(e, columns);
            for (i, (cfg, want)) in cases.iter().enumerate() {
                let mut got = x.clone();
                e.ntt(&mut got, cfg).unwrap();
                assert_same(
                    &got,
                    want,
                    &format!(
                        "{label} host 2^{log_n} case {i} chunk {chunk:?} column ranges {columns}"
                    ),
                );
            }
        }
        set_column_ranges(e, true);
        let mut got = x.clone();
        let nr = NttConfig::forward().with_ordering(Ordering::NR);
        e.ntt(&mut got, &nr).unwrap();
        assert_same(&got, &device_resident(e, &x, &nr), "NR");
    }
    println!("{label}: host path 2^1..2^{max}, 4 configs x 3 chunkings equal to ark-poly");
}

#[test]
fn host_path_every_size_bn254() {
    let Some(e) = engine("host_path_every_size_bn254") else {
        return;
    };
    let _large = large_allocations();
    sizes_and_chunks::<ark_bn254::Fr>(&e, "bn254");
    if max_log() >= 24 {
        // The largest sizes once each, forward against ark-poly.
        for log_n in [23u32, 24] {
            let n = 1usize << log_n;
            let x: Vec<ark_bn254::Fr> = input(&mut StdRng::seed_from_u64(log_n as u64), n);
            let want = Radix2EvaluationDomain::<ark_bn254::Fr>::new(n)
                .unwrap()
                .fft(&x);
            let mut got = x;
            e.ntt(&mut got, &NttConfig::forward()).unwrap();
            assert_same(&got, &want, &format!("bn254 host 2^{log_n}"));
        }
    }
}

#[test]
fn host_path_every_size_bls12_381() {
    let Some(e) = engine("host_path_every_size_bls12_381") else {
        return;
    };
    let _large = large_allocations();
    sizes_and_chunks::<ark_bls12_381::Fr>(&e, "bls12-381");
}

/// Batches of rows cut into units over three device slots (more units than slots, so slots are
/// reused while the other copy direction runs), against the CPU reference, transform by transform.
#[test]
fn host_batches_over_slots_and_streams() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("host_batches_over_slots_and_streams") else {
        return;
    };
    let _large = large_allocations();
    let mut rng = StdRng::seed_from_u64(88);
    // (log_n, batch, chunk): 2^16 x 10 makes 5 units of 2 transforms; 2^20 x 8 is the bench's
    // batch, 8 units; small transforms grouped into units; columns as one unit.
    let cases: &[(u32, usize, Option<usize>)] = &[
        (16, 10, Some(300 * 32)),
        (16, 10, None),
        (12, 96, None),
        (20, 8, None),
        (5, 3, Some(64)),
    ];
    for &(log_n, batch, chunk) in cases {
        if log_n > max_log() {
            continue;
        }
        e.set_chunk_bytes(chunk);
        let n = 1usize << log_n;
        for layout in [BatchLayout::Rows, BatchLayout::Columns] {
            for cfg in [
                NttConfig::<F>::forward(),
                NttConfig::inverse().with_coset(F::from(7u64)),
            ] {
                let cfg = cfg.with_batch(batch).with_layout(layout);
                let x: Vec<F> = input(&mut rng, n * batch);
                let want = if log_n <= 16 {
                    let mut r = x.clone();
                    reference::ntt(&mut r, &cfg).unwrap();
                    r
                } else {
                    device_resident(&e, &x, &cfg)
                };
                let mut got = x.clone();
                e.ntt(&mut got, &cfg).unwrap();
                if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
                    let (b, k) = match layout {
                        BatchLayout::Rows => (i / n, i % n),
                        BatchLayout::Columns => (i % batch, i / batch),
                    };
                    panic!(
                        "host batch 2^{log_n} x {batch} {layout:?} {:?} chunk {chunk:?}: transform {b} element {k} differs",
                        cfg.direction
                    );
                }
            }
        }
    }
    e.set_chunk_bytes(None);
}

/// A driver fault at any point of the copy back: the call returns the error and the caller's
/// memory holds its input, bit for bit; the next call works.
#[test]
fn failure_during_copy_back_leaves_the_input() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("failure_during_copy_back_leaves_the_input") else {
        return;
    };
    let n = 1usize << 14;
    let x: Vec<F> = input(&mut StdRng::seed_from_u64(3), n);
    let want = Radix2EvaluationDomain::<F>::new(n).unwrap().fft(&x);
    e.set_chunk_bytes(Some(n * 32 / 8)); // 8 chunks
    // Column ranges (the default for a single 2^14 transform), then contiguous chunks.
    for (columns, at) in [true, false]
        .into_iter()
        .flat_map(|c| [0usize, 1, 4, 7, 8, 100].map(move |a| (c, a)))
    {
        set_column_ranges(&e, columns);
        let mut data = x.clone();
        fail_next_copy_back_at(at);
        match e.ntt(&mut data, &NttConfig::forward()) {
            Err(Error::Injected(_)) => {}
            other => panic!("failure at chunk {at}: expected the injected error, got {other:?}"),
        }
        assert_same(
            &data,
            &x,
            &format!("input restored after a failure at chunk {at} (column ranges {columns})"),
        );
        e.ntt(&mut data, &NttConfig::forward()).unwrap();
        assert_same(
            &data,
            &want,
            &format!("the call after a failure at chunk {at} (column ranges {columns})"),
        );
    }
    set_column_ranges(&e, true);
    // The same in a batch, failing while other units are still coming in.
    let batch = 6;
    let m = 1usize << 17; // 4 MiB per transform: one unit each, six units on three slots
    let xb: Vec<F> = input(&mut StdRng::seed_from_u64(4), m * batch);
    e.set_chunk_bytes(Some(1 << 20));
    let cfg = NttConfig::forward().with_batch(batch);
    let mut data = xb.clone();
    fail_next_copy_back_at(6);
    assert!(e.ntt(&mut data, &cfg).is_err());
    assert!(data == xb, "batch input restored");
    e.ntt(&mut data, &cfg).unwrap();
    assert!(
        data == device_resident(&e, &xb, &cfg),
        "batch after the failure"
    );
    e.set_chunk_bytes(None);
}

/// Eight threads on one engine, different sizes and directions at once.
#[test]
fn eight_threads_share_the_pipeline() {
    type F = ark_bls12_381::Fr;
    let Some(e) = engine("eight_threads_share_the_pipeline") else {
        return;
    };
    let top = max_log().min(20);
    std::thread::scope(|s| {
        for t in 0..8u32 {
            let e = &e;
            s.spawn(move || {
                let log_n = top - t.min(top - 1) % 6;
                let n = 1usize << log_n;
                let mut rng = StdRng::seed_from_u64(t as u64);
                let domain = Radix2EvaluationDomain::<F>::new(n).unwrap();
                for round in 0..3 {
                    let x: Vec<F> = input(&mut rng, n);
                    let (cfg, want) = if (t + round) % 2 == 0 {
                        (NttConfig::forward(), domain.fft(&x))
                    } else {
                        (NttConfig::inverse(), domain.ifft(&x))
                    };
                    let mut got = x;
                    e.ntt(&mut got, &cfg).unwrap();
                    assert_same(&got, &want, &format!("thread {t} round {round} 2^{log_n}"));
                }
            });
        }
    });
}

/// Pinned buffers are kept for the next call, within the limit, and can be released.
#[test]
fn pinned_pool_is_reused_and_bounded() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("pinned_pool_is_reused_and_bounded") else {
        return;
    };
    let p = &e;
    let mut data: Vec<F> = input(&mut StdRng::seed_from_u64(9), 1 << 16);
    e.ntt(&mut data, &NttConfig::forward()).unwrap();
    let held = p.pinned_bytes();
    assert!(held >= (1 << 16) * 32, "the buffer is kept: {held} bytes");
    e.ntt(&mut data, &NttConfig::inverse()).unwrap();
    assert_eq!(p.pinned_bytes(), held, "and reused, not grown");
    p.set_pinned_limit(0);
    assert_eq!(p.pinned_bytes(), 0);
    e.ntt(&mut data, &NttConfig::forward()).unwrap();
    assert_eq!(p.pinned_bytes(), 0, "limit 0: freed after each call");
    p.set_pinned_limit(1 << 30);
    e.ntt(&mut data, &NttConfig::forward()).unwrap();
    assert!(p.pinned_bytes() > 0);
    assert!(
        p.device_bytes() >= (1 << 16) * 32,
        "device slots are kept too"
    );
    p.set_device_limit(0);
    assert_eq!(p.device_bytes(), 0);
    e.ntt(&mut data, &NttConfig::forward()).unwrap();
    assert_eq!(p.device_bytes(), 0, "device limit 0: freed after each call");
    p.set_device_limit(1 << 30);
    e.ntt(&mut data, &NttConfig::forward()).unwrap();
    let prof = p.last_profile().expect("a profile of the last call");
    assert_eq!((prof.elements, prof.units), (1 << 16, 1));
    assert!(prof.total >= prof.copy_in && prof.chunks >= 1, "{prof:?}");
    e.clear_cache();
    assert_eq!(p.pinned_bytes(), 0, "clear_cache releases pinned buffers");
    assert_eq!(p.engine().twiddle_bytes(), 0, "and twiddles");
    assert_eq!(p.device_bytes(), 0, "and device slots");
}

/// Calls larger than the pinned limit stream through bounded pinned slots (column ranges and
/// contiguous chunks, single transforms and batches), bit for bit as staged calls, with the
/// pinned pool bounded and unchanged across calls, and the input restored after a failure.
#[test]
fn streamed_calls_are_bounded_and_exact() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("streamed_calls_are_bounded_and_exact") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(26);
    let log_n = max_log().min(20);
    let n = 1usize << log_n;
    // The limit below the data: every call streams; the ring is 1/8 of the data here.
    e.set_pinned_limit(n * 32 / 2);
    e.set_chunk_bytes(Some(n * 32 / 16));
    let cases = [
        (1usize, NttConfig::<F>::forward(), true),
        (1, NttConfig::forward(), false),
        (1, NttConfig::inverse().with_coset(F::from(7u64)), true),
        (4, NttConfig::forward().with_batch(4), true),
    ];
    for (batch, cfg, columns) in cases {
        set_column_ranges(&e, columns);
        let x: Vec<F> = input(&mut rng, n * batch);
        let want = device_resident(&e, &x, &cfg);
        let mut held = None;
        for round in 0..2 {
            let mut got = x.clone();
            e.ntt(&mut got, &cfg).unwrap();
            let what = format!("streamed 2^{log_n} x {batch} columns {columns} round {round}");
            assert_same(&got, &want, &what);
            let prof = e.last_profile().unwrap();
            assert!(prof.streamed, "{what}: {prof:?}");
            let bytes = e.pinned_bytes();
            assert!(bytes <= n * 32 / 2, "{what}: {bytes} pinned bytes held");
            assert_eq!(
                *held.get_or_insert(bytes),
                bytes,
                "{what}: pinned memory reused"
            );
        }
        assert!(
            e.kept_bytes() >= n * batch * 32,
            "the kept copy is held for the next call"
        );
        for at in [0usize, 3, 1000] {
            let mut data = x.clone();
            fail_next_copy_back_at(at);
            assert!(matches!(e.ntt(&mut data, &cfg), Err(Error::Injected(_))));
            assert_same(
                &data,
                &x,
                &format!(
                    "streamed 2^{log_n} x {batch} columns {columns}: input restored after a failure at chunk {at}"
                ),
            );
        }
    }
    set_column_ranges(&e, true);
    e.release_host();
    assert_eq!((e.pinned_bytes(), e.kept_bytes()), (0, 0));
    e.set_pinned_limit(2 << 30);
    e.set_chunk_bytes(None);
}

/// `InputCopy::Device`: streamed calls (single transforms by column ranges and in contiguous
/// chunks, batches of rows over the three device slots, a batch of columns) keep their input in
/// device memory, never on the host (`kept_bytes` stays 0), and are bit for bit the CPU
/// reference's; a failure during the copy back leaves the input, read back from the device copy;
/// a failed read-back is `InputLost` with the overwritten prefix holding result and the rest the
/// input; the next call works.
#[test]
fn streamed_calls_keep_the_input_on_the_device() {
    type F = ark_bn254::Fr;
    let Some(e) = engine("streamed_calls_keep_the_input_on_the_device") else {
        return;
    };
    assert_eq!(e.input_copy(), InputCopy::Host, "the default");
    e.set_input_copy(InputCopy::Device);
    assert_eq!(e.input_copy(), InputCopy::Device);
    let mut rng = StdRng::seed_from_u64(0xdc);
    // Every call below streams (4 MiB pinned at most, the data 8-16 MiB), in chunks of 256 KiB.
    let chunk = 256usize << 10;
    e.set_pinned_limit(4 << 20);
    e.set_chunk_bytes(Some(chunk));
    let coset = F::from(7u64);
    // (log_n, batch, cfg, column ranges): single transforms by column ranges and in chunks (a
    // 2^18 forward or inverse NN goes by column ranges where allowed); the last two are batches,
    // which always go in chunks.
    let cases = [
        (18u32, 1usize, NttConfig::<F>::forward(), true),
        (18, 1, NttConfig::forward(), false),
        (18, 1, NttConfig::inverse().with_coset(coset), true),
        (14, 32, NttConfig::forward().with_batch(32), true),
        (
            12,
            64,
            NttConfig::inverse()
                .with_coset(coset)
                .with_batch(64)
                .with_layout(BatchLayout::Columns),
            true,
        ),
    ];
    for (log_n, batch, cfg, columns) in cases {
        set_column_ranges(&e, columns);
        let n = 1usize << log_n;
        let len = n * batch;
        let x: Vec<F> = input(&mut rng, len);
        let mut want = x.clone();
        reference::ntt(&mut want, &cfg).unwrap();
        let what = format!("device copy 2^{log_n} x {batch} column ranges {columns}");
        for round in 0..2 {
            let mut got = x.clone();
            e.ntt(&mut got, &cfg).unwrap();
            assert_same(&got, &want, &format!("{what} round {round}"));
            let prof = e.last_profile().unwrap();
            assert!(prof.streamed, "{what}: {prof:?}");
            assert_eq!(prof.input_copy, Some(InputCopy::Device), "{what}: {prof:?}");
            assert_eq!(e.kept_bytes(), 0, "{what}: no host copy of the input");
        }
        // A failure during the copy back: the input is read back from the device copy.
        for at in [0usize, 3, 1000] {
            let mut data = x.clone();
            fail_next_copy_back_at(at);
            match e.ntt(&mut data, &cfg) {
                Err(Error::Injected(_)) => {}
                other => panic!("{what}: failure at chunk {at}: got {other:?}"),
            }
            assert_same(
                &data,
                &x,
                &format!("{what}: input restored after a failure at chunk {at}"),
            );
        }
        // Nothing overwritten yet (chunk 0): nothing to read back, the input is there.
        let mut data = x.clone();
        fail_next_copy_back_at(0);
        fail_next_input_restore();
        assert!(matches!(e.ntt(&mut data, &cfg), Err(Error::Injected(_))));
        assert_same(&data, &x, &format!("{what}: failure at chunk 0"));
        // The read-back fails too (as with a lost device): InputLost, saying how much is result.
        fail_next_copy_back_at(3);
        fail_next_input_restore();
        let lost = match e.ntt(&mut data, &cfg) {
            Err(err @ Error::InputLost { .. }) => err,
            other => panic!("{what}: expected InputLost, got {other:?}"),
        };
        assert_eq!(lost.kind(), "input-lost");
        let Error::InputLost {
            overwritten_elements,
            error,
            ..
        } = &lost
        else {
            unreachable!()
        };
        assert!(matches!(**error, Error::Injected(_)), "{what}: {lost}");
        if columns && batch == 1 {
            // Ranges of columns were written: every element may be result.
            assert_eq!(*overwritten_elements, len, "{what}: {lost}");
        } else {
            // Three chunks of the result, then the input.
            let ov = 3 * chunk / 32;
            assert_eq!(*overwritten_elements, ov, "{what}: {lost}");
            assert_same(&data[..ov], &want[..ov], &format!("{what}: result prefix"));
            assert_same(&data[ov..], &x[ov..], &format!("{what}: input after it"));
        }
        // The pipeline works on after it.
        data.copy_from_slice(&x);
        e.ntt(&mut data, &cfg).unwrap();
        assert_same(&data, &want, &format!("{what}: the call after InputLost"));
        assert_eq!(e.kept_bytes(), 0);
    }
    set_column_ranges(&e, true);

    // No device room for the copy (a batch's slots fit the budget, the whole call does not): that
    // call keeps its input on the host, exact, and holds no host memory after it.
    let (log_n, batch) = (14u32, 32usize);
    let cfg = NttConfig::<F>::forward().with_batch(batch);
    let x: Vec<F> = input(&mut rng, batch << log_n);
    let mut want = x.clone();
    reference::ntt(&mut want, &cfg).unwrap();
    e.release_device();
    e.gpu().set_memory_budget(Some(8 << 20)); // the units are 4 MiB, the call 16 MiB
    let mut got = x.clone();
    e.ntt(&mut got, &cfg).unwrap();
    assert_same(&got, &want, "device copy without device room");
    let prof = e.last_profile().unwrap();
    assert_eq!(prof.input_copy, Some(InputCopy::Host), "fallback: {prof:?}");
    assert_eq!(e.kept_bytes(), 0, "the fallback's host copy is not held");
    let mut data = x.clone();
    fail_next_copy_back_at(3);
    assert!(matches!(e.ntt(&mut data, &cfg), Err(Error::Injected(_))));
    assert_same(&data, &x, "fallback: input restored from the host copy");
    e.gpu().set_memory_budget(None);

    // Device limit 0: the device copy is freed after the call, like the slots.
    e.set_device_limit(0);
    e.ntt(&mut x.clone(), &cfg).unwrap();
    assert_eq!(
        e.last_profile().unwrap().input_copy,
        Some(InputCopy::Device)
    );
    assert_eq!(
        e.device_bytes(),
        0,
        "device limit 0: the device copy is freed"
    );
    e.set_device_limit(1 << 30);

    // Calls under the pinned limit are unchanged: the pinned image is the kept copy.
    e.set_pinned_limit(2 << 30);
    e.set_chunk_bytes(None);
    let mut got = x.clone();
    e.ntt(&mut got, &cfg).unwrap();
    assert_same(&got, &want, "not streamed, device copy set");
    let prof = e.last_profile().unwrap();
    assert!(!prof.streamed && prof.input_copy.is_none(), "{prof:?}");

    // Back to the host copy: held for the next streamed call again.
    e.set_input_copy(InputCopy::Host);
    e.set_pinned_limit(4 << 20);
    let mut got = x.clone();
    e.ntt(&mut got, &cfg).unwrap();
    assert_same(&got, &want, "host copy after device copy");
    assert_eq!(e.last_profile().unwrap().input_copy, Some(InputCopy::Host));
    assert!(e.kept_bytes() >= x.len() * 32, "the host copy is held");
    e.set_input_copy(InputCopy::Device);
    assert_eq!(e.kept_bytes(), 0, "choosing the device copy frees it");
    e.set_pinned_limit(2 << 30);
}

/// A buffer written through one `Gpu` handle's engine and read through another handle of the
/// same device returns the new data: its uses are ordered across the handles' streams.
#[test]
fn uses_through_two_handles_are_ordered() {
    type F = ark_bn254::Fr;
    let Some(h) = engine("uses_through_two_handles_are_ordered") else {
        return;
    };
    let _large = large_allocations();
    let other = zkntt_gpu::Gpu::new(0).unwrap();
    assert!(!std::sync::Arc::ptr_eq(other.stream(), h.gpu().stream()));
    let log_n = max_log().min(22);
    let x: Vec<F> = input(&mut StdRng::seed_from_u64(2), 1 << log_n);
    let want = device_resident(&h, &x, &NttConfig::forward());
    for round in 0..3 {
        // Made through `other`, transformed through the engine's handle, read through `other`.
        let mut d = DeviceVec::from_host(&other, &x).unwrap();
        h.engine()
            .ntt_in_place(&mut d, &NttConfig::forward())
            .unwrap();
        assert_same(
            &d.to_host(&other).unwrap(),
            &want,
            &format!("round {round}"),
        );
        // And back: overwritten through `other` while the engine's stream may still be busy.
        h.engine()
            .ntt_in_place(&mut d, &NttConfig::inverse())
            .unwrap();
        d.copy_from_host(&other, &x).unwrap();
        h.engine()
            .ntt_in_place(&mut d, &NttConfig::forward())
            .unwrap();
        assert_same(
            &d.to_host(h.gpu()).unwrap(),
            &want,
            &format!("round {round}, reused"),
        );
        // Dropped right after a transform through the other handle: the memory is freed on the
        // stream it came from, which first waits for the transform (memcheck sees any overlap).
        let mut e = DeviceVec::from_host(&other, &x).unwrap();
        h.engine()
            .ntt_in_place(&mut e, &NttConfig::forward())
            .unwrap();
        drop(e);
        let f = DeviceVec::from_host(&other, &x).unwrap();
        assert_same(
            &f.to_host(&other).unwrap(),
            &x,
            &format!("round {round}, fresh"),
        );
    }
}

/// One buffer read by two threads at once through two more handles (`field_ops::scale` into
/// their own outputs), then transformed in place through the engine's handle: each read sees the
/// input, not the transform. A read's stream stays among the buffer's users until the `&mut`
/// use has waited for it, even when the other thread's read came in between its ordering and its
/// launch (the CPU emulator runs each launch as it is queued, so only a GPU can show the race).
#[test]
fn shared_reads_through_two_handles_are_ordered() {
    type F = ark_bn254::Fr;
    let Some(h) = engine("shared_reads_through_two_handles_are_ordered") else {
        return;
    };
    let _large = large_allocations();
    let readers = [
        zkntt_gpu::Gpu::new(0).unwrap(),
        zkntt_gpu::Gpu::new(0).unwrap(),
    ];
    let log_n = max_log().min(22);
    let x: Vec<F> = input(&mut StdRng::seed_from_u64(5), 1 << log_n);
    let s = F::from(3u64);
    let want: Vec<F> = x.iter().map(|&v| v * s).collect();
    for round in 0..4 {
        let mut d = DeviceVec::from_host(h.gpu(), &x).unwrap();
        let outs = std::thread::scope(|scope| {
            let d = &d;
            let jobs: Vec<_> = readers
                .iter()
                .map(|g| {
                    scope.spawn(move || {
                        let mut o = DeviceVec::<F>::zeros(g, 1 << log_n).unwrap();
                        zkntt_gpu::field_ops::scale(g, d, s, &mut o).unwrap();
                        (g, o)
                    })
                })
                .collect();
            jobs.into_iter()
                .map(|j| j.join().unwrap())
                .collect::<Vec<_>>()
        });
        h.engine()
            .ntt_in_place(&mut d, &NttConfig::forward())
            .unwrap();
        for (k, (g, o)) in outs.iter().enumerate() {
            assert_same(
                &o.to_host(g).unwrap(),
                &want,
                &format!("round {round}, reader {k}"),
            );
        }
    }
}

/// Vectors written straight into pinned memory (`upload_with`), transformed on the device and
/// brought back (`download`), against the device-resident path from `DeviceVec::from_host`:
/// several uploads in flight before one wait, each filled while the one before is copied, and
/// their pinned buffers back in the pool once the download has waited for the stream.
#[test]
fn uploads_from_pinned_memory_and_downloads() {
    type F = ark_bls12_381::Fr;
    let Some(e) = engine("uploads_from_pinned_memory_and_downloads") else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(31);
    for log_n in [0u32, 5, 12, 17] {
        let n = 1usize << log_n;
        let inputs: Vec<Vec<F>> = (0..3).map(|_| input(&mut rng, n)).collect();
        let cfg = NttConfig::forward().with_coset(F::from(7u64));
        let mut queued = Vec::new();
        for x in &inputs {
            let mut d = e.upload_with::<F>(n, |out| out.copy_from_slice(x)).unwrap();
            e.engine().ntt_in_place(&mut d, &cfg).unwrap();
            queued.push(d);
        }
        for (x, d) in inputs.iter().zip(&queued) {
            let want = device_resident(&e, x, &cfg);
            assert_same(
                &e.download(d).unwrap(),
                &want,
                &format!("2^{log_n} upload_with"),
            );
        }
        assert!(
            e.pinned_bytes() >= 3 * n * 32,
            "the pinned buffers are back in the pool"
        );
    }
}
