#!/usr/bin/env bash
# ncu metrics of the fp16 FFT's large kernel (benches/NOTES.md, "fp16 TC FFT v6"): one launch of
# the probe (benches/gpu/fft_large_probe.cu, built as its header says) per size, forward, as CSV
# under $OUT. On the device machine (ncu 2025.3 is there; it locks the clocks at 1.40 GHz):
#   benches/gpu/fft_large_ncu.sh .gpu-probe/large4 11 12      (device tool: carry [".gpu-probe"])
set -u
probe=$1; shift
NCU=${NCU:-/usr/local/cuda/bin/ncu}
M=gpu__time_duration.sum,l1tex__throughput.avg.pct_of_peak_sustained_active
M=$M,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum
for n in "$@"; do
    "$NCU" --metrics "$M" -k regex:probe_large_n --launch-count 1 --csv "$probe" 4 "$n" 2>&1 |
        grep -v "^==PROF==" > "${OUT:-.}/ncu_$n.csv"
    echo "2^$n: ${OUT:-.}/ncu_$n.csv"
done
