//! Compiles the bridge against sppark's headers with nvcc (via `cc`): one translation unit per
//! field, each selecting its field the way sppark does (`#define FEATURE_...` at its top). nvcc
//! comes from $NVCC or PATH (make gpu-build puts the wheel nvcc first on PATH).

fn main() {
    println!("cargo:rerun-if-changed=ntt_bn254.cu");
    println!("cargo:rerun-if-changed=ntt_babybear.cu");
    println!("cargo:rerun-if-changed=event_timing.cuh");
    println!("cargo:rerun-if-env-changed=ZKNTT_SPPARK");
    println!("cargo::rustc-check-cfg=cfg(zkntt_sppark)");
    // Cargo selects this path package with `--workspace` even though it is excluded, so the bridge
    // is compiled only when asked for (make gpu-build sets ZKNTT_SPPARK=1 and puts nvcc on PATH);
    // otherwise every call reports that sppark is not built in.
    if std::env::var("ZKNTT_SPPARK").as_deref() != Ok("1") {
        return;
    }
    println!("cargo:rustc-cfg=zkntt_sppark");
    let root = std::env::var("DEP_SPPARK_ROOT").expect("sppark exports its root");
    // sppark's host-side BN254 types come from blst's headers.
    let blst = std::env::var("DEP_BLST_C_SRC").expect("blst exports its C sources");
    let mut nvcc = cc::Build::new();
    nvcc.cuda(true)
        // cc turns on nvcc's device debug (-G) when the profile has debug info, which makes sppark
        // far slower (benches/NOTES.md): optimised device code only.
        .debug(false)
        .opt_level(3)
        .cudart("static")
        .flag("-arch=sm_90")
        .flag("-gencode=arch=compute_80,code=sm_80")
        .flag("-gencode=arch=compute_90,code=sm_90")
        .flag("-Xcompiler")
        .flag("-Wno-unused-function")
        .define("TAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE", None)
        .include(&root)
        .include(&blst)
        .file("ntt_bn254.cu")
        .file("ntt_babybear.cu");
    nvcc.compile("zkntt_sppark");
}
