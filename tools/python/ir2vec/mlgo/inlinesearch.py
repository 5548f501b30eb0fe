# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The inlining searches: per module, compiles that depart from ``-Oz``'s
inlining decisions, keeping what makes the object smaller. Their labels are
what imitation (``irtk-train fit``) and BC-Max learn from.

- ``flip``: compiles the module once as stock and once per decision k
  below ``depth`` with that one decision flipped
  (``-irtk-inline-flip-at=k``), and labels each searched decision with the
  one that gave the smaller ``.text``: labels per call site.
- ``caller``: greedily per caller, in the order the bottom-up inliner
  first asks about them, which teacher (the stock heuristic under another
  threshold) decides all of that caller's call sites
  (``-irtk-inline-follow-callers``); a step is kept when it saves at least
  ``margin`` bytes.
- ``edge``: the decision of every call edge (``ir2vec.mlgo.edgesearch``).
- ``evict``: the eviction advisor's one-step deviations
  (``ir2vec.mlgo.evictsearch``).

Every compile is an engine job (clang ``-Oz`` with irtk's inline advisor,
its default policy, logged and traced), so a search is resumable and runs
on local processes or Dask, one task per module. Each search writes, in
the output directory:

- flip: ``steps/<module>.log`` (the searched decisions of the stock log,
  each labelled with the better decision: the flip when it saved at least
  ``margin`` bytes), ``steps.txt`` (their list, for ``irtk-train fit
  --logs-from``), ``outcomes.tsv`` (module, k, the default decision, stock
  and flipped ``.text``);
- caller: ``steps/<module>.log`` (the best run's log, every decision
  labelled with the one it took), ``steps.txt``, ``callers/<module>.txt``
  (its ``-irtk-inline-follow-callers`` file) and ``outcomes.tsv`` (module,
  caller, teacher, decisions that teacher changes there, ``.text`` before
  and after, kept).
"""

import dataclasses
import os

from . import log
from .engine import Job, write_atomically
from .policy import Default

DEFAULT_TEACHERS = (-100000, 0, 25, 100)


@dataclasses.dataclass
class Options:
    """What a search depends on. ``corpus`` is the corpus's root."""

    corpus: str
    embedding: str = "symbolic"
    depth: int = 16
    margin: int = 1
    teachers: tuple = DEFAULT_TEACHERS
    budget: int = 40
    rounds: int = 4
    exhaustive: int = 3
    linked: bool = False
    alternatives: tuple = (-1, 0, 1)

    def bitcode(self, module):
        return os.path.join(self.corpus, module + ".bc")


class Run:
    """A compile as a search reads it: ``.text``, the log and the trace,
    and the object's functions when the engine records them."""

    def __init__(self, engine, record):
        self.text = record["text"]
        products = record.get("products", {})
        self.log = engine.path(products["log"]) if "log" in products \
            else None
        self.trace = engine.path(products["trace"])
        self.functions = {f: tuple(v) for f, v in
                          record.get("functions", {}).items()}

    def decisions(self):
        """[(caller, callee, decision)] in the order the policy was
        asked."""
        with open(self.trace, encoding="utf-8") as f:
            return [(c, d, int(t)) for _, c, d, t in
                    (line.rstrip("\n").split("\t") for line in f)]


def compile_logged(engine, opts, module, extra=()):
    """The Run of ``module`` under the default policy, logged, with the
    advisor's ``extra`` options; None if it failed."""
    policy = Default("inline", logged=True, extra=[
        f"-irtk-inline-embedding={opts.embedding}"] + list(extra))
    rec = engine.run([Job(module, opts.bitcode(module), policy)])[0]
    return Run(engine, rec) if rec.ok else None


def write_listing(out, steps, columns, rows):
    """out/outcomes.tsv (columns, then rows) and out/steps.txt (the step
    logs' absolute paths, a line each, for ``irtk-train fit
    --logs-from``)."""
    write_atomically(os.path.join(out, "outcomes.tsv"), "".join(
        "\t".join(map(str, r)) + "\n" for r in [columns] + list(rows)))
    write_atomically(os.path.join(out, "steps.txt"), "".join(
        os.path.abspath(p) + "\n" for p in steps))


def change(before, after):
    return f"{100 * (after / before - 1):+.3f}%" if before else "n/a"


# --- flip ----------------------------------------------------------------------

def flip_module(engine, module, opts):
    """(stock .text, stock log, [(k, flipped .text, its log)]) of one
    module, or None if its stock compile failed."""
    stock = compile_logged(engine, opts, module)
    if not stock:
        return None
    _, contexts = log.read_contexts(stock.log)
    decisions = sum(n for _, _, n, _ in contexts)
    flips = []
    for k in range(min(opts.depth, decisions)):
        run = compile_logged(engine, opts, module,
                             [f"-irtk-inline-flip-at={k}"])
        if run:
            flips.append((k, run.text, run.log))
    return stock.text, stock.log, flips


