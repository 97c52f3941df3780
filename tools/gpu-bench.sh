#!/usr/bin/env bash
# Quick performance iteration on the GPU machine: builds the benches only and runs them with an
# optional Google Benchmark filter, printing the report table. The full check is gpu-check.sh.
#   source .kit/env.sh && tools/gpu-bench.sh 'gemm_bf16'
#   source .kit/env.sh && BENCH=bench_gemm_sm90 tools/gpu-bench.sh 'gemm90_bf16_tn/(tessera|cublas)/'
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$TESSERA_ROOT"
out=${OUT:-build/gpu/out}
mkdir -p "$out"
build=build/gpu
cmake --preset gpu -B "$build" > "$out/bench-build.log" 2>&1
bench=${BENCH:-bench_gemm_sm80}
cmake --build "$build" -j "${JOBS:-16}" --target "$bench" tessera-perf-report >> "$out/bench-build.log" 2>&1 ||
  { tail -30 "$out/bench-build.log"; exit 1; }
"$build/bench/$bench" "${BENCH_ARGS[@]}" --benchmark_filter="${1:-.}" --benchmark_out="$out/$bench.json" \
  --benchmark_out_format=json > "$out/bench.txt" 2>&1 || { tail -20 "$out/bench.txt"; exit 1; }
"$build/tools/tessera-perf-report" "$out/$bench.json" | sed -n '/^|/p'
