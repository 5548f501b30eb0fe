#!/usr/bin/env bash
#===- pipeline-headroom.sh - Phase 1 of the size-pipeline advisor ----------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/pipeline-headroom.sh --corpus DIR --out DIR
#            [--budget N] [--train-sample N] [--workers N]
#            [--scheduler ADDR] [--steps LIST] [--src DIR]
#
# The headroom of a per-module choice of the size pipeline (docs/Pipeline.md,
# "The headroom") and a first policy ("A first policy"), as four runs of
# `python3 -m ir2vec.mlgo` on the corpora of vocab/recipe/build-corpus.sh
# (--splits inline-train,inline-valid,inline-heldout):
#
#   heldout  tune --space opt,clang on every module of inline-heldout: the
#            per-module search as an oracle (held-out code chooses nothing);
#   train    tune --space opt,clang on a stratified sample of inline-train
#            (--stratified N --seed 0): the search's labels, and the sample
#            on which the best fixed configuration of stock flags is chosen;
#   report   headroom: module and linked .text of -Oz, the best fixed
#            configuration, the oracles of the size settings and of the nine
#            inliner settings, and the two searches' oracles, on the
#            held-out split; written to <out>/headroom.md.
#   nearest  the first policy: the candidates (the stock settings, the
#            best fixed setting's clang-space analogue and its 6 most
#            frequent additions) compiled on the three splits, the k
#            nearest training modules voting with a margin, the state
#            (module vector, IR counts, both), k and the margin chosen on
#            inline-valid, each state reported on held-out code (the
#            ablation); <out>/nearest.md and .json,
#            and the held-out choices as the plugin's choices file
#            (<out>/replay-nearest.json).
#   learn    the learned policies (docs/Pipeline.md, "Learning"): the values
#            network on the four states (embedding, counts, both, random)
#            for seeds 0 to 4, on the first candidates and with a second
#            round of them (<out>/learn-values{,2}-<seed>.md and .json; the
#            second round's seed-0 policy, <out>/policy-learn-values2.json,
#            is the shipped advisors/models/pipeline-oz.json), then BC-Max
#            on the four states and DQN from BC-Max on both
#            (<out>/learn-bcmax.md, <out>/learn-dqn.md).
#   programs the held-out packages (`mlgo programs`: cjson, giflib,
#            tinyxml2, double-conversion) built four ways: -Oz, the
#            best fixed flags, the nearest policy replayed in clang, and the
#            shipped model deciding in clang; their own tests run;
#            <out>/programs/{oz,fixed,nearest,shipped}/summary.tsv. Needs
#            --src.
#
# Every compile is a record of the package's engine, so a rerun (or a run
# stopped at a session's end) resumes where it was. Steps run in order.
#
# Options:
#   --corpus DIR        the corpora's work directory (holding inline-train/
#                       and inline-heldout/)
#   --out DIR           the results: <out>/heldout, <out>/train, <out>/valid,
#                       headroom.md, nearest.md, nearest.json
#   --budget N          compiles per module and space (default: 40)
#   --train-sample N    training modules (default: 400)
#   --workers N         local processes (default: the number of cores)
#   --scheduler ADDR    a Dask scheduler instead (tcp://HOST:PORT)
#   --steps LIST        which of heldout,train,report,nearest,learn,programs
#                       (default: heldout,train,report,nearest)
#   --src DIR           the Debian sources build-corpus.sh fetched (programs)
# Environment: PYTHON (default /usr/bin/python3), with the ir2vec package
# importable (PYTHONPATH=build/python for a build tree).
#
#===------------------------------------------------------------------------===#

set -euo pipefail

RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
CORPUS= OUT= SRC= BUDGET=40 SAMPLE=400 STEPS=heldout,train,report,nearest

RECIPE_NAME=pipeline-headroom
# shellcheck source=scripts/recipe-cli.sh
. "$RECIPE_DIR/../../scripts/recipe-cli.sh"

parse_options "--corpus=CORPUS --out=OUT --budget=BUDGET --train-sample=SAMPLE
  --workers=WORKERS --scheduler=SCHEDULER --steps=STEPS --src=SRC" "$@"
WHERE=(--workers "${WORKERS:-$(nproc)}")
[[ -z ${SCHEDULER:-} ]] || WHERE=(--scheduler "$SCHEDULER")
[[ -n $CORPUS && -n $OUT ]] || usage_error "--corpus and --out are required"
want_positive --budget "$BUDGET" --train-sample "$SAMPLE"
want_corpus() { # split
  [[ -f $CORPUS/$1/corpus_description.json ]] ||
    die "$CORPUS/$1: not a corpus (vocab/recipe/build-corpus.sh --splits $1)"
}

mlgo() { "$PYTHON" -m ir2vec.mlgo "$@"; }
HELD=(--corpus "$CORPUS/inline-heldout" --out "$OUT/heldout")
TRAIN=(--corpus "$CORPUS/inline-train" --stratified "$SAMPLE" --seed 0
  --out "$OUT/train")

