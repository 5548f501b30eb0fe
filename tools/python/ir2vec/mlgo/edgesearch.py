# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The per-edge inlining search: per module, the decision of every call
edge (caller -> callee) for the smallest object, the headroom above
``-Oz``'s heuristic and BC-Max's strongest teacher.

Every module is compiled as a user's ``clang-22 -Oz -c``, first as stock,
then with decisions forced per edge (``-irtk-inline-decisions``: one
decision for every call site from a caller to a callee; edges the file does
not name decide as stock, as do those that inlining exposes). The search
starts from stock's decisions with every edge of the stock run's trace
forced (at the decision most of its call sites took), and edges that a kept
step exposes are forced from then on as that step decided them, so that a
move changes only what it names.

After Theodoridis, Grosser and Su (ASPLOS'22): the edges fall into
clusters, the connected components of the graph of functions and edges. A
cluster of at most ``exhaustive`` edges is searched exhaustively; in larger
ones, local search: flipping one edge, or every edge into one callee
together (inline it everywhere, or nowhere). Moves that touch different
functions do not interact (nearly), so one compile tries many at once and
credits each move with the change of the sizes of the functions it
touches: its edges' callers, the callees it may delete with their other
callers, the callees' own callees, and every function one of those is
inlined into. The moves that save bytes are then applied together, largest
saving first and one per function, and kept if the compile of them all is
smaller (else the best move is tried alone); then another round, up to
``rounds`` rounds and ``budget`` compiles per module besides stock.

``linked`` minimises what the package's link keeps of a module rather than
its ``.text``: its ``.text`` less the C++ inline functions (COMDAT groups)
that the stock object of another module of the same package also carries,
since the link keeps one copy of those whatever this module does. The
counts go to ``shared/<package>.json`` after every module of the searched
packages is compiled as stock.

Writes, in the output directory: ``decisions/<module>.txt`` (the best
run's decisions file: its departures from stock, empty when stock is best;
``collect --policy replay`` compiles it again), ``results/<module>.json``
(a module's finished search, taken as it is by a rerun under the same
budget and rounds) and ``outcomes.tsv`` (module, edges, clusters searched
exhaustively, compiles, ``.text`` of stock and of the best run, and the
objective of both).
"""

import collections
import itertools
import json
import os

from .corpus import disjoint_groups
from .engine import Job, write_atomically
from .inlinesearch import Run, change
from . import objective
from .objective import linked_objective, shared_inline
from .policy import Replay


class EdgeRun(Run):
    """A traced compile with per-function sizes and the trace's edges with
    their decisions."""

    def __init__(self, engine, record):
        super().__init__(engine, record)
        self.sizes = {f: size for f, (size, _) in self.functions.items()}
        self.kept = {f for f, (_, t) in self.functions.items() if t == "T"}
        self.comdat = objective.comdat(self.functions)
        self.edges = collections.defaultdict(list)
        for caller, callee, taken in self.decisions():
            self.edges[(caller, callee)].append(taken)

    def objective(self, shared):
        return linked_objective(self.text, self.functions, shared)

    def decision(self, edge):
        """The edge's decision in this run: the majority of its call sites'
        (ties: inline)."""
        d = self.edges[edge]
        return int(2 * sum(d) >= len(d))


def decisions_text(decisions):
    return "".join(f"{d} {a} {b}\n" for (a, b), d in sorted(decisions.items()))


def _job(engine, opts, module, decisions):
    policy = Replay("inline", engine.input(decisions_text(decisions)),
                    trace=True, extra=["-irtk-inline-embedding=none"])
    return Job(module, opts.bitcode(module), policy)


def stock_job(engine, opts, module):
    """The job of a module's stock compile (no decision forced)."""
    return _job(engine, opts, module, {})


def compile_run(engine, opts, module, decisions):
    """The EdgeRun of ``module`` with ``decisions`` ({edge: 0|1}) forced;
    None if it failed."""
    rec = engine.run([_job(engine, opts, module, decisions)])[0]
    return EdgeRun(engine, rec) if rec.ok else None


class Move:
    """New decisions for some edges, and the functions whose sizes they may
    change."""

    def __init__(self, decisions, touched):
        self.decisions, self.touched = decisions, frozenset(touched)


def clusters(edges):
    """The connected components of the edges (functions as nodes), each a
    sorted list of edges, in the order of their first edge."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a)] = find(b)
    groups = collections.defaultdict(list)
    for e in sorted(edges):
        groups[find(e[0])].append(e)
    return sorted(groups.values())


def inlined_into(run):
    """{function: the functions it was inlined into in run, transitively}."""
    into = collections.defaultdict(set)
    for (a, b), d in run.edges.items():
        if any(d):
            into[b].add(a)
    closed = {}

    def up(f, seen):
        if f in closed:
            return closed[f]
        out = set()
        for g in into.get(f, ()):
            if g not in seen:
                out |= {g} | up(g, seen | {g})
        closed[f] = out
        return out

    return {f: up(f, {f}) for f in list(into)}


def moves_of(run, current, exhaustive):
    """The moves to try from ``run`` (the compile of ``current``): [Move],
    and how many clusters were searched exhaustively."""
    into = inlined_into(run)
    callers_of, callees_of = (collections.defaultdict(set),
                              collections.defaultdict(set))
    for a, b in run.edges:
        callers_of[b].add(a)
        callees_of[a].add(b)

    def decided(e):
        return current.get(e, run.decision(e))

    def touched(new):
        # Every edge of the run is forced, so a move changes only: its
        # callers; the callee's callees, whose call sites inlining exposes
        # to the caller and which the stock heuristic decides there by
        # their bodies; and a callee that may be deleted (not a strong
        # global definition: local, or linkonce like C++'s inline
        # functions) when the move inlines it at all of its call sites or
        # did before, with its callers (the last call's bonus). Then every
        # function one of those is inlined into.
        fs = set()
        for a, b in new:
            fs |= {a} | callees_of[b]
            if b not in run.kept:
                into_b = [(x, b) for x in callers_of[b]]
                if all(new.get(e, decided(e)) for e in into_b) or \
                        all(decided(e) for e in into_b):
                    fs |= {b} | callers_of[b]
        for f in list(fs):
            fs |= into.get(f, set())
        return fs

    def move(new):
        new = {e: d for e, d in new.items() if decided(e) != d}
        return Move(new, touched(new)) if new else None

    # The new decisions of each move; those equal to the current ones are
    # dropped by move().
    tries, whole = [], 0
    for cluster in clusters(run.edges):
        if len(cluster) <= exhaustive:
            whole += 1
            tries += [dict(zip(cluster, bits)) for bits in
                      itertools.product((0, 1), repeat=len(cluster))]
            continue
        tries += [{e: 1 - decided(e)} for e in cluster]
        for callee in sorted({b for _, b in cluster}):
            into_callee = [(a, callee) for a in sorted(callers_of[callee])]
            if len(into_callee) > 1:
                tries += [{e: d for e in into_callee} for d in (0, 1)]
    return [m for m in map(move, tries) if m], whole


def applied(decisions, moves):
    """The decisions with the moves' on top."""
    out = dict(decisions)
    for m in moves:
        out.update(m.decisions)
    return out


def credit(run, base, move, shared):
    """The change of the sizes of the functions a move touches (but those
    of ``shared``, which the link keeps from another object)."""
    return sum(run.sizes.get(f, 0) - base.sizes.get(f, 0)
               for f in move.touched - shared)


def edge_module(engine, module, opts, out):
    """(.text of stock and of the best run, its decisions, compiles, edges,
    exhaustive clusters, the objective of stock and of best) of one module,
    kept in out/results/<module>.json; None if its stock compile failed.
    A module-level function, for Engine.map."""
    path = os.path.join(out, "results", module + ".json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            kept = json.load(f)
        if kept["budget"] == opts.budget and kept["rounds"] == opts.rounds:
            r = kept["result"]
            r[2] = {(a, b): d for a, b, d in r[2]}
            return tuple(r)
    r = _search(engine, module, opts, out)
    if r is not None:
        write_atomically(path, json.dumps({
            "budget": opts.budget, "rounds": opts.rounds,
            "result": [r[0], r[1], [[a, b, d] for (a, b), d in
                                    sorted(r[2].items())]] + list(r[3:])}))
    return r


def _search(engine, module, opts, out):
    stock = compile_run(engine, opts, module, {})
    if stock is None:
        return None
    shared = shared_of(out, module, stock) if opts.linked else frozenset()

    def obj(run):
        return run.objective(shared)

    # The search starts from stock's decisions, every edge forced (each
    # edge at the decision most of its call sites took), so that what a
    # move does not name stays as it was.
    current = {e: stock.decision(e) for e in stock.edges}
    best = compile_run(engine, opts, module, current) \
        if opts.budget > 0 else None
    compiles, whole = min(opts.budget, 1), 0
    for _ in range(opts.rounds if best else 0):
        # Edges that inlining exposed in the last kept run are forced from
        # now on, as that run decided them.
        for e in best.edges:
            current.setdefault(e, best.decision(e))
        moves, w = moves_of(best, current, opts.exhaustive)
        whole = max(whole, w)
        gains = []
        groups = disjoint_groups((m, m.touched) for m in moves)
        for group in groups:
            # One compile stays for trying the gains together.
            if compiles >= opts.budget - 1:
                break
            run = compile_run(engine, opts, module, applied(current, group))
            compiles += 1
            if run is None:
                continue
            gains += [(c, k, m) for k, m in enumerate(group)
                      for c in [credit(run, best, m, shared)] if c < 0]
        if not gains:
            break
        gains.sort(key=lambda g: (g[0], g[1]))
        taken, used = [], set()
        for _, _, m in gains:
            if not (m.touched & used):
                taken.append(m)
                used |= m.touched
        kept = False
        for name, chosen in (("all", taken), ("one", taken[:1])):
            if compiles >= opts.budget or (name == "one" and len(taken) == 1):
                break
            trial = applied(current, chosen)
            run = compile_run(engine, opts, module, trial)
            compiles += 1
            if run is not None and obj(run) < obj(best):
                best, current, kept = run, trial, True
                break
        if not kept:
            break
    if best is None or obj(stock) <= obj(best):
        best, current = stock, {}
    return (stock.text, best.text, current, compiles, len(stock.edges), whole,
            obj(stock), obj(best))


def count_shared(engine, corpus, modules, opts, out):
    """Compiles as stock every module of the packages of ``modules`` (all
    of the corpus's: every object of a package can carry a copy), then
    writes, per package, out/shared/<package>.json: how many of its
    modules' stock objects carry each C++ inline function (llvm-nm's W)."""
    def path(m):
        return os.path.join(out, "shared", os.path.dirname(m) + ".json")

    if all(os.path.exists(path(m)) for m in modules):
        return  # written at the end of a finished count
    every = corpus.select(packages=sorted({corpus.package(m)
                                           for m in modules}))
    records = engine.run(stock_job(engine, opts, m) for m in every)
    count = collections.defaultdict(collections.Counter)
    for m, rec in zip(every, records):
        count[os.path.dirname(m)].update(
            objective.comdat(rec.get("functions", {})))
    for pkg, c in count.items():
        write_atomically(os.path.join(out, "shared", pkg + ".json"),
                         json.dumps(dict(sorted(c.items()))))


def shared_of(out, module, stock):
    """The C++ inline functions that the stock object of another module of
    the package carries: the link keeps one of those copies whatever this
    module does."""
    path = os.path.join(out, "shared", os.path.dirname(module) + ".json")
    with open(path, encoding="utf-8") as f:
        return shared_inline(json.load(f), stock.comdat)


def edge_outputs(out, results, opts, record_of):
    """Writes the decisions files and outcomes.tsv; the summary and the
    modules whose stock compile failed (with where to look)."""
    rows, failed = [], []
    for m, r in sorted(results.items()):
        if not r:
            failed.append(f"{m}: the stock compile failed; not searched (its "
                          f"record: {record_of(m)})")
            continue
        stock, best, current, compiles, edges, whole, ostock, obest = r
        write_atomically(os.path.join(out, "decisions", m + ".txt"),
                         decisions_text(current))
        rows.append((m, edges, whole, compiles, stock, best, ostock, obest))
    write_atomically(os.path.join(out, "outcomes.tsv"), "".join(
        "\t".join(map(str, r)) + "\n" for r in
        [("module", "edges", "exhaustive clusters", "compiles", "stock",
          "searched", "objective stock", "objective searched")] + rows))
    stock = sum(r[4] for r in rows)
    best = sum(r[5] for r in rows)
    summary = {
        "modules": len(rows), "failed": len(results) - len(rows),
        "compiles": sum(r[3] for r in rows),
        "text stock": stock, "text searched": best,
        "change": change(stock, best)}
    if opts.linked:
        summary["objective stock"] = sum(r[6] for r in rows)
        summary["objective searched"] = sum(r[7] for r in rows)
    return summary, failed
