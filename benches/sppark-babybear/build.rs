//! Compiles the bridge against sppark's headers with nvcc (via `cc`), BabyBear selected the way
//! sppark selects fields (-DFEATURE_BABY_BEAR). nvcc comes from $NVCC or PATH (make gpu-build puts
//! the wheel nvcc first on PATH). Same flags as the BN254 bridge.

fn main() {
    println!("cargo:rerun-if-changed=ntt_babybear.cu");
    println!("cargo:rerun-if-env-changed=ZKNTT_SPPARK");
    println!("cargo::rustc-check-cfg=cfg(zkntt_sppark)");
    // Compiled only when asked for (make gpu-build sets ZKNTT_SPPARK=1 and puts nvcc on PATH);
    // otherwise every call reports that sppark is not built in.
    if std::env::var("ZKNTT_SPPARK").as_deref() != Ok("1") {
        return;
    }
    println!("cargo:rustc-cfg=zkntt_sppark");
    let root = std::env::var("DEP_SPPARK_ROOT").expect("sppark exports its root");
    let mut nvcc = cc::Build::new();
    nvcc.cuda(true)
        // cc turns on nvcc's device debug (-G) when the profile has debug info: optimised only.
        .debug(false)
        .opt_level(3)
        .cudart("static")
        .flag("-arch=sm_90")
        .flag("-gencode=arch=compute_80,code=sm_80")
        .flag("-gencode=arch=compute_90,code=sm_90")
        .flag("-Xcompiler")
        .flag("-Wno-unused-function")
        .define("FEATURE_BABY_BEAR", None)
        .define("TAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE", None)
        .include(&root)
        .file("ntt_babybear.cu");
    nvcc.compile("zkntt_sppark_babybear");
}
