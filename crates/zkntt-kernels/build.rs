//! Compiles every `.cu` under `cuda/` into one fatbin and writes `kernels.rs` with
//! `FATBIN: Option<&[u8]>`, `SYMBOLS` (every kernel in it), `NVCC_VERSION` and `BUILD_NOTE`.
//! Fails the build when a name of `src/names.rs` is not among the kernels.

use std::env;
use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "src/names.rs"]
#[allow(dead_code)]
mod names;

#[path = "emu/build.rs"]
mod emu;

/// SASS for these, PTX for the last one.
const ARCHS: [&str; 4] = ["80", "86", "89", "90"];
/// `ZKNTT_ARCHS=90` (a comma-separated subset of [`ARCHS`]): SASS for those only. For bundles
/// built to measure on one GPU: the one TU is compiled once per architecture, so a single one
/// builds in about a quarter of the time. Releases and CI keep every architecture.
const ARCHS_ENV: &str = "ZKNTT_ARCHS";

/// [`ARCHS`], or the subset `ZKNTT_ARCHS` names (in [`ARCHS`]' order). A name not in [`ARCHS`]
/// fails the build, so a typo never yields a fatbin without the wanted machine code.
fn archs() -> Vec<&'static str> {
    let Some(list) = env::var(ARCHS_ENV).ok().filter(|v| !v.trim().is_empty()) else {
        return ARCHS.to_vec();
    };
    let wanted: Vec<&str> = list.split(',').map(str::trim).collect();
    if let Some(bad) = wanted.iter().find(|w| !ARCHS.contains(w)) {
        panic!("{ARCHS_ENV}={list}: {bad} is not one of {ARCHS:?}");
    }
    ARCHS
        .iter()
        .copied()
        .filter(|a| wanted.contains(a))
        .collect()
}

/// The wheels of the pinned CUDA 13.0 compiler (the Makefile's `CUDA_WHEELS`): the one command
/// that fixes a build with no nvcc installs them.
const CUDA_WHEELS: &str = "nvidia-cuda-nvcc==13.0.* nvidia-nvvm==13.0.* nvidia-cuda-crt==13.0.* \
                           nvidia-cuda-cccl==13.0.* nvidia-cuda-runtime==13.0.*";
