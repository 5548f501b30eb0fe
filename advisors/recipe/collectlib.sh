#===- collectlib.sh - The skeleton of the collectors of advisor data ------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Sourced by collect-inline.sh and collect-evict.sh once they set
# RECIPE_NAME; sources scripts/recipe-cli.sh and sets RECIPE_DIR and ROOT.
# What compiles every module of a corpus once per run and records each
# (run, module). A collector adds only its own part:
#
#   collect_option OPT VAL
#        its own options (collect_parse hands it every option but the
#        common ones); returns 1 for an unknown option
#   collect_compile FLAGS MODULE TMPDIR
#        one compile of $CORPUS/MODULE.bc with a run's FLAGS, writing
#        TMPDIR/m.o and TMPDIR/m.log, under `timeout "$COLLECT_TIMEOUT"`
#   FLAGS[<run name>]
#        the flags of every run of RUN_LIST (a run's name: up to its first
#        '=', '@' or ':')
#   COLLECT_FUNCTIONS=1
#        to record each defined function's size; COLLECT_VARS: the other
#        variables collect_compile reads (for the Dask workers' script)
#
# and calls, in this order:
#
#   collect_parse VALUE-OPTS ARGS...
#        the common options (--corpus --out --runs --plugin --sample --jobs,
#        -h/--help) into CORPUS OUT RUNS PLUGIN SAMPLE JOBS; VALUE-OPTS are
#        the collector's own options that take a value
#   collect_check
#        the common usage errors and missing inputs; then RUN_LIST is RUNS
#   collect_modules [--levels L,...] [--packages P,...]
#                   [--exclude-packages P,...]
#        OUT/modules.list: the corpus's modules, every SAMPLE-th
#        (recipelib.py modules)
#   collect_all
#        compile_one RUN FLAGS MODULE for every module and run: JOBS at a
#        time, or, when SCHEDULER or WORKERS is set, on a Dask cluster
#        through `python3 -m ir2vec.distributed collect` (each module is a
#        command, all its runs, of OUT/compile-module.sh; the engine's own
#        records go to OUT/engine); then logs the failed compiles
#
# compile_one records, per (run, module):
#
#   OUT/<run>/<module>.log   the training log
#   OUT/<run>/<module>.o     the object (for linked sizes:
#                            summarize-inline.py --linked)
#   OUT/<run>/<module>.txt   tab-separated: status ok|failed, run, flags,
#                            text <bytes of the .text* sections>, with
#                            COLLECT_FUNCTIONS function 0x<hex size> <name>
#                            per defined function; a failure's first lines
#                            of stderr
#
# each renamed into place whole, the .txt last. A (run, module) whose .txt
# has the same flags is skipped, so a rerun resumes; a failed or timed-out
# compile is recorded and never stops the others.
#
#===------------------------------------------------------------------------===#

# shellcheck shell=bash
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE_DIR/../.." && pwd)
# shellcheck source=scripts/recipe-cli.sh
. "$ROOT/scripts/recipe-cli.sh"
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
# Seconds a compile may take before it counts as failed.
COLLECT_TIMEOUT=900
COLLECT_FUNCTIONS=0
COLLECT_VARS=''
CORPUS='' OUT='' RUNS='' SAMPLE=1 JOBS=$(nproc)
PLUGIN=$ROOT/build/lib/IRTKPlugin.so
SCHEDULER='' WORKERS=''
declare -A FLAGS
RUN_LIST=()

collect_parse() { # value-options args...
  local MORE=$1
  shift
  while (($#)); do
    next_opt "--corpus --out --runs --plugin --sample --jobs $MORE" "$@"
    shift "$NSHIFT"
    case $OPT in
    --corpus) CORPUS=$VAL ;;
    --out) OUT=$VAL ;;
    --runs) RUNS=$VAL ;;
    --plugin) PLUGIN=$VAL ;;
    --sample) SAMPLE=$VAL ;;
    --jobs) JOBS=$VAL ;;
    -h | --help) usage; exit 0 ;;
    *) collect_option "$OPT" "$VAL" || usage_error "unknown option '$OPT'" ;;
    esac
  done
}

