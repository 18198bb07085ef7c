#!/usr/bin/env bash
# ptxas study of ntt_stage2_warp's registers (no GPU): compiles stage2_study.cu for sm_90 at the
# symbols' own bounds and at __maxnreg__ 96, 80 and 64 (or the budgets given: N for __maxnreg__(N), lbB for
# __launch_bounds__(128, B)), and prints per kernel: registers, spill bytes, SASS
# instruction count and some opcode counts. Usage: benches/ptxas/run.sh OUTDIR [REGS...]
# STUDY_FLAGS: extra nvcc flags (e.g. -DZKNTT_S2W_STASH=3). NVCC (default .toolchain/nvidia/cu13/bin/nvcc), CUOBJDUMP (default: cuobjdump beside nvcc, or
# on PATH) may be set. STUDY_SRC: the study TU beside this script (default stage2_study.cu:
# ntt_stage2_warp's shapes and symbols' bodies; branch wide-two also has wide_study.cu).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?outdir}; shift
regs=("$@")
[ $# -eq 0 ] && regs=(bounds 96 80 64)
nvcc=${NVCC:-$root/.toolchain/nvidia/cu13/bin/nvcc}
src=$root/benches/ptxas/${STUDY_SRC:-stage2_study.cu}
cuobjdump=${CUOBJDUMP:-$(dirname "$nvcc")/cuobjdump}
[ -x "$cuobjdump" ] || cuobjdump=$(command -v cuobjdump) || {
  echo "run.sh: no cuobjdump beside $nvcc or on PATH: set CUOBJDUMP (pip wheel nvidia-cuda-cuobjdump;" \
    "it runs nvdisasm from PATH: wheel nvidia-cuda-nvdisasm, 13.2 is the oldest 13.x on PyPI)" >&2
  exit 1
}
mkdir -p "$out"
for r in "${regs[@]}"; do
  case $r in
    bounds) def=() ;;
    lb*) def=(-DSTUDY_LB="${r#lb}") ;;
    *) def=(-DSTUDY_REGS="$r") ;;
  esac
  "$nvcc" -cubin -std=c++17 -O3 -I "$root/cuda" -gencode=arch=compute_90,code=sm_90 -Xptxas -v \
    "${def[@]}" ${STUDY_FLAGS:-} "$src" -o "$out/study_$r.cubin" > "$out/ptxas_$r.txt" 2>&1
  "$cuobjdump" -sass "$out/study_$r.cubin" > "$out/sass_$r.txt"
done
python3 "$root/benches/ptxas/summary.py" "$out" "${regs[@]}"