/// A `pip install --target DIR` of `CUDA_WHEELS`: nvcc is then `DIR/nvidia/cu13/bin/nvcc`.
const TOOLCHAIN_ENV: &str = "ZKNTT_CUDA_TOOLCHAIN";
/// `ZKNTT_CPU_ONLY=1`: build without kernels on purpose (every GPU call returns KernelsNotBuilt).
const CPU_ONLY_ENV: &str = "ZKNTT_CPU_ONLY";
/// `ZKNTT_EMU=1`: the kernels for the CPU emulator (emu/README.md), no nvcc.
const EMU_ENV: &str = "ZKNTT_EMU";

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../..").canonicalize().unwrap();
    let cuda = root.join("cuda");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed={}", cuda.display());
    println!("cargo:rerun-if-env-changed=NVCC");
    println!("cargo:rerun-if-env-changed={TOOLCHAIN_ENV}");
    println!("cargo:rerun-if-env-changed={CPU_ONLY_ENV}");
    println!("cargo:rerun-if-env-changed=ZKNTT_NVCC_FLAGS");
    println!("cargo:rerun-if-env-changed={ARCHS_ENV}");
    let toolchain_nvcc = root.join(".toolchain/nvidia/cu13/bin/nvcc");
    println!("cargo:rerun-if-changed={}", toolchain_nvcc.display());

    println!("cargo:rerun-if-env-changed={EMU_ENV}");
    println!("cargo::rustc-check-cfg=cfg(zkntt_host_built)");
    let cpu_only = env::var(CPU_ONLY_ENV).is_ok_and(|v| v.trim() == "1");
    if env::var(EMU_ENV).is_ok_and(|v| v.trim() == "1") {
        return write_emulated(&root, &cuda, &out);
    }
    let found = if cpu_only {
        None
    } else {
        Some(find_nvcc(&toolchain_nvcc).unwrap_or_else(|why| fail(&root, &why)))
    };
    let (fatbin, symbols, version, note) = match found {
        None => {
            let note = format!(
                "{CPU_ONLY_ENV}=1: built without kernels on purpose; every GPU call returns KernelsNotBuilt"
            );
            println!("cargo:warning=zkntt-kernels: {note}");
            (None, Vec::new(), None, note)
        }
        Some(nvcc) => {
            let version = nvcc_version(&nvcc);
            let (fatbin, symbols) = compile_cached(&nvcc, &version, &cuda, &out);
            check_names(&symbols);
            link_host_shim(&nvcc, &out);
            println!("cargo:rustc-cfg=zkntt_host_built");
            let note = format!("compiled by {} ({})", nvcc.display(), version);
            (Some(fatbin), symbols, Some(version), note)
        }
    };

    let rs = format!(
        "/// The fatbin of every kernel under `cuda/`, or `None` when nvcc was not found at build time.\n\
         pub const FATBIN: Option<&[u8]> = {};\n\
         /// `nvcc --version`'s release line, when the kernels were built.\n\
         pub const NVCC_VERSION: Option<&str> = {:?};\n\
         /// How the kernels were (or were not) built.\n\
         pub const BUILD_NOTE: &str = {:?};\n\
         /// The GPU architectures with machine code in [`FATBIN`] (PTX for the last).\n\
         pub const ARCHS: &[&str] = &{:?};\n\
         /// Every kernel (`extern \"C\" __global__`) in [`FATBIN`], sorted; empty when not built.\n\
         pub const SYMBOLS: &[&str] = &{:?};\n\
         /// The CPU emulator's driver library when built with `ZKNTT_EMU=1` (emu/README.md).\n\
         pub const EMULATOR: Option<&str> = None;\n",
        match &fatbin {
            Some(p) => format!("Some(include_bytes!({:?}))", p.display().to_string()),
            None => "None".into(),
        },
        version,
        note,
        archs()
            .iter()
            .map(|a| format!("sm_{a}"))
            .collect::<Vec<_>>(),
        symbols,
    );
    fs::write(out.join("kernels.rs"), rs).unwrap();
}

/// The emulated build: kernels.rs names the emulator's library, and `FATBIN` holds a marker (the
/// fake driver ignores the image it is given).
fn write_emulated(root: &Path, cuda: &Path, out: &Path) {
    let mut files = Vec::new();
    cu_files(cuda, &mut files);
    // Not emulated: the host shim (emu/powers.cpp is its twin).
    files.retain(|f| !is_host_shim(f));
    let built = emu::build(root, out, &files);
    check_names(&built.symbols);
    println!("cargo:rustc-cfg=zkntt_host_built");
    let marker = out.join("emu.fatbin");
    fs::write(
        &marker,
        b"zkntt-emu: the kernels are in the emulator's libcuda.so\n",
    )
    .unwrap();
    let note = format!(
        "{EMU_ENV}=1: the kernels compiled by {} for the CPU emulator ({})",
        built.compiler,
        built.library.display()
    );
    println!("cargo:warning=zkntt-kernels: {note}");
    let rs = format!(
        "/// A marker: the emulator's driver ignores the image (`ZKNTT_EMU=1`).\n\
         pub const FATBIN: Option<&[u8]> = Some(include_bytes!({:?}));\n\
         /// No nvcc in an emulated build.\n\
         pub const NVCC_VERSION: Option<&str> = None;\n\
         /// How the kernels were built.\n\
         pub const BUILD_NOTE: &str = {:?};\n\
         /// No machine code: the kernels run on the CPU.\n\
         pub const ARCHS: &[&str] = &[];\n\
         /// Every kernel the emulator holds, sorted.\n\
         pub const SYMBOLS: &[&str] = &{:?};\n\
         /// The CPU emulator's driver library (emu/README.md), loaded in place of libcuda.\n\
         pub const EMULATOR: Option<&str> = Some({:?});\n",
        marker.display().to_string(),
        note,
        built.symbols,
        built.library.display().to_string(),
    );
    fs::write(out.join("kernels.rs"), rs).unwrap();
}

