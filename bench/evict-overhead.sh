#!/usr/bin/env bash
#===- evict-overhead.sh - Compile-time cost of the eviction advisor -------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: bench/evict-overhead.sh --corpus DIR --out DIR [--level O2]
#            [--sample N] [--model FILE] [--configs LIST] [--jobs N]
#            [--plugin SO]
#
# Counts the instructions `llc -O2 -filetype=obj` executes on modules of an
# MLGO corpus of optimised bitcode (the --level directory of
# vocab/recipe/build-corpus.sh's train or heldout split), stock and with the
# eviction advisor, with `valgrind --tool=callgrind` (deterministic whatever
# else the machine runs). The configurations (--configs; default all):
#
#   stock     llc -O2
#   default   -irtk-evict-policy=default -irtk-evict-log=<tmp> (logging, and
#             the MIR2Vec features)
#   noemb     the same with -irtk-evict-embeddings=false
#   model     -irtk-evict-policy=model -irtk-evict-model=<--model>
#
# The sample is every k-th module of the level in name order, k chosen to
# give --sample modules (default 24). Results: <out>/<config>/<module>.count,
# reused by a rerun; the table of totals and ratios against stock goes to
# standard output and <out>/summary.md.
#
#===------------------------------------------------------------------------===#

set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
# shellcheck source=bench/overhead-lib.sh
. "$BENCH_DIR/overhead-lib.sh"
LLC=${LLC:-/usr/lib/llvm-22/bin/llc}
CORPUS= OUT= LEVEL=O2 SAMPLE=24 MODEL= JOBS=2 CONFIGS=stock,default,noemb,model
PLUGIN=$ROOT/build/lib/IRTKPlugin.so
while (($#)); do
  case $1 in
  --corpus) CORPUS=$2; shift 2 ;;
  --out) OUT=$2; shift 2 ;;
  --level) LEVEL=$2; shift 2 ;;
  --sample) SAMPLE=$2; shift 2 ;;
  --model) MODEL=$2; shift 2 ;;
  --configs) CONFIGS=$2; shift 2 ;;
  --jobs) JOBS=$2; shift 2 ;;
  --plugin) PLUGIN=$2; shift 2 ;;
  *) echo "usage: see the header of $0" >&2; exit 2 ;;
  esac
done
overhead_check
if [[ ,$CONFIGS, == *,model,* && ! -s $MODEL ]]; then
  echo "$0: the model configuration needs --model FILE" >&2
  exit 2
fi
overhead_sample "$LEVEL"

flags_of() { # config
  local P="-load-pass-plugin=$PLUGIN -irtk-evict-policy"
  case $1 in
  stock) echo "" ;;
  default) echo "$P=default -irtk-evict-log=LOG" ;;
  noemb) echo "$P=default -irtk-evict-log=LOG -irtk-evict-embeddings=false" ;;
  model) echo "$P=model -irtk-evict-model=$MODEL" ;;
  esac
}

measure() { # config module
  local C=$1 M=$2 R=$OUT/$1/$2.count
  [[ -s $R ]] && return 0
  mkdir -p "$(dirname "$R")"
  local T F
  T=$(mktemp -d)
  F=$(flags_of "$C")
  F=${F//LOG/$T/log}
  # shellcheck disable=SC2086
  callgrind_count "$R" "$LLC" -O2 -filetype=obj "$CORPUS/$M.bc" -o "$T/m.o" $F
  rm -rf "$T"
}
export -f measure flags_of callgrind_count
export OUT CORPUS PLUGIN MODEL LLC

overhead_run
