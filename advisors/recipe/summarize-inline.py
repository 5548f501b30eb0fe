#!/usr/bin/env python3
# ===- summarize-inline.py - .text of inlining policies, side by side -----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Totals of native .text per run of advisors/recipe/collect-inline.sh.

  summarize-inline.py --data DIR --baselines Oz,thr0,... [--runs v1,v2]

Prints a markdown table over the modules every listed run compiled: total
.text per run, its change against Oz, how many modules it is smallest on
(ties included), and the per-module oracle of the baselines (the smallest
baseline per module) and of baselines plus runs, with per-package totals
when --packages is given.
"""

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

train = import_module("train-inline")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--baselines", required=True)
    p.add_argument("--runs", default="")
    p.add_argument("--packages", action="store_true")
    a = p.parse_args()
    baselines = a.baselines.split(",")
    runs = [r for r in a.runs.split(",") if r]
    allruns = baselines + runs
    table = train.sizes(a.data, allruns)
    if not table or "Oz" not in baselines:
        sys.exit("no module compiled by every run (and Oz must be a baseline)")
    oz = sum(r["Oz"] for r in table.values())
    print(f"{len(table)} modules compiled by every run; .text bytes:\n")
    print("| run | .text | vs Oz | smallest on |")
    print("|---|---:|---:|---:|")
    for run in allruns:
        tot = sum(r[run] for r in table.values())
        best = sum(1 for r in table.values()
                   if r[run] == min(r[x] for x in allruns))
        print(f"| {run} | {tot} | {100 * (tot / oz - 1):+.2f}% | {best} |")
    for name, among in (("oracle of the baselines", baselines),
                        ("oracle of all runs", allruns)):
        tot = sum(min(r[x] for x in among) for r in table.values())
        print(f"| {name} | {tot} | {100 * (tot / oz - 1):+.2f}% | |")
    if a.packages:
        print("\n| package | modules | " + " | ".join(allruns) + " |")
        print("|---|---:|" + "---:|" * len(allruns))
        per = collections.defaultdict(list)
        for m, r in table.items():
            per[m.split("/")[-2]].append(r)
        for pkg in sorted(per):
            rows = per[pkg]
            o = sum(r["Oz"] for r in rows)
            cells = [f"{100 * (sum(r[x] for r in rows) / o - 1):+.2f}%"
                     for x in allruns]
            print(f"| {pkg} | {len(rows)} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