/// nvcc from, in order: `$NVCC`, `$ZKNTT_CUDA_TOOLCHAIN` (a `pip install --target` directory of
/// the wheels), `PATH`, this checkout's `.toolchain/` (`make setup`). A variable that is set but
/// names no nvcc is an error, not a reason to look further: it says what the user meant.
fn find_nvcc(toolchain_nvcc: &Path) -> Result<PathBuf, String> {
    if let Some(p) = env::var_os("NVCC").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("NVCC={} is not a file", p.display()))
        };
    }
    if let Some(dir) = env::var_os(TOOLCHAIN_ENV).filter(|p| !p.is_empty()) {
        let dir = PathBuf::from(dir);
        return ["nvidia/cu13/bin/nvcc", "bin/nvcc"]
            .iter()
            .map(|rel| dir.join(rel))
            .find(|c| c.is_file())
            .ok_or_else(|| {
                format!(
                    "{TOOLCHAIN_ENV}={} holds no nvidia/cu13/bin/nvcc (nor bin/nvcc)",
                    dir.display()
                )
            });
    }
    if let Some(path) = env::var_os("PATH") {
        for dir in env::split_paths(&path) {
            let c = dir.join("nvcc");
            if c.is_file() {
                return Ok(c);
            }
        }
    }
    if toolchain_nvcc.is_file() {
        return Ok(toolchain_nvcc.to_path_buf());
    }
    Err(format!(
        "no nvcc in $NVCC, ${TOOLCHAIN_ENV}, PATH or {}",
        toolchain_nvcc.display()
    ))
}

/// Stops the build with what went wrong and the one command that fixes it: a dependent crate must
/// never get a build whose GPU calls quietly run on the CPU.
fn fail(root: &Path, why: &str) -> ! {
    // Outside the checkout's own .toolchain/ (make setup), which a git or registry dependency's
    // checkout under ~/.cargo loses at every new revision.
    let dir = env::var("HOME").map_or_else(
        |_| "~/.cache/zkntt-cuda".into(),
        |h| format!("{h}/.cache/zkntt-cuda"),
    );
    eprintln!(
        "error: zkntt-kernels needs the CUDA 13.0 compiler to build its GPU kernels: {why}.\n\
         Fix (no system CUDA needed; about 300 MB from PyPI):\n\
         \n    python3 -m pip install --target {dir} {wheels}\n    export {TOOLCHAIN_ENV}={dir}\n\n\
         (in a zkntt checkout, `make setup` installs it into {toolchain} instead). Or set NVCC to an \
         nvcc 13.x. To build without kernels on purpose (every GPU call then returns \
         KernelsNotBuilt), set {CPU_ONLY_ENV}=1.",
        toolchain = root.join(".toolchain").display(),
        wheels = CUDA_WHEELS
            .split_whitespace()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" "),
    );
    std::process::exit(1);
}

fn nvcc_version(nvcc: &Path) -> String {
    let out = Command::new(nvcc)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", nvcc.display()));
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find(|l| l.contains("release"))
        .unwrap_or("unknown version")
        .trim()
        .to_string()
}

/// Host-side shims (`*.host.cu`: CUB device-wide algorithms called from the host) go into a
/// static library; every other `.cu` into the fatbin.
fn is_host_shim(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with(".host.cu"))
}

/// The `.cu` files under `dir`, sorted.
fn cu_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut all = Vec::new();
    all_files(dir, &mut all);
    out.extend(
        all.into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "cu")),
    );
}

/// Every name of `src/names.rs` must be a kernel of the fatbin.
fn check_names(symbols: &[String]) {
    let per_field = names::ALL.iter().flat_map(|k| k.all());
    for name in per_field.chain(names::ALL_PLAIN) {
        if !symbols.iter().any(|s| s == name) {
            panic!("src/names.rs names kernel `{name}`, which no file under cuda/ defines");
        }
    }
}

/// The kernels of a PTX file: its `.entry` directives.
fn ptx_entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix(".visible .entry ")?;
            Some(rest.split(['(', ' ']).next()?.to_string())
        })
        .collect()
}

