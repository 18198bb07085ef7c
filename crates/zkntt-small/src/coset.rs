//! Coset powers and zero-padding of column-major transforms (`cuda/small/coset.cu`): row j of
//! every column times s^j, and columns lengthened with zero rows, for the coset DFTs and low-degree
//! extensions of the Plonky3 backend. [`expand_twin`] is the kernel's CPU twin.
//!
//! s is a plain residue and the data any representation of the field in [0, q): x * s^j mod q
//! keeps Plonky3's Montgomery form (x R * s^j = (x s^j) R), as the NTT's twiddles do.

use crate::error::DriverContext;
use crate::field::TILE_LOG;
use crate::{Error, Result, SmallField};
use cudarc::driver::{
    CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg,
};
use std::sync::Arc;
use zkntt_gpu::Gpu;

/// `small_coset_expand_{field}`, built by `ZKNTT_SMALL_COSET` in `cuda/small/coset.cu`.
pub fn kernel_name(field: SmallField) -> String {
    format!("small_coset_expand_{}", field.name())
}

/// The power tables the kernel reads: `lo[i] = s^i` (i < 4096) and `hi[i] = s^(4096 i)` for
/// i < max(1, 2^log_in / 4096), so s^j = lo[j mod 4096] * hi[j / 4096] for j < 2^log_in. Errors
/// where 2^log_in is above the field's largest transform.
pub fn power_tables(field: SmallField, s: u32, log_in: u32) -> Result<(Vec<u32>, Vec<u32>)> {
    field.check_log_n(log_in)?;
    let powers = |base: u32, count: usize| {
        let mut x = 1u32;
        (0..count)
            .map(|_| {
                let y = x;
                x = field.mul(x, base);
                y
            })
            .collect::<Vec<u32>>()
    };
    let lo = powers(s, 1 << TILE_LOG);
    let hi_len = (1usize << log_in.saturating_sub(TILE_LOG)).max(1);
    let hi = powers(field.pow(s, 1 << TILE_LOG), hi_len);
    Ok((lo, hi))
}

/// The CPU twin of `small_coset_expand_{field}`: `input` holds columns of 2^log_in, the result
/// columns of 2^log_out (>= log_in) with row j < 2^log_in times s^j and zero rows above.
pub fn expand_twin(
    field: SmallField,
    input: &[u32],
    s: u32,
    log_in: u32,
    log_out: u32,
) -> Result<Vec<u32>> {
    check_logs(field, input.len(), log_in, log_out)?;
    let (lo, hi) = power_tables(field, s, log_in)?;
    let (rows_in, rows_out) = (1usize << log_in, 1usize << log_out);
    let mut out = vec![0u32; (input.len() >> log_in) << log_out];
    for (col_in, col_out) in input.chunks(rows_in).zip(out.chunks_mut(rows_out)) {
        for (j, (&x, y)) in col_in.iter().zip(col_out.iter_mut()).enumerate() {
            let t = field.mul(x, lo[j & ((1 << TILE_LOG) - 1)]);
            *y = field.mul(t, hi[j >> TILE_LOG]);
        }
    }
    Ok(out)
}

fn check_logs(field: SmallField, len: usize, log_in: u32, log_out: u32) -> Result<()> {
    field.check_log_n(log_out)?;
    if log_in > log_out {
        return Err(Error::ExpansionShrinks { log_in, log_out });
    }
    if len % (1usize << log_in) != 0 {
        return Err(Error::NotWholeTransforms { len, log_n: log_in });
    }
    Ok(())
}

/// The kernel's parameter struct (`CosetParams` in `cuda/small/coset.cu`), byte for byte.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct CosetParams {
    input: u64,
    output: u64,
    lo: u64,
    hi: u64,
    columns: u64,
    log_in: u32,
    log_out: u32,
}

// SAFETY: plain-old-data with the C layout the kernel declares (checked by size in a test).
unsafe impl DeviceRepr for CosetParams {}

/// The kernel on the GPU's stream, out of place: `input` holds columns of 2^log_in, `output`
/// (as many columns of 2^log_out) gets them times the powers of `s` with zero rows above.
pub fn expand_into(
    gpu: &Gpu,
    field: SmallField,
    input: &CudaSlice<u32>,
    output: &mut CudaSlice<u32>,
    s: u32,
    log_in: u32,
    log_out: u32,
) -> Result<()> {
    check_logs(field, input.len(), log_in, log_out)?;
    let columns = (input.len() >> log_in) as u64;
    if output.len() != (columns << log_out) as usize {
        return Err(Error::LengthMismatch {
            expected: (columns << log_out) as usize,
            got: output.len(),
        });
    }
    let stream = gpu.stream().clone();
    let (i, _gi) = input.device_ptr(&stream);
    let (o, _go) = output.device_ptr_mut(&stream);
    expand(gpu, &stream, field, i, o, columns, s, log_in, log_out)
}

