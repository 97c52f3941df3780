#!/usr/bin/env bash
# Nsight Compute on one bench kernel, on the GPU machine:
#   source .kit/env.sh && tools/gpu-ncu.sh bench_gemm_sm80 'gemm_bf16_tn/tessera/m:4096' 'gemm_kernel'
# Builds the bench (PREBUILT=build/carry.tgz: takes the staged binaries instead) and profiles one launch of the first kernel matching the regex (after a few
# warm-up launches): the sections that explain a GEMM's speed, the stall reasons per issued
# instruction, and the SASS with its stall samples, instruction by instruction (sass.csv).
# Clocks are left alone (--clock-control none), as the device notes ask.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$TESSERA_ROOT"
bench=${1:?usage: gpu-ncu.sh <bench target> <benchmark filter> <kernel regex>}
filter=${2:?benchmark filter}
kernel=${3:?kernel name regex}
out=${OUT:-build/gpu/out}
tag=${TAG:-ncu}
mkdir -p "$out"
build=build/gpu
if [ -n "${PREBUILT:-}" ]; then  # binaries staged by tools/gpu-stage.sh (no build here)
  [ -x "$build/bench/$bench" ] || take_prebuilt "$PREBUILT" "$build"
else
  cmake --preset gpu -B "$build" > "$out/$tag-build.log" 2>&1
  cmake --build "$build" -j "${JOBS:-16}" --target "$bench" >> "$out/$tag-build.log" 2>&1 || { tail -30 "$out/$tag-build.log"; exit 1; }
fi
[ "$bench" = bench_conv ] && export LD_LIBRARY_PATH="/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
stalls=""
for r in barrier wait long_scoreboard short_scoreboard math_pipe_throttle mio_throttle lg_throttle not_selected \
  selected dispatch_stall no_instruction branch_resolving membar sleeping tex_throttle drain imc_miss; do
  stalls+="smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio,"
done
rep=$(mktemp -d)/report
ncu --clock-control none --print-kernel-base mangled -k "regex:$kernel" --launch-skip 5 --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats \
  --section SourceCounters \
  --import-source no \
  --metrics "${stalls}sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed" \
  -o "$rep" "$build/bench/$bench" --benchmark_filter="$filter" --benchmark_repetitions=1 > "$out/$tag-run.txt" 2>&1 ||
  { tail -30 "$out/$tag-run.txt"; exit 1; }
ncu --import "$rep.ncu-rep" --page details > "$out/$tag.txt" 2>&1
ncu --import "$rep.ncu-rep" --page source --print-source sass --csv > "$out/$tag-sass.csv" 2>&1 || true
grep -E 'stalled|tensor_op|bank_conflicts|wavefronts|lts__t|Duration|SM Frequency|Executed Ipc A|Issue Slots|Shared Memory|Mem Pipes Busy|L1/TEX Hit|Mem Busy' "$out/$tag.txt" |
  sed -E 's/smsp__average_warps_issue_stalled_(.*)_per_issue_active.ratio/stall \1/' | awk '{$1=$1; print}'
