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

RECIPE_NAME=make-default-vocab
VOCAB_NAME=ir2vec-75d.json
HELP_LINES=10,30
source "$(dirname "${BASH_SOURCE[0]}")/recipe-common.sh" "$@"

START=$(date +%s)
"$RECIPE/build-corpus.sh" --work "$WORK"

TRIPLETS=$WORK/triplets.txt
log "extracting triplets from $WORK/train"
"$BIN/llvm-ir2vec" triplets --dedup "$WORK/train" \
  -o "$TRIPLETS"
log "$(($(wc -l <"$TRIPLETS") - 1)) triplets"

train_vocabulary "$TRIPLETS"
finish_recipe "$ROOT/test/Inputs/cfg.ll" --ir2vec-vocab-path="$OUT"
