#!/usr/bin/env bash
#===- collect-inline.sh - Sizes and training logs of inlining policies ----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/collect-inline.sh --corpus DIR --out DIR --runs LIST
#            [--plugin SO] [--sample K] [--jobs N] [--teachers LIST]
#            [--embedding KIND] [--vocab FILE]
#            [--scheduler tcp://HOST:PORT | --workers N]
#
# Compiles every module of an MLGO corpus of pre-optimisation bitcode (the
# inline-train / inline-heldout splits of vocab/recipe/build-corpus.sh) as a
# user's `clang-22 -Oz -c module.bc` would, with irtk's inline advisor in
# the plugin, once per run of --runs (comma-separated):
#
#   Oz          the default policy: stock -Oz decisions
#   thr<N>      the default policy following the teacher of threshold N
#               (-irtk-inline-follow=N: the stock heuristic as
#               -inline-threshold=N sets it up); N must be in --teachers
#   <name>=<model.json>
#               the model policy with that model
#   <name>@<dir>
#               the default policy following, in each module, the per-caller
#               teachers of <dir>/<module>.txt (-irtk-inline-follow-callers;
#               search --kind caller's callers/): its searched runs again,
#               e.g. logged with other embeddings (--embedding, --vocab);
#               a rerun skips what it recorded even if the files changed
#   <name>:<dir>
#               the default policy taking, in each module, the per-edge
#               decisions of <dir>/<module>.txt (-irtk-inline-decisions;
#               search --kind edge's decisions/): its searched runs
#               again, logged; a rerun skips what it recorded even if the
#               files changed
#
# Every run logs every decision with all the teachers' decisions
# (-irtk-inline-teachers, default -100000,0,5,25,50,100,225; threshold 5 is
# -Oz's own) and records, per (run, module):
#
#   <out>/<run>/<module>.log   the training log (LLVM's format)
#   <out>/<run>/<module>.o     the object (summarize-inline.py --linked)
#   <out>/<run>/<module>.txt   tab-separated: status ok|failed, run, flags,
#                              text <bytes of the .text* sections>,
#                              function 0x<hex size> <name> per defined function
#
# --sample K keeps every K-th module in name order (default 1: all). A rerun
# skips every (run, module) already recorded with the same flags, so an
# interrupted collection resumes; a failed compile is recorded and never
# stops the others. Runs in parallel (--jobs, default the number of cores),
# or, with --scheduler or --workers, on a Dask cluster through
# `python3 -m ir2vec.distributed collect` (docs/Distributed.md): each module
# is a command (all its runs) of a script written to <out>/compile-module.sh;
# the engine's own records go to <out>/engine. The paths must be the same on
# every worker (a shared file system).
# advisors/recipe/train-inline.py reads <out>.
#
#===------------------------------------------------------------------------===#

set -euo pipefail
RECIPE_NAME=collect-inline
# shellcheck source=advisors/recipe/collectlib.sh
. "$(dirname "${BASH_SOURCE[0]}")/collectlib.sh"
CLANG=${CLANG:-clang-22}
EMBEDDING=symbolic VOCAB=''
TEACHERS=-100000,0,5,25,50,100,225
COLLECT_FUNCTIONS=1 COLLECT_VARS=CLANG

collect_option() { # option value
  case $1 in
  --teachers) TEACHERS=$2 ;;
  --embedding) EMBEDDING=$2 ;;
  --vocab) VOCAB=$2 ;;
  --scheduler) SCHEDULER=$2 ;;
  --workers) WORKERS=$2 ;;
  *) return 1 ;;
  esac
}

collect_compile() { # flags module tmpdir
  # shellcheck disable=SC2086
  timeout "$COLLECT_TIMEOUT" "$CLANG" -Oz -c "$CORPUS/$2.bc" -o "$3/m.o" \
    ${1//\{module\}/$2} -mllvm "-irtk-inline-log=$3/m.log"
}

collect_parse "--teachers --embedding --vocab --scheduler --workers" "$@"
collect_check
[[ -z $WORKERS ]] || want_positive --workers "$WORKERS"
[[ -z $SCHEDULER || -z $WORKERS ]] || usage_error "--scheduler and --workers exclude each other"
mkdir -p "$OUT"
# Absolute paths: the engine's workers may start anywhere.
OUT=$(realpath "$OUT") CORPUS=$(realpath "$CORPUS") PLUGIN=$(realpath "$PLUGIN")

# The flags of each run, checked before anything is compiled.
BASE="-fpass-plugin=$PLUGIN -mllvm -irtk-inline-teachers=$TEACHERS -mllvm -irtk-inline-embedding=$EMBEDDING"
[[ -n $VOCAB ]] && BASE="$BASE -mllvm -irtk-vocab-path=$VOCAB"
for R in "${RUN_LIST[@]}"; do
  case $R in
  Oz) FLAGS[$R]="$BASE -mllvm -irtk-inline-policy=default" ;;
  thr*)
    N=${R#thr}
    [[ ,$TEACHERS, == *,$N,* ]] || usage_error "run $R: $N is not in --teachers"
    FLAGS[$R]="$BASE -mllvm -irtk-inline-policy=default -mllvm -irtk-inline-follow=$N" ;;
  *=*)
    M=${R#*=}
    [[ -s $M ]] || usage_error "run $R: no model file '$M'"
    R=${R%%=*}
    FLAGS[$R]="$BASE -mllvm -irtk-inline-policy=model -mllvm -irtk-inline-model=$(realpath "$M")" ;;
  *@*)
    D=${R#*@}
    [[ -d $D ]] || usage_error "run $R: no directory '$D'"
    R=${R%%@*}
    FLAGS[$R]="$BASE -mllvm -irtk-inline-policy=default -mllvm -irtk-inline-follow-callers=$(realpath "$D")/{module}.txt" ;;
  *:*)
    D=${R#*:}
    [[ -d $D ]] || usage_error "run $R: no directory '$D'"
    R=${R%%:*}
    FLAGS[$R]="$BASE -mllvm -irtk-inline-policy=default -mllvm -irtk-inline-decisions=$(realpath "$D")/{module}.txt" ;;
  *) usage_error "unknown run '$R'" ;;
  esac
done

# shellcheck disable=SC2119 # all modules
collect_modules
collect_all
