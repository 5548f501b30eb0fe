#!/usr/bin/env python3
# ===- evict-search.py - One-step deviation search for eviction labels ----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Search, per function, a departure from the stock eviction decisions that
lowers its RegAllocScore.

For every module of an MLGO corpus level (as collect-evict.sh chooses them),
compiles with `llc -O2` and the eviction advisor's default policy, logged:
once as stock, then once per (k, j) with -irtk-evict-deviate-at=k
-irtk-evict-deviate-to=j, for k below --depth and j in --alternatives (-1:
no eviction; 0, 1, ...: the j-th other accepted candidate). Every function of
a module departs at its own k-th decision in the same compile; their scores
are independent. Per function, the run with the lowest score (by more than
--margin, relative) wins; the winners' contexts are written as logs (as
`evict.py select` does) with OUT/logs.txt for `irtk-train fit --logs-from`:
labels that depart from stock only where that was measured to help.

Also, per searched step (each function's first --depth decisions): the best
of stock and the departures tried there, as OUT/steps/<module>.log (those
decisions only, each labelled with its best choice) listed in OUT/steps.txt,
and every departure's outcome in OUT/outcomes.tsv: labels for a model that
decides at each step whether to depart.

Resumable: every compile's log and status stay under OUT/runs/; a rerun
compiles only what is missing. A compile that fails or takes longer than
30 minutes is recorded as failed and fails only itself (a stock compile:
its module); the others go on (recipelib.compile_recorded). Prints a JSON
summary: functions, how many improved, the total score before and after.

Usage: evict-search.py --corpus DIR --out DIR [--levels O2,O3]
           [--packages P,..] [--exclude-packages P,..] [--sample K]
           [--depth 8] [--alternatives -1,0,1] [--margin 0.001] [--jobs N]
           [--plugin SO] [--llc LLC] [--no-embeddings]
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipelib  # noqa: E402

tlog = recipelib.training_log()


def compile_one(args, module, name, extra):
    """The log of `module` compiled with the default policy and `extra` llc
    arguments, recorded under args.out/runs/<module>/<name>; None if it
    failed."""
    base = os.path.join(args.out, "runs", module, name)

    def command(tmp):
        cmd = [args.llc, "-O2", "-filetype=obj",
               os.path.join(args.corpus, module + ".bc"), "-o", os.devnull,
               "-load-pass-plugin=" + args.plugin,
               "-irtk-evict-policy=default",
               "-irtk-evict-log=" + tmp[".log"]] + extra
        if args.no_embeddings:
            cmd.append("-irtk-evict-embeddings=false")
        return cmd

    done = recipelib.compile_recorded(base, command, products=(".log",))
    return base + ".log" if done.ok else None


def search(args, module):
    """({function: (stock score, best score, best run's log)},
    {(function, k): (best score, its run's log)}, [(function, k, j, stock
    score, score)]): the best departure per function, the best decision at
    each searched step, and every outcome."""
    base = compile_one(args, module, "stock", [])
    if not base:
        return {}, {}, []
    _, blocks = tlog.read_contexts(base)
    stock = {name: r for name, _, _, r in blocks}
    best = {name: (r, r, base) for name, r in stock.items()}
    steps, outcomes = {}, []
    depth = min(args.depth, max((n for _, _, n, _ in blocks), default=0))
    for k in range(depth):
        for name, _, n, r in blocks:
            if k < n:
                steps[(name, k)] = (r, base)
        for j in args.alternatives:
            log = compile_one(args, module, f"k{k}j{j}",
                              [f"-irtk-evict-deviate-at={k}",
                               f"-irtk-evict-deviate-to={j}"])
            if not log:
                continue
            for name, _, n, r in tlog.read_contexts(log)[1]:
                if name not in stock or (name, k) not in steps or k >= n:
                    continue
                outcomes.append((name, k, j, stock[name], r))
                if r < best[name][1] * (1 - args.margin):
                    best[name] = (best[name][0], r, log)
                if r < min(steps[(name, k)][0],
                           stock[name] * (1 - args.margin)):
                    steps[(name, k)] = (r, log)
    return best, steps, outcomes


def write_steps(args, results):
    """OUT/steps/<module>.log: per function, its searched decisions only,
    each labelled with the best of stock and the departures tried there;
    OUT/steps.txt lists them; OUT/outcomes.tsv has every departure's
    score."""
    lines, rows = [], []
    for m, (_, steps, outcomes) in results.items():
        rows += [(m,) + o for o in outcomes]
        if not steps:
            continue
        cache = {}

        def decisions(log):
            if log not in cache:
                header, blocks = tlog.read_contexts(log)
                cache[log] = (header, {
                    name: tlog.observations(header, block)
                    for name, block, _, _ in blocks})
            return cache[log]

        chosen = [decisions(steps[next(iter(steps))][1])[0]]
        for name in sorted({name for name, _ in steps}):
            ks = sorted(k for fn, k in steps if fn == name)
            head = None
            for k in ks:
                by = decisions(steps[(name, k)][1])[1].get(name)
                if by and k < len(by[1]):
                    if head is None:
                        head = by[0]
                        chosen.append(head)
                    chosen.append(by[1][k])
        path = os.path.join(args.out, "steps", m + ".log")
        recipelib.write_file(path, b"".join(chosen))
        lines.append(path)
    recipelib.write_search(
        args.out, lines, ["module", "function", "k", "j", "stock", "score"],
        rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    recipelib.add_arguments(p)
    p.add_argument("--levels", default="O2")
    p.add_argument("--packages", default="")
    p.add_argument("--exclude-packages", default="")
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--alternatives", default="-1,0,1")
    p.add_argument("--margin", type=float, default=0.001)
    p.add_argument("--llc", default="/usr/lib/llvm-22/bin/llc")
    p.add_argument("--no-embeddings", action="store_true")
    args = p.parse_args()
    args.alternatives = [int(a) for a in args.alternatives.split(",")]
    results = recipelib.search_all(
        args, search, levels=args.levels.split(","),
        packages=args.packages.split(","),
        exclude=args.exclude_packages.split(","))
    # A module whose stock compile or records failed has no functions.
    results = {m: r or ({}, {}, []) for m, r in results.items()}
    write_steps(args, results)

    lines, before, after, improved, functions = [], 0.0, 0.0, 0, 0
    for m, (best, _, _) in results.items():
        by_log = {}
        for name, (stock, score, log) in best.items():
            functions += 1
            before += stock
            after += score
            improved += score < stock
            by_log.setdefault(log, set()).add(name)
        for log, names in by_log.items():
            header, blocks = tlog.read_contexts(log)
            path = os.path.join(args.out, "labels", m,
                                os.path.basename(log))
            recipelib.write_file(path, header + b"".join(
                block for name, block, _, _ in blocks if name in names))
            lines.append(path)
    recipelib.write_list(os.path.join(args.out, "logs.txt"), lines)
    print(json.dumps({"modules": len(results), "functions": functions,
                      "improved": improved, "score before": round(before, 2),
                      "score after": round(after, 2),
                      "change": f"{100 * (after / before - 1):+.3f}%"
                      if before else "n/a"}))


if __name__ == "__main__":
    sys.exit(main())
