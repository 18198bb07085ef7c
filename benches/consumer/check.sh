#!/usr/bin/env bash
# CI (make test): a crate outside the workspace that depends on zkntt-gpu by path.
#  1. With the toolchain `make setup` installed, it builds and its kernels are present.
#  2. With no nvcc anywhere (a copy of the sources without .toolchain/, PATH without nvcc, NVCC
#     and ZKNTT_CUDA_TOOLCHAIN unset) its build fails, saying which command fixes it.
# Both share the workspace's target directory: the registry crates and the compiled kernels
# (target/zkntt-kernels-cache) are reused, so the check takes seconds once `make test` has built.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
target="$root/target"

echo "consumer: building benches/consumer with the toolchain"
cargo run -q --manifest-path benches/consumer/Cargo.toml --target-dir "$target"

echo "consumer: building a copy of the sources with no nvcc anywhere"
copy="$target/consumer-no-nvcc"
rm -rf "$copy" && mkdir -p "$copy"
# Tracked and new files, as a git checkout of this tree would have them (no .toolchain/, target/).
git ls-files -co --exclude-standard -z | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$copy"
bare_path="$(dirname "$(command -v cargo)"):$(dirname "$(command -v rustc)"):/usr/bin:/bin"
if PATH="$bare_path" command -v nvcc >/dev/null; then
  echo "consumer: SKIP the no-nvcc build: nvcc is installed system-wide ($(PATH="$bare_path" command -v nvcc))"
  exit 0
fi
log="$target/consumer-no-nvcc.log"
if env -u NVCC -u ZKNTT_CUDA_TOOLCHAIN -u ZKNTT_CPU_ONLY PATH="$bare_path" \
  cargo build -q --manifest-path "$copy/benches/consumer/Cargo.toml" --target-dir "$target" >"$log" 2>&1; then
  echo "consumer: FAIL: built with no nvcc anywhere (kernels would be missing)"
  exit 1
fi
for says in "zkntt-kernels needs the CUDA 13.0 compiler" "python3 -m pip install --target" "export ZKNTT_CUDA_TOOLCHAIN=" \
  "nvidia-cuda-nvcc==13.0.*" "ZKNTT_CPU_ONLY=1"; do
  if ! grep -qF -- "$says" "$log"; then
    echo "consumer: FAIL: the failed build does not say \"$says\":"
    cat "$log"
    exit 1
  fi
done
grep -F "error: zkntt-kernels" "$log" | head -1
echo "consumer: ok (kernels present with the toolchain; without nvcc the build fails with the fix)"
rm -rf "$copy"
