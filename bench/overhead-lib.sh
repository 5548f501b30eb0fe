#!/usr/bin/env bash
#===- overhead-lib.sh - What the advisors' overhead benchmarks share ------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Sourced by bench/inline-overhead.sh and bench/evict-overhead.sh.
#
#===------------------------------------------------------------------------===#

# overhead_check: checks the options both benchmarks share (CORPUS, OUT,
# PLUGIN) and that valgrind is there.
overhead_check() {
  [[ -n $CORPUS && -n $OUT ]] || { echo "$0: --corpus and --out are required" >&2; exit 2; }
  [[ -s $CORPUS/corpus_description.json ]] || { echo "$0: $CORPUS: no corpus_description.json" >&2; exit 1; }
  [[ -f $PLUGIN ]] || { echo "$0: $PLUGIN: no plugin (build it first)" >&2; exit 1; }
  command -v valgrind >/dev/null || { echo "$0: valgrind is needed" >&2; exit 1; }
}

# overhead_sample [LEVEL]: makes OUT and writes OUT/sample.list: SAMPLE
# modules of the corpus (of level LEVEL only, if given), every k-th in name
# order.
overhead_sample() {
  mkdir -p "$OUT"
  /usr/bin/python3 - "$CORPUS" "$SAMPLE" "${1:-}" >"$OUT/sample.list" <<'PY'
import json, sys
corpus, n, level = sys.argv[1], int(sys.argv[2]), sys.argv[3]
mods = sorted(m for m in json.load(open(f"{corpus}/corpus_description.json"))["modules"]
              if not level or m.split("/")[0] == level)
k = max(1, len(mods) // n)
print("\n".join(mods[::k][:n]))
PY
}

# overhead_run: runs the caller's measure function (exported, with
# callgrind_count) for every configuration of CONFIGS and module of the
# sample, JOBS at a time, then prints the summary.
overhead_run() {
  local CFG C M
  IFS=, read -ra CFG <<<"$CONFIGS"
  for C in "${CFG[@]}"; do
    while read -r M; do printf '%s\t%s\n' "$C" "$M"; done <"$OUT/sample.list"
  done | xargs -P "$JOBS" -L 1 bash -c 'measure "$0" "$1"'
  overhead_summary "$OUT" "$CONFIGS"
}

# callgrind_count RESULT COMMAND...: runs COMMAND under
# `valgrind --tool=callgrind` and writes the number of instructions it
# executed to RESULT (atomically); on failure, says so on stderr.
callgrind_count() {
  local R=$1
  shift
  local T
  T=$(mktemp -d)
  if valgrind --tool=callgrind --callgrind-out-file="$T/cg" "$@" 2>"$T/err"; then
    grep -o 'Collected : [0-9]*' "$T/err" | awk '{print $3}' >"$R.tmp"
    mv "$R.tmp" "$R"
  else
    echo "$(basename "$0"): failed: $*" >&2
    tail -3 "$T/err" >&2
  fi
  rm -rf "$T"
}

# overhead_summary OUT CONFIGS: the table of totals over <OUT>/sample.list
# and each configuration's ratio to its stock one (<level>-stock for
# <level>-<name>, else stock), to stdout and <OUT>/summary.md.
overhead_summary() {
  /usr/bin/python3 - "$1" "$2" <<'PY' | tee "$1/summary.md"
import os, sys
out, configs = sys.argv[1], sys.argv[2].split(",")
mods = open(f"{out}/sample.list").read().split()
def count(c, m):
    p = f"{out}/{c}/{m}.count"
    return int(open(p).read()) if os.path.exists(p) else None
print("| configuration | modules | instructions (G) | vs stock |")
print("|---|---|---|---|")
for c in configs:
    base = c.split("-")[0] + "-stock" if "-" in c else "stock"
    both = [m for m in mods if count(c, m) is not None and count(base, m) is not None]
    tot = sum(count(c, m) for m in both)
    ref = sum(count(base, m) for m in both)
    ratio = f"{100 * (tot / ref - 1):+.2f}%" if ref and c != base else "-"
    print(f"| {c} | {len(both)} | {tot / 1e9:.3f} | {ratio} |")
PY
}
