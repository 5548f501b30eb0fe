#!/usr/bin/env bash
# The README's first command: sets up a fresh Debian 12 machine, builds irtk,
# compiles examples/fib.c with clang-22 and prints its function embeddings
# with the default vocabulary (vocab/data/ir2vec-75d.json, which llvm-ir2vec
# finds beside itself in the build tree: no vocabulary option needed).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD=${IRTK_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j "$(nproc)" >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
/usr/lib/llvm-22/bin/clang -O2 -S -emit-llvm examples/fib.c -o "$OUT/fib.ll"
echo "Function embeddings of examples/fib.c at -O2 (75 dimensions, default vocabulary):" >&2
"$BUILD/bin/llvm-ir2vec" embeddings --level=func "$OUT/fib.ll"
