#!/usr/bin/env bash
# setup.sh — installs the toolchain nvfp4-mlir builds with on Debian 12 (bookworm):
# LLVM/MLIR 22 (bookworm-security), clang-22 with its sanitizer and libFuzzer runtimes
# (libclang-rt-22-dev: scripts/sanitize.sh, scripts/fuzz.sh), a C/C++ compiler, CMake, Ninja,
# pkg-config (the packaging test's plain-C consumer), Python 3.
# Idempotent and fast when everything is already installed. Runs apt-get as root (through
# sudo when not root). Checks that the CUDA toolkit's ptxas is present (it is not installed
# here: install the CUDA Toolkit >= 12.8 at /usr/local/cuda).
set -euo pipefail

PACKAGES=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 libclang-rt-22-dev
          gcc g++ cmake ninja-build pkgconf python3)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
      echo "setup: error: not root and sudo is not available; install as root: ${missing[*]}" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y "${missing[@]}"
else
  echo "setup: all packages present (${PACKAGES[*]})"
fi

for tool in /usr/lib/llvm-22/bin/mlir-opt /usr/lib/llvm-22/bin/FileCheck \
            /usr/lib/llvm-22/bin/lit /usr/lib/llvm-22/lib/libMLIR.so; do
  if [[ ! -e $tool ]]; then
    echo "setup: error: $tool is missing after installing the LLVM/MLIR 22 packages" >&2
    exit 1
  fi
done

CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
if [[ -x $CUDA_ROOT/bin/ptxas ]]; then
  echo "setup: ptxas: $("$CUDA_ROOT/bin/ptxas" --version | tail -n 1)"
else
  echo "setup: WARNING: $CUDA_ROOT/bin/ptxas not found. Install the CUDA Toolkit (>= 12.8)" \
       "at /usr/local/cuda (or set CUDA_ROOT). Without it no cubin can be produced and the" \
       "tests that need ptxas are reported UNSUPPORTED." >&2
fi
echo "setup: done"
