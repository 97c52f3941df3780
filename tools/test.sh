#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything (host tests, header
# checks, compile-fail checks, device tests and benches for sm_80 and sm_90a, HIP checks for
# gfx90a) and runs the tests. Without a GPU the `gpu`-labelled tests are built but not run.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$TESSERA_ROOT"
tools/setup-deps.sh test

build=build/test
cmake --preset ci -B "$build" >/dev/null
cmake --build "$build" -j "$JOBS"

if has_gpu; then
  echo "tests: a GPU is present: running every test, the gpu-labelled ones included"
  ctest --test-dir "$build" -j "$JOBS" --output-on-failure
else
  echo "tests: no GPU here: the gpu-labelled device tests were compiled for $(grep -m1 CMAKE_CUDA_ARCHITECTURES: "$build/CMakeCache.txt" | cut -d= -f2) and are not run"
  ctest --test-dir "$build" -LE gpu -j "$JOBS" --output-on-failure
fi
