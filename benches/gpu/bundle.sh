#!/usr/bin/env bash
# `make gpu-build`: release test and bench binaries and the zkntt binary, stripped, with run.sh,
# into .gpu/ (git-ignored) for the GPU machine, which has no Rust toolchain. Kept under 64 MiB.
# ZKNTT_BUNDLE=dir bundles elsewhere (several people building at once); default .gpu.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${ZKNTT_BUNDLE:-.gpu}
# ZKNTT_BUNDLE_PACKAGES="-p a -p b" limits what is built (default: the whole workspace).
PKGS=${ZKNTT_BUNDLE_PACKAGES:---workspace}
rm -rf "$B"
mkdir -p "$B/tests" "$B/benches" "$B/bin"

# sppark (a path dependency, so cargo counts its bridge crate as a workspace member whatever
# `exclude` says) is built with nvcc on PATH and cudart in LIBRARY_PATH; set both for every step,
# or a test build after a bench build links against a cudart it cannot find.
if [ -x .toolchain/nvidia/cu13/bin/nvcc ]; then
  export PATH="$PWD/.toolchain/nvidia/cu13/bin:$PATH" LIBRARY_PATH="$PWD/.toolchain/nvidia/cu13/lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
fi

collect() { python3 benches/gpu/collect.py "$@"; }

echo "gpu-build: test binaries"
cargo test --release $PKGS --no-run --message-format=json-render-diagnostics | collect "$B/tests" tests
echo "gpu-build: bench binaries (with sppark beside zkntt)"
SPPARK=""
case "$PKGS" in *--workspace*|*zkntt-benches*) SPPARK="--features zkntt-benches/sppark" ;; esac
# shellcheck disable=SC2086
ZKNTT_SPPARK=1 cargo bench $PKGS $SPPARK --no-run --message-format=json-render-diagnostics | collect "$B/benches" benches
echo "gpu-build: zkntt"
cargo build --release -p zkntt-cli --message-format=json-render-diagnostics | collect "$B/bin" bin
strip "$B"/tests/* "$B"/benches/* "$B"/bin/* 2>/dev/null || true
cp benches/gpu/run.sh "$B/run.sh"
chmod +x "$B/run.sh"
git rev-parse --short HEAD > "$B/COMMIT" 2>/dev/null || echo unknown > "$B/COMMIT"
git diff --quiet 2>/dev/null || echo "+dirty" >> "$B/COMMIT"
du -sh "$B"
size=$(du -sm "$B" | cut -f1)
if [ "$size" -ge 64 ]; then echo "gpu-build: $B is ${size} MiB, over the 64 MiB carry limit" >&2; exit 1; fi
