#!/usr/bin/env bash
# Issue 16 on the GPU machine, in one device call: the GPU suites with the default kernels and with
# each of the seed's kernels forced (ZKNTT_FORCED, default "stage1=shuffle stage2=warp"), the
# sanitizers on every generation (each_plan_once runs each; ZKNTT_SANITIZE_MAX_LOG, default 22: every plan shape),
# the `stages` bench beside sppark, and ncu per-kernel durations at 2^20 and 2^23 for each
# generation of ZKNTT_NCU (default: the two stage1 generations). Logs and tables into $OUT.
#   .gpu/issue16.sh [tests] [sanitize] [bench] [ncu]   (default: all)
set -uo pipefail
# shellcheck source=preamble.sh
source "$(dirname "$0")/preamble.sh"
steps=${*:-tests sanitize bench ncu}
for s in $steps; do
  case "$s" in
  tests)
    step "tests, default kernels"
    "$here/run.sh" tests > "$out/tests.log" 2>&1
    grep -E "^=== |test result|FAILED|panicked|^tests:" "$out/tests.log"
    for k in ${ZKNTT_FORCED:-stage1=shuffle stage2=warp}; do
      step "tests, $k (engine, host and ark suites)"
      for t in "$bin"/tests/zkntt-gpu-gpu "$bin"/tests/zkntt-ark-*; do
        [ -x "$t" ] || continue
        echo "--- $(basename "$t")"
        ZKNTT_KERNELS=$k "$t" --test-threads=4 > "$out/tests_forced.part" 2>&1
        grep -E "test result|FAILED|panicked" "$out/tests_forced.part"
        { echo "=== $k $(basename "$t")"; cat "$out/tests_forced.part"; } >> "$out/tests_forced.log"
      done
    done
    rm -f "$out/tests_forced.part"
    ;;
  sanitize)
    step "sanitizers on each_plan_once (every generation)"
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in memcheck racecheck synccheck; do
      ZKNTT_TEST_MAX_LOG=${ZKNTT_SANITIZE_MAX_LOG:-22} timeout 200 "$cs" --tool "$tool" --error-exitcode 9 "$bin"/tests/zkntt-gpu-gpu each_plan_once \
        > "$out/sanitize.part" 2>&1
      echo "$tool rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$out/sanitize.part" | tr '\n' ' ')"
      cat "$out/sanitize.part" >> "$out/sanitize.log"
    done
    rm -f "$out/sanitize.part"
    ;;
  bench)
    step "stages bench beside sppark"
    "$bin"/benches/zkntt-benches-stages > "$out/stages.md" 2>&1
    grep -E "^\||^##|rror|panick" "$out/stages.md"
    ;;
  ncu)
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    for k in ${ZKNTT_NCU:-stage1=shared stage1=shuffle}; do
      for n in 20 23; do
        step "ncu $k 2^$n"
        ZKNTT_KERNELS=$k "$ncu" --kernel-name regex:ntt_ --launch-skip 3 --launch-count 3 \
          --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
          "$bin/bin/zkntt" bench ntt --from $n --to $n --reps 2 --no-ark > "$out/ncu.part" 2>&1
        grep -E "^  ntt_[a-z0-9_]+|Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy" "$out/ncu.part" | head -40
        cat "$out/ncu.part" >> "$out/ncu.log"
      done
    done
    rm -f "$out/ncu.part"
    ;;
  esac
done
step done
