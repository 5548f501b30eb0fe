#!/usr/bin/env bash
#===- mir-cost.sh - MIR2Vec embedding cost against parsing the .mir -------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: bench/mir-cost.sh [RUNS]
#
# The largest module of the benchmark corpus (bench/build-corpus.sh),
# lowered by upstream's llc for X86-64 and stopped after instruction
# selection, embedded by our llvm-ir2vec --mode=mir at func, bb and inst
# level with a random 75-d MIR vocabulary, against reading the file alone:
# upstream's `llvm-ir2vec entities --mode=mir`, which parses the file (the
# MIR parser verifies every machine function) and prints the entity list.
# One hyperfine run; the table goes to bench/work/mir-cost.md.
#
#===------------------------------------------------------------------------===#

set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
WORK=${IRTK_BENCH_WORK:-$BENCH_DIR/work}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
OURS=${IRTK_LLVM_IR2VEC:-$ROOT/build/bin/llvm-ir2vec}
RUNS=${1:-5}

[[ -s $WORK/corpus.list ]] || "$BENCH_DIR/build-corpus.sh"
BIG=$(xargs -a "$WORK/corpus.list" ls -S | head -1 || true)
MIR=$WORK/$(basename "$BIG" .bc).x86_64.mir
if [[ ! -s $MIR ]]; then
  "$LLVM_BIN/llc" -O2 -mtriple=x86_64-unknown-linux-gnu \
    -stop-after=finalize-isel "$BIG" -o "$MIR.tmp"
  mv "$MIR.tmp" "$MIR"
fi
VOCAB=$WORK/mir-vocab75.json
if [[ ! -s $VOCAB ]]; then
  "$OURS" entities --mode=mir --mtriple=x86_64-unknown-linux-gnu |
    python3 -c '
import json, random, sys
random.seed(75)
common = {"Immediate", "CImmediate", "FPImmediate", "MBB", "FrameIndex",
          "ConstantPoolIndex", "TargetIndex", "JumpTableIndex",
          "ExternalSymbol", "GlobalAddress", "BlockAddress", "RegisterMask",
          "RegisterLiveOut", "Metadata", "MCSymbol", "CFIIndex",
          "IntrinsicID", "Predicate", "ShuffleMask", "LaneMask"}
secs = {"Opcodes": {}, "CommonOperands": {}, "PhysicalRegisters": {},
        "VirtualRegisters": {}}
for line in sys.stdin.read().splitlines()[1:]:
    name = line.split("\t")[0]
    v = [round(random.uniform(-1, 1), 6) for _ in range(75)]
    if name.startswith("PhyReg_"):
        secs["PhysicalRegisters"][name[7:]] = v
    elif name.startswith("VirtReg_"):
        secs["VirtualRegisters"][name[8:]] = v
    elif name in common:
        secs["CommonOperands"][name] = v
    else:
        secs["Opcodes"][name] = v
json.dump(secs, sys.stdout)
' >"$VOCAB"
fi

echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg); $MIR ($(stat -c %s "$MIR") bytes)"
hyperfine -N -w 1 -r "$RUNS" --export-markdown "$WORK/mir-cost.md" \
  -n parse "$LLVM_BIN/llvm-ir2vec entities --mode=mir $MIR -o /dev/null" \
  -n func "$OURS embeddings --mode=mir --mir2vec-vocab-path=$VOCAB --level=func $MIR -o /dev/null" \
  -n bb "$OURS embeddings --mode=mir --mir2vec-vocab-path=$VOCAB --level=bb $MIR -o /dev/null" \
  -n inst "$OURS embeddings --mode=mir --mir2vec-vocab-path=$VOCAB --level=inst $MIR -o /dev/null" \
  >/dev/null
cat "$WORK/mir-cost.md"
