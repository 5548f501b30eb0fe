#!/usr/bin/env bash
#===- similarity-throughput.sh - Store and similarity-search benchmarks ---===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: bench/similarity-throughput.sh [--runs N]
#
#  1. irtk-bench-similarity (bench/similarity-throughput.cpp): a synthetic
#     1,000,000 x 75 float32 store in bench/work/sim-1m (random, fixed seed;
#     made once), then, in one process with the matrix in memory, streaming
#     the matrix vs one top-10 query vs a batch of 1000 queries, on 1 and on
#     all threads (median of N runs, default 11).
#  2. irtk-similarity end to end on that store (process start, opening and
#     mapping the store, the query, the output), with hyperfine.
#  3. Storing the benchmark corpus (bench/work/corpus.list, made by
#     bench/build-corpus.sh; bench/run.sh builds it) with --format=npy
#     against --format=jsonl, with hyperfine.
# The report is printed and written to bench/work/similarity-results.txt.
#
# Environment:
#   IRTK_BUILD       build directory (default: build), built with ninja
#   IRTK_BENCH_WORK  work directory (default: bench/work)
#
#===------------------------------------------------------------------------===#

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
BUILD=${IRTK_BUILD:-$ROOT/build}
WORK=${IRTK_BENCH_WORK:-$BENCH_DIR/work}
RUNS=11
if [[ ${1:-} == --runs ]]; then RUNS=$2; fi

# Median and minimum of each command of a hyperfine JSON export.
medians() {
  python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command'][:60]:60}  median {r['median']:.3f} s  min {r['min']:.3f} s")
PY
}

log() { printf '[similarity %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

command -v hyperfine >/dev/null || die "hyperfine not found (apt-get install hyperfine)"
[[ -c /dev/null ]] || die "/dev/null is not a character device"
mkdir -p "$WORK"
log "building in $BUILD"
ninja -C "$BUILD" irtk-bench-similarity irtk-similarity irtk-llvm-ir2vec >/dev/null ||
  die "cannot build"
BIN=$BUILD/bin
OUT=$WORK/similarity-results.txt
exec > >(tee "$OUT")

echo "# similarity-throughput, $(date -u +%FT%TZ), $(nproc) cores,"\
  "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo '$' "$BIN/irtk-bench-similarity $WORK/sim-1m --runs $RUNS"
"$BIN/irtk-bench-similarity" "$WORK/sim-1m" --runs "$RUNS"
echo

Q="$BIN/irtk-similarity topk --store $WORK/sim-1m --row 0 -k 10"
hyperfine -N --style basic --warmup 2 --runs "$RUNS" \
  --export-json "$WORK/similarity-cli.json" \
  -n "topk, cosine" "$Q" -n "topk, euclidean" "$Q --metric euclidean" \
  >/dev/null
echo "irtk-similarity end to end ($Q [--metric euclidean]):"
medians "$WORK/similarity-cli.json"
echo

LIST=$WORK/corpus.list
VOCAB=$WORK/vocab75.json
if [[ -s $LIST && -s $VOCAB ]]; then
  INPUTS=$(tr '\n' ' ' <"$LIST")
  E="$BIN/llvm-ir2vec embeddings --vocab=$VOCAB"
  hyperfine -N --style basic --warmup 1 --runs "$RUNS" \
    --export-json "$WORK/similarity-store.json" \
    -n "store, npy" "$E --format=npy -o $WORK/corpus-store $INPUTS" \
    -n "store, jsonl" "$E --format=jsonl -o $WORK/corpus.jsonl $INPUTS" \
    -n "text to /dev/null" "$E -o /dev/null $INPUTS" >/dev/null
  echo "storing the corpus ($E --format=F -o OUT \$(cat $LIST)):"
  medians "$WORK/similarity-store.json"
  echo "sizes: $(du -sb "$WORK/corpus-store" | cut -f1) bytes store" \
    "($(stat -c %s "$WORK/corpus-store/embeddings.npy") npy)," \
    "$(stat -c %s "$WORK/corpus.jsonl") bytes jsonl"
else
  log "no corpus in $WORK (run bench/run.sh once); skipping the store timing"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