/// The kernel on the GPU's stream, in place: row j of every column of 2^log_n times s^j.
pub fn scale_in_place(
    gpu: &Gpu,
    field: SmallField,
    data: &mut CudaSlice<u32>,
    s: u32,
    log_n: u32,
) -> Result<()> {
    check_logs(field, data.len(), log_n, log_n)?;
    let stream = gpu.stream().clone();
    let columns = (data.len() >> log_n) as u64;
    let (p, _g) = data.device_ptr_mut(&stream);
    expand(gpu, &stream, field, p, p, columns, s, log_n, log_n)
}

/// Queues the kernel on `stream`: `columns` columns of 2^log_in at `input` to columns of
/// 2^log_out at `output` (device pointers; equal only when log_in == log_out), times the powers
/// of `s` (plain residue), zero rows above 2^log_in. The tables go up on `stream` and are freed
/// after the launch in stream order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn expand(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    field: SmallField,
    input: u64,
    output: u64,
    columns: u64,
    s: u32,
    log_in: u32,
    log_out: u32,
) -> Result<()> {
    check_logs(field, (columns << log_in) as usize, log_in, log_out)?;
    let name = kernel_name(field);
    let f = gpu.function(&name)?;
    let (lo, hi) = power_tables(field, s, log_in)?;
    let lo_d = stream.clone_htod(&lo).during("coset powers upload")?;
    let hi_d = stream.clone_htod(&hi).during("coset powers upload")?;
    let total = columns << log_out;
    if total == 0 {
        return Ok(());
    }
    let (lo_ptr, _g1) = lo_d.device_ptr(stream);
    let (hi_ptr, _g2) = hi_d.device_ptr(stream);
    let params = CosetParams {
        input,
        output,
        lo: lo_ptr,
        hi: hi_ptr,
        columns,
        log_in,
        log_out,
    };
    const THREADS: u32 = 256;
    // A few waves of blocks, each striding over the rest: the kernel is bound by memory.
    let blocks = total.div_ceil(THREADS as u64 * 4).clamp(1, 1 << 16) as u32;
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(&f);
    launch.arg(&params);
    // SAFETY: one CosetParams by value; `input` holds columns << log_in and `output` columns <<
    // log_out words (the caller's buffers), the tables the entries power_tables sized for log_in.
    unsafe { launch.launch(cfg) }.during("coset expand launch")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_match_the_c_struct() {
        // 5 x u64 + 2 x u32: 48 bytes, as in coset.cu.
        assert_eq!(std::mem::size_of::<CosetParams>(), 48);
        assert_eq!(std::mem::align_of::<CosetParams>(), 8);
    }

    #[test]
    fn twin_is_powers_and_zeros() {
        for field in SmallField::ALL {
            let s = 7u32;
            for (log_in, log_out) in [(0u32, 0u32), (0, 2), (3, 3), (5, 8), (13, 14)] {
                let columns = 3usize;
                let input: Vec<u32> = (0..columns << log_in)
                    .map(|i| (i as u32).wrapping_mul(2_654_435_761) % field.modulus())
                    .collect();
                let out = expand_twin(field, &input, s, log_in, log_out).unwrap();
                assert_eq!(out.len(), columns << log_out);
                for c in 0..columns {
                    for j in 0..1usize << log_out {
                        let want = if j < 1 << log_in {
                            field.mul(input[(c << log_in) + j], field.pow(s, j as u64))
                        } else {
                            0
                        };
                        assert_eq!(
                            out[(c << log_out) + j],
                            want,
                            "{field:?} {log_in}->{log_out} column {c} row {j}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bad_shapes_are_errors() {
        let f = SmallField::BabyBear;
        assert!(matches!(
            expand_twin(f, &[1, 2, 3], 2, 1, 1),
            Err(Error::NotWholeTransforms { .. })
        ));
        assert!(matches!(
            expand_twin(f, &[1, 2], 2, 1, 0),
            Err(Error::ExpansionShrinks {
                log_in: 1,
                log_out: 0
            })
        ));
        for log_in in [28, 80] {
            assert!(matches!(
                power_tables(f, 2, log_in),
                Err(Error::SizeUnsupported { .. })
            ));
        }
        assert!(matches!(
            expand_twin(f, &[1, 2], 2, 1, 27),
            Err(Error::SizeUnsupported { .. })
        ));
    }
}
