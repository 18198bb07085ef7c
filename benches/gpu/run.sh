#!/usr/bin/env bash
# Runs on the GPU machine, from the bundle `make gpu-build` writes to .gpu/:
#   .gpu/run.sh tests            every test binary, ZKNTT_REQUIRE_GPU=1 (GPU tests fail, never skip)
#   .gpu/run.sh sanitize         GPU tests under compute-sanitizer memcheck, racecheck, synccheck
#   .gpu/run.sh bench [filter]   criterion benches; JSON and a markdown table into $ZKNTT_OUT (default .)
#   .gpu/run.sh demo             zkntt info and zkntt demo
#   .gpu/run.sh probe [name ...] a probe of benches/probes/ with its arguments (bundles built with
#                                ZKNTT_BUNDLE_PROBES=1); without a name, the list
#   .gpu/run.sh unpack           prints the folder of the unpacked executables (tests/, benches/, bin/)
# The executables travel packed (bundle.tar.xz, to keep the bundle under 64 MiB); the first call
# unpacks them into a folder of their own under $TMPDIR (default /tmp), which later calls reuse.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-tests}
shift || true

# Prints the folder holding the unpacked executables, unpacking them first if needed.
unpack() {
  local archive="$here/bundle.tar.xz" key dir tmp
  [ -f "$archive" ] || { echo "run.sh: no $archive (make gpu-build writes it)" >&2; return 1; }
  # The folder is named by the archive's checksum and size, so a new bundle never finds an old one.
  key=$(cksum < "$archive" | tr ' ' '-')
  dir="${TMPDIR:-/tmp}/zkntt-bundle-$key"
  if [ ! -e "$dir/.unpacked" ]; then
    tmp="$dir.partial.$$"
    rm -rf "$tmp"
    mkdir -p "$tmp" || return 1
    python3 - "$archive" "$tmp" <<'PY' || { rm -rf "$tmp"; return 1; }
import sys, tarfile
with tarfile.open(sys.argv[1]) as tar:
    # The "data" filter where this Python has it: nothing written outside the folder.
    tar.extractall(sys.argv[2], **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
PY
    touch "$tmp/.unpacked"
    # Two runs unpacking at once: the first rename wins, the other's copy goes.
    mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
  fi
  echo "$dir"
}

case "$mode" in
tests|sanitize|bench|demo|probe|unpack) ;;
*)
  echo "usage: $0 tests|sanitize|bench [filter]|demo|probe [name args]|unpack" >&2
  exit 2
  ;;
esac
bin=$(unpack) || exit 1
if [ "$mode" = unpack ]; then
  echo "$bin"
  exit 0
fi
export ZKNTT_REQUIRE_GPU=1
# The zkntt-cli tests run the command: the bundle's, not the build machine's path cargo compiled in.
export ZKNTT_BIN=${ZKNTT_BIN:-$bin/bin/zkntt}
echo "bundle commit $(tr '\n' ' ' < "$here/COMMIT")"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true

case "$mode" in
tests)
  rc=0
  for t in "$bin"/tests/*; do
    echo "=== $(basename "$t")"
    "$t" --test-threads=4 "$@" || { echo "FAILED: $(basename "$t")"; rc=1; }
  done
  echo "tests: $([ $rc = 0 ] && echo all passed || echo FAILURES)"
  exit $rc
  ;;
sanitize)
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  # NTT sizes up to 2^18 under the sanitizers (the tests read ZKNTT_TEST_MAX_LOG).
  export ZKNTT_TEST_MAX_LOG=${ZKNTT_TEST_MAX_LOG:-18}
  rc=0
  for tool in memcheck racecheck synccheck; do
    # memcheck runs every GPU test; racecheck and synccheck, which instrument every shared-memory
    # access, the field tests and one transform of each plan shape per size.
    filter=""
    bins=("$bin"/tests/zkntt-gpu-*)
    if [ "$tool" != memcheck ]; then filter="field_kernels each_plan_once"; bins=("$bin"/tests/zkntt-gpu-gpu); fi
    for t in "${bins[@]}"; do
      echo "=== $tool $(basename "$t") (NTT sizes to 2^$ZKNTT_TEST_MAX_LOG) ${filter:+[$filter]}"
      # shellcheck disable=SC2086
      "$cs" --tool "$tool" --error-exitcode 99 "$t" --test-threads=4 $filter "$@" 2>&1 | tail -n 25
      r=${PIPESTATUS[0]}
      [ "$r" = 0 ] || { echo "FAILED: $tool $(basename "$t") (exit $r)"; rc=1; }
    done
  done
  echo "sanitize: $([ $rc = 0 ] && echo clean || echo FAILURES)"
  exit $rc
  ;;
bench)
  out=${ZKNTT_OUT:-.}
  mkdir -p "$out"
  export CRITERION_HOME="$out/criterion"
  rc=0
  for b in "$bin"/benches/*; do
    echo "=== $(basename "$b")"
    "$b" --bench "$@" || rc=1
  done
  python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
root = os.path.join(out, "criterion")
rows = []
for dirpath, _, files in os.walk(root):
    if "estimates.json" in files and dirpath.endswith(os.sep + "new"):
        bench = json.load(open(os.path.join(dirpath, "benchmark.json")))
        est = json.load(open(os.path.join(dirpath, "estimates.json")))
        rows.append({"id": bench["full_id"], "median_ms": est["median"]["point_estimate"] / 1e6,
                     "throughput": bench.get("throughput")})
rows.sort(key=lambda r: r["id"])
json.dump(rows, open(os.path.join(out, "bench.json"), "w"), indent=1)
with open(os.path.join(out, "bench.md"), "w") as f:
    f.write("| bench | median ms |\n|---|---|\n")
    for r in rows:
        f.write(f"| {r['id']} | {r['median_ms']:.4f} |\n")
print(open(os.path.join(out, "bench.md")).read())
PY
  exit $rc
  ;;
demo)
  "$bin/bin/zkntt" info && "$bin/bin/zkntt" demo "$@"
  ;;
probe)
  if [ ! -d "$bin/probes" ]; then
    echo "no probes in this bundle: build it with ZKNTT_BUNDLE_PROBES=1 make gpu-build" >&2
    exit 2
  fi
  if [ $# = 0 ]; then
    ls "$bin/probes"
    exit 0
  fi
  p="$bin/probes/$1"
  shift
  [ -x "$p" ] || { echo "no probe $(basename "$p"); this bundle has: $(ls "$bin/probes" | tr '\n' ' ')" >&2; exit 2; }
  "$p" "$@"
  ;;
esac
