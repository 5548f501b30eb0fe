#!/usr/bin/env bash
#===- inline-experiments.sh - Issue 25's measurements, resumable ----------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/inline-experiments.sh --corpus DIR --work DIR
#            [--steps LIST] [--budget N] [--train-sample K] [--jobs N]
#            [--bcmax-rounds N] [--es-steps N] [--es-perturbations N]
#            [--workers N | --scheduler tcp://HOST:PORT]
#            [--plugin SO] [--train IRTK-TRAIN] [--fit-options "OPTS"]
#
# The measurements of docs/InlineTraining.md ("Linked size, headroom and
# learning from the objective"), step by step, on the inline-train,
# inline-valid and inline-heldout splits of vocab/recipe/build-corpus.sh
# under --corpus. Every step is resumable (the tools it runs skip what they
# recorded), so the script can be killed and run again, in the background:
#
#   setsid nohup advisors/recipe/inline-experiments.sh --corpus C --work W \
#       > W/experiments.log 2>&1 &
#
# Steps (--steps, comma-separated, in this order by default):
#   baselines      -Oz and the threshold teachers on valid and held-out code
#                  (collect-inline.sh): module and linked .text, oracles
#   search-heldout the per-edge search on held-out code (an oracle: it only
#                  reports the headroom), replayed for linked sizes
#   search-valid   the same on validation code
#   whole-heldout  the held-out packages as whole programs (corpus --link)
#                  under -Oz and the per-edge search: the whole-program
#                  headroom
#   search-train   the per-edge search on every --train-sample-th training
#                  module, minimising what each package's link keeps
#                  (--linked): the labels BC-Max imitates
#   bcmax          BC-Max (bcmax-train.py; baselines -Oz and the training
#                  search, teachers chosen by what the link keeps), its
#                  chosen model judged once on held-out code
#   ablation       BC-Max again without embeddings, with a random vocabulary
#                  and with weight decay, each judged on held-out code
#   es             evolution strategies (es-train.py) from exactly -Oz
#                  (--residual, on the network of BC-Max's chosen model),
#                  rewarded by what the link keeps (--shared), on the
#                  training modules of the search; the final model on
#                  validation, and once on held-out code (not in the
#                  default steps: hours here, minutes on a cluster)
# Each step writes its tables to W/results/<step>.md.
#
# Options:
#   --budget N        compiles per module for the per-edge search (default 40)
#   --train-sample K  every K-th training module (default 4)
#   --bcmax-rounds N  BC-Max's rounds (default 3); a rerun with more goes on
#                     from the finished ones and judges the model validation
#                     then prefers
#   --es-steps N, --es-perturbations N
#                     evolution strategies' steps (default 10) and
#                     perturbations a step (default 100, MLGO's); a rerun
#                     with more steps goes on from the last one
#   --fit-options "OPTS"
#                     irtk-train fit options for every BC-Max model, the
#                     ablation's too (e.g. "--support --ensemble 5"; split
#                     at spaces), before a variant's own (the ablation's
#                     --l2)
#   --jobs N          parallel compiles (default: the number of cores)
#   --plugin SO, --train IRTK-TRAIN
#                     the plugin and irtk-train to run (default: this
#                     checkout's build); a copy keeps a long run away from
#                     a rebuild of the checkout
#   --workers N, --scheduler ADDR
#                     run the compiles on a Dask cluster (local with N
#                     workers, or at ADDR; the paths shared by every worker)
#
#===------------------------------------------------------------------------===#

set -euo pipefail
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE_DIR/../.." && pwd)
RECIPE_NAME=inline-experiments
# shellcheck source=scripts/recipe-cli.sh
. "$ROOT/scripts/recipe-cli.sh"
PY=/usr/bin/python3
CORPUS='' WORK='' BUDGET=40 TRAIN_SAMPLE=4 JOBS=$(nproc) BCMAX_ROUNDS=3
ES_STEPS=10 ES_PERTURBATIONS=100
PLUGIN=$ROOT/build/lib/IRTKPlugin.so TRAIN_BIN=$ROOT/build/bin/irtk-train
STEPS=baselines,search-heldout,search-valid,whole-heldout,search-train,bcmax,ablation
parse_options "--corpus=CORPUS --work=WORK --steps=STEPS --budget=BUDGET
  --train-sample=TRAIN_SAMPLE --jobs=JOBS --workers=WORKERS --scheduler=SCHEDULER
  --plugin=PLUGIN --train=TRAIN_BIN --bcmax-rounds=BCMAX_ROUNDS --es-steps=ES_STEPS
  --es-perturbations=ES_PERTURBATIONS --fit-options=FIT" "$@"
