#!/usr/bin/env bash
# The README's main command: the profiler on a default problem.
#   With a GPU: builds tessera-profile with the bf16 TN configurations of the GPU's architecture
#   (sm90 on Hopper, else sm80) and profiles a 4096 x 4096 x 4096 bf16 GEMM: each configuration
#   verified against a device reference, then timed, with cuBLASLt timed the same way; a table
#   sorted by speed with each configuration's speed relative to cuBLASLt.
#   Without one: builds it with the reduced space and lists its configurations with their
#   resources, and the space's totals (--all lists the whole space, --invalid why some were dropped).
# Extra arguments go to tessera-profile (e.g. tools/run.sh --m 16,128,4096 --json out.json): with a
# GPU to `profile`, in place of the default problem's options they give; without one, those `list`
# takes (--dtype, --layout, --arch, --kernels, --all, --valid, --invalid) go to `list` and the others are
# named as ignored, in one line.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$TESSERA_ROOT"
tools/setup-deps.sh run

build=build/run
if ! command -v nvcc >/dev/null 2>&1; then
  echo "run.sh: tessera-profile needs the CUDA toolkit (nvcc) to build; install it (/usr/local/cuda) and run again" >&2
  exit 1
fi
if has_gpu; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')
  if [ "$cc" = 90 ]; then arch=90a kernels='sm90_bf16_tn*'; else arch=80 kernels='sm80_bf16_tn*'; fi
  cmake --preset default -B "$build" -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_BENCHES=OFF -DTESSERA_BUILD_EXAMPLES=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DTESSERA_PROFILER_SPACE=default -DTESSERA_PROFILER_KERNELS="$kernels" >/dev/null
  cmake --build "$build" -j "$JOBS" --target tessera-profile
  # The default problem, option by option, where the arguments do not give their own.
  defaults=()
  for option in "--m 4096" "--n 4096" "--k 4096" "--dtype bf16" "--layout tn" "--compare cublas"; do
    name=${option%% *}
    given=0
    for arg in "$@"; do
      [[ "$arg" == "$name" || "$arg" == "$name="* ]] && given=1
      # (explicit problems replace --m, --n and --k)
      [[ "$name" =~ ^--[mnk]$ && ( "$arg" == --problems || "$arg" == --problems=* ) ]] && given=1
    done
    ((given)) || defaults+=($option)
  done
  "$build/tools/profiler/tessera-profile" profile gemm ${defaults[@]+"${defaults[@]}"} "$@"
else
  # The arguments `list` takes, with their values; the rest (profiling's) need a GPU.
  list_args=() ignored=()
  while (($#)); do
    case "$1" in
      --dtype | --layout | --arch | --kernels) list_args+=("$1" "${2:-}"); shift $(($# > 1 ? 2 : 1)) ;;
      --dtype=* | --layout=* | --arch=* | --kernels=* | --all | --valid | --invalid) list_args+=("$1"); shift ;;
      --*=*) ignored+=("$1"); shift ;;
      --*) if (($# > 1)) && [[ "$2" != --* ]]; then ignored+=("$1 $2"); shift 2; else ignored+=("$1"); shift; fi ;;
      *) ignored+=("$1"); shift ;;
    esac
  done
  if ((${#ignored[@]})); then
    echo "run.sh: no GPU here, so nothing is profiled: ignoring ${ignored[*]} (profiling options); listing the configurations"
  else
    echo "run.sh: no GPU here: building tessera-profile (reduced space) and listing the configurations"
  fi
  cmake --preset default -B "$build" -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_BENCHES=OFF -DTESSERA_BUILD_EXAMPLES=OFF \
    -DTESSERA_PROFILER_SPACE=reduced -DTESSERA_PROFILER_KERNELS= >/dev/null
  cmake --build "$build" -j "$JOBS" --target tessera-profile
  "$build/tools/profiler/tessera-profile" list gemm ${list_args[@]+"${list_args[@]}"}
fi
