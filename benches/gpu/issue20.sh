#!/usr/bin/env bash
# Issue 20 on the GPU machine, in one device call: KoalaBear beside BabyBear and Q28 in the
# small-word kernels' GPU tests (zkntt-small tests/gpu.rs, every size, kernel and form), the
# kernel-name check, and the Plonky3 backend's conformance on the GPU (tests/plonky3.rs: every
# height 2^0..2^22 against Radix2DitParallel, each call asserted to have run on the GPU); then
# `coset_lde_batch` of 2^20 x 256 columns host in and out beside Radix2DitParallel on all cores,
# with the PCIe floor (benches/plonky3.rs). Logs into $OUT.
# `ntt`: BabyBear (2^12..2^26) and KoalaBear (2^12..2^24) transforms, single and batched, beside sppark
# (benches/small.rs's summary: 2^13..2^16 in one cluster launch, beside the panel passes forced);
# `sanitize`: the panel passes (every 2-D size to 2^24 under memcheck and synccheck) and the
# cluster kernel under compute-sanitizer memcheck, racecheck and synccheck, and the NR paths (every
# size to 2^24) under memcheck and synccheck.
# `fft`: the fp16 Tensor Core FFT's GPU tests (zkntt-small unit tests fft_gpu), then `zkntt bench fft`
# beside cuFFT fp16 and fp32 at every size 2^4..2^20 with each launch timed (--passes: at 2^13..2^15
# and 2^18..2^20 the plain split's launches that the fused ones replace), then the inverse beside
# cuFFT's; `fft-sanitize`: memcheck, racecheck and synccheck over the four-step known answers
# (2^13..2^15 one block per transform, 2^16..2^20 the split, rows in bands from 2^18).
#   .gpu/issue20.sh [tests] [bench] [ntt] [sanitize] [fft] [fft-sanitize]   (default: tests bench)
#   ZKNTT_P3_LOG_H, ZKNTT_P3_WIDTH, ZKNTT_P3_ADDED_BITS, ZKNTT_P3_REPS pick the bench case;
#   ZKNTT_BENCH_MIN_LOG / ZKNTT_BENCH_MAX_LOG narrow `ntt`'s table to those sizes;
#   ZKNTT_SANITIZE_TOOLS and ZKNTT_SANITIZE_TESTS narrow `sanitize`.
set -uo pipefail
# shellcheck source=preamble.sh
source "$(dirname "$0")/preamble.sh"
steps=${*:-tests bench}
rc=0
for s in $steps; do
  case "$s" in
  tests)
    step "small-word kernels on the GPU, KoalaBear included (zkntt-small tests/gpu.rs)"
    "$bin"/tests/zkntt-small-gpu --test-threads=2 > "$out/small_gpu_tests.log" 2>&1 || rc=1
    grep -E "^test |test result|FAILED|panicked|SKIP" "$out/small_gpu_tests.log"
    step "kernel names, coset twin, field constants (zkntt-small unit tests)"
    "$bin"/tests/zkntt-small-zkntt-small > "$out/small_unit_tests.log" 2>&1 || rc=1
    grep -E "test result|FAILED|panicked|SKIP" "$out/small_unit_tests.log"
    step "Plonky3 GpuDft against Radix2DitParallel on the GPU (zkntt-small tests/plonky3.rs)"
    "$bin"/tests/zkntt-small-plonky3 --test-threads=2 > "$out/plonky3_tests.log" 2>&1 || rc=1
    grep -E "^test |test result|calls on the GPU|FAILED|panicked|SKIP" "$out/plonky3_tests.log"
    ;;
  bench)
    step "coset_lde_batch 2^${ZKNTT_P3_LOG_H:-20} x ${ZKNTT_P3_WIDTH:-256}: GpuDft beside Radix2DitParallel (benches/plonky3.rs)"
    timeout 400 "$bin"/benches/zkntt-small-plonky3 --bench > "$out/plonky3_bench.txt" 2>&1 || rc=1
    cat "$out/plonky3_bench.txt"
    grep -q DIFFERENT "$out/plonky3_bench.txt" && { echo "GpuDft and Radix2DitParallel differ"; rc=1; }
    grep -q "ran on the CPU" "$out/plonky3_bench.txt" && { echo "GpuDft did not run on the GPU"; rc=1; }
    ;;
  ntt)
    step "BabyBear and KoalaBear NTTs beside sppark (benches/small.rs summary)"
    # A criterion filter that matches no group: only the summary table runs.
    timeout 300 "$bin"/benches/zkntt-benches-small --bench summary-only > "$out/small_ntt_bench.txt" 2>&1 || rc=1
    sed -n '/^Small-word forward NTTs/,$p' "$out/small_ntt_bench.txt"
    ;;
  sanitize)
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in ${ZKNTT_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
      step "$tool: the panel passes and the cluster kernel (zkntt-small tests/gpu.rs panel_small_sizes, cluster_kernel, two_d_sizes, nr_matches, babybear_above_two_tiles)"
      # racecheck over every form of the cluster test, or over the 2-D sizes to 2^24 (8-tile
      # panels), takes over 200 s: memcheck and synccheck only there.
      # babybear_above_two_tiles: 2^25/2^26 (the rows on clusters, the column-reversing
      # transpose), ~60 s under memcheck.
      tests=${ZKNTT_SANITIZE_TESTS:-panel_small_sizes cluster_kernel two_d_sizes nr_matches babybear_above_two_tiles}
      [ "$tool" = racecheck ] && [ -z "${ZKNTT_SANITIZE_TESTS:-}" ] && tests=panel_small_sizes
      for t in $tests; do
        timeout 200 "$cs" --tool "$tool" --error-exitcode 99 "$bin"/tests/zkntt-small-gpu --test-threads=1 $t \
          > "$out/$tool-$t.txt" 2>&1 || rc=1
        tail -n 3 "$out/$tool-$t.txt"
      done
    done
    ;;
  fft)
    step "fp16 Tensor Core FFT on the GPU (zkntt-small unit tests fft_gpu)"
    "$bin"/tests/zkntt-small-zkntt-small fft_gpu > "$out/fft_tests.log" 2>&1 || rc=1
    grep -E "^test |test result|FAILED|panicked|SKIP|^fft 2" "$out/fft_tests.log"
    step "fp16 FFT beside cuFFT fp16 and fp32, every size 2^4..2^20, each launch timed (zkntt bench fft)"
    timeout 400 "$bin"/bin/zkntt bench fft --min-log 4 --max-log 20 --every-size --passes \
      --json "$out/fft.json" > "$out/fft_bench.txt" 2>&1 || rc=1
    cat "$out/fft_bench.txt"
    step "the inverse beside cuFFT's (zkntt bench fft --inverse)"
    timeout 300 "$bin"/bin/zkntt bench fft --min-log 4 --max-log 20 --every-size --inverse \
      --json "$out/fft_inverse.json" > "$out/fft_inverse.txt" 2>&1 || rc=1
    cat "$out/fft_inverse.txt"
    ;;
  fft-sanitize)
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in ${ZKNTT_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
      step "$tool: the fp16 FFT's four-step sizes (fft_gpu_four_step_known_answers)"
      timeout 200 "$cs" --tool "$tool" --error-exitcode 99 "$bin"/tests/zkntt-small-zkntt-small \
        --test-threads=1 fft_gpu_four_step_known_answers > "$out/fft-$tool.txt" 2>&1 || rc=1
      tail -n 3 "$out/fft-$tool.txt"
    done
    ;;
  *)
    echo "issue20.sh: unknown step $s (tests, bench, ntt, sanitize, fft, fft-sanitize)" >&2
    rc=2
    ;;
  esac
done
step "done (rc=$rc)"
exit $rc
