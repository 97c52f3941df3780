#!/usr/bin/env bash
# Stages what build/gpu built here (binaries, ctest's files, the CMake cache; no objects) into
# build/carry, so that a GPU machine runs them without building (device time is the scarce part):
#   here:        cmake --preset gpu && cmake --build build/gpu && tools/gpu-stage.sh
#   the device:  run(carry=[".kit", "build/carry.tgz"]):
#                source .kit/env.sh && PREBUILT=build/carry.tgz tools/gpu-check.sh
# gpu-check.sh then puts the staged tree at build/gpu and skips its build. ctest's files name the
# paths of this checkout; gpu-check.sh links them to the machine's checkout.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$TESSERA_ROOT"
from=build/gpu
to=${1:-build/carry}
[ -f "$from/CMakeCache.txt" ] || { echo "gpu-stage: no $from; configure and build the gpu preset first" >&2; exit 2; }
rm -rf "$to"
mkdir -p "$to"
# Everything but the object files, static libraries, CMake's per-target folders, the install
# test's tree and the host-only test binaries (the GPU check runs the gpu-labelled tests).
(cd "$from" && find . \( -path '*/CMakeFiles' -o -path ./test/install_check \) -prune -o -type f ! -name '*.o' ! -name '*.a' \
  ! -name '*.ninja' ! -name '.ninja_*' ! -name tessera_unit_tests ! -name tessera_profiler_tests ! -name tessera_registry_tests -print0) |
  (cd "$from" && xargs -0 cp --parents -t "$TESSERA_ROOT/$to")
echo "$TESSERA_ROOT" > "$to/.staged_from"
# The archive is what a call carries (about a quarter of the folder's size; the limit is 64 MiB).
tar czf "$to.tgz" -C "$(dirname "$to")" "$(basename "$to")"
du -sh "$to" "$to.tgz" | awk '{print "gpu-stage: " $1 " in " $2}'
