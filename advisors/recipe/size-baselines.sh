#!/usr/bin/env bash
#===- size-baselines.sh - Native .text size of a corpus under inliner settings ===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/size-baselines.sh --corpus DIR --out DIR [--jobs N]
#            [--settings LIST] [--retry-failed] [--timeout S] [--list-settings]
#
# For every module of an MLGO corpus of pre-optimisation bitcode (e.g. the
# inline-train and inline-heldout splits of vocab/recipe/build-corpus.sh,
# compiled with `-Oz -Xclang -disable-llvm-passes`) and every baseline
# inliner setting of the table below, finishes the module as a user's
# `clang -Oz` would:
#
#   clang-22 -Oz -c <module>.bc -o <module>.o [-mllvm <flag>]...
#
# and records the object's native code size in one results file per
# (setting, module):
#
#   <out>/<setting>/<module>.txt     tab-separated lines:
#     status    ok | failed
#     setting   <name>
#     flags     the setting's -mllvm flags ("-" for none)
#     module    <module>
#     seconds   wall-clock time of the compile
#     text      sum of the sizes of the sections named .text* (llvm-size -A)
#     section   <name> <size>           one line per .text* section
#     function  <size> <name>           one line per defined function symbol
#                                       (llvm-nm -S --defined-only, t/T)
#   <out>/<setting>/<module>.log     clang's output when the compile failed
#
# A rerun skips every (setting, module) whose results file exists with the
# same flags, so an interrupted run resumes where it stopped; failed entries
# are kept (and summarised as failures) unless --retry-failed. Compiles run
# in parallel; a failing or timed-out compile is recorded and never stops
# the others. <out>/compiler holds `clang-22 --version`, <out>/settings.tsv
# the table used. advisors/recipe/summarize-baselines.py summarises <out>.
#
# The settings (edit SETTINGS below to add one; names are directory names):
#   Oz                stock clang -Oz
#   thr-100000        -inline-threshold=-100000 (about only mandatory
#                     inlining: always_inline and the like)
#   thr0 thr25 thr50 thr100 thr225
#                     -inline-threshold=N; an explicit threshold replaces
#                     -Oz's minsize threshold (5) for every caller
#   callpen0          -inline-call-penalty=0
#   module-inliner    -enable-module-inliner (the module inliner in place of
#                     the CGSCC inliner)
#
# Options:
#   --corpus DIR      the corpus: DIR/corpus_description.json, DIR/<module>.bc
#   --out DIR         the results directory (created)
#   --jobs N          parallel compiles (default: the number of cores)
#   --settings LIST   comma-separated setting names (default: all)
#   --retry-failed    compile failed entries again
#   --timeout S       seconds per compile before it counts as failed
#                     (default: 900)
#   --list-settings   print the settings table and exit
# Environment: CLANG (default clang-22), LLVM_BIN (default
# /usr/lib/llvm-22/bin; llvm-size and llvm-nm come from there).
#
#===------------------------------------------------------------------------===#

set -euo pipefail

# name <TAB> -mllvm flags, space-separated ("-" for none).
SETTINGS=$(
  cat <<'EOF'
Oz	-
thr-100000	-inline-threshold=-100000
thr0	-inline-threshold=0
thr25	-inline-threshold=25
thr50	-inline-threshold=50
thr100	-inline-threshold=100
thr225	-inline-threshold=225
callpen0	-inline-call-penalty=0
module-inliner	-enable-module-inliner
EOF
)

CORPUS=
OUT=
JOBS=$(nproc)
ONLY=
RETRY=0
TIMEOUT=900
CLANG=${CLANG:-clang-22}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
PYTHON=/usr/bin/python3

RECIPE_NAME=size-baselines
# shellcheck source=scripts/recipe-cli.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/recipe-cli.sh"

