#!/usr/bin/env bash
# A change's effect on speed, on a GPU machine: a bench built before the change (BEFORE: its
# binary, built from the earlier commit and carried along) against the same bench built now, in
# alternating rounds on one machine, then per Tessera benchmark the median of each build's round
# medians and their ratio (tessera-perf-report --compare).
#   source .kit/env.sh && BEFORE=path/to/bench_gemm_sm90 tools/gpu-compare.sh 'gemm90_bf16_tn/tessera'
# BENCH names the bench (default bench_gemm_sm90), ROUNDS the rounds of each (default 3).
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$TESSERA_ROOT"
out=${OUT:-build/gpu/out}
mkdir -p "$out"
build=build/gpu
bench=${BENCH:-bench_gemm_sm90}
[ -x "${BEFORE:-}" ] || { echo "gpu-compare: set BEFORE to the earlier build's $bench binary" >&2; exit 2; }
if [ ! -x "$build/bench/$bench" ] || [ ! -x "$build/tools/tessera-perf-report" ]; then
  { cmake --preset gpu -B "$build" && cmake --build "$build" -j "${JOBS:-16}" --target "$bench" tessera-perf-report; } \
    > "$out/compare-build.log" 2>&1 || { tail -30 "$out/compare-build.log"; exit 1; }
fi
before=() after=()
for ((round = 1; round <= ${ROUNDS:-3}; ++round)); do
  for which in before after; do
    binary=$([ "$which" = before ] && echo "$BEFORE" || echo "$build/bench/$bench")
    json="$out/compare-$which-$round.json"
    "$binary" --benchmark_filter="${1:-.}" --benchmark_out="$json" --benchmark_out_format=json > /dev/null 2>&1 ||
      { echo "gpu-compare: $binary failed" >&2; exit 1; }
    if [ "$which" = before ]; then before+=("$json"); else after+=("$json"); fi
  done
done
join() { local IFS=,; echo "$*"; }
"$build/tools/tessera-perf-report" --compare "$(join "${before[@]}")" "$(join "${after[@]}")"
