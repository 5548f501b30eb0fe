#!/usr/bin/env bash
#===- approx-search.sh - Approximate indexes: recall, speed, memory ------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: bench/approx-search.sh --corpus DIR [--work DIR] [--rows N]
#            [--queries Q] [--kinds LIST] [--threads T]
#
# The issue 26 benchmark. A store of real function embeddings (llvm-ir2vec
# over every .bc of --corpus, e.g. the inline-train split of
# vocab/recipe/build-corpus.sh), then a store of --rows rows (default
# 10,000,000) made from it by perturbation (irtk-bench-approx make: a random
# real row plus 5% noise), then per kind (--kinds, default
# ivf-flat,ivf-pq,hnsw): the index built by irtk-similarity index, timed
# with its peak memory (/usr/bin/time), and queried at several settings
# against the exact search (irtk-bench-approx query: queries per second,
# recall@10). Everything is kept in --work (default bench/work/approx) and
# reused by a rerun; the tables go to standard output and
# <work>/summary.md.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
BUILD=${IRTK_BUILD:-$ROOT/build}
CORPUS= WORK=$BENCH_DIR/work/approx ROWS=10000000 QUERIES=1000
KINDS=ivf-flat,ivf-pq,hnsw THREADS=0
while (($#)); do
  case $1 in
  --corpus) CORPUS=$2; shift 2 ;;
  --work) WORK=$2; shift 2 ;;
  --rows) ROWS=$2; shift 2 ;;
  --queries) QUERIES=$2; shift 2 ;;
  --kinds) KINDS=$2; shift 2 ;;
  --threads) THREADS=$2; shift 2 ;;
  *) echo "usage: see the header of $0" >&2; exit 2 ;;
  esac
done
[[ -n $CORPUS ]] || { echo "$0: --corpus DIR is required" >&2; exit 2; }
cmake --build "$BUILD" --target irtk-bench-approx irtk-similarity llvm-ir2vec >/dev/null
mkdir -p "$WORK"
log() { echo "[approx $(date +%H:%M:%S)] $*" >&2; }

if [[ ! -s $WORK/real/store.json ]]; then
  log "embedding the functions of $CORPUS"
  find "$CORPUS" -name '*.bc' | sort >"$WORK/real.list"
  "$BUILD/bin/llvm-ir2vec" embeddings --level=func --format=npy \
    -o "$WORK/real" "@$WORK/real.list" >/dev/null
fi
STORE=$WORK/store-$ROWS
if [[ ! -s $STORE/store.json ]]; then
  log "making $STORE"
  "$BUILD/bin/irtk-bench-approx" make --source "$WORK/real" --rows "$ROWS" -o "$STORE"
fi

{
  echo "store: $ROWS rows of $(grep -o '"dimension": [0-9]*' "$STORE/store.json"), from $(grep -o '"count": [0-9]*' "$WORK/real/store.json") real function embeddings; $QUERIES queries; threads: ${THREADS/#0/all}"
  echo
  "$BUILD/bin/irtk-bench-approx" query --store "$STORE" --queries "$QUERIES" --threads "$THREADS"
  echo
  echo "| kind | build (s) | build peak memory (MB) |"
  echo "|---|---:|---:|"
  IFS=, read -ra KIND_LIST <<<"$KINDS"
  for K in "${KIND_LIST[@]}"; do
    I=$STORE/approx-$K-cosine.index
    if [[ ! -s $I ]]; then
      log "building $I"
      /usr/bin/time -f '%e %M' -o "$WORK/$K.time" \
        "$BUILD/bin/irtk-similarity" index --store "$STORE" --kind "$K" -j "$THREADS" >"$WORK/$K.out"
    fi
    read -r SECS KB <"$WORK/$K.time"
    echo "| $K | $SECS | $((KB / 1024)) |"
  done
  echo
  echo "| kind | lists | PQ bytes | setting | queries/s | vs exact | recall@10 | index / vectors |"
  echo "|---|---:|---:|---|---:|---:|---:|---:|"
  for K in "${KIND_LIST[@]}"; do
    log "querying $K"
    "$BUILD/bin/irtk-bench-approx" query --store "$STORE" --queries "$QUERIES" \
      --threads "$THREADS" --index "$STORE/approx-$K-cosine.index" 2>/dev/null | grep '^|'
  done
} | tee "$WORK/summary.md"
