# Sourced by the issue scripts (issue16/17/19.sh) after `set -uo pipefail`: sets `here` (the
# bundle folder), `out` ($OUT or .), `bin` (the unpacked binaries; exits if unpacking fails),
# requires the GPU in the tests, prints the GPU and the bundle's commit, defines `step`.
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-.}
bin=$("$here/run.sh" unpack) || exit 1
export ZKNTT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
echo "bundle $(tr '\n' ' ' < "$here/COMMIT")"
step() { echo "=== $1 ($(date +%T))"; }
# The zkntt-cli tests run the command: the bundle's, not the build machine's path.
export ZKNTT_BIN=${ZKNTT_BIN:-$bin/bin/zkntt}
