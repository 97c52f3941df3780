#!/usr/bin/env bash
# Installs what building and testing Tessera needs on Debian (as root, through apt-get), skipping
# what is already there. The CUDA toolkit is not a Debian package of a usable version: it is used
# from /usr/local/cuda when present, and the build is host-only (plus HIP) otherwise.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in cmake ninja-build g++ catch2 libbenchmark-dev libcli11-dev nlohmann-json3-dev libfmt-dev hipcc libamdhip64-dev; do
  have_pkg "$pkg" || need+=("$pkg")
done

if ((${#need[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "setup-deps: missing Debian packages: ${need[*]} (run as root, or install them yourself)" >&2
    exit 1
  fi
  echo "setup-deps: installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup-deps: nvcc is in /usr/local/cuda/bin (add it to PATH; the project scripts do)"
fi
