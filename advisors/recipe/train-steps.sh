#!/usr/bin/env bash
#===- train-steps.sh - Train on searched steps, choose a margin, validate -===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/train-steps.sh --advisor evict|inline --search DIR
#            --corpus DIR --out DIR --valid-packages P,... [--margins 0,1,...]
#            [--name NAME] [--jobs N] [--plugin SO]
#            [--embedding KIND] [--vocab FILE] [-- FIT-OPTIONS...]
#
# Trains models on the decisions a search labelled (<search>/steps.txt:
# evict-search.py's best of stock and the departures tried at each searched
# decision; search --kind flip's decision that gave the smaller .text),
# leaving out the --valid-packages, then compiles those packages' modules of
# the training corpus (--corpus) with stock and with each model, to choose
# the default margin (output.default_margin: depart from the stock decision
# only when the model prefers another by more) on modules the models never
# saw:
#
#   irtk-train fit --advisor <advisor> --default-margin <m> \
#       --logs-from <the steps of the other packages> FIT-OPTIONS...
#       ->  <out>/models/<name>-m<m>.json
#     (evict: positional models, without evict_default)
#   evict:  python3 -m ir2vec.mlgo collect --advisor evict --corpus <corpus> --out <out>/valid --levels O2
#               --packages <valid> --runs default,<name>-m<m>=...
#           scored by evict.py scores (RegAllocScore) -> <out>/<name>-scores.json
#   inline: python3 -m ir2vec.mlgo collect --corpus <out>/valid-corpus (links to the
#               validation packages' bitcode) --out <out>/valid
#               --runs Oz,<name>-m<m>=...
#           scored by total .text -> <out>/<name>-valid.tsv
#
# Then, with the margin that scored lowest, one more model is fitted on every
# package's steps: <out>/<name>.json, the model to judge on held-out code.
# Resumable: models are refitted (seconds), and the collectors skip what
# they have already compiled with the same flags.
#
# Options:
#   --margins LIST   default margins to try (default 0,1,2,4)
#   --name NAME      model name prefix (default: the advisor's name)
#   --embedding KIND, --vocab FILE
#                    inline: the embedding features the validation compiles
#                    give the models (collect --runs's options), as the
#                    steps' logs were made with
#   FIT-OPTIONS      more irtk-train fit options, e.g. --no-embeddings
#                    --hidden 32,16 --epochs 40
#
#===------------------------------------------------------------------------===#

set -euo pipefail
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE_DIR/../.." && pwd)
RECIPE_NAME=train-steps
# shellcheck source=scripts/recipe-cli.sh
. "$ROOT/scripts/recipe-cli.sh"
TRAIN=${IRTK_TRAIN:-$ROOT/build/bin/irtk-train}
ADVISOR= SEARCH= CORPUS= OUT= VALID= MARGINS=0,1,2,4 NAME= JOBS=$(nproc)
COLLECT=()
PLUGIN=$ROOT/build/lib/IRTKPlugin.so
while (($#)); do
  [[ $1 == -- ]] && { shift; break; }
  next_opt "--advisor --search --corpus --out --valid-packages --margins --name --jobs --plugin --embedding --vocab" "$@"
  shift "$NSHIFT"
  case $OPT in
  --advisor) ADVISOR=$VAL ;;
  --search) SEARCH=$VAL ;;
  --corpus) CORPUS=$VAL ;;
  --out) OUT=$VAL ;;
  --valid-packages) VALID=$VAL ;;
  --margins) MARGINS=$VAL ;;
  --name) NAME=$VAL ;;
  --jobs) JOBS=$VAL ;;
  --plugin) PLUGIN=$VAL ;;
  --embedding | --vocab) COLLECT+=("$OPT" "$VAL") ;;
  -h | --help) usage; exit 0 ;;
  *) usage_error "unknown option '$OPT'" ;;
  esac
