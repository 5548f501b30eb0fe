#!/usr/bin/env bash
# Installs, from Debian's packages, everything irtk needs to build and test on a
# fresh Debian 12 machine. Run as root, or as a user with sudo.
set -euo pipefail

PACKAGES=(
  llvm-22 llvm-22-dev llvm-22-tools clang-22 libomp-22-dev
  libeigen3-dev libboost-program-options-dev
  libgtest-dev libgmock-dev cmake ninja-build g++ python3 zlib1g-dev
  libzstd-dev libxml2-dev libedit-dev libffi-dev libcurl4-openssl-dev
  pybind11-dev python3-dev python3-numpy python3-matplotlib dpkg-dev
  pandoc # the man pages, from docs/CommandGuide
  file # cpack -G DEB: CPACK_DEBIAN_PACKAGE_SHLIBDEPS runs dpkg-shlibdeps on file(1)'s verdicts
  python3-pip python3-setuptools python3-wheel python3-venv # pip install .
  python3-distributed python3-dask # ir2vec.distributed (Dask)
  python3-torch # ir2vec.mlgo.torchmodel: PyTorch models for the advisors
  libclang-rt-22-dev # libFuzzer and the sanitizer runtimes (test.sh --fuzz)
  libfaiss-dev # the approximate similarity indexes (irtk-similarity index)
  libopenblas0-openmp # BLAS for FAISS: k-means 9x faster than the reference BLAS
  clang-format-22 shellcheck pyflakes3 # scripts/lint.sh; clang-format pinned to 22
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "setup.sh: error: run as root or install sudo" >&2
    exit 1
  fi
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all packages present"
  exit 0
fi

echo "setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
