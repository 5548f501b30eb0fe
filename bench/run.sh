#!/usr/bin/env bash
#===- run.sh - Corpus benchmark: our llvm-ir2vec vs upstream vs parse-only -===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: bench/run.sh [--runs N] [--max-runs N] [--no-hyperfine] [--skip-check]
#
#  1. bench/build-corpus.sh: a bitcode corpus of real C code in bench/work/
#     (reused when it exists).
#  2. bench/gen_vocab.py: a random 75-dimension vocabulary covering all
#     entities (bench/work/vocab75.json; fixed seed).
#  3. bench/measure.py: checks our output against upstream's on the largest
#     module, times every benchmark and prints the table, also written to
#     bench/work/results.md and bench/work/results.json.
#
# Environment:
#   IRTK_LLVM_IR2VEC  our llvm-ir2vec (default: build/bin/llvm-ir2vec, built
#                     with ninja when missing)
#   LLVM_BIN          upstream LLVM 22 tools (default: /usr/lib/llvm-22/bin)
#   IRTK_BENCH_WORK   work directory (default: bench/work)
#
#===------------------------------------------------------------------------===#

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
export IRTK_BENCH_WORK=${IRTK_BENCH_WORK:-$BENCH_DIR/work}
WORK=$IRTK_BENCH_WORK
OURS=${IRTK_LLVM_IR2VEC:-$ROOT/build/bin/llvm-ir2vec}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
UPSTREAM=$LLVM_BIN/llvm-ir2vec
OPT=$LLVM_BIN/opt

log() { printf '[run %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

for T in "$UPSTREAM" "$OPT"; do
  [[ -x $T ]] || die "$T not found (Debian packages llvm-22, llvm-22-tools)"
done
if [[ ! -x $OURS ]]; then
  log "building $OURS"
  ninja -C "$ROOT/build" llvm-ir2vec || die "cannot build $OURS"
fi
command -v python3 >/dev/null || die "python3 not found"
# Every benchmark writes to /dev/null; a regular file there (left by a tool
# that renamed a temporary over it) would turn each run into a disk write.
[[ -c /dev/null ]] || die "/dev/null is a $(stat -c %F /dev/null), not a \
character device; restore it (as root: mknod -m 666 /dev/null.new c 1 3 && \
mv -f /dev/null.new /dev/null)"

if ! command -v hyperfine >/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    log "installing hyperfine"
    apt-get install -y -qq hyperfine >/dev/null 2>&1 ||
      log "hyperfine not installed; timing with python time.perf_counter"
  else
    log "hyperfine not found; timing with python time.perf_counter"
  fi
fi

"$BENCH_DIR/build-corpus.sh"

VOCAB=$WORK/vocab75.json
if [[ ! -s $VOCAB ]]; then
  python3 "$BENCH_DIR/gen_vocab.py" --tool "$OURS" --dim 75 -o "$VOCAB.tmp"
  mv "$VOCAB.tmp" "$VOCAB"
fi

exec python3 -B "$BENCH_DIR/measure.py" --ours "$OURS" --upstream "$UPSTREAM" \
  --opt "$OPT" --vocab "$VOCAB" --list "$WORK/corpus.list" \
  --workdir "$WORK" "$@"
