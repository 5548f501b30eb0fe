# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The eviction advisor's one-step deviation search (``search --kind
evict``): per function, a departure from the stock eviction decisions that
lowers its RegAllocScore.

Every module of an MLGO corpus of optimised bitcode is compiled with ``llc
-O2`` and the eviction advisor's default policy, logged: once as stock,
then once per (k, j) with ``-irtk-evict-deviate-at=k
-irtk-evict-deviate-to=j``, for k below ``depth`` and j among the
``alternatives`` (-1: no eviction; 0, 1, ...: the j-th other accepted
candidate). Every function of a module departs at its own k-th decision in
the same compile; their scores are independent. Per function, the run with
the lowest score (by more than ``margin``, relative) wins; the winners'
contexts are written as logs, ``labels/<module>/<run>.log``, listed in
``logs.txt`` for ``irtk-train fit --logs-from``.

Also, per searched step (each function's first ``depth`` decisions): the
best of stock and the departures tried there, ``steps/<module>.log`` (those
decisions only, each labelled with its best choice), listed in
``steps.txt``, and every departure's outcome in ``outcomes.tsv``.

Every compile is an engine job (an llc job: ``ir2vec.mlgo.policy``), so
the search is resumable and runs on local processes or Dask.
"""

import os

from . import log
from .engine import Job, write_atomically
from .inlinesearch import write_listing
from .policy import Default


def _compile(engine, opts, module, name, extra):
    """(name, log path) of ``module`` under the default policy with
    ``extra`` llc options; None if it failed."""
    flags = list(extra)
    if opts.embedding == "none":
        flags.append("-irtk-evict-embeddings=false")
    rec = engine.run([Job(module, opts.bitcode(module),
                          Default("evict", logged=True, extra=flags),
                          level="O2")])[0]
    return (name, engine.path(rec["products"]["log"])) if rec.ok else None


def evict_module(engine, module, opts):
    """({function: (stock score, best score, best run)}, {(function, k):
    (best score, its run)}, [(function, k, j, stock score, score)]), a run
    being (name, log): the best departure per function, the best decision
    at each searched step, and every outcome. A module-level function, for
    Engine.map."""
    base = _compile(engine, opts, module, "stock", [])
    if not base:
        return {}, {}, []
    _, blocks = log.read_contexts(base[1])
    stock = {name: r for name, _, _, r in blocks}
    best = {name: (r, r, base) for name, r in stock.items()}
    steps, outcomes = {}, []
    depth = min(opts.depth, max((n for _, _, n, _ in blocks), default=0))
    for k in range(depth):
        for name, _, n, r in blocks:
            if k < n:
                steps[(name, k)] = (r, base)
        for j in opts.alternatives:
            run = _compile(engine, opts, module, f"k{k}j{j}",
                           [f"-irtk-evict-deviate-at={k}",
                            f"-irtk-evict-deviate-to={j}"])
            if not run:
                continue
            for name, _, n, r in log.read_contexts(run[1])[1]:
                if name not in stock or (name, k) not in steps or k >= n:
                    continue
                outcomes.append((name, k, j, stock[name], r))
                if r < best[name][1] * (1 - opts.margin):
                    best[name] = (best[name][0], r, run)
                if r < min(steps[(name, k)][0],
                           stock[name] * (1 - opts.margin)):
                    steps[(name, k)] = (r, run)
    return best, steps, outcomes


def _write_steps(out, results):
    """steps/<module>.log: per function, its searched decisions only, each
    labelled with the best of stock and the departures tried there;
    steps.txt lists them; outcomes.tsv has every departure's score."""
    lines, rows = [], []
    for m, (_, steps, outcomes) in results.items():
        rows += [(m,) + o for o in outcomes]
        if not steps:
            continue
        cache = {}

        def decisions(path):
            if path not in cache:
                header, blocks = log.read_contexts(path)
                cache[path] = (header, {
                    name: log.observations(header, block)
                    for name, block, _, _ in blocks})
            return cache[path]

        chosen = [decisions(steps[next(iter(steps))][1][1])[0]]
        for name in sorted({name for name, _ in steps}):
            head = None
            for k in sorted(k for fn, k in steps if fn == name):
                by = decisions(steps[(name, k)][1][1])[1].get(name)
                if by and k < len(by[1]):
                    if head is None:
                        head = by[0]
                        chosen.append(head)
                    chosen.append(by[1][k])
        path = os.path.join(out, "steps", m + ".log")
        write_atomically(path, b"".join(chosen))
        lines.append(path)
    write_listing(out, lines, ["module", "function", "k", "j", "stock",
                               "score"], rows)


def evict_outputs(out, results):
    """Writes the steps, the winners' labels and logs.txt; the summary."""
    results = {m: r or ({}, {}, []) for m, r in results.items()}
    _write_steps(out, results)
    lines, before, after, improved, functions = [], 0.0, 0.0, 0, 0
    for m, (best, _, _) in results.items():
        by_run = {}
        for name, (stock, score, run) in best.items():
            functions += 1
            before += stock
            after += score
            improved += score < stock
            by_run.setdefault(run, set()).add(name)
        for (run, path), names in by_run.items():
            header, blocks = log.read_contexts(path)
            label = os.path.join(out, "labels", m, run + ".log")
            write_atomically(label, header + b"".join(
                block for name, block, _, _ in blocks if name in names))
            lines.append(label)
    write_atomically(os.path.join(out, "logs.txt"), "".join(
        os.path.abspath(p) + "\n" for p in lines))
    return {"modules": len(results), "functions": functions,
            "improved": improved, "score before": round(before, 2),
            "score after": round(after, 2),
            "change": f"{100 * (after / before - 1):+.3f}%"
            if before else "n/a"}
