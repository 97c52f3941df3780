# Sourced by the project scripts: the environment they share.
# shellcheck shell=bash
TESSERA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TESSERA_ROOT
if [ -d /usr/local/cuda/bin ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
JOBS=${JOBS:-$(nproc)}

has_gpu() {
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU
}

# Google Benchmark flags every bench run takes: the repetitions of all the selected benchmarks run
# in a random order, so that the implementations compared in one problem see the device's drift
# (clocks, temperature) alike instead of one after the other.
BENCH_ARGS=(--benchmark_enable_random_interleaving=true)

# Puts binaries staged by tools/gpu-stage.sh (a folder, or its .tgz) at the build folder $2.
take_prebuilt() {
  local from=$1 to=$2
  rm -rf "$to"
  if [ -f "$from" ]; then
    mkdir -p "$to" && tar xzf "$from" -C "$to" --strip-components=1
  else
    cp -a "$from" "$to"
  fi
}
