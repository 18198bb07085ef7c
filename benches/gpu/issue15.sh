#!/usr/bin/env bash
# Issue 15 on the GPU machine, in one device call: every test of the bundle, then before/after
# timings against the bundle of 137c699 (its zkntt binary in .gpu-old/, with `bench ntt --host`
# patched in): device-resident 2^12..2^26, host to host 2^20..2^28 against the PCIe floor, and a
# rayon job beside 2^23 host calls. Logs and tables into $OUT.
#   .gpu/issue15.sh [tests] [bench]   (default: both)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-.}
steps=${*:-tests bench}
bin=$("$here/run.sh" unpack) || exit 1
old=$here/../.gpu-old/zkntt
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
echo "bundle $(tr '\n' ' ' < "$here/COMMIT"); before: 137c699"
step() { echo "=== $1 ($(date +%T))"; }
for s in $steps; do
  case "$s" in
  tests)
    step tests
    "$here/run.sh" tests > "$out/tests.log" 2>&1
    grep -E "^=== |test result|FAILED|panicked|^tests:" "$out/tests.log"
    ;;
  bench)
    step "device-resident: before, after"
    [ -x "$old" ] && "$old" bench ntt --from 12 --to 26 --reps 20 --no-ark > "$out/dev_old.md" 2>&1
    "$bin/bin/zkntt" bench ntt --from 12 --to 26 --reps 20 --no-ark > "$out/dev_new.md" 2>&1
    step "host to host: before 2^20..2^26, after 2^20..2^28"
    [ -x "$old" ] && "$old" bench ntt --host-only --from 20 --to 26 --reps 5 > "$out/host_old.md" 2>&1
    "$bin/bin/zkntt" bench ntt --host-only --from 20 --to 28 --reps 5 > "$out/host_new.md" 2>&1
    step "rayon job beside host calls"
    ZKNTT_REQUIRE_GPU=1 "$bin/benches/zkntt-benches-host" > "$out/beside.md" 2>&1
    for f in dev_old dev_new host_old host_new beside; do
      echo "--- $f"; grep -E "^\||rror|panick" "$out/$f.md" | cut -c1-170
    done
    ;;
  esac
done
step done