# Where the package's jobs run: Dask's --scheduler, else local processes.
WHERE=(--workers "${WORKERS:-$JOBS}")
[[ -z ${SCHEDULER:-} ]] || WHERE+=(--scheduler "$SCHEDULER")
read -ra FIT_OPTIONS <<<"${FIT:-}"
[[ -n $CORPUS && -n $WORK ]] || usage_error "--corpus and --work are required"
want_positive --budget "$BUDGET" --train-sample "$TRAIN_SAMPLE" --jobs "$JOBS" \
  --bcmax-rounds "$BCMAX_ROUNDS" --es-steps "$ES_STEPS" \
  --es-perturbations "$ES_PERTURBATIONS"
[[ -f $PLUGIN ]] || die "$PLUGIN: no plugin (build it, or name one with --plugin)"
[[ -x $TRAIN_BIN ]] || die "$TRAIN_BIN: no irtk-train (build it, or name one with --train)"
PLUGIN=$(realpath "$PLUGIN") TRAIN_BIN=$(realpath "$TRAIN_BIN")
for S in inline-train inline-valid inline-heldout; do
  [[ -s $CORPUS/$S/corpus_description.json ]] ||
    die "$CORPUS/$S: no corpus (vocab/recipe/build-corpus.sh --splits inline-train,inline-valid,inline-heldout)"
done
CORPUS=$(realpath "$CORPUS")
use_mlgo "$PY" "$ROOT"
mkdir -p "$WORK/results"
WORK=$(realpath "$WORK")
TRAIN=$CORPUS/inline-train VALID=$CORPUS/inline-valid HELDOUT=$CORPUS/inline-heldout
BASELINES=Oz,thr-100000,thr0,thr25,thr50,thr100,thr225

split_corpus() { # valid|heldout
  if [[ $1 == heldout ]]; then echo "$HELDOUT"; else echo "$VALID"; fi
}
# ir2vec.mlgo with the plugin, irtk-train and where the jobs run.
mlgo() { # command [options]
  $PY -m ir2vec.mlgo "$1" --plugin "$PLUGIN" --irtk-train "$TRAIN_BIN" "${WHERE[@]}" "${@:2}"
}
collect() { mlgo collect "$@" >&2; }
summarize() { $PY -m ir2vec.mlgo judge --per-package --linked "$@"; }
search() { # corpus out [options]
  mlgo search --kind edge --corpus "$1" --out "$2" --budget "$BUDGET" "${@:3}"
}
result() { # step: stdin to W/results/<step>.md
  local F=$WORK/results/$1.md
  cat >"$F.tmp" && mv "$F.tmp" "$F"
  log "wrote $F"
}
heldout_judge() { # name model [collect options]: the model once on held-out code
  # -Oz too (collected once), when the baselines step has not run.
  collect --corpus "$HELDOUT" --out "$WORK/heldout" --runs "Oz,$1=$2" "${@:3}"
  summarize --data "$WORK/heldout" --baselines Oz --runs "$1"
}

step_baselines() {
  local S
  for S in valid heldout; do
    collect --corpus "$(split_corpus "$S")" --out "$WORK/$S" --runs "$BASELINES"
  done
  {
    echo "## Validation split"; echo
    summarize --data "$WORK/valid" --baselines "$BASELINES"
    echo; echo "## Held-out split"; echo
    summarize --data "$WORK/heldout" --baselines "$BASELINES"
  } | result baselines
}

step_search_split() { # valid|heldout
  local S=$1 C
  C=$(split_corpus "$1")
  search "$C" "$WORK/search-$S" >"$WORK/search-$S.json"
  collect --corpus "$C" --out "$WORK/$S" --runs "Oz,searched:$WORK/search-$S/decisions"
  {
    echo '```'; cat "$WORK/search-$S.json"; echo '```'; echo
    summarize --data "$WORK/$S" --baselines "$BASELINES" --runs searched
  } | result "search-$S"
}

