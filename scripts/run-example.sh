#!/usr/bin/env bash
# The README's first command: sets up a fresh Debian 12 machine, builds irtk,
# compiles examples/fib.c with clang-22 and prints its function embeddings.
#
# It uses the shipped default vocabulary in vocab/data/ when there is one.
# Until that vocabulary is trained (see docs/VocabFormat.md), it falls back to
# test/Inputs/ids2d.json, a demonstration vocabulary whose entity k is the
# vector [k, 1]: the numbers then show which entities each function adds up.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD=${IRTK_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j "$(nproc)" >/dev/null
VOCAB=$(ls vocab/data/*.json 2>/dev/null | head -n 1 || true)
if [ -z "$VOCAB" ]; then
  VOCAB=test/Inputs/ids2d.json
  echo "note: no default vocabulary in vocab/data yet; using $VOCAB" >&2
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
/usr/lib/llvm-22/bin/clang -O2 -S -emit-llvm examples/fib.c -o "$OUT/fib.ll"
"$BUILD/bin/llvm-ir2vec" embeddings --ir2vec-vocab-path="$VOCAB" \
  --level=func "$OUT/fib.ll"
