#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (scripts/setup.sh), builds irtk and runs
# every test: GoogleTest, lit + FileCheck, and the differential suite against
# upstream LLVM 22. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD=${IRTK_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD" -j "$(nproc)"
cd "$BUILD"
ctest --output-on-failure -j "$(nproc)"
