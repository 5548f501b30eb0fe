#!/usr/bin/env bash
#===- evict-steps.sh - Train on searched steps, choose a margin, validate -===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/evict-steps.sh --search DIR --corpus DIR --out DIR
#            --valid-packages P,... [--margins 0,1,...] [--name NAME]
#            [--jobs N] [--plugin SO] [-- FIT-OPTIONS...]
#
# Trains positional eviction models on the steps evict-search.py labelled
# (<search>/steps.txt: each searched decision with the best of stock and
# the departures tried there), leaving out the --valid-packages, then
# compiles the O2 modules of those packages of the corpus (the training
# split, --corpus) with stock and with each model, to choose the default
# margin (the confidence threshold of output.default_margin) on modules the
# models never saw:
#
#   irtk-train fit --advisor evict --positional --exclude evict_default \
#       --default-margin <m> --logs-from <the steps of the other packages> \
#       FIT-OPTIONS...   ->  <out>/models/<name>-m<m>.json
#   collect-evict.sh --corpus <corpus> --out <out>/valid --levels O2 \
#       --packages <valid> --runs default,<name>-m<m>=...
#   evict.py scores <out>/valid --runs default,<name>-m<m>,...
#
# The last command's JSON goes to standard output and
# <out>/<name>-scores.json. Then, with the margin that scored lowest there,
# one more model is fitted on every package's steps: <out>/<name>.json, the
# model to judge on held-out code. Resumable: models are refitted (seconds),
# and collect-evict.sh skips what it has already compiled with the same
# flags.
#
# Options:
#   --margins LIST   default margins to try (default 0,0.5,1,2,4)
#   --name NAME      model name prefix (default steps)
#   FIT-OPTIONS      more irtk-train fit options, e.g. --no-embeddings
#                    --hidden 32,16 --epochs 40
#
#===------------------------------------------------------------------------===#

set -euo pipefail
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE_DIR/../.." && pwd)
RECIPE_NAME=evict-steps
# shellcheck source=scripts/recipe-cli.sh
. "$ROOT/scripts/recipe-cli.sh"
TRAIN=${IRTK_TRAIN:-$ROOT/build/bin/irtk-train}
SEARCH= CORPUS= OUT= VALID= MARGINS=0,0.5,1,2,4 NAME=steps JOBS=$(nproc)
PLUGIN=$ROOT/build/lib/IRTKPlugin.so
while (($#)); do
  [[ $1 == -- ]] && { shift; break; }
  next_opt "--search --corpus --out --valid-packages --margins --name --jobs --plugin" "$@"
  shift "$NSHIFT"
  case $OPT in
  --search) SEARCH=$VAL ;;
  --corpus) CORPUS=$VAL ;;
  --out) OUT=$VAL ;;
  --valid-packages) VALID=$VAL ;;
  --margins) MARGINS=$VAL ;;
  --name) NAME=$VAL ;;
  --jobs) JOBS=$VAL ;;
  --plugin) PLUGIN=$VAL ;;
  -h | --help) usage; exit 0 ;;
  *) usage_error "unknown option '$OPT'" ;;
  esac
done
FIT=("$@")
[[ -n $SEARCH && -n $CORPUS && -n $OUT && -n $VALID ]] ||
  usage_error "--search, --corpus, --out and --valid-packages are required"
[[ -s $SEARCH/steps.txt ]] || die "$SEARCH/steps.txt: missing (run evict-search.py)"
[[ -x $TRAIN ]] || die "$TRAIN: no irtk-train; build it first"
want_positive --jobs "$JOBS"
mkdir -p "$OUT/models"

# The steps of every package but the validation ones.
/usr/bin/python3 - "$SEARCH/steps.txt" "$VALID" >"$OUT/$NAME-fit.txt" <<'PY'
import sys
valid = set(sys.argv[2].split(","))
for line in open(sys.argv[1]):
    parts = line.strip().split("/")
    if line.strip() and not any(p in valid for p in parts[-3:-1]):
        print(line.strip())
PY
[[ -s $OUT/$NAME-fit.txt ]] || die "no training steps left outside $VALID"
log "$(wc -l <"$OUT/$NAME-fit.txt") modules' steps to fit"

RUNS=default NAMES=default
IFS=, read -ra MS <<<"$MARGINS"
for M in "${MS[@]}"; do
  MODEL=$OUT/models/$NAME-m$M.json
  "$TRAIN" fit --advisor evict --positional --exclude evict_default \
    --default-margin "$M" --logs-from "$OUT/$NAME-fit.txt" --quiet \
    -o "$MODEL" "${FIT[@]}"
  RUNS+=",$NAME-m$M=$MODEL" NAMES+=",$NAME-m$M"
done

"$RECIPE_DIR/collect-evict.sh" --corpus "$CORPUS" --out "$OUT/valid" \
  --levels O2 --packages "$VALID" --runs "$RUNS" --jobs "$JOBS" \
  --plugin "$PLUGIN"
/usr/bin/python3 "$RECIPE_DIR/evict.py" scores "$OUT/valid" --runs "$NAMES" |
  tee "$OUT/$NAME-scores.json"

BEST=$(/usr/bin/python3 - "$OUT/$NAME-scores.json" "$NAME" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
prefix = sys.argv[2] + "-m"
scored = [r for r in runs if r.startswith(prefix)]
if not scored:
    sys.exit("evict-steps.sh: no model run was scored")
print(min(scored, key=lambda r: runs[r]["score"])[len(prefix):])
PY
)
log "margin $BEST scored lowest on $VALID; fitting $OUT/$NAME.json on every package"
"$TRAIN" fit --advisor evict --positional --exclude evict_default \
  --default-margin "$BEST" --logs-from "$SEARCH/steps.txt" --quiet \
  -o "$OUT/$NAME.json" "${FIT[@]}"
