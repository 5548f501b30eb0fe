#!/usr/bin/env bash
#===- inline-steps.sh - Train on flipped steps, choose a margin, validate -===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/inline-steps.sh --search DIR --corpus DIR --out DIR
#            --valid-packages P,... [--margins 0,1,...] [--name NAME]
#            [--jobs N] [--plugin SO] [-- FIT-OPTIONS...]
#
# Trains inline models on the decisions inline-search.py labelled
# (<search>/steps.txt: each searched decision labelled with the one that
# gave the smaller .text), leaving out the --valid-packages, then compiles
# those packages' modules of the corpus (the inline-train split, --corpus)
# as collect-inline.sh does, with stock -Oz and with each model, to choose
# the default margin (output.default_margin: depart from -Oz's decision
# only when the logit is beyond it) on modules the models never saw:
#
#   irtk-train fit --advisor inline --default-margin <m> \
#       --logs-from <the steps of the other packages> FIT-OPTIONS...
#       ->  <out>/models/<name>-m<m>.json
#   collect-inline.sh --corpus <out>/valid-corpus --out <out>/valid \
#       --runs Oz,<name>-m<m>=...
#
# The total .text per run over the modules every run compiled goes to
# standard output and <out>/<name>-valid.tsv; then, with the margin that
# gave the smallest total, one more model is fitted on every package's
# steps: <out>/<name>.json, the model to judge on held-out code.
# Resumable: models are refitted (seconds), and collect-inline.sh skips
# what it has already compiled with the same flags.
#
# Options:
#   --margins LIST   default margins to try (default 0,1,2,4)
#   --name NAME      model name prefix (default flip)
#   FIT-OPTIONS      more irtk-train fit options, e.g. --no-embeddings
#                    --hidden 32,16 --epochs 40
#
#===------------------------------------------------------------------------===#

set -euo pipefail
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE_DIR/../.." && pwd)
RECIPE_NAME=inline-steps
# shellcheck source=scripts/recipe-cli.sh
. "$ROOT/scripts/recipe-cli.sh"
TRAIN=${IRTK_TRAIN:-$ROOT/build/bin/irtk-train}
SEARCH= CORPUS= OUT= VALID= MARGINS=0,1,2,4 NAME=flip JOBS=$(nproc)
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
[[ -s $SEARCH/steps.txt ]] || die "$SEARCH/steps.txt: missing (run inline-search.py)"
[[ -s $CORPUS/corpus_description.json ]] || die "$CORPUS: no corpus_description.json"
[[ -x $TRAIN ]] || die "$TRAIN: no irtk-train; build it first"
want_positive --jobs "$JOBS"
mkdir -p "$OUT/models"

# The steps of every package but the validation ones; the validation
# packages' modules as a corpus of their own (links to the bitcode).
/usr/bin/python3 - "$SEARCH/steps.txt" "$VALID" "$CORPUS" "$OUT" "$NAME" <<'PY'
import json, os, sys
steps, valid, corpus, out, name = sys.argv[1:6]
valid = set(valid.split(","))
def package(module):
    return module.split("/")[-2]
with open(f"{out}/{name}-fit.txt", "w") as f:
    for line in open(steps):
        line = line.strip()
        if line and package(line) not in valid:
            f.write(line + "\n")
mods = [m for m in json.load(open(f"{corpus}/corpus_description.json"))["modules"]
        if package(m) in valid]
vc = f"{out}/valid-corpus"
for m in mods:
    link = f"{vc}/{m}.bc"
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if not os.path.lexists(link):
        os.symlink(os.path.abspath(f"{corpus}/{m}.bc"), link)
with open(f"{vc}/corpus_description.json", "w") as f:
    json.dump({"modules": mods}, f)
PY
[[ -s $OUT/$NAME-fit.txt ]] || die "no training steps left outside $VALID"
log "$(wc -l <"$OUT/$NAME-fit.txt") modules' steps to fit"

RUNS=Oz NAMES=Oz
IFS=, read -ra MS <<<"$MARGINS"
for M in "${MS[@]}"; do
  MODEL=$OUT/models/$NAME-m$M.json
  "$TRAIN" fit --advisor inline --default-margin "$M" \
    --logs-from "$OUT/$NAME-fit.txt" --quiet -o "$MODEL" "${FIT[@]}"
  RUNS+=",$NAME-m$M=$MODEL" NAMES+=",$NAME-m$M"
done

"$RECIPE_DIR/collect-inline.sh" --corpus "$OUT/valid-corpus" \
  --out "$OUT/valid" --runs "$RUNS" --jobs "$JOBS" --plugin "$PLUGIN"

BEST=$(/usr/bin/python3 - "$OUT/valid" "$NAMES" "$NAME" "$OUT/$NAME-valid.tsv" <<'PY'
import os, sys
data, names, name, tsv = sys.argv[1], sys.argv[2].split(","), sys.argv[3], sys.argv[4]
def sizes(run):
    out = {}
    root = os.path.join(data, run)
    for d, _, files in os.walk(root):
        for fn in files:
            if fn.endswith(".txt"):
                f = dict(l.rstrip("\n").split("\t", 1)[:2] for l in open(os.path.join(d, fn)) if "\t" in l)
                if f.get("status") == "ok":
                    out[os.path.relpath(os.path.join(d, fn), root)] = int(f["text"])
    return out
s = {r: sizes(r) for r in names}
common = set.intersection(*(set(v) for v in s.values()))
if not common:
    sys.exit("inline-steps.sh: no module was compiled by every run "
             f"(see the failed records under {data})")
total = {r: sum(s[r][m] for m in common) for r in names}
with open(tsv, "w") as f:
    f.write(f"run\tmodules\ttext\tvs Oz\n")
    for r in names:
        f.write(f"{r}\t{len(common)}\t{total[r]}\t{100 * (total[r] / total['Oz'] - 1):+.3f}%\n")
sys.stderr.write(open(tsv).read())
best = min((r for r in names if r != "Oz"), key=lambda r: total[r])
print(best[len(name) + 2:])
PY
)
log "margin $BEST gave the smallest .text on $VALID; fitting $OUT/$NAME.json on every package"
"$TRAIN" fit --advisor inline --default-margin "$BEST" \
  --logs-from "$SEARCH/steps.txt" --quiet -o "$OUT/$NAME.json" "${FIT[@]}"