step_whole_heldout() {
  $PY -m ir2vec.mlgo corpus --corpus "$HELDOUT" --link "$WORK/whole-corpus" >&2
  search "$WORK/whole-corpus" "$WORK/search-whole" >"$WORK/search-whole.json"
  collect --corpus "$WORK/whole-corpus" --out "$WORK/whole" \
    --runs "Oz,searched:$WORK/search-whole/decisions"
  {
    echo '```'; cat "$WORK/search-whole.json"; echo '```'; echo
    summarize --data "$WORK/whole" --baselines Oz --runs searched
  } | result whole-heldout
}

step_search_train() {
  search "$TRAIN" "$WORK/search-train" --sample "$TRAIN_SAMPLE" --linked \
    >"$WORK/search-train.json"
  { echo '```'; cat "$WORK/search-train.json"; echo '```'; } | result search-train
}

bcmax() { # name [bcmax options] [-- fit options]
  local N=$1 OPTS=() FIT=("${FIT_OPTIONS[@]}")
  shift
  while (($#)); do
    if [[ $1 == -- ]]; then
      FIT+=("${@:2}")
      break
    fi
    OPTS+=("$1")
    shift
  done
  mlgo bcmax --corpus "$TRAIN" --valid-corpus "$VALID" --out "$WORK/bcmax-$N" \
    --sample "$TRAIN_SAMPLE" --rounds "$BCMAX_ROUNDS" \
    --baselines "Oz,searched:$WORK/search-train/decisions" \
    --shared "$WORK/search-train/shared" --fit-options "${FIT[*]}" "${OPTS[@]}" >/dev/null
}

step_bcmax() {
  bcmax symbolic --embedding symbolic
  local M
  M=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"])' "$WORK/bcmax-symbolic/best.json")
  {
    echo '```'; cat "$WORK/bcmax-symbolic/progress.tsv"; echo '```'; echo
    heldout_judge bcmax-symbolic "$M" --embedding symbolic
  } | result bcmax
}

step_ablation() {
  [[ -s $WORK/random-75d.json ]] ||
    $PY "$ROOT/bench/gen_vocab.py" --tool "$ROOT/build/bin/llvm-ir2vec" --dim 75 --seed 10 \
      -o "$WORK/random-75d.json"
  # Logs collected without embeddings have no embedding inputs to exclude.
  bcmax none --embedding none
  bcmax random --embedding symbolic --vocab "$WORK/random-75d.json"
  bcmax l2 --embedding symbolic -- --l2 0.01
  local N M ARGS
  {
    for N in none random l2; do
      M=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"])' "$WORK/bcmax-$N/best.json")
      case $N in
      none) ARGS=(--embedding none) ;;
      random) ARGS=(--embedding symbolic --vocab "$WORK/random-75d.json") ;;
      l2) ARGS=(--embedding symbolic) ;;
      esac
      echo "## $N"; echo; echo '```'; cat "$WORK/bcmax-$N/progress.tsv"; echo '```'; echo
      heldout_judge "bcmax-$N" "$M" "${ARGS[@]}"
      echo
    done
  } | result ablation
}

step_es() {
  local WARM F
  WARM=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"])' "$WORK/bcmax-symbolic/best.json")
  mlgo es --corpus "$TRAIN" --out "$WORK/es" --model "$WARM" --seed 1 \
    --residual --shared "$WORK/search-train/shared" --sample "$TRAIN_SAMPLE" \
    --steps "$ES_STEPS" --perturbations "$ES_PERTURBATIONS" >"$WORK/es.model"
  F=$(cat "$WORK/es.model")
  collect --corpus "$VALID" --out "$WORK/valid" --runs "es=$F" --embedding symbolic
  {
    echo '```'; cat "$WORK/es/progress.tsv"; echo '```'; echo
    echo "### Validation"; echo
    summarize --data "$WORK/valid" --baselines Oz --runs es
    echo; echo "### Held-out"; echo
    heldout_judge es "$F" --embedding symbolic
  } | result es
}

IFS=, read -ra STEP_LIST <<<"$STEPS"
for S in "${STEP_LIST[@]}"; do
  case $S in
  baselines) step_baselines ;;
  search-heldout) step_search_split heldout ;;
  search-valid) step_search_split valid ;;
  whole-heldout) step_whole_heldout ;;
  search-train) step_search_train ;;
  bcmax) step_bcmax ;;
  ablation) step_ablation ;;
  es) step_es ;;
  *) usage_error "unknown step '$S'" ;;
  esac
  log "step $S done"
done
