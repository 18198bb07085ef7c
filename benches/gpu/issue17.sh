#!/usr/bin/env bash
# Issue 17 on the GPU machine, in one device call: the engine's and the ark suites (every size,
# direction, coset and ordering against ark-poly), the `stages` bench beside sppark (BN254 forward
# NN/NR/RN, ZKNTT_BENCH_MIN_LOG..ZKNTT_BENCH_MAX_LOG, default 12..26), ncu per launch at 2^23 in
# each ordering, and memcheck/racecheck on each_plan_once (every kernel generation and ordering,
# 2^1..2^ZKNTT_SANITIZE_MAX_LOG, default 19); `small`: the stages bench and the matrix at
# 2^8..2^20 / 2^8..2^17; `mid`: the matrix at 2^18..2^22; `ncu12`: ncu's duration of every launch
# of the 2^12 matrix (zkntt with narrow and wide blocks, sppark) as CSV; `clusters`: the matrix at
# 2^8..2^17 with the cluster launch forced (2^9..2^14) and with narrow blocks (the default),
# interleaved twice; `twopass`: the matrix at 2^8..2^20 with natural order in place (self-sorting
# stages) and by default (two passes through a scratch to 2^20), interleaved twice. Logs and
# tables into $OUT.
#   .gpu/issue17.sh [tests] [bench] [ncu] [sanitize] [small] [mid] [ncu12] [clusters] [twopass]
#   (default: tests bench ncu sanitize)
set -uo pipefail
# shellcheck source=preamble.sh
source "$(dirname "$0")/preamble.sh"
steps=${*:-tests bench ncu sanitize}
rc=0
# The matrix 2^8..2^$2 beside sppark with ZKNTT_KERNELS=$1=<each later argument>, interleaved twice.
ab_matrix() {
  local key=$1 to=$2 r v
  shift 2
  for r in 1 2; do
    for v in "$@"; do
      step "matrix 2^8..2^$to beside sppark, $key=$v, round $r"
      ZKNTT_KERNELS=$key=$v timeout 240 "$bin/bin/zkntt" bench ntt --matrix --from 8 --to "$to" --reps 30 \
        --json "$out/matrix_${v}_$r.json" > "$out/matrix_${v}_$r.md" 2>&1 || rc=1
      grep -E "^\| [0-9]+ \| forward|rror|panick" "$out/matrix_${v}_$r.md"
    done
  done
}
for s in $steps; do
  case "$s" in
  tests)
    for t in "$bin"/tests/zkntt-gpu-gpu "$bin"/tests/zkntt-ark-*; do
      [ -x "$t" ] || continue
      step "tests $(basename "$t")"
      timeout 300 "$t" --test-threads=4 > "$out/$(basename "$t").log" 2>&1 || rc=1
      grep -E "test result|FAILED|panicked" "$out/$(basename "$t").log" | head -20
    done
    ;;
  bench)
    step "stages bench beside sppark"
    ZKNTT_BENCH_MIN_LOG=${ZKNTT_BENCH_MIN_LOG:-12} ZKNTT_BENCH_MAX_LOG=${ZKNTT_BENCH_MAX_LOG:-26} \
      timeout 200 "$bin"/benches/zkntt-benches-stages > "$out/stages.md" 2>&1 || rc=1
    # log2 N, order, default, sppark same, sppark best, default vs same, default vs best
    grep -E "^\| [0-9]+ \| (NN|NR|RN)" "$out/stages.md" | cut -d'|' -f1-3,7-10,15,20
    grep -E "rror|panick" "$out/stages.md"
    ;;
  ncu)
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    step "ncu 2^23 NN (per launch)"
    "$ncu" --kernel-name regex:ntt_ --launch-skip 3 --launch-count 3 --section SpeedOfLight \
      --section LaunchStats "$bin/bin/zkntt" bench ntt --from 23 --to 23 --reps 2 --no-ark \
      > "$out/ncu_nn.log" 2>&1 || rc=1
    grep -E "^  ntt_[a-z0-9_]+|Duration|Registers Per|Compute \(SM\)|DRAM Throughput" "$out/ncu_nn.log" | head -24
    # The stages bench's bit-reversed transforms at 2^23: NR's first three launches, and RN's
    # first (after NR's 5 generations x 22 transforms x 3 launches).
    for o in "NR 0" "RN 330"; do
      set -- $o
      step "ncu 2^23 $1 (per launch)"
      ZKNTT_BENCH_MIN_LOG=23 ZKNTT_BENCH_MAX_LOG=23 "$ncu" --kernel-name regex:"ntt_column_(nr|rn)" \
        --launch-skip "$2" --launch-count 3 --section SpeedOfLight --section LaunchStats \
        "$bin"/benches/zkntt-benches-stages > "$out/ncu_$1.log" 2>&1 || rc=1
      grep -E "^  ntt_[a-z0-9_]+|Duration|Registers Per|Compute \(SM\)|DRAM Throughput" "$out/ncu_$1.log" | head -24
    done
    ;;
  small)
    step "stages bench 2^8..2^20 beside sppark"
    ZKNTT_BENCH_MIN_LOG=8 ZKNTT_BENCH_MAX_LOG=20 timeout 200 "$bin"/benches/zkntt-benches-stages \
      > "$out/stages_small.md" 2>&1 || rc=1
    grep -E "^\| [0-9]+ \| (NN|NR|RN)" "$out/stages_small.md" | cut -d'|' -f1-5,9,10
    step "matrix 2^8..2^17 beside sppark (default kernels)"
    timeout 150 "$bin/bin/zkntt" bench ntt --matrix --from 8 --to 17 --reps 30 --json "$out/matrix_small.json" \
      > "$out/matrix_small.md" 2>&1 || rc=1
    grep -E "^\| [0-9]+ \| forward" "$out/matrix_small.md"
    ;;
  mid)
    step "matrix 2^18..2^22 beside sppark (default kernels)"
    timeout 200 "$bin/bin/zkntt" bench ntt --matrix --from 18 --to 22 --reps 20 --json "$out/matrix_mid.json" \
      > "$out/matrix_mid.md" 2>&1 || rc=1
    grep -E "^\| [0-9]+ \| " "$out/matrix_mid.md"
    ;;
  ncu12)
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    for b in narrow wide; do
      step "ncu every launch of the 2^12 matrix, blocks=$b"
      ZKNTT_KERNELS=blocks=$b timeout 150 "$ncu" --csv --metrics gpu__time_duration.sum \
        "$bin/bin/zkntt" bench ntt --matrix --from 12 --to 12 --reps 2 > "$out/ncu12_$b.csv" 2> "$out/ncu12_$b.err" || rc=1
      wc -l < "$out/ncu12_$b.csv"
    done
    ;;
  clusters)
    ab_matrix blocks 17 cluster narrow
    ;;
  twopass)
    ab_matrix natural 20 selfsorting auto
    ;;
  sanitize)
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in memcheck racecheck; do
      step "$tool on each_plan_once"
      ZKNTT_TEST_MAX_LOG=${ZKNTT_SANITIZE_MAX_LOG:-19} timeout 240 "$cs" --tool "$tool" --error-exitcode 9 \
        "$bin"/tests/zkntt-gpu-gpu each_plan_once > "$out/$tool.log" 2>&1
      echo "$tool rc=$? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$out/$tool.log" | tr '\n' ' ')"
    done
    ;;
  *)
    echo "issue17.sh: unknown step $s (tests, bench, ncu, sanitize, small, mid, ncu12, clusters, twopass)" >&2
    rc=2
    ;;
  esac
done
step "done (rc=$rc)"
exit $rc
