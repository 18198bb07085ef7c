#!/usr/bin/env bash
# `make gpu-build`: release test and bench binaries and the zkntt binary, stripped, with run.sh,
# into .gpu/ (git-ignored) for the GPU machine, which has no Rust toolchain. Kept under 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .gpu
mkdir -p .gpu/tests .gpu/benches .gpu/bin

collect() { python3 benches/gpu/collect.py "$@"; }

echo "gpu-build: test binaries"
cargo test --release --workspace --no-run --message-format=json-render-diagnostics | collect .gpu/tests tests
echo "gpu-build: bench binaries"
cargo bench --workspace --no-run --message-format=json-render-diagnostics | collect .gpu/benches benches
echo "gpu-build: zkntt"
cargo build --release -p zkntt-cli --message-format=json-render-diagnostics | collect .gpu/bin bin
strip .gpu/tests/* .gpu/benches/* .gpu/bin/* 2>/dev/null || true
cp benches/gpu/run.sh .gpu/run.sh
chmod +x .gpu/run.sh
git rev-parse --short HEAD > .gpu/COMMIT 2>/dev/null || echo unknown > .gpu/COMMIT
git diff --quiet 2>/dev/null || echo "+dirty" >> .gpu/COMMIT
du -sh .gpu
size=$(du -sm .gpu | cut -f1)
if [ "$size" -ge 64 ]; then echo "gpu-build: .gpu is ${size} MiB, over the 64 MiB carry limit" >&2; exit 1; fi
