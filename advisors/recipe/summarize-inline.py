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
                      [--packages] [--linked]

Prints a markdown table over the modules every listed run compiled: total
.text per run, its change against Oz, how many modules it is smallest on
(ties included), and the per-module oracle of the baselines (the smallest
baseline per module) and of baselines plus runs, with per-package totals
when --packages is given.

--linked adds what the linker keeps: per package, the run's objects of
those modules linked together (`ld -r`, ir2vec.mlgo.objective: one copy of
each C++ inline function or template instance that several objects
carry), summed over the packages; the oracles link each module's smallest
object. The per-package table then shows linked sizes, and a last line
counts the packages where each run is smaller than Oz. Linked sizes are
kept in DIR/linked/ and reused while the objects are unchanged.
"""

import argparse
import collections
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

train = import_module("train-inline")
recipelib = import_module("recipelib")


def package_of(module):
    return module.split("/")[-2]


def linked(data, name, objects):
    """The linked .text of `objects` (ld -r), kept in
    data/linked/<name>.txt with a key of the objects' paths, sizes and
    times, and reused while the key matches."""
    key = hashlib.sha256()
    for o in objects:
        st = os.stat(o)
        key.update(f"{o}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    key = key.hexdigest()
    path = os.path.join(data, "linked", name + ".txt")
    if os.path.exists(path):
        with open(path) as f:
            old = f.read().split()
        if len(old) == 2 and old[0] == key:
            return int(old[1])
    try:
        text = recipelib.objective.linked_text(objects)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None
    recipelib.write_file(path, f"{key} {text}\n")
    return text


def linked_table(data, table, runs, oracles):
    """{package: {run or oracle name: linked .text}}: each run's objects of
    the package's modules, and for each oracle (name, runs) the smallest
    object of those runs per module."""
    per = collections.defaultdict(list)
    for m in table:
        per[package_of(m)].append(m)
    out = {}
    for pkg, mods in sorted(per.items()):
        row = {}
        for run in runs:
            row[run] = linked(data, f"{run}/{pkg}", [
                os.path.join(data, run, m + ".o") for m in sorted(mods)])
        for name, among in oracles:
            picks = [os.path.join(data, min(among, key=lambda x: (
                table[m][x], among.index(x))), m + ".o") for m in sorted(mods)]
            row[name] = linked(data, f"{name.replace(' ', '-')}/{pkg}", picks)
        out[pkg] = row
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--baselines", required=True)
    p.add_argument("--runs", default="")
    p.add_argument("--packages", action="store_true")
    p.add_argument("--linked", action="store_true",
                   help="also the .text a link of each package keeps")
    a = p.parse_args()
    baselines = a.baselines.split(",")
    runs = [r for r in a.runs.split(",") if r]
    allruns = baselines + runs
    table = train.sizes(a.data, allruns)
    if not table or "Oz" not in baselines:
        sys.exit("no module compiled by every run (and Oz must be a baseline)")
    oz = sum(r["Oz"] for r in table.values())
    oracles = (("oracle of the baselines", baselines),
               ("oracle of all runs", allruns))
    links = None
    if a.linked:
        missing = [os.path.join(a.data, run, m + ".o") for m in table
                   for run in allruns
                   if not os.path.exists(os.path.join(a.data, run, m + ".o"))]
        if missing:
            sys.exit(f"{missing[0]}: no object ({len(missing)} missing; "
                     "collected before collect-inline.sh kept objects?)")
        try:
            links = linked_table(a.data, table, allruns, oracles)
        except ValueError as e:
            sys.exit(f"summarize-inline.py: {e}")
        loz = sum(r["Oz"] for r in links.values())

    def linked_cells(name):
        if links is None:
            return ""
        tot = sum(r[name] for r in links.values())
        return f" {tot} | {100 * (tot / loz - 1):+.2f}% |"

    print(f"{len(table)} modules compiled by every run; .text bytes:\n")
    if links is None:
        print("| run | .text | vs Oz | smallest on |")
        print("|---|---:|---:|---:|")
    else:
        print(f"| run | .text | vs Oz | smallest on | linked .text "
              f"({len(links)} packages) | vs Oz |")
        print("|---|---:|---:|---:|---:|---:|")
    for run in allruns:
        tot = sum(r[run] for r in table.values())
        best = sum(1 for r in table.values()
                   if r[run] == min(r[x] for x in allruns))
        print(f"| {run} | {tot} | {100 * (tot / oz - 1):+.2f}% | {best} |"
              + linked_cells(run))
    for name, among in oracles:
        tot = sum(min(r[x] for x in among) for r in table.values())
        print(f"| {name} | {tot} | {100 * (tot / oz - 1):+.2f}% | |"
              + linked_cells(name))
    if a.packages:
        cols = allruns + ([n for n, _ in oracles] if links else [])
        what = "linked .text" if links else ".text"
        print(f"\n{what} vs Oz per package:\n")
        print("| package | modules | " + " | ".join(cols) + " |")
        print("|---|---:|" + "---:|" * len(cols))
        per = collections.defaultdict(list)
        for m, r in table.items():
            per[package_of(m)].append(r)
        for pkg in sorted(per):
            rows = per[pkg]
            if links:
                o = links[pkg]["Oz"]
                cells = [f"{100 * (links[pkg][x] / o - 1):+.2f}%"
                         for x in cols]
            else:
                o = sum(r["Oz"] for r in rows)
                cells = [f"{100 * (sum(r[x] for r in rows) / o - 1):+.2f}%"
                         for x in cols]
            print(f"| {pkg} | {len(rows)} | " + " | ".join(cells) + " |")
        if links:
            wins = [str(sum(1 for r in links.values() if r[x] < r["Oz"]))
                    for x in cols]
            print("| packages smaller than Oz | | " + " | ".join(wins) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
