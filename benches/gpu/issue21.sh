#!/usr/bin/env bash
# Issue 21 on the GPU machine, in one device call (about 5 minutes on an H100): `zkntt verify`
# (both fields, every size of its default range 2^1..2^22, then 2^23..2^24), the bad-input checks
# against a real GPU (a device that does not exist, sizes above the two-adicity, unwritable
# outputs: one line on stderr, non-zero exit, no panic), the interop tests (a buffer allocated by
# raw driver calls, borrowed, transformed, compared with ark-poly), the consumer-facing CLI tests,
# the host path alone with its plot (`hostplot`: `zkntt bench ntt --host-only`, nothing else timed
# in the same command, for benches/results/h100-host.svg), and the benches with their JSON and SVG
# plots (`bench`: the matrix, ntt --host, modmul, small-ntt and fft; about 3 minutes on an H100).
# Everything into $OUT.
#   .gpu/issue21.sh [verify] [bad] [interop] [hostplot] [bench]   (default: all)
# `make gpu-build` ships it beside run.sh: `.gpu/issue21.sh`.
set -uo pipefail
# shellcheck source=preamble.sh
source "$(dirname "$0")/preamble.sh"
steps=${*:-verify bad interop hostplot bench}
zkntt="$bin/bin/zkntt"
rc=0

# expect_error LABEL ARGS...: zkntt ARGS fails, with one line on stderr and no panic.
expect_error() {
  local label=$1 err lines code
  shift
  err=$("$zkntt" "$@" 2>&1 >/dev/null)
  code=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$code" = 0 ] || [ "$lines" != 1 ] || printf '%s' "$err" | grep -q panicked; then
    echo "FAILED  $label: exit $code, stderr ($lines lines): $err"
    rc=1
  else
    echo "ok      $label: exit $code: $err"
  fi
}

