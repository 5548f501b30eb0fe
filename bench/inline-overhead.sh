#!/usr/bin/env bash
#===- inline-overhead.sh - Compile-time cost of the inline advisor --------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: bench/inline-overhead.sh --corpus DIR --out DIR [--sample N]
#            [--model FILE] [--configs LIST] [--jobs N] [--plugin SO]
#
# Counts the instructions clang-22 executes to compile modules of an MLGO
# corpus of pre-optimisation bitcode (vocab/recipe/build-corpus.sh's
# inline-train / inline-heldout splits) to objects, stock and with the
# inline advisor, with `valgrind --tool=callgrind` (deterministic whatever
# else the machine runs; wall-clock time on a shared machine is not). The
# configurations (--configs, comma-separated; default all):
#
#   Oz-stock      clang-22 -Oz -c m.bc
#   Oz-default    ... -fpass-plugin -irtk-inline-policy=default
#                     -irtk-inline-log=<tmp> (logging, symbolic embeddings)
#   Oz-noemb      the same with -irtk-inline-embedding=none
#   Oz-model      ... -irtk-inline-policy=model -irtk-inline-model=<--model>
#   O2-stock, O2-default, O2-model   the same at -O2
#
# The sample is every k-th module of the corpus in name order, k chosen to
# give --sample modules (default 24). Results: <out>/<config>/<module>.count
# (one number), reused by a rerun (resumable; delete <out> to start over);
# the table of totals and ratios against stock goes to standard output and
# <out>/summary.md.
#
#===------------------------------------------------------------------------===#

set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
# shellcheck source=bench/overhead-lib.sh
. "$BENCH_DIR/overhead-lib.sh"
CLANG=${CLANG:-clang-22}
CORPUS= OUT= SAMPLE=24 MODEL= JOBS=2
CONFIGS=Oz-stock,Oz-default,Oz-noemb,Oz-model,O2-stock,O2-default,O2-model
PLUGIN=$ROOT/build/lib/IRTKPlugin.so
while (($#)); do
  case $1 in
  --corpus) CORPUS=$2; shift 2 ;;
  --out) OUT=$2; shift 2 ;;
  --sample) SAMPLE=$2; shift 2 ;;
  --model) MODEL=$2; shift 2 ;;
  --configs) CONFIGS=$2; shift 2 ;;
  --jobs) JOBS=$2; shift 2 ;;
  --plugin) PLUGIN=$2; shift 2 ;;
  *) echo "usage: see the header of $0" >&2; exit 2 ;;
  esac
done
overhead_check
if [[ ,$CONFIGS, == *-model,* && ! -s $MODEL ]]; then
  echo "$0: the -model configurations need --model FILE" >&2
  exit 2
fi
overhead_sample

flags_of() { # config
  local P="-fpass-plugin=$PLUGIN -mllvm -irtk-inline-policy"
  case $1 in
  *-stock) echo "" ;;
  *-default) echo "$P=default -mllvm -irtk-inline-log=LOG" ;;
  *-noemb) echo "$P=default -mllvm -irtk-inline-log=LOG -mllvm -irtk-inline-embedding=none" ;;
  *-model) echo "$P=model -mllvm -irtk-inline-model=$MODEL" ;;
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
  callgrind_count "$R" "$CLANG" "-${C%%-*}" -c "$CORPUS/$M.bc" -o "$T/m.o" $F
  rm -rf "$T"
}
export -f measure flags_of callgrind_count
export OUT CORPUS PLUGIN MODEL CLANG

overhead_run
