#!/usr/bin/env python3
# ===- inline-search.py - One-flip search for inlining-for-size labels ----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Search, per inlining decision, whether the opposite decision gives a
smaller object file.

For every module of an MLGO corpus of pre-optimisation bitcode (the
inline-train split, as collect-inline.sh compiles it: `clang-22 -Oz -c`),
compiles with the inline advisor's default policy, logged: once as stock,
then once per k below --depth and the number of decisions the module's
stock compile asked, with -irtk-inline-flip-at=k (the k-th decision is the
opposite of the default one; the others are the default's, so later
decisions may differ as the IR does). The .text size of each (llvm-size -A)
is the outcome.

Writes, in OUT:

  steps/<module>.log   the module's searched decisions of its stock log,
                       each labelled with the decision that gave the
                       smaller .text (the flip when it saved at least
                       --margin bytes, else the default), listed in
                       steps.txt for `irtk-train fit --logs-from`;
  outcomes.tsv         module, k, the default decision, stock .text, .text
                       with decision k flipped.

Resumable: every compile's log and status stay under OUT/runs/; a rerun
compiles only what is missing. Prints a JSON summary: modules, decisions
searched, flips that save bytes and that cost bytes, and the .text of
stock against the best single flip per module.

Usage: inline-search.py --corpus DIR --out DIR [--sample K] [--depth 16]
           [--margin 1] [--jobs N] [--plugin SO] [--clang CLANG]
           [--embedding KIND]
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inlinecompile  # noqa: E402
import recipelib  # noqa: E402
import traininglog  # noqa: E402
from inlinecompile import compile_one  # noqa: E402


def search(args, module):
    """(stock .text, stock log, [(k, default, flipped .text, its log)])."""
    stock = compile_one(args, module, "stock", [])
    if not stock:
        return None
    _, contexts = traininglog.read_contexts(stock.log)
    decisions = sum(n for _, _, n, _ in contexts)
    flips = []
    for k in range(min(args.depth, decisions)):
        run = compile_one(args, module, f"flip{k}",
                          ["-mllvm", f"-irtk-inline-flip-at={k}"])
        if run:
            flips.append((k, run.size, run.log))
    return stock.size, stock.log, flips


def write_outputs(args, results):
    lines, rows = [], []
    for m, r in results.items():
        if not r:
            continue
        size, log, flips = r
        header, contexts = traininglog.read_contexts(log)
        if not contexts:
            continue
        head, stock = traininglog.observations(header, contexts[0][1])
        chosen = []
        for k, flipped, flog in flips:
            if k >= len(stock):
                continue
            default = traininglog.features(
                header, stock[k], ["inlining_default"])["inlining_default"][0]
            rows.append((m, k, default, size, flipped))
            better = flipped <= size - args.margin
            if better:
                fh, fc = traininglog.read_contexts(flog)
                chosen.append(traininglog.observations(fh, fc[0][1])[1][k])
            else:
                chosen.append(stock[k])
        if not chosen:
            continue
        path = os.path.join(args.out, "steps", m + ".log")
        recipelib.write_file(path, header + head + b"".join(chosen))
        lines.append(path)
    recipelib.write_search(
        args.out, lines, ["module", "k", "default", "stock", "flipped"], rows)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    inlinecompile.add_arguments(p)
    p.add_argument("--depth", type=int, default=16)
    p.add_argument("--margin", type=int, default=1)
    args = p.parse_args()
    results = recipelib.search_all(args, search)
    rows = write_outputs(args, results)

    stock = sum(r[0] for r in results.values() if r)
    best = sum(min([r[0]] + [f[1] for f in r[2]])
               for r in results.values() if r)
    print(json.dumps({
        "modules": sum(1 for r in results.values() if r),
        "failed": sum(1 for r in results.values() if not r),
        "decisions searched": len(rows),
        "flips that save": sum(1 for r in rows if r[4] <= r[3] - args.margin),
        "flips that cost": sum(1 for r in rows if r[4] > r[3]),
        "text stock": stock, "text best single flip": best,
        "change": f"{100 * (best / stock - 1):+.3f}%" if stock else "n/a"}))


if __name__ == "__main__":
    sys.exit(main())
