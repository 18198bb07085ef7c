#!/usr/bin/env bash
# Issue 18 on the GPU machine, in one device call: the hybrid product (one product of each
# independent pair of the wide column launches on the FP64 pipe) in the NTT.
#   tests     the engine's GPU suite with ZKNTT_KERNELS=product=hybrid (every suite on the hybrid
#             column kernels), then the product microbenchmark's tests (chains against ark-ff)
#   products  the product microbenchmark (benches/products.rs): raw DFMA / IMAD.WIDE rates and the
#             G products/s of every form (integer, FP64, folded, hybrids), both fields
#   bench     the `stages` bench, generations default and hybrid beside sppark (BN254 forward
#             NN/NR/RN, ZKNTT_BENCH_MIN_LOG..MAX_LOG, default 16..26) and BLS12-381 NN
#   ncu       the first column launch of a 2^23 NN, integer and hybrid: duration, issue, pipes
#   sanitize  memcheck on each_plan_once with the hybrid product (2^1..2^ZKNTT_SANITIZE_MAX_LOG)
#   .gpu/issue18.sh [tests] [products] [bench] [ncu] [sanitize]   (default: all five)
set -uo pipefail
# shellcheck source=preamble.sh
source "$(dirname "$0")/preamble.sh"
steps=${*:-tests products bench ncu sanitize}
rc=0
for s in $steps; do
  case "$s" in
  tests)
    step "engine suite, product=hybrid"
    ZKNTT_KERNELS=product=hybrid timeout 300 "$bin"/tests/zkntt-gpu-gpu --test-threads=4 \
      > "$out/tests_hybrid.log" 2>&1 || rc=1
    grep -E "test result|FAILED|panicked" "$out/tests_hybrid.log" | head -20
    step "product chains"
    timeout 120 "$bin"/tests/zkntt-gpu-gpu product --test-threads=1 > "$out/tests_products.log" 2>&1 || rc=1
    grep -E "test result|FAILED|panicked" "$out/tests_products.log" | head
    ;;
  products)
    step "product microbenchmark (benches/products.rs: raw pipe rates, G products/s per form, checked against ark-ff)"
    timeout 200 "$bin"/benches/zkntt-benches-products --bench > "$out/products.md" 2>&1 || rc=1
    cat "$out/products.md"
    ;;
  bench)
    step "stages bench: default and hybrid beside sppark"
    ZKNTT_BENCH_GENERATIONS=default,hybrid ZKNTT_BENCH_MIN_LOG=${ZKNTT_BENCH_MIN_LOG:-16} \
      ZKNTT_BENCH_MAX_LOG=${ZKNTT_BENCH_MAX_LOG:-26} timeout 280 "$bin"/benches/zkntt-benches-stages \
      > "$out/stages_hybrid.md" 2>&1 || rc=1
    grep -E "^\| [0-9]+ \|" "$out/stages_hybrid.md"
    grep -E "rror|panick" "$out/stages_hybrid.md"
    ;;
  ncu)
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    for p in integer hybrid; do
      step "ncu 2^23 NN first column launch, product=$p"
      ZKNTT_KERNELS=product=$p timeout 120 "$ncu" --kernel-name regex:ntt_column --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats \
        --section LaunchStats --section InstructionStats \
        "$bin/bin/zkntt" bench ntt --from 23 --to 23 --reps 2 --no-ark > "$out/ncu_$p.log" 2>&1 || rc=1
      grep -E "^  ntt_[a-z0-9_]+|Duration|Registers Per|Compute \(SM\)|DRAM Throughput|Issue Slots Busy|Executed Ipc A|No Eligible|Eligible Warps|Local Memory" "$out/ncu_$p.log" | head -20
    done
    ;;
  sanitize)
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    step "memcheck on each_plan_once, product=hybrid"
    ZKNTT_KERNELS=product=hybrid ZKNTT_TEST_MAX_LOG=${ZKNTT_SANITIZE_MAX_LOG:-19} timeout 200 "$cs" --tool memcheck \
      --error-exitcode 9 "$bin"/tests/zkntt-gpu-gpu each_plan_once > "$out/memcheck.log" 2>&1
    echo "memcheck rc=$? $(grep -E "ERROR SUMMARY|test result" "$out/memcheck.log" | tr '\n' ' ')"
    ;;
  *)
    echo "issue18.sh: unknown step $s (tests, products, bench, ncu, sanitize)" >&2
    rc=2
    ;;
  esac
done
step "done (rc=$rc)"
exit $rc
