#!/usr/bin/env bash
# Issue 22 on the GPU machine, in one device call: several GPUs of one host. NCCL is the one the
# image's PyTorch carries (the nvidia-nccl-cu13 wheel), found and named in $ZKNTT_NCCL; NVLink
# multicast stays off (NCCL_NVLS_ENABLE=0, as the machine requires). Steps:
#   tests   the zkntt-gpu GPU suite's multi-GPU tests (split over one rank and over every GPU,
#           the batch pool, bad input) against ark-poly, with ZKNTT_REQUIRE_NCCL=1
#   engine  the engine's own GPU tests (ntt::) on device 0
#   domain  zkntt-ark's GpuDomain suite with ZKNTT_DEVICES=all: transforms from several threads take
#           turns on the GPUs (several_devices_take_turns), every conformance test on that context
#   bench   benches/multi.rs: batches and single transforms on 1, 2, 4, .. GPUs in one process, the
#           split's overhead over one rank, the all-to-all's bandwidth (ZKNTT_MULTI_MAX_LOG, default 28)
#   topo    nvidia-smi topo -m (how the GPUs are linked)
#   .gpu/issue22.sh [topo] [tests] [engine] [domain] [bench]   (default: all)
set -uo pipefail
# shellcheck source=preamble.sh
source "$(dirname "$0")/preamble.sh"
steps=${*:-topo tests engine domain bench}
rc=0
export NCCL_NVLS_ENABLE=0
if [ -z "${ZKNTT_NCCL:-}" ]; then
  ZKNTT_NCCL=$(find /opt /usr /usr/local -name 'libnccl.so.2' 2>/dev/null | head -n 1)
  export ZKNTT_NCCL
fi
echo "NCCL: ${ZKNTT_NCCL:-not found}"
for s in $steps; do
  case "$s" in
  topo)
    step "GPU links (nvidia-smi topo -m)"
    nvidia-smi topo -m | tee "$out/topo.txt"
    ;;
  tests)
    step "multi-GPU tests (zkntt-gpu tests/gpu/multi.rs)"
    ZKNTT_REQUIRE_NCCL=1 "$bin"/tests/zkntt-gpu-gpu multi --nocapture --test-threads=1 > "$out/multi_tests.log" 2>&1 || rc=1
    grep -E "^test |test result|split over|pool over|NCCL|FAILED|panicked|SKIP" "$out/multi_tests.log"
    ;;
  engine)
    step "engine tests on one GPU (zkntt-gpu tests/gpu/ntt.rs: every size, form, ordering, batch, geometry)"
    timeout 200 "$bin"/tests/zkntt-gpu-gpu ntt:: --test-threads=4 > "$out/ntt_tests.log" 2>&1 || rc=1
    grep -E "test result|FAILED|panicked" "$out/ntt_tests.log"
    ;;
  domain)
    step "GpuDomain over every GPU (ZKNTT_DEVICES=all, zkntt-ark tests/domain.rs)"
    ZKNTT_DEVICES=all timeout 300 "$bin"/tests/zkntt-ark-domain --test-threads=4 > "$out/domain_all.log" 2>&1 || rc=1
    grep -E "took turns|test result|FAILED|panicked|SKIP" "$out/domain_all.log"
    ;;
  bench)
    step "benches/multi.rs (1 GPU against every GPU)"
    ZKNTT_OUT="$out" timeout 480 "$bin"/benches/zkntt-benches-multi --bench > "$out/multi_bench.md" 2> "$out/multi_bench.log" || rc=1
    cat "$out/multi_bench.md"
    tail -n 5 "$out/multi_bench.log"
    ;;
  *)
    echo "issue22.sh: unknown step $s (topo, tests, engine, domain, bench)" >&2
    rc=2
    ;;
  esac
done
step "done (rc=$rc)"
exit $rc
