#!/usr/bin/env bash
#===- collect-evict.sh - RegAllocScores and logs of eviction policies -----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/collect-evict.sh --corpus DIR --out DIR --runs LIST
#            [--levels O2,...] [--packages P,...] [--exclude-packages P,...]
#            [--plugin SO] [--sample K] [--jobs N] [--no-embeddings]
#
# Compiles modules of an MLGO corpus of optimised bitcode (the train and
# heldout splits of vocab/recipe/build-corpus.sh, levels --levels, default
# O2) with `llc -O2 -filetype=obj` and irtk's eviction advisor in the
# plugin, once per run of --runs (comma-separated):
#
#   default          the default policy: stock eviction decisions
#   <name>=<model>   the model policy with that model file
#
# Every run logs every decision (-irtk-evict-log), each function's
# RegAllocScore being the reward of its last decision, and records, per
# (run, module):
#
#   <out>/<run>/<module>.log   the training log (LLVM's format)
#   <out>/<run>/<module>.txt   tab-separated: status ok|failed, run, flags,
#                              text <bytes of the .text* sections>
#
# --packages / --exclude-packages choose packages by name; --sample K keeps
# every K-th module in name order. A rerun skips every (run, module) already
# recorded with the same flags, so an interrupted collection resumes; a
# failed compile is recorded and never stops the others. Runs in parallel
# (--jobs, default the number of cores). advisors/recipe/evict.py reads
# <out> (scores, per-function best run, training, evaluation).
#
#===------------------------------------------------------------------------===#

set -euo pipefail
RECIPE_NAME=collect-evict
# shellcheck source=advisors/recipe/collectlib.sh
. "$(dirname "${BASH_SOURCE[0]}")/collectlib.sh"
LEVELS=O2 PACKAGES='' EXCLUDE='' EMBEDDINGS=true

collect_option() { # option value
  case $1 in
  --levels) LEVELS=$2 ;;
  --packages) PACKAGES=$2 ;;
  --exclude-packages) EXCLUDE=$2 ;;
  --no-embeddings) EMBEDDINGS=false ;;
  *) return 1 ;;
  esac
}

collect_compile() { # flags module tmpdir
  # shellcheck disable=SC2086
  timeout "$COLLECT_TIMEOUT" "$LLVM_BIN/llc" -O2 -filetype=obj "$CORPUS/$2.bc" \
    -o "$3/m.o" $1 "-irtk-evict-log=$3/m.log"
}

collect_parse "--levels --packages --exclude-packages" "$@"
collect_check
mkdir -p "$OUT"

BASE="-load-pass-plugin=$PLUGIN -irtk-evict-embeddings=$EMBEDDINGS"
for R in "${RUN_LIST[@]}"; do
  case $R in
  default) FLAGS[$R]="$BASE -irtk-evict-policy=default" ;;
  *=*)
    M=${R#*=}
    [[ -s $M ]] || usage_error "run $R: no model file '$M'"
    R=${R%%=*}
    FLAGS[$R]="$BASE -irtk-evict-policy=model -irtk-evict-model=$(realpath "$M")" ;;
  *) usage_error "unknown run '$R'" ;;
  esac
done

collect_modules "--levels=$LEVELS" "--packages=$PACKAGES" \
  "--exclude-packages=$EXCLUDE"
collect_all