for step in ${STEPS//,/ }; do
  case $step in
    heldout)
      want_corpus inline-heldout
      log "tune, held-out split (oracle)"
      mlgo tune "${HELD[@]}" --space opt,clang --budget "$BUDGET" "${WHERE[@]}"
      ;;
    train)
      want_corpus inline-train
      log "tune, $SAMPLE training modules"
      mlgo tune "${TRAIN[@]}" --space opt,clang --budget "$BUDGET" "${WHERE[@]}"
      ;;
    report)
      want_corpus inline-heldout
      want_corpus inline-train
      log "headroom report"
      mlgo headroom "${HELD[@]}" --train-corpus "$CORPUS/inline-train" \
        --train-out "$OUT/train" --budget "$BUDGET" "${WHERE[@]}" \
        >"$OUT/headroom.md.tmp"
      mv "$OUT/headroom.md.tmp" "$OUT/headroom.md"
      cat "$OUT/headroom.md"
      ;;
    nearest)
      want_corpus inline-valid
      log "first policy: nearest training modules vote"
      mlgo nearest "${HELD[@]}" --train-corpus "$CORPUS/inline-train" \
        --train-out "$OUT/train" --valid-corpus "$CORPUS/inline-valid" \
        --valid-out "$OUT/valid" --budget "$BUDGET" "${WHERE[@]}" \
        --around-fixed --candidates 6 --margins 0,0.005,0.01,0.02,0.05 \
        --states embedding,counts,both \
        --json "$OUT/nearest.json" --replay "$OUT/replay-nearest.json" \
        --save "$OUT/policy-nearest.json" \
        >"$OUT/nearest.md.tmp"
      mv "$OUT/nearest.md.tmp" "$OUT/nearest.md"
      cat "$OUT/nearest.md"
      ;;
    learn)
      want_corpus inline-valid
      LEARN=("${HELD[@]}" --train-corpus "$CORPUS/inline-train"
        --train-out "$OUT/train" --valid-corpus "$CORPUS/inline-valid"
        --valid-out "$OUT/valid" --budget "$BUDGET" "${WHERE[@]}")
      # values: the candidates around the fixed flags' analogue; values2:
      # a second round around the candidate best on training (--second).
      for round in values values2; do
        second=0
        [[ $round == values2 ]] && second=6
        for seed in 0 1 2 3 4; do
          log "learned policies: the values network ($round), seed $seed"
          saved=()
          ((seed == 0)) && saved=(--replay "$OUT/replay-learn-$round.json"
            --save "$OUT/policy-learn-$round.json")
          mlgo learn "${LEARN[@]}" --trainers values --second "$second" \
            --states embedding,counts,both,random \
            --margins 0,0.001,0.0025,0.005 --train-seed "$seed" \
            --json "$OUT/learn-$round-$seed.json" "${saved[@]}" \
            >"$OUT/learn-$round-$seed.md.tmp"
          mv "$OUT/learn-$round-$seed.md.tmp" "$OUT/learn-$round-$seed.md"
        done
      done
      log "learned policies: BC-Max on every state, DQN from BC-Max on both"
      mlgo learn "${LEARN[@]}" --trainers bcmax \
        --states embedding,counts,both,random --margins 0,0.0025,0.005,0.01 \
        --json "$OUT/learn-bcmax.json" >"$OUT/learn-bcmax.md.tmp"
      mv "$OUT/learn-bcmax.md.tmp" "$OUT/learn-bcmax.md"
      mlgo learn "${LEARN[@]}" --trainers bcmax,dqn --states both \
        --margins 0.005 --rounds 96 --json "$OUT/learn-dqn.json" \
        >"$OUT/learn-dqn.md.tmp"
      mv "$OUT/learn-dqn.md.tmp" "$OUT/learn-dqn.md"
      cat "$OUT"/learn-values2-0.md "$OUT"/learn-bcmax.md "$OUT"/learn-dqn.md
      ;;
    programs)
      [[ -n $SRC ]] || usage_error "the step programs needs --src"
      [[ -f $OUT/replay-nearest.json ]] || die "$OUT/replay-nearest.json: run the step nearest first"
      PLUGIN=${IRTK_PLUGIN:-$RECIPE_DIR/../../build/lib/IRTKPlugin.so}
      [[ -f $PLUGIN ]] || die "$PLUGIN: no plugin (build irtk, or set IRTK_PLUGIN)"
      log "held-out programs: -Oz, the best fixed flags, the policies"
      PROGRAMS=(mlgo programs --src "$SRC"
        --packages cjson,giflib,tinyxml2,double-conversion)
      "${PROGRAMS[@]}" --out "$OUT/programs/oz"
      "${PROGRAMS[@]}" --out "$OUT/programs/fixed" -- -Xclang -fmerge-functions \
        -mllvm -enable-machine-outliner -mllvm -ir-outliner
      "${PROGRAMS[@]}" --out "$OUT/programs/nearest" -- -fpass-plugin="$PLUGIN" \
        -mllvm -irtk-pipeline-policy=replay \
        -mllvm -irtk-pipeline-choices="$OUT/replay-nearest.json" \
        -mllvm -enable-machine-outliner
      # The model policy without a model file: the one shipped beside the
      # plugin (advisors/models/pipeline-oz.json).
      "${PROGRAMS[@]}" --out "$OUT/programs/shipped" -- -fpass-plugin="$PLUGIN" \
        -mllvm -irtk-pipeline-policy=model -mllvm -enable-machine-outliner
      ;;
    *) usage_error "unknown step '$step' (heldout, train, report, nearest, learn, programs)" ;;
  esac
done
