//! `ZKNTT_EMU=1`: the kernels under `cuda/` compiled by the host's
//! C++ compiler into a CPU emulator of the CUDA driver (`libcuda.so`, README.md here) instead of
//! nvcc's fatbin, and the host shim's twin into `libzkntt_host.a`. Included by the crate's
//! build.rs.

use std::env;
use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the emulated build gives kernels.rs.
pub struct Emulator {
    /// The fake driver, with the kernels in it.
    pub library: PathBuf,
    /// The kernels it holds, sorted.
    pub symbols: Vec<String>,
    /// The C++ compiler's first `--version` line.
    pub compiler: String,
}

/// `$CXX`, else `c++`.
fn cxx() -> String {
    env::var("CXX")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "c++".into())
}

fn run(cmd: &mut Command, what: &str) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C++ compiler for {what}: {e}"));
    if !status.success() {
        panic!("the C++ compiler failed ({status}) {what}");
    }
}

/// Builds (or takes from `<target>/zkntt-kernels-cache/emu-<hash>/`) the emulator of the kernels
/// in `files`.
pub fn build(root: &Path, out: &Path, files: &[PathBuf]) -> Emulator {
    let emu = root.join("crates/zkntt-kernels/emu");
    let cuda = root.join("cuda");
    println!("cargo:rerun-if-changed={}", emu.display());
    println!("cargo:rerun-if-env-changed=CXX");
    let cxx = cxx();
    let compiler = Command::new(&cxx)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| panic!("ZKNTT_EMU=1 needs a C++ compiler: `{cxx} --version` failed"));
    let mut hasher = DefaultHasher::new();
    (&compiler, files).hash(&mut hasher);
    let mut sources = Vec::new();
    for dir in [&emu, &cuda] {
        super::all_files(dir, &mut sources);
    }
    for f in &sources {
        f.hash(&mut hasher);
        fs::read(f).unwrap().hash(&mut hasher);
    }
    let key = format!("emu-{:016x}", hasher.finish());
    let cache = super::cache_dir(out, &key).unwrap_or_else(|| out.join(&key));
    let library = cache.join("libcuda.so");
    let complete = |c: &Path| c.join("libcuda.so").is_file() && c.join("libzkntt_host.a").is_file();
    if !complete(&cache) {
        // Built beside it and renamed into place: builds running at once never see half of it.
        let partial = cache.with_extension(format!("partial-{}", std::process::id()));
        let _ = fs::remove_dir_all(&partial);
        fs::create_dir_all(&partial).unwrap();
        compile(&cxx, &emu, &cuda, &partial, files);
        if !complete(&cache) {
            let _ = fs::remove_dir_all(&cache);
        }
        if fs::rename(&partial, &cache).is_err() {
            // Another build filled it first: theirs is the same.
            let _ = fs::remove_dir_all(&partial);
        }
    }
    println!("cargo:rustc-link-search=native={}", cache.display());
    println!("cargo:rustc-link-lib=static=zkntt_host");
    let symbols = fs::read_to_string(cache.join("kernels.list"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    Emulator {
        library,
        symbols,
        compiler,
    }
}

/// The kernels defined in `cuda`'s files of a preprocessed translation unit: `extern "C"`
/// functions returning void (`__global__` and `__launch_bounds__` expand to nothing here), their
/// name on the line of `void` or a later one.
fn kernels(preprocessed: &str, cuda: &Path) -> Vec<String> {
    let cuda = cuda.display().to_string();
    let mut in_cuda = false;
    // The lines from `cuda`'s files, joined by spaces.
    let mut text = String::new();
    for line in preprocessed.lines() {
        // Line markers: # <line> "<file>" <flags>.
        if let Some(rest) = line.strip_prefix("# ") {
            if let Some(file) = rest.split('"').nth(1) {
                in_cuda = file.starts_with(&cuda);
            }
            continue;
        }
        if in_cuda {
            text.push_str(line);
            text.push(' ');
        }
    }
    let mut names = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("extern \"C\"") {
        rest = &rest[at + "extern \"C\"".len()..];
        let decl = rest.trim_start();
        if let Some(after) = decl.strip_prefix("void ") {
            let after = after.trim_start();
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && after[name.len()..].trim_start().starts_with('(') {
                names.push(name);
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

fn compile(cxx: &str, emu: &Path, cuda: &Path, dir: &Path, files: &[PathBuf]) {
    let mut tu = String::from(
        "// Generated by zkntt-kernels/emu/build.rs: the kernels and their table.\n\
         #include <utility>\n#include \"runtime.h\"\n",
    );
    for f in files {
        tu.push_str(&format!("#include \"{}\"\n", f.display()));
    }
    let common = |cmd: &mut Command| {
        cmd.arg("-std=c++17")
            .arg("-O2")
            .arg("-fPIC")
            .arg("-fvisibility=hidden")
            .arg("-fno-strict-aliasing")
            // __fma_rz switches the rounding mode around one fma.
            .arg("-frounding-math")
            .arg("-Wno-unknown-pragmas")
            .arg("-I")
            .arg(cuda)
            .arg("-I")
            .arg(emu)
            .arg("-include")
            .arg(emu.join("cuda_emu.h"));
    };
    let sources = dir.join("emu_sources.cpp");
    fs::write(&sources, &tu).unwrap();
    let mut cmd = Command::new(cxx);
    common(&mut cmd);
    let pre = cmd
        .arg("-E")
        .arg(&sources)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C++ compiler: {e}"));
    if !pre.status.success() {
        panic!(
            "the C++ compiler failed preprocessing the kernels:\n{}",
            String::from_utf8_lossy(&pre.stderr)
        );
    }
    let symbols = kernels(&String::from_utf8_lossy(&pre.stdout), cuda);
    fs::write(dir.join("kernels.list"), symbols.join("\n")).unwrap();
    tu.push_str(
        "namespace {\n\
         // Unpacks cuLaunchKernel's parameter pointers into the kernel's own parameter types.\n\
         // Each parameter is copied out, not dereferenced: the caller's may be less aligned than\n\
         // the type (an alignas(16) element passed from an 8-byte aligned Rust value).\n\
         template <class T> T param(void* p) {\n\
         \x20   T v;\n\
         \x20   __builtin_memcpy(static_cast<void*>(&v), p, sizeof(T));\n\
         \x20   return v;\n\
         }\n\
         template <auto F> struct Trampoline;\n\
         template <class... A, void (*F)(A...)> struct Trampoline<F> {\n\
         \x20   template <size_t... I> static void call(void** p, std::index_sequence<I...>) {\n\
         \x20       F(param<std::remove_cv_t<std::remove_reference_t<A>>>(p[I])...);\n\
         \x20   }\n\
         \x20   static void call(void** p) { call(p, std::index_sequence_for<A...>{}); }\n\
         };\n\
         const zkntt_emu::KernelEntry KERNELS[] = {\n",
    );
    for s in &symbols {
        tu.push_str(&format!("    {{\"{s}\", &Trampoline<&{s}>::call}},\n"));
    }
    tu.push_str(
        "};\n}  // namespace\n\
         const zkntt_emu::KernelEntry* zkntt_emu::find_kernel(const char* name) {\n\
         \x20   for (const auto& k : KERNELS) if (__builtin_strcmp(k.name, name) == 0) return &k;\n\
         \x20   return nullptr;\n\
         }\n",
    );
    let tu_path = dir.join("emu_kernels.cpp");
    fs::write(&tu_path, tu).unwrap();

    // Kernels, runtime and driver in one shared library named as the driver.
    let mut objects = Vec::new();
    for (src, obj) in [
        (tu_path.clone(), "kernels.o"),
        (emu.join("runtime.cpp"), "runtime.o"),
        (emu.join("driver.cpp"), "driver.o"),
        (emu.join("powers.cpp"), "powers.o"),
    ] {
        let o = dir.join(obj);
        let mut cmd = Command::new(cxx);
        common(&mut cmd);
        cmd.arg("-c").arg(&src).arg("-o").arg(&o);
        run(&mut cmd, &format!("compiling {}", src.display()));
        objects.push(o);
    }
    let mut cmd = Command::new(cxx);
    cmd.arg("-shared")
        .arg("-Wl,-soname,libcuda.so")
        .arg("-o")
        .arg(dir.join("libcuda.so"))
        .args(&objects[..3])
        .arg("-lpthread");
    run(&mut cmd, "linking libcuda.so");
    let lib = dir.join("libzkntt_host.a");
    let _ = fs::remove_file(&lib);
    let mut ar = Command::new(env::var("AR").unwrap_or_else(|_| "ar".into()));
    ar.arg("crs").arg(&lib).arg(&objects[3]);
    run(&mut ar, "archiving libzkntt_host.a");
}