/// `compile` and `compile_host_shim`, unless the same sources, compiler and flags (a hash of
/// them) were compiled before in this target directory: the outputs are kept in
/// `<target>/zkntt-kernels-cache/<hash>/` and copied into OUT_DIR. Check, clippy, test and build
/// (each its own OUT_DIR), an edited build script and a consumer crate sharing the target
/// directory then cost one nvcc run, not one each (several minutes on 2 cores).
fn compile_cached(nvcc: &Path, version: &str, cuda: &Path, out: &Path) -> (PathBuf, Vec<String>) {
    let mut files = Vec::new();
    all_files(cuda, &mut files);
    let mut hasher = DefaultHasher::new();
    (nvcc, version, archs(), env::var("ZKNTT_NVCC_FLAGS").ok()).hash(&mut hasher);
    for f in &files {
        f.hash(&mut hasher);
        fs::read(f).unwrap().hash(&mut hasher);
    }
    let key = format!("{:016x}", hasher.finish());
    const OUTPUTS: [&str; 3] = ["zkntt.fatbin", "libzkntt_host.a", "fatbin.symbols"];
    let cache = cache_dir(out, &key);
    if let Some(cache) = cache.as_ref().filter(|c| c.is_dir()) {
        let copied = OUTPUTS
            .iter()
            .all(|f| fs::copy(cache.join(f), out.join(f)).is_ok());
        if let (true, Ok(list)) = (copied, fs::read_to_string(out.join("fatbin.symbols"))) {
            return (
                out.join("zkntt.fatbin"),
                list.lines().map(str::to_string).collect(),
            );
        }
    }
    let (fatbin, symbols) = compile(nvcc, cuda, out);
    compile_host_shim(nvcc, cuda, out);
    fs::write(out.join("fatbin.symbols"), symbols.join("\n")).unwrap();
    if let Some(cache) = cache {
        // Filled beside it and renamed into place: builds running at once never see half of it.
        let partial = cache.with_extension(format!("partial-{}", std::process::id()));
        let filled = fs::create_dir_all(&partial).is_ok()
            && OUTPUTS
                .iter()
                .all(|f| fs::copy(out.join(f), partial.join(f)).is_ok());
        if !filled || fs::rename(&partial, &cache).is_err() {
            let _ = fs::remove_dir_all(&partial);
        }
    }
    (fatbin, symbols)
}

/// `<target>/zkntt-kernels-cache/<key>/`, shared by every OUT_DIR of the target directory, when
/// OUT_DIR has the usual shape `<target>[/<triple>]/<profile>/build/<pkg>-<hash>/out`.
fn cache_dir(out: &Path, key: &str) -> Option<PathBuf> {
    out.ancestors()
        .nth(2)
        .filter(|b| b.file_name().is_some_and(|n| n == "build"))
        .and_then(|b| b.parent()?.parent())
        .map(|target| target.join("zkntt-kernels-cache").join(key))
}

/// Every file under `dir` (sources and headers), sorted.
fn all_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            all_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// One generated translation unit includes every `.cu`, so one nvcc call yields one fatbin that
/// carries PTX too (device-linking separate objects drops the PTX). Returns the fatbin and its
/// kernels, read from the PTX that nvcc keeps (`-keep`).
fn compile(nvcc: &Path, cuda: &Path, out: &Path) -> (PathBuf, Vec<String>) {
    let mut files = Vec::new();
    cu_files(cuda, &mut files);
    files.retain(|f| !is_host_shim(f));
    let mut tu =
        String::from("// Generated by zkntt-kernels/build.rs: every kernel file under cuda/.\n");
    for f in &files {
        tu.push_str(&format!("#include \"{}\"\n", f.display()));
    }
    let tu_path = out.join("all_kernels.cu");
    fs::write(&tu_path, tu).unwrap();
    let fatbin = out.join("zkntt.fatbin");
    let keep = out.join("keep");
    let _ = fs::remove_dir_all(&keep);
    fs::create_dir_all(&keep).unwrap();
    let mut cmd = Command::new(nvcc);
    cmd.arg("-fatbin")
        .arg("-keep")
        .arg("-keep-dir")
        .arg(&keep)
        .arg("-std=c++17")
        .arg("-O3")
        .arg("--threads=0")
        .arg("-I")
        .arg(cuda)
        .arg("-o")
        .arg(&fatbin)
        .arg(&tu_path);
    gencode(&mut cmd);
    run(cmd, nvcc, "compiling the kernels");
    let archs = archs();
    let newest = archs[archs.len() - 1];
    // Several architectures: one PTX file per architecture; one (ZKNTT_ARCHS): no suffix.
    let ptx = [
        format!("all_kernels.compute_{newest}.ptx"),
        "all_kernels.ptx".into(),
    ]
    .map(|f| keep.join(f))
    .into_iter()
    .find(|p| p.is_file())
    .unwrap_or_else(|| panic!("nvcc kept no PTX in {}", keep.display()));
    let text =
        fs::read_to_string(&ptx).unwrap_or_else(|e| panic!("cannot read {}: {e}", ptx.display()));
    let mut symbols = ptx_entries(&text);
    symbols.sort();
    // The kept intermediates are large; only the list is needed.
    let _ = fs::remove_dir_all(&keep);
    (fatbin, symbols)
}

