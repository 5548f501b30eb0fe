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
#               inline-caller-search.py's callers/): its searched runs again,
#               e.g. logged with other embeddings (--embedding, --vocab);
#               a rerun skips what it recorded even if the files changed
#
# Every run logs every decision with all the teachers' decisions
# (-irtk-inline-teachers, default -100000,0,5,25,50,100,225; threshold 5 is
# -Oz's own) and records, per (run, module):
#
#   <out>/<run>/<module>.log   the training log (LLVM's format)
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
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE_DIR/../.." && pwd)
RECIPE_NAME=collect-inline
# shellcheck source=scripts/recipe-cli.sh
. "$ROOT/scripts/recipe-cli.sh"
CLANG=${CLANG:-clang-22}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
CORPUS= OUT= RUNS= SAMPLE=1 JOBS=$(nproc) EMBEDDING=symbolic VOCAB=
SCHEDULER= WORKERS=
TEACHERS=-100000,0,5,25,50,100,225
PLUGIN=$ROOT/build/lib/IRTKPlugin.so
while (($#)); do
  next_opt "--corpus --out --runs --plugin --sample --jobs --teachers --embedding --vocab --scheduler --workers" "$@"
  shift "$NSHIFT"
  case $OPT in
  --corpus) CORPUS=$VAL ;;
  --out) OUT=$VAL ;;
  --runs) RUNS=$VAL ;;
  --plugin) PLUGIN=$VAL ;;
  --sample) SAMPLE=$VAL ;;
  --jobs) JOBS=$VAL ;;
  --teachers) TEACHERS=$VAL ;;
  --embedding) EMBEDDING=$VAL ;;
  --vocab) VOCAB=$VAL ;;
  --scheduler) SCHEDULER=$VAL ;;
  --workers) WORKERS=$VAL ;;
  -h | --help) usage; exit 0 ;;
  *) usage_error "unknown option '$OPT'" ;;
  esac
done
[[ -n $CORPUS && -n $OUT && -n $RUNS ]] || usage_error "--corpus, --out and --runs are required"
[[ -s $CORPUS/corpus_description.json ]] || die "$CORPUS: no corpus_description.json"
[[ -f $PLUGIN ]] || die "$PLUGIN: no plugin; build it first"
want_positive --sample "$SAMPLE"
want_positive --jobs "$JOBS"
[[ -z $WORKERS ]] || want_positive --workers "$WORKERS"
[[ -z $SCHEDULER || -z $WORKERS ]] || usage_error "--scheduler and --workers exclude each other"
mkdir -p "$OUT"
# Absolute paths: the engine's workers may start anywhere.
OUT=$(realpath "$OUT") CORPUS=$(realpath "$CORPUS") PLUGIN=$(realpath "$PLUGIN")

# The flags of each run, checked before anything is compiled.
declare -A FLAGS
IFS=, read -ra RUN_LIST <<<"$RUNS"
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
  *) usage_error "unknown run '$R'" ;;
  esac
done

/usr/bin/python3 - "$CORPUS" "$SAMPLE" >"$OUT/modules.list" <<'EOF'
import json, sys
corpus, k = sys.argv[1], int(sys.argv[2])
mods = sorted(json.load(open(f"{corpus}/corpus_description.json"))["modules"])
print("\n".join(mods[::k]))
EOF

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
  if timeout 900 "$CLANG" -Oz -c "$CORPUS/$M.bc" -o "$T/m.o" ${F//\{module\}/$M} \
    -mllvm "-irtk-inline-log=$T/m.log" 2>"$T/err"; then
    {
      printf 'status\tok\nrun\t%s\nflags\t%s\n' "$R" "$F"
      "$LLVM_BIN/llvm-size" -A "$T/m.o" |
        awk '$1 ~ /^\.text/ {s += $2} END {printf "text\t%d\n", s}'
      "$LLVM_BIN/llvm-nm" -S --defined-only "$T/m.o" |
        awk 'NF == 4 && ($3 == "t" || $3 == "T") {printf "function\t0x%s\t%s\n", $2, $4}'
    } >"$T/txt"
    mv "$T/m.log" "$OUT/$R/$M.log"
    mv "$T/txt" "$TXT"
  else
    { printf 'status\tfailed\nrun\t%s\nflags\t%s\n' "$R" "$F"; head -5 "$T/err"; } >"$TXT"
  fi
  rm -rf "$T"
}
export -f compile_one
export OUT CORPUS CLANG LLVM_BIN

N=$(wc -l <"$OUT/modules.list")
if [[ -n $SCHEDULER || -n $WORKERS ]]; then
  # One script per collection: the flags of every run and compile_one; its
  # argument is a module's bitcode.
  NAMES=()
  for R in "${RUN_LIST[@]}"; do R=${R%%=*} NAMES+=("${R%%@*}"); done
  {
    echo '#!/usr/bin/env bash'
    echo "# Written by collect-inline.sh: compiles one module under every run."
    echo 'set -uo pipefail'
    declare -p OUT CORPUS CLANG LLVM_BIN FLAGS NAMES
    declare -f compile_one
    # shellcheck disable=SC2016
    echo 'M=${1#"$CORPUS/"}; M=${M%.bc}'
    # shellcheck disable=SC2016
    echo 'for R in "${NAMES[@]}"; do compile_one "$R" "${FLAGS[$R]}" "$M"; done'
  } >"$OUT/compile-module.sh"
  ENGINE=(--workers "${WORKERS:-$JOBS}")
  [[ -z $SCHEDULER ]] || ENGINE=(--scheduler "$SCHEDULER")
  log "${#RUN_LIST[@]} runs x $N modules on Dask (${ENGINE[*]})"
  sed "s|^|$CORPUS/|; s|\$|.bc|" "$OUT/modules.list" >"$OUT/modules.paths"
  # Modules of about 1 MB per task; --task-bytes counts input bytes.
  mapfile -t PATHS <"$OUT/modules.paths"
  PYTHONPATH=$ROOT/build/python${PYTHONPATH:+:$PYTHONPATH} \
    /usr/bin/python3 -m ir2vec.distributed collect "${ENGINE[@]}" \
    --task-bytes 1048576 -o "$OUT/engine" \
    --command "bash $OUT/compile-module.sh {input}" "${PATHS[@]}"
  FAILED=$(grep -l -x 'status	failed' -r "$OUT" --include='*.txt' | wc -l || true)
  log "done; $FAILED failed compiles"
  exit 0
fi
log "${#RUN_LIST[@]} runs x $N modules, $JOBS jobs"
# Module by module, so that an interrupted collection has whole rows.
while read -r M; do
  for R in "${RUN_LIST[@]}"; do
    NAME=${R%%=*} NAME=${NAME%%@*}
    printf '%s\0%s\0%s\0' "$NAME" "${FLAGS[$NAME]}" "$M"
  done
done <"$OUT/modules.list" | xargs -0 -n 3 -P "$JOBS" bash -c 'compile_one "$0" "$1" "$2"'
FAILED=$(grep -l -x 'status	failed' -r "$OUT" --include='*.txt' | wc -l || true)
log "done; $FAILED failed compiles"
