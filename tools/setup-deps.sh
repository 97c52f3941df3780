#!/usr/bin/env bash
# Installs what a command of the project needs, and nothing else:
#   tools/setup-deps.sh run    tools/run.sh: CMake, Ninja, a C++ compiler, CLI11, nlohmann-json, fmt
#   tools/setup-deps.sh test   tools/test.sh: those, plus Catch2, Google Benchmark and HIP (hipcc)
# The libraries are looked for the way the build looks for them (tools/deps: find_package), so a
# system that has them from elsewhere needs nothing installed and no root. What is missing is
# installed with apt-get as root; otherwise the script names it and stops. The CUDA toolkit is not
# a Debian package of a usable version: it is used from /usr/local/cuda or PATH where present.
set -euo pipefail
source "$(dirname "$0")/common.sh"
for_what=${1:-test}
case "$for_what" in run | test) ;; *) echo "setup-deps: usage: tools/setup-deps.sh run|test" >&2; exit 2 ;; esac

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || missing+=(g++)
if command -v cmake >/dev/null 2>&1 && { command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1; }; then
  probe=$(mktemp -d)
  trap 'rm -rf "$probe"' EXIT
  if out=$(cmake -S "$TESSERA_ROOT/tools/deps" -B "$probe" -DTESSERA_DEPS_FOR="$for_what" 2>&1); then
    while read -r pkg; do missing+=("$pkg"); done < <(sed -n 's/^-- tessera-deps: missing //p' <<<"$out" | sort -u)
  else
    echo "$out" | tail -5 >&2
    echo "setup-deps: the dependency probe (tools/deps) failed to configure" >&2
    exit 1
  fi
fi
# Once CMake or the compiler is installed, the probe runs again below.
((${#missing[@]} == 0)) && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-deps: missing for tools/$for_what.sh: ${missing[*]} (Debian package names); install them with this system's package manager" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup-deps: missing for tools/$for_what.sh: ${missing[*]}; install them: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "setup-deps: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# What the probe could not look at before (no CMake or compiler yet).
if [ -z "${TESSERA_SETUP_AGAIN:-}" ]; then TESSERA_SETUP_AGAIN=1 exec "$0" "$for_what"; fi
