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
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE_DIR/../.." && pwd)
RECIPE_NAME=collect-evict
# shellcheck source=scripts/recipe-cli.sh
. "$ROOT/scripts/recipe-cli.sh"
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
CORPUS= OUT= RUNS= SAMPLE=1 JOBS=$(nproc) LEVELS=O2 PACKAGES= EXCLUDE=
EMBEDDINGS=true
PLUGIN=$ROOT/build/lib/IRTKPlugin.so
while (($#)); do
  next_opt "--corpus --out --runs --levels --packages --exclude-packages --plugin --sample --jobs" "$@"
  shift "$NSHIFT"
  case $OPT in
  --corpus) CORPUS=$VAL ;;
  --out) OUT=$VAL ;;
  --runs) RUNS=$VAL ;;
  --levels) LEVELS=$VAL ;;
  --packages) PACKAGES=$VAL ;;
  --exclude-packages) EXCLUDE=$VAL ;;
  --plugin) PLUGIN=$VAL ;;
  --sample) SAMPLE=$VAL ;;
  --jobs) JOBS=$VAL ;;
  --no-embeddings) EMBEDDINGS=false ;;
  -h | --help) usage; exit 0 ;;
  *) usage_error "unknown option '$OPT'" ;;
  esac
done
[[ -n $CORPUS && -n $OUT && -n $RUNS ]] || usage_error "--corpus, --out and --runs are required"
[[ -s $CORPUS/corpus_description.json ]] || die "$CORPUS: no corpus_description.json"
[[ -f $PLUGIN ]] || die "$PLUGIN: no plugin; build it first"
want_positive --sample "$SAMPLE"
want_positive --jobs "$JOBS"
mkdir -p "$OUT"

declare -A FLAGS
IFS=, read -ra RUN_LIST <<<"$RUNS"
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

/usr/bin/python3 - "$CORPUS" "$SAMPLE" "$LEVELS" "$PACKAGES" "$EXCLUDE" >"$OUT/modules.list" <<'PY'
import json, sys
corpus, k, levels, packages, exclude = sys.argv[1:6]
levels = set(levels.split(","))
packages = set(filter(None, packages.split(",")))
exclude = set(filter(None, exclude.split(",")))
mods = sorted(m for m in json.load(open(f"{corpus}/corpus_description.json"))["modules"]
              if m.split("/")[0] in levels
              and (not packages or m.split("/")[1] in packages)
              and m.split("/")[1] not in exclude)
print("\n".join(mods[::int(k)]))
PY

compile_one() { # run flags module
  local R=$1 F=$2 M=$3
  local TXT=$OUT/$R/$M.txt
  if [[ -s $TXT ]] && grep -qxF "flags	$F" "$TXT"; then
    return 0
  fi
  mkdir -p "$(dirname "$TXT")"
  local T
  T=$(mktemp -d)
  # shellcheck disable=SC2086
  if timeout 900 "$LLVM_BIN/llc" -O2 -filetype=obj "$CORPUS/$M.bc" -o "$T/m.o" $F \
    "-irtk-evict-log=$T/m.log" 2>"$T/err"; then
    {
      printf 'status\tok\nrun\t%s\nflags\t%s\n' "$R" "$F"
      "$LLVM_BIN/llvm-size" -A "$T/m.o" |
        awk '$1 ~ /^\.text/ {s += $2} END {printf "text\t%d\n", s}'
    } >"$T/txt"
    if [[ -f $T/m.log ]]; then mv "$T/m.log" "$OUT/$R/$M.log"; fi
    mv "$T/txt" "$TXT"
  else
    { printf 'status\tfailed\nrun\t%s\nflags\t%s\n' "$R" "$F"; head -5 "$T/err"; } >"$TXT"
  fi
  rm -rf "$T"
}
export -f compile_one
export OUT CORPUS LLVM_BIN

N=$(wc -l <"$OUT/modules.list")
log "${#RUN_LIST[@]} runs x $N modules, $JOBS jobs"
while read -r M; do
  for R in "${RUN_LIST[@]}"; do
    NAME=${R%%=*}
    printf '%s\0%s\0%s\0' "$NAME" "${FLAGS[$NAME]}" "$M"
  done
done <"$OUT/modules.list" | xargs -0 -n 3 -P "$JOBS" bash -c 'compile_one "$0" "$1" "$2"'
FAILED=$(grep -l -x 'status	failed' -r "$OUT" --include='*.txt' | wc -l || true)
log "done; $FAILED failed compiles"
