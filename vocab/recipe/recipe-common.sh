#===- recipe-common.sh - What the vocabulary recipes share -----------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Sourced by make-default-vocab.sh and make-mir-vocab.sh after they set
# RECIPE_NAME (for log lines), VOCAB_NAME (the shipped file's name) and
# HELP_LINES (the range of their header that --help prints). Sets ROOT, BIN,
# LLVM_BIN, WORK, SHIPPED, OUT, CHECK and the training hyper-parameters
# (docs/DefaultVocabulary.md), parses --check, --work and -o, and checks
# that our tools are built.
#
#===------------------------------------------------------------------------===#

# shellcheck shell=bash
RECIPE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE/../.." && pwd)
BIN=${IRTK_BIN:-$ROOT/build/bin}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
WORK=$RECIPE/work
SHIPPED=$ROOT/vocab/data/$VOCAB_NAME
OUT=""
CHECK=0

# Hyper-parameters of the shipped vocabularies (docs/DefaultVocabulary.md).
DIM=75
EPOCHS=10000
LR=0.5
MARGIN=1
BATCH=256
DISTANCE=L1
SEED=1
THREADS=1

log() { printf '[%s %s] %s\n' "$RECIPE_NAME" "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

while [[ $# -gt 0 ]]; do
  case $1 in
    --check) CHECK=1 ;;
    --work) WORK=${2:?--work needs a directory}; shift ;;
    -o) OUT=${2:?-o needs a file}; shift ;;
    -h|--help) sed -n "${HELP_LINES}p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
if [[ -z $OUT ]]; then
  if [[ $CHECK == 1 ]]; then OUT=$WORK/$VOCAB_NAME; else OUT=$SHIPPED; fi
fi

for T in llvm-ir2vec irtk-vocab; do
  [[ -x $BIN/$T ]] || die "$BIN/$T not found; build first (ninja -C build)"
done

# train_vocabulary TRIPLETS [MODE-ARGS...]: irtk-vocab train with the
# hyper-parameters above (and $TRAIN_ARGS) into $OUT, then validate (with
# $VALIDATE_ARGS, default --strict).
TRAIN_ARGS=""
VALIDATE_ARGS="--strict"
train_vocabulary() {
  local triplets=$1
  shift
  log "training (dim $DIM, $EPOCHS epochs, lr $LR, margin $MARGIN," \
    "batch $BATCH, $DISTANCE, seed $SEED, $THREADS threads)"
  local t0
  t0=$(date +%s)
  "$BIN/irtk-vocab" train "$@" "$triplets" -o "$OUT" --dim "$DIM" \
    --epochs "$EPOCHS" --lr "$LR" --margin "$MARGIN" --batch-size "$BATCH" \
    --distance "$DISTANCE" --seed "$SEED" -j "$THREADS" --quiet $TRAIN_ARGS
  log "trained in $(($(date +%s) - t0)) s"
  "$BIN/irtk-vocab" validate "$@" $VALIDATE_ARGS "$OUT"
}

# finish_recipe INPUT UPSTREAM-ARGS...: upstream's llvm-ir2vec must embed
# INPUT with $OUT; logs the hash; with --check, $OUT must equal the shipped
# vocabulary. START is when the recipe started.
finish_recipe() {
  local input=$1
  shift
  if [[ -x $LLVM_BIN/llvm-ir2vec ]]; then
    "$LLVM_BIN/llvm-ir2vec" embeddings "$@" "$input" >/dev/null ||
      die "upstream's llvm-ir2vec does not load $OUT"
    log "upstream's llvm-ir2vec loads it"
  fi
  log "sha256 $(sha256sum "$OUT" | cut -d' ' -f1); total $(($(date +%s) - START)) s"
  if [[ $CHECK == 1 ]]; then
    cmp "$OUT" "$SHIPPED" || die "$OUT differs from the shipped $SHIPPED"
    log "identical to the shipped vocabulary"
  fi
}
