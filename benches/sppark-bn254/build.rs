//! Compiles the bridge against sppark's headers with nvcc (via `cc`), BN254 selected the way
//! sppark selects fields (-DFEATURE_BN254). nvcc comes from $NVCC or PATH (make gpu-build puts the
//! wheel nvcc first on PATH).

fn main() {
    println!("cargo:rerun-if-changed=ntt_bn254.cu");
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
    // sppark's host-side field types come from blst's headers.
    let blst = std::env::var("DEP_BLST_C_SRC").expect("blst exports its C sources");
    let mut nvcc = cc::Build::new();
    nvcc.cuda(true)
        // cc turns on nvcc's device debug (-G) when the profile has debug info; that makes
        // sppark ~100x slower. Optimised device code only.
        .debug(false)
        .opt_level(3)
        .cudart("static")
        .flag("-arch=sm_90")
        .flag("-gencode=arch=compute_80,code=sm_80")
        .flag("-gencode=arch=compute_90,code=sm_90")
        .flag("-Xcompiler")
        .flag("-Wno-unused-function")
        .define("FEATURE_BN254", None)
        .define("TAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE", None)
        .include(&root)
        .include(&blst)
        .file("ntt_bn254.cu");
    nvcc.compile("zkntt_sppark_bn254");
}
