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
compiles only what is missing. Prints a JSON summary: functions, how many
improved, the total score before and after.

Usage: evict-search.py --corpus DIR --out DIR [--levels O2,O3]
           [--packages P,..] [--exclude-packages P,..] [--sample K]
           [--depth 8] [--alternatives -1,0,1] [--margin 0.001] [--jobs N]
           [--plugin SO] [--llc LLC] [--no-embeddings]
"""

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import traininglog  # noqa: E402


def modules(args):
    levels = set(args.levels.split(","))
    keep = set(filter(None, args.packages.split(",")))
    drop = set(filter(None, args.exclude_packages.split(",")))
    with open(os.path.join(args.corpus, "corpus_description.json")) as f:
        mods = sorted(m for m in json.load(f)["modules"]
                      if m.split("/")[0] in levels
                      and (not keep or m.split("/")[1] in keep)
                      and m.split("/")[1] not in drop)
    return mods[::args.sample]


def compile_one(args, module, name, extra):
    """Compiles once; returns the log path, or None if it failed."""
    log = os.path.join(args.out, "runs", module, name + ".log")
    status = log[:-4] + ".status"
    if os.path.exists(status):
        return log if open(status).read().strip() == "ok" else None
    os.makedirs(os.path.dirname(log), exist_ok=True)
    tmp = log + ".tmp"
    cmd = [args.llc, "-O2", "-filetype=obj",
           os.path.join(args.corpus, module + ".bc"), "-o", os.devnull,
           "-load-pass-plugin=" + args.plugin, "-irtk-evict-policy=default",
           "-irtk-evict-log=" + tmp] + extra
    if args.no_embeddings:
        cmd.append("-irtk-evict-embeddings=false")
    ok = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, timeout=1800).returncode == 0
    if ok and os.path.exists(tmp):
        os.replace(tmp, log)
    with open(status + ".tmp", "w") as f:
        f.write("ok\n" if ok and os.path.exists(log) else "failed\n")
    os.replace(status + ".tmp", status)
    return log if ok and os.path.exists(log) else None


def search(args, module):
    """({function: (stock score, best score, best run's log)},
    {(function, k): (best score, its run's log)}, [(function, k, j, stock
    score, score)]): the best departure per function, the best decision at
    each searched step, and every outcome."""
    base = compile_one(args, module, "stock", [])
    if not base:
        return {}, {}, []
    _, blocks = traininglog.read_contexts(base)
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
            for name, _, n, r in traininglog.read_contexts(log)[1]:
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
    lines = []
    with open(os.path.join(args.out, "outcomes.tsv.tmp"), "w") as tsv:
        tsv.write("module\tfunction\tk\tj\tstock\tscore\n")
        for m, (_, steps, outcomes) in results.items():
            for name, k, j, before, after in outcomes:
                tsv.write(f"{m}\t{name}\t{k}\t{j}\t{before}\t{after}\n")
            if not steps:
                continue
            cache = {}

            def decisions(log):
                if log not in cache:
                    header, blocks = traininglog.read_contexts(log)
                    cache[log] = (header, {
                        name: traininglog.observations(header, block)
                        for name, block, _, _ in blocks})
                return cache[log]

            header = decisions(steps[next(iter(steps))][1])[0]
            path = os.path.join(args.out, "steps", m + ".log")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path + ".tmp", "wb") as f:
                f.write(header)
                for name in sorted({name for name, _ in steps}):
                    ks = sorted(k for fn, k in steps if fn == name)
                    head = None
                    for k in ks:
                        by = decisions(steps[(name, k)][1])[1].get(name)
                        if by and k < len(by[1]):
                            if head is None:
                                head = by[0]
                                f.write(head)
                            f.write(by[1][k])
            os.replace(path + ".tmp", path)
            lines.append(os.path.abspath(path))
    os.replace(os.path.join(args.out, "outcomes.tsv.tmp"),
               os.path.join(args.out, "outcomes.tsv"))
    with open(os.path.join(args.out, "steps.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--levels", default="O2")
    p.add_argument("--packages", default="")
    p.add_argument("--exclude-packages", default="")
    p.add_argument("--sample", type=int, default=1)
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--alternatives", default="-1,0,1")
    p.add_argument("--margin", type=float, default=0.001)
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    p.add_argument("--plugin", default=os.path.join(
        os.path.dirname(__file__), "../../build/lib/IRTKPlugin.so"))
    p.add_argument("--llc", default="/usr/lib/llvm-22/bin/llc")
    p.add_argument("--no-embeddings", action="store_true")
    args = p.parse_args()
    args.alternatives = [int(a) for a in args.alternatives.split(",")]
    mods = modules(args)
    with ThreadPoolExecutor(args.jobs) as pool:
        results = dict(zip(mods, pool.map(lambda m: search(args, m), mods)))
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
            header, blocks = traininglog.read_contexts(log)
            path = os.path.join(args.out, "labels", m,
                                os.path.basename(log))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(header)
                for name, block, _, _ in blocks:
                    if name in names:
                        f.write(block)
            lines.append(os.path.abspath(path))
    with open(os.path.join(args.out, "logs.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(json.dumps({"modules": len(mods), "functions": functions,
                      "improved": improved, "score before": round(before, 2),
                      "score after": round(after, 2),
                      "change": f"{100 * (after / before - 1):+.3f}%"
                      if before else "n/a"}))


if __name__ == "__main__":
    sys.exit(main())
