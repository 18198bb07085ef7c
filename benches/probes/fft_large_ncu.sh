#!/usr/bin/env bash
# ncu metrics of the fp16 FFT's large kernel (benches/NOTES.md, "fp16 TC FFT v6"): one launch of
# fft_large_probe (beside this script in the bundle) per size, forward, as CSV into $ZKNTT_OUT
# (default .). On the GPU machine, from a bundle built with ZKNTT_BUNDLE_PROBES=1:
#   ZKNTT_OUT=out .gpu/run.sh probe fft_large_ncu.sh 11 12
# ncu locks the clocks while it profiles (1.40 GHz on the H100), so durations read long.
set -u
probe=$(dirname "$0")/fft_large_probe
out=${ZKNTT_OUT:-.}
mkdir -p "$out"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
M=gpu__time_duration.sum,l1tex__throughput.avg.pct_of_peak_sustained_active
M=$M,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum
for n in "$@"; do
    "$NCU" --metrics "$M" -k regex:probe_large_n --launch-count 1 --csv "$probe" 4 "$n" 2>&1 |
        grep -v "^==PROF==" > "$out/ncu_$n.csv"
    echo "2^$n: $out/ncu_$n.csv"
done
