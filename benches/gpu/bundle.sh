#!/usr/bin/env bash
# `make gpu-build`: release test and bench binaries and the zkntt binary, stripped, packed into one
# xz archive beside run.sh and small-run.sh, into .gpu/ (git-ignored) for the GPU machine, which
# has no Rust toolchain. The folder is carried there whole and must stay under 64 MiB; the
# executables alone are larger, so they travel packed and run.sh unpacks them on first use.
# ZKNTT_BUNDLE=dir bundles elsewhere (several people building at once); default .gpu.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${ZKNTT_BUNDLE:-.gpu}
# ZKNTT_BUNDLE_PACKAGES="-p a -p b" limits what is built (default: the whole workspace).
PKGS=${ZKNTT_BUNDLE_PACKAGES:---workspace}
# ZKNTT_ARCHS=90 (read by zkntt-kernels' build script) compiles the kernels for sm_90 only.
# ZKNTT_BUNDLE_PROBES=1 adds the probes of benches/probes/ (run.sh probe NAME), compiled for the
# H100 with ZKNTT_PROBE_NVCCFLAGS added (e.g. -DMINB=3).
PROBES=${ZKNTT_BUNDLE_PROBES:-0}
LIMIT_MIB=64
rm -rf "$B"
mkdir -p "$B"
# The executables are collected here, then packed.
stage=$(mktemp -d "${TMPDIR:-/tmp}/zkntt-bundle.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tests" "$stage/benches" "$stage/bin"

# sppark (a path dependency, so cargo counts its bridge crate as a workspace member whatever
# `exclude` says) is built with nvcc on PATH and cudart in LIBRARY_PATH; set both for every step,
# or a test build after a bench build links against a cudart it cannot find.
if [ -x .toolchain/nvidia/cu13/bin/nvcc ]; then
  export PATH="$PWD/.toolchain/nvidia/cu13/bin:$PATH" LIBRARY_PATH="$PWD/.toolchain/nvidia/cu13/lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
fi

collect() { python3 benches/gpu/collect.py "$@"; }

# The zkntt-ark tests carry its `groth16` feature (its dev-dependency on itself turns it on:
# tests/groth16.rs is zkntt-ark-groth16), and zkntt-cli depends on zkntt-ark with it (`zkntt prove`).
echo "gpu-build: test binaries"
cargo test --release $PKGS --no-run --message-format=json-render-diagnostics | collect "$stage/tests" tests
echo "gpu-build: bench binaries (with sppark beside zkntt)"
SPPARK=""
case "$PKGS" in *--workspace*|*zkntt-benches*) SPPARK="--features zkntt-benches/sppark" ;; esac
# shellcheck disable=SC2086
ZKNTT_SPPARK=1 cargo bench $PKGS $SPPARK --no-run --message-format=json-render-diagnostics | collect "$stage/benches" benches
echo "gpu-build: zkntt"
ZKNTT_SPPARK=1 cargo build --release -p zkntt-cli ${SPPARK:+--features sppark} --message-format=json-render-diagnostics | collect "$stage/bin" bin
strip "$stage"/tests/* "$stage"/benches/* "$stage"/bin/* 2>/dev/null || true
if [ "$PROBES" = 1 ]; then
  echo "gpu-build: probes"
  mkdir -p "$stage/probes"
  for p in benches/probes/*.cu; do
    # shellcheck disable=SC2086
    "${NVCC:-nvcc}" -O3 -std=c++17 -arch=sm_90 -cudart static -I cuda ${ZKNTT_PROBE_NVCCFLAGS:-} \
      -o "$stage/probes/$(basename "$p" .cu)" "$p"
  done
  strip "$stage"/probes/*
  cp benches/probes/*.sh "$stage/probes/"
fi

echo "gpu-build: packing $(du -sh "$stage" | cut -f1) of executables"
python3 - "$stage" "$B/bundle.tar.xz" <<'PY'
import os, sys, tarfile
src, dst = sys.argv[1:]
# xz (Python's lzma, on every machine with python3) at preset 9: a 64 MiB window, so the copies
# of the embedded fatbin and of the shared crates in every binary are stored about once.
with tarfile.open(dst, "w:xz", preset=9) as tar:
    for name in sorted(os.listdir(src)):
        tar.add(os.path.join(src, name), arcname=name)
PY
# Every script of benches/gpu but this one: run.sh, small-run.sh, the issue scripts, preamble.sh.
find benches/gpu -maxdepth 1 -name '*.sh' ! -name bundle.sh -exec cp {} "$B/" \;
chmod +x "$B"/*.sh
git rev-parse --short HEAD > "$B/COMMIT" 2>/dev/null || echo unknown > "$B/COMMIT"
[ -n "${ZKNTT_ARCHS:-}" ] && echo "ZKNTT_ARCHS=$ZKNTT_ARCHS" >> "$B/COMMIT"
git diff --quiet 2>/dev/null || echo "+dirty" >> "$B/COMMIT"
du -sh "$B"
size=$(du -sm "$B" | cut -f1)
if [ "$size" -ge "$LIMIT_MIB" ]; then
  echo "gpu-build: $B is ${size} MiB, over the ${LIMIT_MIB} MiB carry limit" >&2
  exit 1
fi
