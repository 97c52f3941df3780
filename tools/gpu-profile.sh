#!/usr/bin/env bash
# Issue 5's measurement on the GPU machine: the profiler on five LLM shapes, exhaustively and with
# --top-k 8, and the emitted header.
#   source .kit/env.sh && tools/gpu-profile.sh            # builds tessera-profile (sm90 bf16 tn)
#   PROFILE=build/prof90/tools/profiler/tessera-profile tools/gpu-profile.sh   # a carried binary
# Writes tuned_h100.hpp and profile-results.tgz (each run's table and JSON) to $OUT (or
# build/gpu/out) and prints the best of each shape both ways, with the seconds each took, last.
set -uo pipefail
source "$(dirname "$0")/common.sh"
cd "$TESSERA_ROOT"
out=${OUT:-build/gpu/out}
mkdir -p "$out"
profile=${PROFILE:-}
if [ -z "$profile" ]; then
  build=build/prof90
  cmake --preset gpu -B "$build" -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_BENCHES=OFF -DTESSERA_BUILD_EXAMPLES=OFF \
    -DTESSERA_PROFILER_SPACE=default -DTESSERA_PROFILER_KERNELS='sm90_bf16_tn*' > "$out/profile-build.log" 2>&1 &&
    cmake --build "$build" -j "${JOBS:-16}" --target tessera-profile >> "$out/profile-build.log" 2>&1 ||
    { tail -30 "$out/profile-build.log"; exit 1; }
  profile=$build/tools/profiler/tessera-profile
fi
shapes=${SHAPES:-"16:4096:4096 128:4096:4096 4096:4096:4096 16:14336:4096 4096:14336:4096"}
work=$(mktemp -d)
summary=()
for mode in exhaustive topk; do
  args=()
  [ "$mode" = topk ] && args=(--top-k 8)
  for shape in $shapes; do
    IFS=: read -r m n k <<< "$shape"
    log="$work/$mode-$m-$n-$k.txt"
    "$profile" profile gemm --m "$m" --n "$n" --k "$k" --dtype bf16 --layout tn "${args[@]}" \
      --json "$work/$mode-$m-$n-$k.json" > "$log" 2>&1
    summary+=("$(printf '%-10s %5s x %5s x %5s  %s  (%s)' "$mode" "$m" "$n" "$k" "$(grep -m1 '^best:' "$log")" \
                 "$(grep -m1 -oE '[0-9]+ configurations.* in [0-9.]+ s \([0-9.]+ s verifying' "$log")")")
  done
done
# The header from every exhaustive result.
"$profile" emit "$work"/exhaustive-*.json -o "$out/tuned_h100.hpp" --namespace "${NAMESPACE:-tuned_h100}" > /dev/null 2>&1 || true
tar -czf "$out/profile-results.tgz" -C "$work" .
printf '%s\n' "${summary[@]}"
