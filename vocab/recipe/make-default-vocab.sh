#!/usr/bin/env bash
#===- make-default-vocab.sh - Reproduce vocab/data/ir2vec-75d.json ---------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: vocab/recipe/make-default-vocab.sh [--check] [--work DIR] [-o FILE]
#
# The recipe of the default vocabulary, end to end:
#  1. build-corpus.sh: the training and held-out corpora from Debian source
#     packages (packages.txt), compiled with clang-22 at several levels;
#  2. llvm-ir2vec triplets --dedup over the training corpus: each distinct
#     (head, tail, relation) once, as upstream's generateTriplets.py does.
#     Rare entities (atomics, vector opcodes) then weigh as much as common
#     ones, and training takes seconds; on opcode-group purity it does as
#     well as training on every triplet of every module (millions), see
#     docs/DefaultVocabulary.md;
#  3. irtk-vocab train with the hyper-parameters below, on 1 thread (the
#     result is deterministic for a given seed and thread count);
#  4. irtk-vocab validate --strict, and upstream's llvm-ir2vec loads it.
#
# Default output: vocab/data/ir2vec-75d.json. With --check, the vocabulary
# is written to <work>/ir2vec-75d.json and compared byte for byte with the
# shipped one; the script fails when they differ.
#
# Environment: IRTK_BIN (our tools, default build/bin), LLVM_BIN (upstream's,
# default /usr/lib/llvm-22/bin).
#
#===------------------------------------------------------------------------===#

set -euo pipefail

RECIPE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE/../.." && pwd)
BIN=${IRTK_BIN:-$ROOT/build/bin}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
WORK=$RECIPE/work
SHIPPED=$ROOT/vocab/data/ir2vec-75d.json
OUT=""
CHECK=0

# Hyper-parameters of the shipped vocabulary (docs/DefaultVocabulary.md).
DIM=75
EPOCHS=10000
LR=0.5
MARGIN=1
BATCH=256
DISTANCE=L1
SEED=1
THREADS=1

log() { printf '[make-default-vocab %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

while [[ $# -gt 0 ]]; do
  case $1 in
    --check) CHECK=1 ;;
    --work) WORK=${2:?--work needs a directory}; shift ;;
    -o) OUT=${2:?-o needs a file}; shift ;;
    -h|--help) sed -n '10,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
if [[ -z $OUT ]]; then
  if [[ $CHECK == 1 ]]; then OUT=$WORK/ir2vec-75d.json; else OUT=$SHIPPED; fi
fi

for T in llvm-ir2vec irtk-vocab; do
  [[ -x $BIN/$T ]] || die "$BIN/$T not found; build first (ninja -C build)"
done

START=$(date +%s)
"$RECIPE/build-corpus.sh" --work "$WORK"

TRIPLETS=$WORK/triplets.txt
log "extracting triplets from $WORK/train"
"$BIN/llvm-ir2vec" triplets --dedup "$WORK/train" \
  -o "$TRIPLETS"
log "$(($(wc -l <"$TRIPLETS") - 1)) triplets"

log "training (dim $DIM, $EPOCHS epochs, lr $LR, margin $MARGIN," \
  "batch $BATCH, $DISTANCE, seed $SEED, $THREADS threads)"
T0=$(date +%s)
"$BIN/irtk-vocab" train "$TRIPLETS" -o "$OUT" --dim "$DIM" \
  --epochs "$EPOCHS" --lr "$LR" --margin "$MARGIN" --batch-size "$BATCH" \
  --distance "$DISTANCE" --seed "$SEED" -j "$THREADS" --quiet
log "trained in $(($(date +%s) - T0)) s"

"$BIN/irtk-vocab" validate --strict "$OUT"
if [[ -x $LLVM_BIN/llvm-ir2vec ]]; then
  "$LLVM_BIN/llvm-ir2vec" embeddings --ir2vec-vocab-path="$OUT" \
    "$ROOT/test/Inputs/cfg.ll" >/dev/null ||
    die "upstream's llvm-ir2vec does not load $OUT"
  log "upstream's llvm-ir2vec loads it"
fi
log "sha256 $(sha256sum "$OUT" | cut -d' ' -f1); total $(($(date +%s) - START)) s"

if [[ $CHECK == 1 ]]; then
  cmp "$OUT" "$SHIPPED" || die "$OUT differs from the shipped $SHIPPED"
  log "identical to the shipped vocabulary"
fi