done
FIT=("$@")
case $ADVISOR in
evict) FIT=(--positional --exclude evict_default "${FIT[@]}") STOCK=default ;;
inline) STOCK=Oz ;;
*) usage_error "--advisor must be evict or inline" ;;
esac
NAME=${NAME:-$ADVISOR}
[[ $ADVISOR == inline || ${#COLLECT[@]} -eq 0 ]] ||
  usage_error "--embedding and --vocab are for --advisor inline"
[[ -n $SEARCH && -n $CORPUS && -n $OUT && -n $VALID ]] ||
  usage_error "--search, --corpus, --out and --valid-packages are required"
[[ -s $SEARCH/steps.txt ]] || die "$SEARCH/steps.txt: missing (run $ADVISOR-search.py)"
[[ -s $CORPUS/corpus_description.json ]] || die "$CORPUS: no corpus_description.json"
[[ -x $TRAIN ]] || die "$TRAIN: no irtk-train; build it first"
want_positive --jobs "$JOBS"
mkdir -p "$OUT/models"
use_mlgo /usr/bin/python3 "$ROOT"

# The steps of every package but the validation ones (a step's log is
# steps/<level>/<package>/<module>.log); for the inliner, the validation
# packages' modules as a corpus of their own (links to the bitcode).
/usr/bin/python3 - "$SEARCH/steps.txt" "$VALID" "$CORPUS" "$OUT" "$NAME" "$ADVISOR" <<'PY'
import json, os, sys
steps, valid, corpus, out, name, advisor = sys.argv[1:7]
valid = set(valid.split(","))
def package(path):
    return path.split("/")[-2]
# Absolute: irtk-train reads a relative path against the list's directory,
# and this list is not in the search's.
with open(f"{out}/{name}-fit.txt", "w") as f:
    for line in open(steps):
        line = line.strip()
        if line and package(line) not in valid:
            f.write(os.path.join(os.path.dirname(os.path.abspath(steps)), line)
                    + "\n")
if advisor == "inline":
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

RUNS=$STOCK NAMES=$STOCK
IFS=, read -ra MS <<<"$MARGINS"
for M in "${MS[@]}"; do
  MODEL=$OUT/models/$NAME-m$M.json
  "$TRAIN" fit --advisor "$ADVISOR" --default-margin "$M" \
    --logs-from "$OUT/$NAME-fit.txt" --quiet -o "$MODEL" "${FIT[@]}"
  RUNS+=",$NAME-m$M=$MODEL" NAMES+=",$NAME-m$M"
done

# Each run's total score over the modules every run compiled (lower is
# better): RegAllocScore for the eviction advisor, .text for the inliner.
if [[ $ADVISOR == evict ]]; then
  /usr/bin/python3 -m ir2vec.mlgo collect --advisor evict --corpus "$CORPUS" \
    --out "$OUT/valid" --levels O2 --packages "$VALID" --runs "$RUNS" \
    --workers "$JOBS" --plugin "$PLUGIN" >&2
  /usr/bin/python3 "$RECIPE_DIR/evict.py" scores "$OUT/valid" --runs "$NAMES" |
    tee "$OUT/$NAME-scores.json"
  TOTALS=$(/usr/bin/python3 -c '
import json, sys
for run, r in json.load(open(sys.argv[1]))["runs"].items():
    print(run, r["score"])' "$OUT/$NAME-scores.json")
else
  /usr/bin/python3 -m ir2vec.mlgo collect --corpus "$OUT/valid-corpus" \
    --out "$OUT/valid" --runs "$RUNS" --workers "$JOBS" --plugin "$PLUGIN" \
    "${COLLECT[@]}" >&2
  TOTALS=$(/usr/bin/python3 - "$RECIPE_DIR" "$OUT/valid" "$NAMES" "$OUT/$NAME-valid.tsv" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import recipelib
data, names, tsv = sys.argv[2], sys.argv[3].split(","), sys.argv[4]
common = recipelib.collected_text(data, names)
if not common:
    sys.exit("train-steps.sh: no module was compiled by every run "
             f"(see the failed records under {data})")
total = {r: sum(t[r] for t in common.values()) for r in names}
recipelib.write_file(tsv, "run\tmodules\ttext\tvs Oz\n" + "".join(
    f"{r}\t{len(common)}\t{total[r]}\t{100 * (total[r] / total['Oz'] - 1):+.3f}%\n"
    for r in names))
sys.stderr.write(open(tsv).read())
for r in names:
    print(r, total[r])
PY
)
fi

BEST=$(printf '%s\n' "$TOTALS" | awk -v p="$NAME-m" -v s="$STOCK" '
  $1 != s && (best == "" || $2 < min) { best = $1; min = $2 }
  END { if (best == "") exit 1; print substr(best, length(p) + 1) }') ||
  die "no model run was scored"
log "margin $BEST scored lowest on $VALID; fitting $OUT/$NAME.json on every package"
"$TRAIN" fit --advisor "$ADVISOR" --default-margin "$BEST" \
  --logs-from "$SEARCH/steps.txt" --quiet -o "$OUT/$NAME.json" "${FIT[@]}"
