#!/usr/bin/env bash
#===- compare-builds.sh - Two llvm-ir2vec builds side by side --------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: bench/compare-builds.sh OLD_LLVM_IR2VEC NEW_LLVM_IR2VEC
#
# Whether a change made llvm-ir2vec slower: the two binaries run the same
# commands on the benchmark corpus (bench/build-corpus.sh), in one hyperfine
# run each, so that both see the same machine load:
#   - the whole corpus at func level, default threads and -j 1;
#   - the largest module at func, bb and inst level.
# Then valgrind's callgrind counts the instructions of the largest module at
# each level for both: unlike seconds, the counts do not depend on what else
# the machine is doing. Both binaries' outputs are compared first.
#
# A build of an older commit, for OLD:
#   git worktree add /tmp/irtk-old <commit>
#   cmake -S /tmp/irtk-old -B /tmp/irtk-old/build -G Ninja \
#     -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF
#   ninja -C /tmp/irtk-old/build irtk-llvm-ir2vec
#
#===------------------------------------------------------------------------===#

set -euo pipefail

OLD=${1:?usage: compare-builds.sh OLD_LLVM_IR2VEC NEW_LLVM_IR2VEC}
NEW=${2:?usage: compare-builds.sh OLD_LLVM_IR2VEC NEW_LLVM_IR2VEC}
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=${IRTK_BENCH_WORK:-$BENCH_DIR/work}
LIST=$WORK/corpus.list
VOCAB=$WORK/vocab75.json
RUNS=${RUNS:-10}

log() { printf '[compare %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -s $LIST ]] || die "no corpus at $WORK; run bench/build-corpus.sh"
[[ -s $VOCAB ]] || python3 "$BENCH_DIR/gen_vocab.py" --tool "$NEW" --dim 75 -o "$VOCAB"
command -v hyperfine >/dev/null || die "hyperfine not found (apt-get install hyperfine)"
command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"

BIG=$(xargs -a "$LIST" ls -S | head -1 || true)
log "largest module: $BIG"
OUT=$WORK/compare
mkdir -p "$OUT"

for L in func bb inst; do
  "$OLD" embeddings --ir2vec-vocab-path="$VOCAB" --level=$L "$BIG" >"$OUT/old.$L"
  "$NEW" embeddings --ir2vec-vocab-path="$VOCAB" --level=$L "$BIG" >"$OUT/new.$L"
  cmp -s "$OUT/old.$L" "$OUT/new.$L" || die "outputs differ at $L level"
done
log "outputs identical at func, bb and inst level"

echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $OLD"
echo "new: $NEW"
hyperfine -N -w 1 -r "$RUNS" --export-markdown "$OUT/corpus.md" \
  -n old "$OLD embeddings --ir2vec-vocab-path=$VOCAB --level=func -o /dev/null $(tr '\n' ' ' <"$LIST")" \
  -n new "$NEW embeddings --ir2vec-vocab-path=$VOCAB --level=func -o /dev/null $(tr '\n' ' ' <"$LIST")" \
  -n old-j1 "$OLD embeddings --ir2vec-vocab-path=$VOCAB --level=func -j 1 -o /dev/null $(tr '\n' ' ' <"$LIST")" \
  -n new-j1 "$NEW embeddings --ir2vec-vocab-path=$VOCAB --level=func -j 1 -o /dev/null $(tr '\n' ' ' <"$LIST")" \
  >/dev/null
cat "$OUT/corpus.md"
for L in func bb inst; do
  hyperfine -N -w 1 -r "$RUNS" --export-markdown "$OUT/big-$L.md" \
    -n "old $L" "$OLD embeddings --ir2vec-vocab-path=$VOCAB --level=$L -o /dev/null $BIG" \
    -n "new $L" "$NEW embeddings --ir2vec-vocab-path=$VOCAB --level=$L -o /dev/null $BIG" \
    >/dev/null
  tail -n +3 "$OUT/big-$L.md"
done

echo
echo "| level | old instructions | new instructions | new / old |"
echo "|---|---:|---:|---:|"
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for L in func bb inst; do
  O=$(count "$OLD" embeddings --ir2vec-vocab-path="$VOCAB" --level=$L -o /dev/null "$BIG")
  N=$(count "$NEW" embeddings --ir2vec-vocab-path="$VOCAB" --level=$L -o /dev/null "$BIG")
  echo "| $L | $O | $N | $(python3 -c "print(f'{$N/$O:.4f}')") |"
done
