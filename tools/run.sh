#!/usr/bin/env bash
# The README's main command. Until the profiler exists it builds and runs examples/03_layouts,
# which evaluates layouts and conversions on the host and, where a CUDA GPU is present, on the
# device, and says so when there is none.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$TESSERA_ROOT"
tools/setup-deps.sh

build=build/run
cmake --preset default -B "$build" -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_BENCHES=OFF >/dev/null
cmake --build "$build" -j "$JOBS" --target 03_layouts
"$build/examples/03_layouts"
