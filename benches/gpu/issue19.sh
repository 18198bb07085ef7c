#!/usr/bin/env bash
# Issue 19 on the GPU machine, in one device call: GpuQap's GPU tests (witness maps bit-exact with
# ark's LibsnarkReduction at 2^10..2^20 for both fields, proofs byte-identical and verified, the
# out-of-memory fallback) and the field kernels it adds (in place, scale); then `zkntt prove` at
# 2^16, 2^18, 2^20 for BN254 and 2^18 for BLS12-381: the phases of a Groth16 proof with ark's
# witness map and with GpuQap's, a JSON per run; `maps`: the witness maps alone
# (`--witness-map-only`, no setup) at ZKNTT_MAP_CASES (default BN254 2^16..2^22 and BLS12-381
# 2^20), 3 repeats each; `lde`: the fused coset LDE's test against ark (every size, batches, the
# unfused path, bad configurations), memcheck and racecheck on it to 2^12, and the `lde` bench
# (fused against both unfused pairs and sppark's, 2^ZKNTT_BENCH_MIN_LOG..MAX_LOG, default 16..26).
# Logs into $OUT.
#   .gpu/issue19.sh [tests] [prove] [maps] [lde]   (default: tests prove)
#   ZKNTT_PROVE_CASES="bn254:20 bls12-381:18" picks the prove runs; keys are cached under
#   ZKNTT_KEYS (default $TMPDIR/zkntt-groth16-keys), so a second call skips the setups.
set -uo pipefail
# shellcheck source=preamble.sh
source "$(dirname "$0")/preamble.sh"
steps=${*:-tests prove}
cases=${ZKNTT_PROVE_CASES:-bn254:16 bn254:18 bn254:20 bls12-381:18}
keys=${ZKNTT_KEYS:-${TMPDIR:-/tmp}/zkntt-groth16-keys}
rc=0
for s in $steps; do
  case "$s" in
  tests)
    step "GpuQap against LibsnarkReduction (zkntt-ark tests/groth16.rs)"
    "$bin"/tests/zkntt-ark-groth16 --test-threads=4 > "$out/groth16_tests.log" 2>&1 || rc=1
    grep -E "equals LibsnarkReduction|test result|FAILED|panicked|SKIP" "$out/groth16_tests.log"
    step "field kernels: binary, in place, scale (zkntt-gpu tests/gpu)"
    "$bin"/tests/zkntt-gpu-gpu field_kernels > "$out/field_tests.log" 2>&1 || rc=1
    grep -E "match ark-ff|test result|FAILED|panicked" "$out/field_tests.log"
    ;;
  prove)
    for c in $cases; do
      field=${c%%:*} k=${c##*:}
      step "zkntt prove --field $field --constraints 2^$k"
      log="$out/prove_${field}_log$k.log"
      "$bin/bin/zkntt" prove --field "$field" --constraints "2^$k" --cache-dir "$keys" \
        --json "$out/prove_${field}_log$k.json" > "$log" 2>&1 || { echo "FAILED (see $log)"; rc=1; }
      grep -E "^(zkntt prove|GPU|phase|witness|MSMs|whole|GpuQap|PCIe|the witness|setup: [0-9])|rror" "$log"
      grep -q "ran on the GPU" "$log" || { echo "GpuQap did not run on the GPU"; rc=1; }
    done
    ;;
  maps)
    for c in ${ZKNTT_MAP_CASES:-bn254:16 bn254:18 bn254:20 bn254:22 bls12-381:20}; do
      field=${c%%:*} k=${c##*:}
      step "zkntt prove --witness-map-only --field $field --constraints 2^$k"
      log="$out/map_${field}_log$k.log"
      "$bin/bin/zkntt" prove --witness-map-only --reps 3 --field "$field" --constraints "2^$k" \
        --json "$out/map_${field}_log$k.json" > "$log" 2>&1 || { echo "FAILED (see $log)"; rc=1; }
      grep -E "^(witness|  of which|    in it|GpuQap|PCIe|the witness)|rror" "$log"
      grep -q "ran on the GPU" "$log" || { echo "GpuQap did not run on the GPU"; rc=1; }
    done
    ;;
  lde)
    step "coset LDE against ark (zkntt-gpu tests/gpu coset_lde_matches_ark)"
    timeout 240 "$bin"/tests/zkntt-gpu-gpu coset_lde > "$out/lde_tests.log" 2>&1 || rc=1
    grep -E "test result|FAILED|panicked" "$out/lde_tests.log"
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in memcheck racecheck; do
      step "$tool on coset_lde_matches_ark to 2^12"
      ZKNTT_TEST_MAX_LOG=12 timeout 240 "$cs" --tool "$tool" --error-exitcode 9 \
        "$bin"/tests/zkntt-gpu-gpu coset_lde > "$out/lde_$tool.log" 2>&1
      echo "$tool rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$out/lde_$tool.log" | tr '\n' ' ')"
    done
    step "lde bench: fused against two transforms, beside sppark"
    ZKNTT_BENCH_MIN_LOG=${ZKNTT_BENCH_MIN_LOG:-16} ZKNTT_BENCH_MAX_LOG=${ZKNTT_BENCH_MAX_LOG:-26} \
      timeout 200 "$bin"/benches/zkntt-benches-lde > "$out/lde.md" 2>&1 || rc=1
    grep -E "^\| [0-9]+ \||rror|panick" "$out/lde.md"
    ;;
  *)
    echo "issue19.sh: unknown step $s (tests, prove, maps, lde)" >&2
    rc=2
    ;;
  esac
done
step "done (rc=$rc)"
exit $rc
