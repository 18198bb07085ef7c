//! Every kernel name this crate can ask the runtime for is a kernel of the fatbin. The names are
//! assembled in Rust to match macros in `cuda/small`, so without this check a typo on either side
//! shows up only at run time, on a GPU. Runs on the CPU wherever nvcc built the kernels.

use crate::fft::{TcFft, gpu as fft, model};
use crate::modmul::{BLOG_MODULI, ModMulForm};
use crate::{Direction, SmallField, coset, modmul_gpu, ntt, transpose};
use std::io::Write;

/// The names, each with where it comes from (for the failure message).
fn every_name() -> Vec<(String, &'static str)> {
    let mut names: Vec<(String, &'static str)> = ntt::kernel_names()
        .map(|n| (n, "ntt::kernel_name"))
        .collect();
    for (bits, _) in BLOG_MODULI {
        for form in ModMulForm::ALL {
            names.push((
                modmul_gpu::chain_kernel_name(form, bits),
                "modmul_gpu::chain_kernel_name",
            ));
        }
    }
    names.push((transpose::KERNEL.into(), "transpose::KERNEL"));
    names.push((transpose::KERNEL_X4.into(), "transpose::KERNEL_X4"));
    for field in SmallField::ALL {
        names.push((coset::kernel_name(field), "coset::kernel_name"));
    }
    names.push((fft::CONSTS_KERNEL_NAME.into(), "fft::CONSTS_KERNEL_NAME"));
    for dir in [Direction::Forward, Direction::Inverse] {
        for log_n in TcFft::MIN_LOG..=TcFft::ONE_LAUNCH_MAX_LOG {
            if let Some(n) = fft::kernel_name(log_n, dir) {
                names.push((n.into(), "fft::kernel_name"));
            }
        }
        names.push((
            fft::column_kernel_name(dir).into(),
            "fft::column_kernel_name",
        ));
        for log_n in TcFft::ONE_LAUNCH_MAX_LOG + 1..=TcFft::MAX_LOG {
            if let Some(n) = fft::whole_kernel_name(log_n, dir) {
                names.push((n.into(), "fft::whole_kernel_name"));
            }
            if model::transpose_folded(log_n) {
                let (_, log_n2) = model::split(log_n);
                names.push((
                    fft::rows_kernel_name(log_n2, dir).into(),
                    "fft::rows_kernel_name",
                ));
            }
        }
        names.push((fft::band_kernel_name(dir).into(), "fft::band_kernel_name"));
    }
    names
}

#[test]
fn every_kernel_name_is_in_the_fatbin() {
    let symbols = zkntt_kernels::SYMBOLS;
    if symbols.is_empty() {
        assert!(
            !zkntt_gpu::testing::gpu_required(),
            "ZKNTT_REQUIRE_GPU=1 but no kernels were built ({})",
            zkntt_kernels::BUILD_NOTE
        );
        // Straight to stderr, as `gpu_or_skip` does: libtest does not capture direct writes.
        let _ = writeln!(
            std::io::stderr(),
            "SKIP every_kernel_name_is_in_the_fatbin: no kernel symbols ({})",
            zkntt_kernels::BUILD_NOTE
        );
        return;
    }
    let names = every_name();
    let missing: Vec<String> = names
        .iter()
        .filter(|(n, _)| !symbols.contains(&n.as_str()))
        .map(|(n, from)| format!("{n} (from {from})"))
        .collect();
    assert!(
        missing.is_empty(),
        "{} of {} kernel names are not kernels of the fatbin: {missing:?}",
        missing.len(),
        names.len()
    );
    // Every small-word and FFT kernel of the fatbin is one the crate can name (so a kernel renamed
    // in cuda/small cannot leave its old name behind here, nor become unreachable there).
    let ours = |s: &&&str| {
        ["small_", "modmul_", "fft_tc_"]
            .iter()
            .any(|p| s.starts_with(p))
    };
    let unnamed: Vec<&str> = symbols
        .iter()
        .filter(ours)
        .filter(|s| !names.iter().any(|(n, _)| n == **s))
        .copied()
        .collect();
    assert!(
        unnamed.is_empty(),
        "kernels in cuda/small that no Rust name reaches: {unnamed:?}"
    );
}