fn gencode(cmd: &mut Command) {
    let archs = archs();
    let newest = archs[archs.len() - 1];
    for a in archs {
        if a == newest {
            cmd.arg(format!(
                "-gencode=arch=compute_{a},code=[sm_{a},compute_{a}]"
            ));
        } else {
            cmd.arg(format!("-gencode=arch=compute_{a},code=sm_{a}"));
        }
    }
    // Compressed fatbins: a fifth of the size; the driver decompresses at module load.
    cmd.arg("-Xfatbin=-compress-all");
    if let Ok(extra) = env::var("ZKNTT_NVCC_FLAGS") {
        cmd.args(extra.split_whitespace());
    }
}

fn run(mut cmd: Command, nvcc: &Path, what: &str) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", nvcc.display()));
    if !status.success() {
        panic!("nvcc failed ({status}) {what}");
    }
}

/// `*.host.cu` into `libzkntt_host.a`, linked with the static CUDA runtime (cudart_static) found
/// beside nvcc. Nothing links libcuda: cudart loads it at run time, like cudarc.
fn compile_host_shim(nvcc: &Path, cuda: &Path, out: &Path) {
    let mut files = Vec::new();
    cu_files(cuda, &mut files);
    files.retain(|f| is_host_shim(f));
    let cuda_root = nvcc
        .parent()
        .and_then(Path::parent)
        .expect("nvcc in <root>/bin");
    let lib = out.join("libzkntt_host.a");
    let mut cmd = Command::new(nvcc);
    cmd.arg("-lib")
        .arg("-std=c++17")
        .arg("-O3")
        .arg("--threads=0")
        .arg("-Xcompiler")
        .arg("-fPIC")
        .arg("-I")
        .arg(cuda)
        .arg("-o")
        .arg(&lib);
    let cccl = cuda_root.join("include/cccl");
    if cccl.is_dir() {
        cmd.arg("-I").arg(cccl);
    }
    gencode(&mut cmd);
    cmd.args(&files);
    run(cmd, nvcc, "compiling the host shim");
}

/// Links `libzkntt_host.a` (built by `compile_host_shim` into `out`) and the CUDA runtime.
fn link_host_shim(nvcc: &Path, out: &Path) {
    let cuda_root = nvcc
        .parent()
        .and_then(Path::parent)
        .expect("nvcc in <root>/bin");
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=zkntt_host");
    let cudart = ["lib64", "lib", "targets/x86_64-linux/lib"]
        .iter()
        .map(|d| cuda_root.join(d))
        .find(|d| d.join("libcudart_static.a").is_file())
        .unwrap_or_else(|| panic!("libcudart_static.a not found under {}", cuda_root.display()));
    println!("cargo:rustc-link-search=native={}", cudart.display());
    println!("cargo:rustc-link-lib=static=cudart_static");
    for l in ["stdc++", "dl", "rt", "pthread"] {
        println!("cargo:rustc-link-lib=dylib={l}");
    }
}