while (($#)); do
  next_opt "--corpus --out --jobs --settings --timeout" "$@"
  shift "$NSHIFT"
  case $OPT in
    --corpus) CORPUS=$VAL ;;
    --out) OUT=$VAL ;;
    --jobs) JOBS=$VAL ;;
    --settings) ONLY=$VAL ;;
    --retry-failed) RETRY=1 ;;
    --timeout) TIMEOUT=$VAL ;;
    --list-settings) printf '%s\n' "$SETTINGS"; exit 0 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown option '$OPT'" ;;
  esac
done
[[ -n $CORPUS ]] || usage_error "--corpus is required"
[[ -n $OUT ]] || usage_error "--out is required"
want_positive --jobs "$JOBS"
want_positive --timeout "$TIMEOUT"
[[ -f $CORPUS/corpus_description.json ]] ||
  die "$CORPUS/corpus_description.json not found"
command -v "$CLANG" >/dev/null || die "$CLANG not found (Debian package clang-22)"
for T in llvm-size llvm-nm; do
  [[ -x $LLVM_BIN/$T ]] || die "$LLVM_BIN/$T not found (Debian package llvm-22)"
done
[[ -x $PYTHON ]] || die "$PYTHON not found (Debian package python3)"
CORPUS=$(cd "$CORPUS" && pwd)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# The settings to run, checked: every flag must exist in this clang.
declare -A FLAGS_OF
NAMES=()
while IFS=$'\t' read -r NAME FLAGS; do
  [[ $NAME =~ ^[A-Za-z0-9_.+-]+$ ]] || die "bad setting name '$NAME'"
  FLAGS_OF[$NAME]=$FLAGS
  NAMES+=("$NAME")
done <<<"$SETTINGS"
if [[ -n $ONLY ]]; then
  IFS=, read -r -a PICK <<<"$ONLY"
  for NAME in "${PICK[@]}"; do
    [[ -n ${FLAGS_OF[$NAME]+x} ]] || usage_error "unknown setting '$NAME' (--list-settings)"
  done
  NAMES=("${PICK[@]}")
fi
mllvm_args() { # flags ("-" for none)
  local F
  [[ $1 == - ]] && return 0
  for F in $1; do printf '%s\n' -mllvm "$F"; done
}
PROBE=$(mktemp -d)
trap 'rm -rf "$PROBE"' EXIT
echo 'int probe(int x) { return x + 1; }' >"$PROBE/probe.c"
for NAME in "${NAMES[@]}"; do
  mapfile -t ARGS < <(mllvm_args "${FLAGS_OF[$NAME]}")
  "$CLANG" -Oz -c "$PROBE/probe.c" -o "$PROBE/probe.o" "${ARGS[@]}" 2>"$PROBE/err" ||
    die "setting $NAME: $CLANG rejects '${FLAGS_OF[$NAME]}': $(head -n1 "$PROBE/err")"
done
# The whole table, then the settings of earlier runs that it no longer has.
printf '%s\n' "$SETTINGS" >"$OUT/settings.tsv.tmp"
if [[ -f $OUT/settings.tsv ]]; then
  awk -F'\t' 'NR == FNR { seen[$1] = 1; print; next } !($1 in seen)' \
    "$OUT/settings.tsv.tmp" "$OUT/settings.tsv" >"$OUT/settings.tsv.new"
  mv "$OUT/settings.tsv.new" "$OUT/settings.tsv.tmp"
fi
mv "$OUT/settings.tsv.tmp" "$OUT/settings.tsv"
"$CLANG" --version | head -n1 >"$OUT/compiler"

# --- The jobs: (setting, module) pairs without a current result, biggest
# modules first so that no big one finishes last alone.
STATE=$OUT/.state
mkdir -p "$STATE"
for NAME in "${NAMES[@]}"; do printf '%s\t%s\n' "$NAME" "${FLAGS_OF[$NAME]}"; done \
  >"$STATE/run-settings.tsv"
"$PYTHON" - "$CORPUS" "$OUT" "$STATE/run-settings.tsv" "$RETRY" >"$STATE/todo.tsv" <<'PY'
import json, os, sys

corpus, out, settings_file, retry = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
with open(os.path.join(corpus, "corpus_description.json")) as f:
    modules = json.load(f)["modules"]