collect_check() {
  [[ -n $CORPUS && -n $OUT && -n $RUNS ]] || usage_error "--corpus, --out and --runs are required"
  [[ -s $CORPUS/corpus_description.json ]] || die "$CORPUS: no corpus_description.json"
  [[ -f $PLUGIN ]] || die "$PLUGIN: no plugin; build it first"
  want_positive --sample "$SAMPLE"
  want_positive --jobs "$JOBS"
  IFS=, read -ra RUN_LIST <<<"$RUNS"
}

collect_modules() { # [recipelib.py modules options...]
  /usr/bin/python3 "$RECIPE_DIR/recipelib.py" modules --corpus "$CORPUS" \
    --sample "$SAMPLE" "$@" >"$OUT/modules.list"
}

collect_install() { # file destination: renamed whole into place
  mv "$1" "$2.tmp" && mv "$2.tmp" "$2"
}

compile_one() { # run flags module
  local R=$1 F=$2 M=$3
  local TXT=$OUT/$R/$M.txt
  if [[ -s $TXT ]] && grep -qxF "flags	$F" "$TXT"; then
    return 0
  fi
  mkdir -p "$(dirname "$TXT")"
  local T
  T=$(mktemp -d)
  if collect_compile "$F" "$M" "$T" 2>"$T/err"; then
    {
      printf 'status\tok\nrun\t%s\nflags\t%s\n' "$R" "$F"
      "$LLVM_BIN/llvm-size" -A "$T/m.o" |
        awk '$1 ~ /^\.text/ {s += $2} END {printf "text\t%d\n", s}'
      if ((COLLECT_FUNCTIONS)); then
        "$LLVM_BIN/llvm-nm" -S --defined-only "$T/m.o" |
          awk 'NF == 4 && ($3 == "t" || $3 == "T") {printf "function\t0x%s\t%s\n", $2, $4}'
      fi
    } >"$T/txt"
    if [[ -f $T/m.log ]]; then collect_install "$T/m.log" "$OUT/$R/$M.log"; fi
    collect_install "$T/m.o" "$OUT/$R/$M.o"
  else
    { printf 'status\tfailed\nrun\t%s\nflags\t%s\n' "$R" "$F"; head -5 "$T/err"; } >"$T/txt"
  fi
  collect_install "$T/txt" "$TXT"
  rm -rf "$T"
}

collect_all() {
  local N R NAME M
  local -a NAMES=() ENGINE=() PATHS=()
  for R in "${RUN_LIST[@]}"; do NAME=${R%%=*} NAME=${NAME%%@*} NAMES+=("${NAME%%:*}"); done
  N=$(wc -l <"$OUT/modules.list")
  if [[ -n $SCHEDULER || -n $WORKERS ]]; then
    # One script per collection: the flags of every run and compile_one;
    # its argument is a module's bitcode.
    {
      echo '#!/usr/bin/env bash'
      echo "# Written by $RECIPE_NAME.sh: compiles one module under every run."
      echo 'set -uo pipefail'
      # shellcheck disable=SC2086 # COLLECT_VARS is a list of names
      declare -p OUT CORPUS LLVM_BIN COLLECT_TIMEOUT COLLECT_FUNCTIONS \
        $COLLECT_VARS FLAGS NAMES
      declare -f compile_one collect_compile collect_install
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
  else
    export -f compile_one collect_compile collect_install
    # shellcheck disable=SC2086,SC2163 # COLLECT_VARS is a list of names
    export OUT CORPUS LLVM_BIN COLLECT_TIMEOUT COLLECT_FUNCTIONS $COLLECT_VARS
    log "${#RUN_LIST[@]} runs x $N modules, $JOBS jobs"
    # Module by module, so that an interrupted collection has whole rows.
    # shellcheck disable=SC2016 # compile_one's arguments
    while read -r M; do
      for NAME in "${NAMES[@]}"; do
        printf '%s\0%s\0%s\0' "$NAME" "${FLAGS[$NAME]}" "$M"
      done
    done <"$OUT/modules.list" | xargs -0 -n 3 -P "$JOBS" bash -c 'compile_one "$0" "$1" "$2"'
  fi
  # This collection's runs only: OUT may hold other runs' records.
  local FAILED
  FAILED=$(grep -l -x 'status	failed' -r "${NAMES[@]/#/$OUT/}" --include='*.txt' 2>/dev/null | wc -l || true)
  log "done; $FAILED failed compiles"
}
