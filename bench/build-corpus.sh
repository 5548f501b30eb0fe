#!/usr/bin/env bash
#===- build-corpus.sh - Bitcode corpus of real C code for benchmarks -------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: bench/build-corpus.sh [--rebuild]
#
# The benchmark corpus is the `bench` split of vocab/recipe/packages.txt:
# zlib, bzip2, lua5.4, sqlite3 (as its amalgamation, one large module), gzip,
# jq, libyaml, xz-utils and libzstd from Debian's sources, every C file
# compiled with `clang-22 -O2 -c -emit-llvm`. vocab/recipe/build-corpus.sh
# fetches, configures and compiles it; this script only picks the work
# directory and writes the list bench/run.sh reads.
#
# Output: bench/work/bench/ (an MLGO corpus: O2/<package>/<file>.bc, see
# vocab/recipe/build-corpus.sh) and bench/work/corpus.list (the sorted
# absolute paths of its .bc files). Sources stay in bench/work/src/, logs in
# bench/work/logs/. A rerun reuses what is built; --rebuild starts over.
#
# Environment: IRTK_BENCH_WORK (work directory, default bench/work), JOBS
# (parallel compiles, default the number of cores).
#
#===------------------------------------------------------------------------===#

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
WORK=${IRTK_BENCH_WORK:-$BENCH_DIR/work}
LIST=$WORK/corpus.list

# The layout before vocab/recipe/build-corpus.sh (corpus/<package>/*.bc).
if [[ -d $WORK/corpus ]]; then
  echo "[build-corpus] removing the old layout in $WORK (corpus/, logs/)" >&2
  rm -rf "$WORK/corpus" "$WORK/include-lua" "$WORK/jobs.txt" "$WORK/logs"
fi

"$ROOT/vocab/recipe/build-corpus.sh" --work "$WORK" --splits bench \
  --jobs "${JOBS:-$(nproc)}" "$@"

find "$WORK/bench" -name '*.bc' | sort >"$LIST.tmp"
mv "$LIST.tmp" "$LIST"
