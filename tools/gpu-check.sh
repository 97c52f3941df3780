#!/usr/bin/env bash
# The check to run on the GPU machine, in one call:
#   source .kit/env.sh && tools/gpu-check.sh
# Configures for sm_90a, builds with all cores, runs the gpu-labelled tests, runs them again under
# compute-sanitizer (memcheck, racecheck), runs every bench, writes the performance report, and
# prints a short summary last. Full logs go to $OUT (or build/gpu/out when OUT is unset).
# SECTIONS picks the parts after the build (default: all of "tests examples sanitizers benches"),
# so that a long check can be split over two runs on one machine (the build is kept).
set -uo pipefail
source "$(dirname "$0")/common.sh"
cd "$TESSERA_ROOT"
out=${OUT:-build/gpu/out}
mkdir -p "$out"
summary=()
status=0
note() { summary+=("$1"); }

# (the logs in $OUT are kept to the few that matter: a log per part, not per test)
device=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | head -1)

# ---- build -------------------------------------------------------------------------------------
build=build/gpu
if [ -n "${PREBUILT:-}" ]; then
  # Binaries built elsewhere and staged by tools/gpu-stage.sh: no build here. ctest's files name
  # the staging checkout's paths, which are made to point at this one.
  take_prebuilt "$PREBUILT" "$build"
  staged_from=$(cat "$build/.staged_from")
  if [ "$staged_from" != "$TESSERA_ROOT" ] && [ ! -e "$staged_from" ]; then
    mkdir -p "$(dirname "$staged_from")" && ln -s "$TESSERA_ROOT" "$staged_from"
  fi
  note "build: staged binaries from $PREBUILT (built elsewhere)"
elif ! { cmake --preset gpu -B "$build" && cmake --build "$build" -j "${JOBS:-16}"; } > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  echo "gpu-check: BUILD FAILED (log: $out/build.log)"
  exit 1
else
  note "build: ok ($(grep -c '^\[' "$out/build.log") steps)"
fi

sections=" ${SECTIONS:-tests examples sanitizers benches} "
want() { [[ "$sections" == *" $1 "* ]]; }

# ---- gpu tests -------------------------------------------------------------------------------------
if want tests; then
  ctest --test-dir "$build" -L gpu --output-on-failure > "$out/gpu-tests.log" 2>&1 || status=1
  note "gpu tests: $(grep -E 'tests passed|tests failed' "$out/gpu-tests.log" | tail -1)"
fi

# ---- examples (each checks its device results against the host and exits non-zero on a mismatch)
for example in "$build"/examples/[0-9]*; do
  want examples && [ -x "$example" ] || continue
  name=$(basename "$example")
  if "$example" > "$out/example-$name.log" 2>&1; then
    note "example $name: ok ($(tail -1 "$out/example-$name.log"))"
  else
    status=1
    note "example $name: FAILED (see example-$name.log)"
  fi
done

# ---- compute-sanitizer on the device tests ----------------------------------------------------------
# The suite's small cases (TESSERA_TEST_SMALL) under each tool; the large-problem cases (stress,
# 64-bit, fuzz) are left to the plain run above. Then racecheck and synccheck on the persistent
# case alone (several tiles a block: the stages and staging buffers reused), timed.
device_tests="$build/test/tessera_device_tests"
small_filter="~[stress]~[large]~[fuzz]~[persistent]${SANITIZER_FILTER:-}"
# SANITIZERS picks the tools (default: all three), SANITIZER_TIMEOUT the seconds each run may take
# (default 300; racecheck 540). Racecheck on the small suite took 103 s on an H100 at 9267611
# and ran past 500 s on an H200 (the GEMM's odd-shape layout cases 80-131 s each there): on an
# H200, give it calls of its own, the suite split by SANITIZER_FILTER (a Catch2 filter added to the
# small cases'), e.g. SECTIONS=sanitizers SANITIZERS=racecheck SANITIZER_FILTER='[gemm]', then '~[gemm]'.
tools=" ${SANITIZERS:-memcheck racecheck synccheck} "
# Each test case's duration is printed as it ends, so that a run cut off by its timeout shows how
# far it came.
sanitize() {  # tool, log, catch2 filter...
  local tool=$1 log=$2 start rc
  shift 2
  start=$(date +%s)
  local limit=300
  [ "$tool" = racecheck ] && limit=540
  timeout "${SANITIZER_TIMEOUT:-$limit}" compute-sanitizer --tool "$tool" --error-exitcode 99 "$device_tests" --durations yes "$@" >> "$log" 2>&1
  rc=$?
  local took=$(($(date +%s) - start)) result
  result=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)
  case $rc in
    0) echo "${result:-clean} in $took s" ;;
    124) echo "TIMED OUT after $took s, $(grep -c ' s: ' "$log") test cases done (see $(basename "$log"))" ;;
    *) echo "FAILED (${result:-exit $rc}) in $took s (see $(basename "$log"))" ;;
  esac
}
for tool in memcheck racecheck synccheck; do
  want sanitizers && [[ "$tools" == *" $tool "* ]] || continue
  : > "$out/sanitizer-$tool.log"
  result=$(TESSERA_TEST_SMALL=1 sanitize "$tool" "$out/sanitizer-$tool.log" "$small_filter")
  [[ "$result" == "TIMED OUT"* || "$result" == FAILED* ]] && status=1
  note "compute-sanitizer $tool: $result"
done
for tool in racecheck synccheck; do
  want sanitizers && [[ "$tools" == *" $tool "* ]] || continue
  result=$(sanitize "$tool" "$out/sanitizer-$tool.log" '[persistent]')
  [[ "$result" == "TIMED OUT"* || "$result" == FAILED* ]] && status=1
  note "compute-sanitizer $tool, persistent case: $result"
done

# ---- benches -----------------------------------------------------------------------------------
# cuDNN (bench_conv's comparison) lives in PyTorch's package on the GPU machine.
cudnn_lib=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
[ -d "$cudnn_lib" ] && export LD_LIBRARY_PATH="$cudnn_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
jsons=()
for bench in "$build"/bench/bench_*; do
  want benches && [ -x "$bench" ] || continue
  name=$(basename "$bench")
  # The headline problems by default, so that the whole check takes under 10 minutes;
  # BENCH_FILTER='.' runs everything (or use tools/gpu-bench.sh for the long sweeps).
  if "$bench" "${BENCH_ARGS[@]}" --benchmark_filter="${BENCH_FILTER:-(convert|copy|peak|m:(4096|8192)/n:(4096|8192)/k:(4096|8192)|conv_bf16_.*/n:32/h:56/w:56/c:64/k:64/r:3/)}" \
       --benchmark_out="$out/$name.json" --benchmark_out_format=json > "$build/$name.txt" 2>&1; then
    jsons+=("$out/$name.json")
    note "bench $name: ok"
  else
    status=1
    tail -20 "$build/$name.txt"
    note "bench $name: FAILED"
  fi
done
if ((${#jsons[@]})) && [ -x "$build/tools/tessera-perf-report" ]; then
  "$build/tools/tessera-perf-report" --commit "${TESSERA_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}" \
    --date "$(date -u +%Y-%m-%d)" "${jsons[@]}" > "$out/performance.md"
fi

# ---- summary (last, so that it ends the output) ------------------------------------------------------
echo
[ -f "$out/performance.md" ] && sed -n '/^|/p' "$out/performance.md"
echo
echo "== gpu-check on: $device"
for line in "${summary[@]}"; do echo "  $line"; done
echo "== $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
