#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (scripts/setup.sh), lints the sources
# (scripts/lint.sh: clang-format-22, shellcheck, pyflakes; before the build, so
# a finding is reported in seconds), builds irtk and runs every test:
# GoogleTest, lit + FileCheck, and the differential suite against upstream
# LLVM 22. This is the README's test command and what CI runs.
#
#   --sanitize  then also configure a second build with
#           -DIRTK_SANITIZE='address;undefined' (build-san/, or
#           $IRTK_SAN_BUILD_DIR), build it and run the whole ctest suite there;
#           the tests preload ASan's runtime into the unsanitized hosts of the
#           plugin and the Python module (docs/Reliability.md, "Sanitizers").
#   --fuzz  then also configure a second build with clang-22 and
#           -DIRTK_BUILD_FUZZERS=ON (build-fuzz/, or $IRTK_FUZZ_BUILD_DIR),
#           build the libFuzzer targets and run the ctest entry `fuzz`: each
#           target over its seed corpus, then a few seconds of fuzzing
#           (docs/Reliability.md).
# Both are opt-in: on two cores either second build would take CI past its
# time budget (docs/Reliability.md has the measured times and the rule).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ=0
SANITIZE=0
for arg in "$@"; do
  case "$arg" in
  --fuzz) FUZZ=1 ;;
  --sanitize) SANITIZE=1 ;;
  *)
    echo "usage: $0 [--sanitize] [--fuzz]" >&2
    exit 2
    ;;
  esac
done
./scripts/setup.sh
./scripts/lint.sh
BUILD=${IRTK_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD" -j "$(nproc)"
(cd "$BUILD" && ctest --output-on-failure -j "$(nproc)")

if [ "$SANITIZE" -eq 1 ]; then
  SAN_BUILD=${IRTK_SAN_BUILD_DIR:-build-san}
  cmake -S . -B "$SAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "-DIRTK_SANITIZE=address;undefined"
  cmake --build "$SAN_BUILD" -j "$(nproc)"
  (cd "$SAN_BUILD" && UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j "$(nproc)")
fi

if [ "$FUZZ" -eq 1 ]; then
  FUZZ_BUILD=${IRTK_FUZZ_BUILD_DIR:-build-fuzz}
  cmake -S . -B "$FUZZ_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DIRTK_BUILD_FUZZERS=ON
  cmake --build "$FUZZ_BUILD" -j "$(nproc)" --target irtk-fuzzers
  (cd "$FUZZ_BUILD" && ctest --output-on-failure -L fuzz)
fi