def flip_outputs(out, results, opts):
    """Writes the flip search's outputs; its summary."""
    lines, rows = [], []
    for m, r in results.items():
        if not r:
            continue
        size, stock_log, flips = r
        header, contexts = log.read_contexts(stock_log)
        if not contexts:
            continue
        head, stock = log.observations(header, contexts[0][1])
        chosen = []
        for k, flipped, flog in flips:
            if k >= len(stock):
                continue
            default = log.features(header, stock[k],
                                   ["inlining_default"])["inlining_default"]
            rows.append((m, k, default[0], size, flipped))
            if flipped <= size - opts.margin:
                fh, fc = log.read_contexts(flog)
                chosen.append(log.observations(fh, fc[0][1])[1][k])
            else:
                chosen.append(stock[k])
        if not chosen:
            continue
        path = os.path.join(out, "steps", m + ".log")
        write_atomically(path, header + head + b"".join(chosen))
        lines.append(path)
    write_listing(out, lines, ["module", "k", "default", "stock", "flipped"],
                  rows)
    ok = [r for r in results.values() if r]
    stock = sum(r[0] for r in ok)
    best = sum(min([r[0]] + [f[1] for f in r[2]]) for r in ok)
    return {"modules": len(ok), "failed": len(results) - len(ok),
            "decisions searched": len(rows),
            "flips that save": sum(1 for r in rows
                                   if r[4] <= r[3] - opts.margin),
            "flips that cost": sum(1 for r in rows if r[4] > r[3]),
            "text stock": stock, "text best single flip": best,
            "change": change(stock, best)}


# --- caller --------------------------------------------------------------------

def teacher_decisions(run, teachers):
    """Per decision of a run: (caller, taken, {teacher: its decision})."""
    header, contexts = log.read_contexts(run.log)
    records = log.observations(header, contexts[0][1])[1] if contexts \
        else []
    trace = run.decisions()
    if len(trace) != len(records):
        raise ValueError(f"{run.trace}: {len(trace)} decisions, "
                         f"{run.log}: {len(records)}")
    names = [f"teacher_thr{t}" for t in teachers]
    out = []
    for (caller, _, taken), rec in zip(trace, records):
        f = log.features(header, rec, names)
        out.append((caller, taken,
                    {t: int(f[n][0]) for t, n in zip(teachers, names)}))
    return out


def callers_text(follow):
    """An -irtk-inline-follow-callers file: a ``<teacher> <caller>`` line
    per followed caller."""
    return "".join(f"{t} {caller}\n" for caller, t in sorted(follow.items()))


def caller_module(engine, module, opts):
    """(stock Run, best Run, follow map, outcome rows) of one module, or
    None if its stock compile failed."""
    teach = ["-irtk-inline-teachers=" + ",".join(map(str, opts.teachers))]
    stock = compile_logged(engine, opts, module, teach)
    if not stock:
        return None
    best, follow, rows, step = stock, {}, [], 0
    callers = list(dict.fromkeys(c for c, _, _ in stock.decisions()))
    for caller in callers:
        if step >= opts.budget:
            break
        state = [d for d in teacher_decisions(best, opts.teachers)
                 if d[0] == caller]
        tried = []
        for t in opts.teachers:
            changes = sum(1 for _, taken, td in state if td[t] != taken)
            if not changes or step >= opts.budget:
                continue
            path = engine.input(callers_text(dict(follow, **{caller: t})))
            run = compile_logged(engine, opts, module, teach + [
                "-irtk-inline-follow-callers=" + path])
            step += 1
            if run:
                tried.append((run.text, t, changes, run))
        if not tried:
            continue
        size, t, _, run = min(tried, key=lambda r: (r[0], r[1]))
        keep = size <= best.text - opts.margin
        for s, tt, changes, _ in tried:
            rows.append((module, caller, tt, changes, best.text, s,
                         int(keep and tt == t)))
        if keep:
            best, follow = run, dict(follow, **{caller: t})
    return stock, best, follow, rows


def caller_outputs(out, results, opts):
    """Writes the caller search's outputs; its summary."""
    lines, rows = [], []
    for m, r in results.items():
        if not r:
            continue
        _, best, follow, mrows = r
        rows += mrows
        write_atomically(os.path.join(out, "callers", m + ".txt"),
                         callers_text(follow))
        header, contexts = log.read_contexts(best.log)
        if not contexts or not contexts[0][2]:
            continue
        path = os.path.join(out, "steps", m + ".log")
        write_atomically(path, header + contexts[0][1])
        lines.append(path)
    write_listing(out, lines, ["module", "caller", "teacher", "changes",
                               "before", "after", "kept"], rows)
    ok = [r for r in results.values() if r]
    stock = sum(r[0].text for r in ok)
    best = sum(r[1].text for r in ok)
    return {"modules": len(ok), "failed": len(results) - len(ok),
            "steps tried": len(rows), "steps kept": sum(r[6] for r in rows),
            "callers followed": sum(len(r[2]) for r in ok),
            "text stock": stock, "text searched": best,
            "change": change(stock, best)}
