//! The kernels are compiled whenever a CUDA compiler is available to the build, and the test log
//! says which way it went.

use std::io::Write;
use std::path::Path;

#[test]
fn kernels_compiled_when_nvcc_is_available() {
    let toolchain =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.toolchain/nvidia/cu13/bin/nvcc");
    let nvcc_available = std::env::var_os("NVCC").is_some() || toolchain.is_file();
    let line = match zkntt_kernels::FATBIN {
        Some(f) => format!(
            "kernels: COMPILED, {} KiB fatbin for {:?} ({})",
            f.len() / 1024,
            zkntt_kernels::ARCHS,
            zkntt_kernels::BUILD_NOTE
        ),
        None => format!("kernels: NOT compiled ({})", zkntt_kernels::BUILD_NOTE),
    };
    let _ = writeln!(std::io::stderr(), "{line}");
    if nvcc_available {
        let fatbin =
            zkntt_kernels::FATBIN.expect("nvcc is available but the kernels were not built");
        assert!(fatbin.len() > 1024, "fatbin suspiciously small");
        assert!(zkntt_kernels::NVCC_VERSION.is_some_and(|v| v.contains("release")));
    }
}
