#!/usr/bin/env bash
# One device call for the small-word kernels (issue 5), from the bundle of `make gpu-build`, or one
# built with only what this script needs:
#   ZKNTT_BUNDLE=.gpu-small ZKNTT_BUNDLE_PACKAGES="-p zkntt-small -p zkntt-cli -p zkntt-benches" \
#   ./benches/gpu/bundle.sh
# (bundle.sh puts this script beside run.sh). Tests, the benches (WSX vs baseline, throughput against
# the copy bandwidth, BabyBear beside sppark), the sanitizers and an ncu profile; every log into $OUT.
#   .gpu-small/small-run.sh [tests] [bench] [sanitize] [ncu]   (default: all four)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-.}
steps=${*:-tests bench sanitize ncu}
export ZKNTT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$out/gpu.txt"
echo "bundle commit $(tr '\n' ' ' < "$here/COMMIT")"
# The executables, unpacked by run.sh.
bin=$("$here/run.sh" unpack) || exit 1
t=$(ls "$bin"/tests/zkntt-small-gpu)
small=$(ls "$bin"/benches/zkntt-benches-small)
step() { echo "=== $1 ($(date +%T))"; }

for s in $steps; do
  case "$s" in
  tests)
    step tests
    timeout 300 "$here/run.sh" tests > "$out/tests.txt" 2>&1
    echo "tests rc=$?"
    grep -E "^=== |test result|FAILED|panicked" "$out/tests.txt" | tail -n 20
    ;;
  bench)
    step "zkntt bench small-ntt"
    timeout 200 "$bin/bin/zkntt" bench small-ntt --no-streams > "$out/small-ntt.txt" 2>&1
    echo "rc=$?"
    cat "$out/small-ntt.txt"
    step "bench small (BabyBear single, sppark beside)"
    timeout 150 "$small" --bench babybear-single > "$out/bench-single.txt" 2>&1
    echo "rc=$?"
    grep -A 8 "^| log2 N" "$out/bench-single.txt"
    ;;
  sanitize)
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    step memcheck
    timeout 200 "$cs" --tool memcheck --error-exitcode 99 "$t" --test-threads=4 every_size unreduced \
      > "$out/memcheck.txt" 2>&1
    echo "memcheck rc=$?"; tail -n 4 "$out/memcheck.txt"
    for tool in racecheck synccheck; do
      step "$tool"
      timeout 120 "$cs" --tool "$tool" --error-exitcode 99 "$t" --test-threads=4 unreduced convolution \
        > "$out/$tool.txt" 2>&1
      echo "$tool rc=$?"; tail -n 4 "$out/$tool.txt"
    done
    ;;
  ncu)
    step ncu
    # Q28 launches of `bench small-ntt` with one timed run and no warm-up: wsx, wsx_half,
    # wsx_noprefetch per size from 2^6; skip 12 to profile 2^10, 2^11, 2^12 of each.
    timeout 200 ncu --kernel-name regex:'small_ntt_wsx_(half_|noprefetch_)?q28_montgomery_lazy' \
      --launch-skip 12 --launch-count 9 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
      --section SchedulerStats --metrics sm__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum \
      "$bin/bin/zkntt" bench small-ntt --bytes 268435456 --iters 1 --warmup 0 --no-streams \
      > "$out/ncu.txt" 2>&1
    echo "ncu rc=$?"
    grep -E "small_ntt_wsx|Duration|DRAM Throughput|Issue Slots Busy|sm__inst_executed|Achieved Occupancy|No Eligible|wavefronts" "$out/ncu.txt" | head -n 90
    step "ncu 2-D path"
    # The first BabyBear 2^24 transform in place: transpose, NTT (2-D twiddles), transpose, NTT,
    # transpose.
    timeout 120 ncu --kernel-name regex:'small_' --launch-count 5 --section SpeedOfLight \
      "$bin/bin/zkntt" bench small-ntt --only-single --single 24 --no-streams --iters 1 --warmup 0 \
      > "$out/ncu2d.txt" 2>&1
    echo "ncu 2-D rc=$?"
    grep -E "^  small_|Duration|DRAM Throughput|Compute \(SM\) Throughput" "$out/ncu2d.txt"
    ;;
  esac
done
echo "=== done ($(date +%T))"
