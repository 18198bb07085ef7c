//! A dependent crate's view of zkntt: prints whether the kernels were built into it and how, and
//! exits non-zero when they were not (benches/consumer/check.sh).

fn main() -> std::process::ExitCode {
    let built = zkntt_gpu::kernels_built();
    println!(
        "zkntt-consumer: kernels present: {built} ({})",
        zkntt_gpu::KERNELS_BUILD_NOTE
    );
    if built {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
