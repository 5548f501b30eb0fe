#!/usr/bin/env bash
#===- mir-lowering.sh - In-process lowering against llc + .mir ------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: bench/mir-lowering.sh [RUNS]
#
# The largest module of the benchmark corpus (bench/build-corpus.sh),
# embedded after register allocation (virtregrewriter) for X86-64 with the
# bundled MIR vocabulary, three ways, in one hyperfine run:
#   codegen   llc -O2 -stop-after=virtregrewriter -filetype=null: the code
#             generation alone, the floor of any way;
#   two-step  llc writing the .mir, then llvm-ir2vec --mode=mir reading it
#             (what users did before in-process lowering);
#   in-process  llvm-ir2vec --mode=mir --stop-after=virtregrewriter on the .bc.
# The table goes to bench/work/mir-lowering.md.
#
#===------------------------------------------------------------------------===#

set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
WORK=${IRTK_BENCH_WORK:-$BENCH_DIR/work}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
OURS=${IRTK_LLVM_IR2VEC:-$ROOT/build/bin/llvm-ir2vec}
RUNS=${1:-5}
TRIPLE=x86_64-unknown-linux-gnu

[[ -s $WORK/corpus.list ]] || "$BENCH_DIR/build-corpus.sh"
BIG=$(xargs -a "$WORK/corpus.list" ls -S | head -1 || true)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
LLC="$LLVM_BIN/llc -O2 -mtriple=$TRIPLE -stop-after=virtregrewriter"

hyperfine --warmup 1 --runs "$RUNS" --export-markdown "$WORK/mir-lowering.md" \
  -n codegen "$LLC -filetype=null $BIG" \
  -n two-step "$LLC $BIG -o $TMP/f.mir && $OURS embeddings --mode=mir $TMP/f.mir -o $TMP/a.txt" \
  -n in-process "$OURS embeddings --mode=mir --mtriple=$TRIPLE --stop-after=virtregrewriter $BIG -o $TMP/b.txt"
cmp "$TMP/a.txt" "$TMP/b.txt"
echo "identical output; table in $WORK/mir-lowering.md ($(basename "$BIG"))"
