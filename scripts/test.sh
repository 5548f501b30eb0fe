#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (scripts/setup.sh), builds irtk and runs
# every test: GoogleTest, lit + FileCheck, and the differential suite against
# upstream LLVM 22. This is the README's test command and what CI runs.
#
#   --fuzz  then also configure a second build with clang-22 and
#           -DIRTK_BUILD_FUZZERS=ON (build-fuzz/, or $IRTK_FUZZ_BUILD_DIR),
#           build the libFuzzer targets and run the ctest entry `fuzz`: each
#           target over its seed corpus, then a few seconds of fuzzing
#           (docs/Reliability.md). Opt-in: the second, instrumented build of
#           the libraries costs more than the fuzzing itself.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ=0
for arg in "$@"; do
  case "$arg" in
  --fuzz) FUZZ=1 ;;
  *)
    echo "usage: $0 [--fuzz]" >&2
    exit 2
    ;;
  esac
done
./scripts/setup.sh
BUILD=${IRTK_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD" -j "$(nproc)"
(cd "$BUILD" && ctest --output-on-failure -j "$(nproc)")

if [ "$FUZZ" -eq 1 ]; then
  FUZZ_BUILD=${IRTK_FUZZ_BUILD_DIR:-build-fuzz}
  cmake -S . -B "$FUZZ_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DIRTK_BUILD_FUZZERS=ON
  cmake --build "$FUZZ_BUILD" -j "$(nproc)" --target irtk-fuzzers
  (cd "$FUZZ_BUILD" && ctest --output-on-failure -L fuzz)
fi
