#!/usr/bin/env bash
#===- make-mir-vocab.sh - Reproduce vocab/data/mir2vec-x86-64-75d.json -----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: vocab/recipe/make-mir-vocab.sh [--check] [--work DIR] [-o FILE]
#
# The recipe of the default X86-64 machine IR vocabulary, end to end:
#  1. build-corpus.sh: the training corpus of the IR vocabulary (Debian
#     source packages compiled with clang-22 at several levels);
#  2. llvm-ir2vec triplets --mode=mir --dedup over it, each module lowered
#     in-process for x86_64-unknown-linux-gnu at llc's default -O2, twice:
#     stopped after instruction selection (finalize-isel: virtual registers
#     and their classes) and after register rewriting (virtregrewriter:
#     physical registers). The two lists are concatenated with each
#     distinct triplet kept once, first occurrence first;
#  3. irtk-vocab train --mode=mir --trained-only with the hyper-parameters
#     of the IR vocabulary (recipe-common.sh), on 1 thread (deterministic
#     for a seed and a thread count): only the entities the triplets name
#     are written, the others load as zero vectors;
#  4. irtk-vocab validate --mode=mir, and upstream's llvm-ir2vec loads it.
#
# Step 2 keeps its lists in <work>; a rerun reuses a list whose recipe
# line (<work>/mir-triplets.<stop>.txt.recipe: the llvm-ir2vec binary's
# hash, the target, the stop point, the corpus description's hash) is
# unchanged, so an interrupted run continues where it stopped.
#
# Default output: vocab/data/mir2vec-x86-64-75d.json. With --check, the
# vocabulary is written to <work>/mir2vec-x86-64-75d.json and compared byte
# for byte with the shipped one; the script fails when they differ.
#
# Environment: IRTK_BIN (our tools, default build/bin), LLVM_BIN (upstream's,
# default /usr/lib/llvm-22/bin).
#
#===------------------------------------------------------------------------===#

set -euo pipefail

RECIPE_NAME=make-mir-vocab
VOCAB_NAME=mir2vec-x86-64-75d.json
HELP_LINES=10,37
source "$(dirname "${BASH_SOURCE[0]}")/recipe-common.sh" "$@"

TRIPLE=x86_64-unknown-linux-gnu
STOPS="finalize-isel virtregrewriter"

START=$(date +%s)
"$RECIPE/build-corpus.sh" --work "$WORK"

# One triplet list per stop point, reused while its recipe is unchanged.
LISTS=()
for STOP in $STOPS; do
  LIST=$WORK/mir-triplets.$STOP.txt
  RECIPE_LINE="$(sha256sum "$BIN/llvm-ir2vec" | cut -c1-16) | $TRIPLE | $STOP |"
  RECIPE_LINE+=" $(sha256sum "$WORK/train/corpus_description.json" | cut -c1-16)"
  if [[ -f $LIST && -f $LIST.recipe && $(cat "$LIST.recipe") == "$RECIPE_LINE" ]]; then
    log "reusing $LIST"
  else
    log "extracting triplets from $WORK/train, lowered to $STOP"
    rm -f "$LIST.recipe"
    "$BIN/llvm-ir2vec" triplets --mode=mir --mtriple="$TRIPLE" \
      --stop-after="$STOP" --dedup "$WORK/train" -o "$LIST"
    printf '%s' "$RECIPE_LINE" >"$LIST.recipe"
  fi
  log "$STOP: $(($(wc -l <"$LIST") - 1)) distinct triplets"
  LISTS+=("$LIST")
done

TRIPLETS=$WORK/mir-triplets.txt
awk 'FNR == 1 { split($0, kv, "="); if (kv[2] > max) max = kv[2]; next }
     !seen[$0]++ { lines[++n] = $0 }
     END { print "MAX_RELATION=" max; for (i = 1; i <= n; i++) print lines[i] }' \
  "${LISTS[@]}" >"$TRIPLETS.tmp"
mv "$TRIPLETS.tmp" "$TRIPLETS"
log "$(($(wc -l <"$TRIPLETS") - 1)) distinct triplets in all"

# Entities no triplet names (most of the 6868 opcodes: the corpus never
# selects them) would keep their random start; left out, they embed as
# zero, and the file is 1/20 of the size.
TRAIN_ARGS=--trained-only
VALIDATE_ARGS=""
train_vocabulary "$TRIPLETS" --mode=mir --mtriple="$TRIPLE"
finish_recipe "$ROOT/test/Inputs/mir-simple.mir" --mode=mir --mir2vec-vocab-path="$OUT"