settings = []
with open(settings_file) as f:
    for line in f:
        name, flags = line.rstrip("\n").split("\t")
        settings.append((name, flags))

def current(path, flags):
    try:
        with open(path) as f:
            head = dict(l.rstrip("\n").split("\t", 1) for l, _ in zip(f, range(3)))
    except (OSError, ValueError):
        return False
    if head.get("flags") != flags:
        return False
    return not (retry and head.get("status") != "ok")

jobs = []
for m in modules:
    bc = os.path.join(corpus, m + ".bc")
    size = os.path.getsize(bc) if os.path.exists(bc) else 0
    for name, flags in settings:
        if not current(os.path.join(out, name, m + ".txt"), flags):
            jobs.append((size, name, flags, m))
jobs.sort(key=lambda j: -j[0])
for _, name, flags, m in jobs:
    print(f"{name}\t{flags}\t{m}")
PY

# One (setting, module): compile, measure, write the results file atomically.
measure_one() { # "<setting>\t<flags>\t<module>"
  local NAME FLAGS MOD
  IFS=$'\t' read -r NAME FLAGS MOD <<<"$1"
  local RES=$OUT/$NAME/$MOD.txt
  local TMP
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/size-baselines.XXXXXX")
  mkdir -p "${RES%/*}"
  local -a ARGS=()
  if [[ $FLAGS != - ]]; then
    local F
    for F in $FLAGS; do ARGS+=(-mllvm "$F"); done
  fi
  local T0 T1 STATUS=ok
  T0=$EPOCHREALTIME
  if ! timeout "$TIMEOUT" "$CLANG" -Oz -c "$CORPUS/$MOD.bc" -o "$TMP/m.o" \
      "${ARGS[@]}" >"$TMP/log" 2>&1; then
    STATUS=failed
  fi
  T1=$EPOCHREALTIME
  {
    printf 'status\t%s\nsetting\t%s\nflags\t%s\nmodule\t%s\n' "$STATUS" "$NAME" "$FLAGS" "$MOD"
    awk -v a="$T0" -v b="$T1" 'BEGIN { printf "seconds\t%.3f\n", b - a }'
    if [[ $STATUS == ok ]]; then
      "$LLVM_BIN/llvm-size" -A "$TMP/m.o" | awk '
        $1 ~ /^\.text/ { sum += $2; secs = secs sprintf("section\t%s\t%d\n", $1, $2) }
        END { printf "text\t%d\n%s", sum, secs }'
      "$LLVM_BIN/llvm-nm" -S --defined-only --radix=d "$TMP/m.o" |
        awk 'NF == 4 && ($3 == "t" || $3 == "T") {
               printf "function\t%d\t%s\n", $2, $4 }'
    fi
  } >"$RES.tmp"
  if [[ $STATUS == ok ]]; then
    rm -f "${RES%.txt}.log"
  else
    cp "$TMP/log" "${RES%.txt}.log"
  fi
  mv "$RES.tmp" "$RES" # the same directory: an atomic rename
  rm -rf "$TMP"
  echo "$STATUS" >>"$STATE/progress"
}
export -f measure_one
export OUT CORPUS CLANG LLVM_BIN TIMEOUT STATE

TODO=$(wc -l <"$STATE/todo.tsv")
MODULES=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["modules"]))' \
  "$CORPUS/corpus_description.json")
TOTAL=$((MODULES * ${#NAMES[@]}))
log "$MODULES modules x ${#NAMES[@]} settings: $((TOTAL - TODO)) done, compiling $TODO ($JOBS jobs) into $OUT"
: >"$STATE/progress"
if ((TODO)); then run_jobs "$JOBS" measure_one "$STATE/todo.tsv" "$STATE/progress"; fi
FAILED=$(grep -c failed "$STATE/progress" || true)
log "done in $((SECONDS / 60)) min $((SECONDS % 60)) s: $TODO compiled, $FAILED failed" \
  "(logs next to their results, <out>/<setting>/<module>.log)"
