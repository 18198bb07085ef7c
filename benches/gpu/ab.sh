#!/usr/bin/env bash
# This bundle (A) against another bundle (B, e.g. main's) on the GPU machine, over several
# processes a side, alternating A B B A ...: one process is not enough (a host's speed differs
# between processes, and the second of a back-to-back pair runs slower; benches/NOTES.md).
#   .gpu/ab.sh BASE_BUNDLE_DIR [matrix[:FROM:TO]] [plonky3]   (default: matrix:12:20 plonky3)
# AB_PROCESSES (default 3) processes a side; AB_REPS (30) the matrix's reps.
# A base bundle built before ZKNTT_P3_CPU_REPS (cb19559) times Radix2DitParallel too: ~140 s a process.
# - matrix: `zkntt bench ntt --matrix --processes K --against B's zkntt`: both builds beside sppark,
#   medians over the processes, per-process ratio ranges, cells called faster or slower only where
#   the builds' per-process times do not overlap ($OUT/ab_matrix.md, .json).
# - plonky3: the Plonky3 bench (coset_lde_batch BabyBear/KoalaBear, dft_batch; ZKNTT_P3_* as usual)
#   with Radix2DitParallel untimed (ZKNTT_P3_CPU_REPS=0, checked once), then per case each side's
#   median over the processes of the call alone and of the PCS path ($OUT/ab_plonky3.md).
set -uo pipefail
# shellcheck source=preamble.sh
source "$(dirname "$0")/preamble.sh"
base=${1:?usage: ab.sh BASE_BUNDLE_DIR [matrix[:FROM:TO]] [plonky3]}
shift
binb=$("$base/run.sh" unpack) || exit 1
echo "base bundle $(tr '\n' ' ' < "$base/COMMIT")"
k=${AB_PROCESSES:-3}
steps=${*:-matrix:12:20 plonky3}
rc=0
for s in $steps; do
  case "$s" in
  matrix*)
    IFS=: read -r _ from to <<< "$s"
    from=${from:-12} to=${to:-20}
    step "matrix 2^$from..2^$to, $k processes a side, alternating"
    "$bin/bin/zkntt" bench ntt --matrix --from "$from" --to "$to" --reps "${AB_REPS:-30}" \
      --processes "$k" --against "$binb/bin/zkntt" --json "$out/ab_matrix.json" \
      > "$out/ab_matrix.md" 2> "$out/ab_matrix.err" || rc=1
    grep -E "process\(es\)|faster|slower|WRONG|differ" "$out/ab_matrix.md"
    tail -3 "$out/ab_matrix.err"
    ;;
  plonky3)
    for ((i = 1; i <= k; i++)); do
      # A B, then B A: each side runs first as often as second.
      if ((i % 2)); then order="A B"; else order="B A"; fi
      for side in $order; do
        step "plonky3 bench, $side, round $i"
        if [ "$side" = A ]; then b=$bin; else b=$binb; fi
        ZKNTT_P3_CPU_REPS=0 timeout 300 "$b/benches/zkntt-small-plonky3" --bench \
          > "$out/ab_p3_${side}_$i.txt" 2>&1 || rc=1
      done
    done
    # Rows: field, case, then | columns: 3 = GpuDft (ms and GPU/CPU), 6 = PCS: GpuDft, 11 = check.
    {
      echo "| field | case | side | processes | call alone ms (median, range) | PCS ms (median, range) | checks |"
      echo "|---|---|---|---|---|---|---|"
      for side in A B; do
        cat "$out"/ab_p3_"$side"_*.txt | awk -F'|' -v side="$side" '
          /^(BabyBear|KoalaBear) / {
            key = $1; gsub(/ +$/, "", key); split($3, g, " ")
            n[key]++; call[key, n[key]] = g[1]; pcs[key, n[key]] = $6 + 0
            if ($11 !~ /bit-exact/) bad[key]++
            if (g[2] != "GPU") cpu[key]++
          }
          function med(a, key, m,   v, i, j, t) {
            for (i = 1; i <= m; i++) v[i] = a[key, i] + 0
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
            return sprintf("%.1f (%.1f..%.1f)", (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2, v[1], v[m])
          }
          END {
            for (key in n) {
              split(key, f, /  +/)
              printf "| %s | %s | %s | %d | %s | %s | %s |\n", f[1], f[2], side, n[key], med(call, key, n[key]), med(pcs, key, n[key]),
                (bad[key] ? bad[key] " DIFFERENT" : "bit-exact") (cpu[key] ? ", " cpu[key] " on the CPU" : "")
            }
          }' | sort
      done
    } > "$out/ab_plonky3.md"
    cat "$out/ab_plonky3.md"
    ;;
  *) echo "ab.sh: unknown step $s" >&2; rc=2 ;;
  esac
done
step "done (rc=$rc)"
exit $rc
