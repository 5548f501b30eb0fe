#!/usr/bin/env python3
# ===- inline-caller-search.py - Per-caller teacher search for inlining ---===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Search, per module, which baseline heuristic should decide the inlining
in each caller for the smallest object file.

The baselines are the stock heuristic under other thresholds (the inline
advisor's teachers, --teachers); in a caller it follows, a teacher makes
all of that caller's decisions (-irtk-inline-follow-callers), so one step
of the search changes many decisions together, where inline-search.py
changes one. For every module of an MLGO corpus of pre-optimisation
bitcode (compiled as a user's `clang-22 -Oz -c`), greedily, in the order the
bottom-up inliner first asks about each caller: for every teacher that
would decide differently from the current best run at one of the caller's
decisions there (the logged teacher_thr<N> features), compile with that
teacher following the caller as well, and keep the one that gives the
smallest .text if it saves at least --margin bytes. At most --budget
compiles per module besides stock.

Writes, in OUT:

  steps/<module>.log   the log of the module's best run: every decision,
                       labelled with the one that run took (the stock
                       heuristic's outside the followed callers), listed in
                       steps.txt for `irtk-train fit --logs-from` and
                       train-steps.sh --advisor inline;
  callers/<module>.txt its -irtk-inline-follow-callers file (empty when
                       stock is best);
  outcomes.tsv         module, caller, teacher, decisions that teacher
                       changes there, .text before and after, and whether
                       the step was kept.

Resumable: every compile stays under OUT/runs/; a rerun replays the search
from the records and compiles only what is missing. The parameters the
records depend on (--teachers, --margin, --embedding, the corpus) are kept
in OUT/search.json, and a rerun with others is refused; a larger --budget
only searches further. Prints a JSON summary:
modules, steps tried and kept, and the total .text of stock against the
searched runs.

Usage: inline-caller-search.py --corpus DIR --out DIR [--sample K]
           [--teachers -100000,0,25,100] [--budget 40] [--margin 1]
           [--jobs N] [--plugin SO] [--clang CLANG] [--embedding KIND]
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


def teacher_decisions(run, teachers):
    """Per decision of a run: (caller, taken, {teacher: its decision})."""
    header, contexts = traininglog.read_contexts(run.log)
    records = traininglog.observations(header, contexts[0][1])[1] \
        if contexts else []
    trace = run.decisions()
    if len(trace) != len(records):
        raise ValueError(f"{run.trace}: {len(trace)} decisions, "
                         f"{run.log}: {len(records)}")
    names = [f"teacher_thr{t}" for t in teachers]
    out = []
    for (caller, _, taken), rec in zip(trace, records):
        f = traininglog.features(header, rec, names)
        out.append((caller, taken,
                    {t: int(f[n][0]) for t, n in zip(teachers, names)}))
    return out


def follow_args(path, follow, write=True):
    """The clang arguments that follow the callers of `follow` ({caller:
    teacher}), written to `path` unless it is recorded already."""
    if write:
        recipelib.write_file(path, "".join(
            f"{t} {caller}\n" for caller, t in sorted(follow.items())))
    return ["-mllvm", "-irtk-inline-follow-callers=" + path]


def search(args, module):
    """(stock Run, best Run, follow map, outcome rows), or None."""
    teach = ["-mllvm", "-irtk-inline-teachers=" +
             ",".join(map(str, args.teachers))]
    stock = compile_one(args, module, "stock", teach)
    if not stock:
        return None
    best, follow, rows, step = stock, {}, [], 0
    callers = list(dict.fromkeys(c for c, _, _ in stock.decisions()))
    for caller in callers:
        if step >= args.budget:
            break
        state = [d for d in teacher_decisions(best, args.teachers)
                 if d[0] == caller]
        tried = []
        for t in args.teachers:
            changes = sum(1 for _, taken, td in state if td[t] != taken)
            if not changes or step >= args.budget:
                continue
            trial = dict(follow, **{caller: t})
            name = f"s{step}"
            base = os.path.join(args.out, "runs", module, name)
            run = compile_one(args, module, name, teach + follow_args(
                base + ".callers", trial, write=not recipelib.recorded(base)))
            step += 1
            if run:
                tried.append((run.size, t, changes, run))
        if not tried:
            continue
        size, t, _, run = min(tried, key=lambda r: (r[0], r[1]))
        keep = size <= best.size - args.margin
        for s, tt, changes, _ in tried:
            rows.append((module, caller, tt, changes, best.size, s,
                         int(keep and tt == t)))
        if keep:
            best, follow = run, dict(follow, **{caller: t})
    return stock, best, follow, rows


def write_outputs(args, results):
    lines, rows = [], []
    for m, r in results.items():
        if not r:
            continue
        stock, best, follow, mrows = r
        rows += mrows
        follow_args(os.path.join(args.out, "callers", m + ".txt"), follow)
        header, contexts = traininglog.read_contexts(best.log)
        if not contexts or not contexts[0][2]:
            continue
        path = os.path.join(args.out, "steps", m + ".log")
        recipelib.write_file(path, header + contexts[0][1])
        lines.append(path)
    recipelib.write_search(args.out, lines, [
        "module", "caller", "teacher", "changes", "before", "after", "kept"],
        rows)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    inlinecompile.add_arguments(p)
    p.add_argument("--teachers", default="-100000,0,25,100")
    p.add_argument("--budget", type=int, default=40)
    p.add_argument("--margin", type=int, default=1)
    args = p.parse_args()
    try:
        args.teachers = [int(t) for t in args.teachers.split(",")]
    except ValueError:
        p.error(f"--teachers: expected integers, got '{args.teachers}'")
    if args.budget < 0:
        p.error("--budget must not be negative")
    results = recipelib.search_all(args, search, params={
        "corpus": os.path.abspath(args.corpus), "teachers": args.teachers,
        "margin": args.margin, "embedding": args.embedding})
    rows = write_outputs(args, results)

    ok = [r for r in results.values() if r]
    stock = sum(r[0].size for r in ok)
    best = sum(r[1].size for r in ok)
    print(json.dumps({
        "modules": len(ok),
        "failed": len(results) - len(ok),
        "steps tried": len(rows),
        "steps kept": sum(r[6] for r in rows),
        "callers followed": sum(len(r[2]) for r in ok),
        "text stock": stock, "text searched": best,
        "change": f"{100 * (best / stock - 1):+.3f}%" if stock else "n/a"}))


if __name__ == "__main__":
    sys.exit(main())
