# zkntt: make setup | demo | test | emu-test | gpu-build | bench | fixtures | lint
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -eu -o pipefail -c

TOOLCHAIN  := .toolchain
WHEEL_NVCC := $(TOOLCHAIN)/nvidia/cu13/bin/nvcc
# Every CUDA wheel pinned to 13.0 (the H100 driver's CUDA). An unpinned nvvm brings PTX 9.5,
# which the 13.0 ptxas rejects ("Unsupported .version").
CUDA_WHEELS := nvidia-cuda-nvcc==13.0.* nvidia-nvvm==13.0.* nvidia-cuda-crt==13.0.* \
               nvidia-cuda-cccl==13.0.* nvidia-cuda-runtime==13.0.*

.PHONY: setup demo test emu-test lint gpu-build bench fixtures

## setup: the CUDA compiler from PyPI wheels into .toolchain/ (skipped if an nvcc 13.x is present)
setup:
	@if [ -n "$${NVCC:-}" ] && "$$NVCC" --version 2>/dev/null | grep -q "release 13\."; then
	  echo "setup: using \$$NVCC ($$NVCC)"
	elif command -v nvcc >/dev/null && nvcc --version | grep -q "release 13\."; then
	  echo "setup: using nvcc on PATH ($$(command -v nvcc))"
	elif [ -x $(WHEEL_NVCC) ] && $(WHEEL_NVCC) --version | grep -q "release 13\.0"; then
	  echo "setup: $(WHEEL_NVCC) already installed"
	else
	  echo "setup: installing CUDA 13.0 compiler wheels into $(TOOLCHAIN)/"
	  rm -rf $(TOOLCHAIN).partial
	  python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
	    --target $(TOOLCHAIN).partial $(CUDA_WHEELS)
	  rm -rf $(TOOLCHAIN) && mv $(TOOLCHAIN).partial $(TOOLCHAIN)
	  $(WHEEL_NVCC) --version | grep release
	fi

## demo: what exists so far, on whatever this machine has
demo: setup
	cargo run --release -q -p zkntt-cli -- info
	cargo run --release -q -p zkntt-cli -- demo

## lint: formatting and clippy with warnings as errors
lint: setup
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -q -- -D warnings

## test: lint, then every test (GPU tests skip with one line where there is no GPU), then a
## crate outside the workspace gets the kernels, and fails to build loudly with no nvcc, then the
## GPU suites on the CPU emulator (emu-test: the kernels' own sources run on every machine)
test: lint
	cargo test --workspace --no-fail-fast
	./benches/consumer/check.sh
	$(MAKE) --no-print-directory emu-test

## emu-test: the GPU suites on the CPU emulator of the kernels (crates/zkntt-kernels/emu),
## no GPU and no nvcc needed; sizes to 2^ZKNTT_TEST_MAX_LOG (14 unless set), its own target folder
emu-test:
	ZKNTT_EMU=1 ZKNTT_TEST_MAX_LOG=$${ZKNTT_TEST_MAX_LOG:-14} ZKNTT_ARK_MAX_LOG=$${ZKNTT_ARK_MAX_LOG:-14} CARGO_TARGET_DIR=$${CARGO_TARGET_DIR:-target}/emu \
	  cargo test -p zkntt-gpu -p zkntt-ark -p zkntt-small --no-fail-fast

## gpu-build: release test/bench binaries and the zkntt binary, bundled into .gpu/ for the GPU machine
gpu-build: setup
	./benches/gpu/bundle.sh

## bench: criterion benches on this machine (GPU parts need a GPU)
bench: setup
	cargo bench -p zkntt-benches

## fixtures: regenerate the known-answer vectors and the generated CUDA field headers
fixtures:
	python3 fixtures/gen_fixtures.py
	ZKNTT_BLESS=1 cargo test -q -p zkntt-core --lib cuda_params_headers
