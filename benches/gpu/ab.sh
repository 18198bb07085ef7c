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
#   median (range) over the processes of the call alone and of the PCS path, base / this, and a
#   call only where the ranges part ($OUT/ab_plonky3.md).
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
    grep -E "process\(es\);|^  below|^zkntt NN against|against base|^  (faster|slower):|WRONG|differ" "$out/ab_matrix.md"
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
    # Per case: each side's median (range) over its processes, base / this (above 1: this bundle
    # faster), and a call only where the two sides' ranges do not overlap.
    {
    echo "| field | case | processes this / base | call alone: this ms | base ms | base / this | call | PCS: this ms | base ms | base / this | call | checks |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    awk -F'|' '
      FNR == 1 { side = (FILENAME ~ /ab_p3_A_/) ? "A" : "B" }
      /^(BabyBear|KoalaBear) / {
        key = $1; gsub(/ +$/, "", key); keys[key] = 1; split($3, g, " ")
        k = key SUBSEP side; n[k]++
        call[k, n[k]] = g[1] + 0; pcs[k, n[k]] = $6 + 0
        if ($11 !~ /bit-exact/) bad[key]++
        if (g[2] != "GPU") cpu[key]++
      }
      function stats(a, k, m,   v, i, j, t) {
        for (i = 1; i <= m; i++) v[i] = a[k, i]
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        lo = v[1]; hi = v[m]; med = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
      }
      function col(a, key,   ka, kb, alo, ahi, amed, blo, bhi, bmed, call_) {
        ka = key SUBSEP "A"; kb = key SUBSEP "B"
        stats(a, ka, n[ka]); alo = lo; ahi = hi; amed = med
        stats(a, kb, n[kb]); blo = lo; bhi = hi; bmed = med
        call_ = (n[ka] < 2 || n[kb] < 2) ? "one process: no call" : (ahi < blo) ? "this faster" : (alo > bhi) ? "this slower" : "overlap"
        return sprintf("%.1f (%.1f..%.1f) | %.1f (%.1f..%.1f) | %.2f | %s", amed, alo, ahi, bmed, blo, bhi, (amed > 0) ? bmed / amed : 0, call_)
      }
      END {
        for (key in keys) {
          split(key, f, /  +/)
          if (!n[key SUBSEP "A"] || !n[key SUBSEP "B"]) { printf "| %s | %s | one side only |\n", f[1], f[2]; continue }
          printf "| %s | %s | %d / %d | %s | %s | %s |\n", f[1], f[2], n[key SUBSEP "A"], n[key SUBSEP "B"], col(call, key), col(pcs, key),
            (bad[key] ? bad[key] " DIFFERENT" : "bit-exact") (cpu[key] ? ", " cpu[key] " on the CPU" : "")
        }
      }' "$out"/ab_p3_A_*.txt "$out"/ab_p3_B_*.txt | sort
    } > "$out/ab_plonky3.md"
    cat "$out/ab_plonky3.md"
    ;;
  *) echo "ab.sh: unknown step $s" >&2; rc=2 ;;
  esac
done
step "done (rc=$rc)"
exit $rc