for s in $steps; do
  case "$s" in
  verify)
    step "zkntt verify (both fields, 2^1..2^22)"
    "$zkntt" verify > "$out/verify.md" 2> "$out/verify.log" || { echo "FAILED (see verify.md, verify.log)"; rc=1; }
    tail -n 4 "$out/verify.md"
    step "zkntt verify --min-log 23 --max-log 24 (both fields)"
    "$zkntt" verify --min-log 23 --max-log 24 > "$out/verify_23_24.md" 2>> "$out/verify.log" || { echo "FAILED (see verify_23_24.md)"; rc=1; }
    tail -n 4 "$out/verify_23_24.md"
    ;;
  bad)
    step "bad input against a real GPU"
    nope=/nonexistent-zkntt-dir
    expect_error "verify --device 7" verify --device 7
    expect_error "bench ntt --device 7" bench ntt --device 7 --from 10 --to 10
    expect_error "bench ntt --matrix --device 7" bench ntt --matrix --device 7 --from 10 --to 10
    expect_error "bench modmul --device 7" bench modmul --device 7
    expect_error "bench small-ntt --device 7" bench small-ntt --device 7
    expect_error "bench fft --device 7" bench fft --device 7
    expect_error "prove --device 7" prove --device 7 --constraints 2^10
    expect_error "demo --device 7" demo --device 7
    expect_error "verify --max-log 29" verify --max-log 29
    expect_error "verify bls12-381 --max-log 33" verify --field bls12-381 --max-log 33
    expect_error "bench ntt --to 29" bench ntt --to 29
    expect_error "bench ntt --from 20 --to 12" bench ntt --matrix --from 20 --to 12
    expect_error "prove 2^30" prove --constraints 2^30
    expect_error "bench small-ntt --single 30" bench small-ntt --single 30
    expect_error "bench fft --max-log 30" bench fft --max-log 30
    expect_error "bench ntt --json unwritable" bench ntt --matrix --from 10 --to 10 --json $nope/m.json
    expect_error "bench ntt --plot unwritable" bench ntt --from 10 --to 10 --plot $nope/m.svg
    expect_error "prove --json unwritable" prove --constraints 2^10 --json $nope/p.json
    expect_error "plot --out unwritable" plot --json "$out/nothing.json" --out $nope/m.svg
    for b in modmul small-ntt fft; do
      expect_error "bench $b --json unwritable" bench "$b" --json $nope/m.json
      expect_error "bench $b --plot unwritable" bench "$b" --plot $nope/m.svg
      expect_error "bench $b --plot not *.svg" bench "$b" --plot "$out/m.png"
    done
    step "zkntt-cli tests on the bundle's zkntt (bad input, verify)"
    for t in "$bin"/tests/zkntt-cli-*; do
      "$t" --test-threads=2 > "$out/$(basename "$t").log" 2>&1 || { echo "FAILED: $(basename "$t")"; rc=1; }
      grep -E "test result|FAILED|panicked" "$out/$(basename "$t").log"
    done
    ;;
  interop)
    step "interop: a raw driver allocation borrowed and transformed, ours read by raw calls"
    "$bin"/tests/zkntt-gpu-gpu interop --test-threads=1 --nocapture > "$out/interop.log" 2>&1 || rc=1
    grep -E "^test |interop:|test result|FAILED|panicked" "$out/interop.log"
    ;;
  hostplot)
    step "zkntt bench ntt --host-only 2^18..2^23, alone (host to host against the PCIe floor), JSON and plot"
    "$zkntt" bench ntt --host-only --from 18 --to 23 --json "$out/host.json" --plot "$out/h100-host.svg" \
      > "$out/host.md" 2> "$out/host.log" || { echo "FAILED (see host.md, host.log)"; rc=1; }
    grep -E "^\| (18|20|23) \|" "$out/host.md"
    ;;
  bench)
    step "zkntt bench ntt --matrix 2^10..2^24 (zkntt beside sppark), JSON and plot"
    "$zkntt" bench ntt --matrix --from 10 --to 24 --json "$out/matrix.json" --plot "$out/matrix.svg" \
      > "$out/matrix.md" 2> "$out/matrix.log" || { echo "FAILED (see matrix.md, matrix.log)"; rc=1; }
    grep -E "^\| (16|20|24) \| forward" "$out/matrix.md"
    step "zkntt bench ntt --host 2^16..2^24 (device, host to host, ark-poly, PCIe floor), JSON and plot"
    "$zkntt" bench ntt --host --from 16 --to 24 --reps 10 --json "$out/ntt.json" --plot "$out/ntt.svg" \
      > "$out/ntt.md" 2> "$out/ntt.log" || { echo "FAILED (see ntt.md, ntt.log)"; rc=1; }
    grep -E "^\| (20|24) \|" "$out/ntt.md"
    step "zkntt bench modmul, 2^22 elements (every form, every blog modulus), JSON and plot"
    "$zkntt" bench modmul --n 4194304 --json "$out/modmul.json" --plot "$out/modmul.svg" \
      > "$out/modmul.md" 2> "$out/modmul.log" || { echo "FAILED (see modmul.md, modmul.log)"; rc=1; }
    grep -E "^\| (Montgomery|Shoup) \|" "$out/modmul.md"
    step "zkntt bench small-ntt, 256 MiB batches, single 2^12..2^22, JSON and plot"
    "$zkntt" bench small-ntt --bytes 268435456 --iters 5 --single 12,16,20,22 \
      --json "$out/small-ntt.json" --plot "$out/small-ntt.svg" \
      > "$out/small-ntt.md" 2> "$out/small-ntt.log" || { echo "FAILED (see small-ntt.md, small-ntt.log)"; rc=1; }
    grep -E "^\| (q28 \| 1[02]|babybear \| 12|20|22) \|" "$out/small-ntt.md"
    step "zkntt bench fft, 128 MiB per size (beside cuFFT fp16 and fp32), JSON and plot"
    "$zkntt" bench fft --bytes 134217728 --json "$out/fft.json" --plot "$out/fft.svg" \
      > "$out/fft.md" 2> "$out/fft.log" || { echo "FAILED (see fft.md, fft.log)"; rc=1; }
    grep -E "^ *(N|256|4096|65536|1048576) " "$out/fft.md"
    ls -l "$out"/*.svg "$out"/*.json
    ;;
  *)
    echo "issue21.sh: unknown step $s (verify, bad, interop, hostplot, bench)" >&2
    rc=2
    ;;
  esac
done
step "done (rc=$rc)"
exit $rc
