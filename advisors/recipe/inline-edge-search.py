#!/usr/bin/env python3
# ===- inline-edge-search.py - Per-call-edge search for inlining for size -===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Search, per module, the inlining decision of every call edge (caller ->
callee) for the smallest object file: the headroom above -Oz's heuristic.

Every module of an MLGO corpus of pre-optimisation bitcode is compiled as a
user's `clang-22 -Oz -c`, first as stock, then with decisions forced per
edge (-irtk-inline-decisions: one decision for every call site from a caller
to a callee; edges the file does not name decide as stock, as do those
that inlining exposes). The search starts from stock's decisions with every
edge of the stock run's trace forced (at the decision most of its call
sites took), and edges that a kept step exposes are forced from then on as
that step decided them, so that a move changes only what it names.

The search, after Theodoridis, Grosser and Su (ASPLOS'22): the edges fall
into clusters, the connected components of the graph whose nodes are the
functions and whose links are the edges. A cluster of at most --exhaustive
edges is searched exhaustively (every assignment of its edges); in larger
ones, local search: flipping one edge, or every edge into one callee
together (inline it everywhere, or nowhere). Moves that touch different
functions do not interact (nearly: inlining is not quite local), so one
compile tries many at once and credits each move with the change of the
per-function sizes of the functions it touches: its edges' callers, the
callees it may delete with their other callers, the callees' own callees,
and every function one of those is inlined into. The
moves that save bytes are then applied together, largest saving first and
one per function, and kept if the compile of them all is smaller (else only
the best move is tried alone); then another round from there, up to
--rounds rounds and --budget compiles per module besides stock.

--linked minimises, per module, what the package's link keeps of it
rather than its .text: its .text less the C++ inline functions (COMDAT
groups) that the stock object of another module of the same package also
carries, since the link keeps one copy of those whatever this module does
(the other modules are taken at stock; their counts go to
OUT/shared/<package>.json after every module's stock compile). Without it,
a C++ module is rewarded for dropping its copy of an inline function by
inlining it everywhere, which the link undoes: the per-module search keeps
about a third of its C++ gain after linking (docs/InlineTraining.md).

Writes, in OUT:

  decisions/<module>.txt  the best run's -irtk-inline-decisions file (its
                          departures from stock; empty when stock is best):
                          `collect-inline.sh --runs NAME:OUT/decisions`
                          compiles and logs the searched runs again;
  outcomes.tsv            module, edges, clusters searched exhaustively,
                          compiles, .text of stock and of the best run, and
                          the objective of both (with --linked, the .text
                          less the shared inline functions; else the .text).

Resumable: every compile is recorded under OUT/runs/ (recipelib); a rerun
replays the search from the records and compiles only what is missing. A
module's finished search is kept in OUT/results/<module>.json with the
--budget and --rounds it ran under, and a rerun with the same ones takes
it as it is (replaying a large C++ module's search costs minutes of
Python); the shared counts of --linked are not recounted once every
searched package has its file. The parameters the records depend on are
kept in OUT/search.json and a rerun with others is refused. Prints a JSON
summary: modules, compiles, the total .text of stock and of the searched
runs. --scheduler or --workers run the compiles as tasks on a Dask
cluster (one task per module).

Usage: inline-edge-search.py --corpus DIR --out DIR [--sample K]
           [--packages P,...] [--budget 60] [--rounds 4] [--exhaustive 3]
           [--linked]
           [--jobs N | --workers N | --scheduler ADDR] [--plugin SO]
           [--clang CLANG]
"""

import argparse
import collections
import contextlib
import functools
import itertools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipelib  # noqa: E402

class Run:
    """A recorded compile: .text bytes, per-function sizes and the trace's
    edges with their decisions."""

    def __init__(self, base, text):
        self.text = text
        with open(base + ".funcs") as f:
            self.functions = recipelib.nm_functions(f)
        self.sizes = {f: size for f, (size, _) in self.functions.items()}
        self.kept = {f for f, (_, t) in self.functions.items() if t == "T"}
        self.comdat = recipelib.comdat(self.functions)
        self.edges = collections.defaultdict(list)
        with open(base + ".trace") as f:
            for line in f:
                _, caller, callee, taken = line.rstrip("\n").split("\t")
                self.edges[(caller, callee)].append(int(taken))

    def objective(self, shared):
        """What the search minimises: .text, less the functions of
        `shared` (C++ inline functions that another object of the package
        carries too, so that the link keeps that copy whatever this module
        does)."""
        return recipelib.linked_objective(self.text, self.functions, shared)

    def decision(self, edge):
        """The edge's decision in this run: the majority of its call sites'
        (ties: inline)."""
        d = self.edges[edge]
        return int(2 * sum(d) >= len(d))


def decisions_text(decisions):
    return "".join(f"{d} {a} {b}\n" for (a, b), d in sorted(decisions.items()))


def compile_run(args, module, name, decisions):
    """The Run of `module` compiled with `decisions` ({edge: 0|1}) forced,
    recorded under OUT/runs/<module>/<name>; None if it failed."""
    base = os.path.join(args.out, "runs", module, name)
    if not recipelib.recorded(base):
        recipelib.write_file(base + ".decisions", decisions_text(decisions))

    def command(tmp):
        compile_ = [args.clang, "-Oz", "-c",
                    os.path.join(args.corpus, module + ".bc"),
                    "-o", tmp[".o"], "-fpass-plugin=" + args.plugin,
                    "-mllvm", "-irtk-inline-policy=default",
                    "-mllvm", "-irtk-inline-embedding=none",
                    "-mllvm", "-irtk-inline-decisions=" + base + ".decisions",
                    "-mllvm", "-irtk-inline-trace=" + tmp[".trace"]]
        return recipelib.then_functions(compile_, tmp[".o"], tmp[".funcs"])

    done = recipelib.compile_recorded(
        base, command, products=(".trace", ".funcs"), scratch=(".o",),
        measure=lambda tmp: recipelib.text_size(tmp[".o"]))
    return Run(base, done.value) if done.ok else None


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
    """The moves to try from `run` (the compile of `current`): [Move], and
    how many clusters were searched exhaustively."""
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


def batches(moves):
    """The moves in groups of disjoint touched functions, first fit in
    order: each group is one compile."""
    return recipelib.disjoint_groups((m, m.touched) for m in moves)


def applied(decisions, moves):
    """The decisions with the moves' on top."""
    out = dict(decisions)
    for m in moves:
        out.update(m.decisions)
    return out


def credit(run, base, move, shared):
    """The change of the sizes of the functions a move touches (but those
    of `shared`, which the link keeps from another object)."""
    return sum(run.sizes.get(f, 0) - base.sizes.get(f, 0)
               for f in move.touched - shared)


def search(args, module):
    """(.text of stock and of the best run, its decisions, compiles, edges,
    exhaustive clusters, the objective of stock and of best) of one module,
    kept in OUT/results/<module>.json; None if its stock compile
    failed."""
    path = os.path.join(args.out, "results", module + ".json")
    if os.path.exists(path):
        with open(path) as f:
            kept = json.load(f)
        if kept["budget"] == args.budget and kept["rounds"] == args.rounds:
            r = kept["result"]
            r[2] = {(a, b): d for a, b, d in r[2]}
            return tuple(r)
    r = search_module(args, module)
    if r is not None:
        recipelib.write_file(path, json.dumps({
            "budget": args.budget, "rounds": args.rounds,
            "result": [r[0], r[1], [[a, b, d] for (a, b), d in
                                    sorted(r[2].items())]] + list(r[3:])}))
    return r


def search_module(args, module):
    stock = compile_run(args, module, "stock", {})
    if stock is None:
        return None
    shared = shared_of(args, module, stock)

    def obj(run):
        return run.objective(shared)

    # The search starts from stock's decisions, every edge forced (each
    # edge at the decision most of its call sites took), so that what a
    # move does not name stays as it was.
    current = {e: stock.decision(e) for e in stock.edges}
    best = compile_run(args, module, "forced", current) \
        if args.budget > 0 else None
    compiles, whole = min(args.budget, 1), 0
    for rnd in range(args.rounds if best else 0):
        # Edges that inlining exposed in the last kept run are forced from
        # now on, as that run decided them.
        for e in best.edges:
            current.setdefault(e, best.decision(e))
        moves, w = moves_of(best, current, args.exhaustive)
        whole = max(whole, w)
        gains = []
        for i, group in enumerate(batches(moves)):
            # One compile stays for trying the gains together.
            if compiles >= args.budget - 1:
                break
            run = compile_run(args, module, f"r{rnd}-b{i}",
                              applied(current, group))
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
            if compiles >= args.budget or (name == "one" and len(taken) == 1):
                break
            trial = applied(current, chosen)
            run = compile_run(args, module, f"r{rnd}-{name}", trial)
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


def stock_task(args, module):
    run = compile_run(args, module, "stock", {})
    return sorted(run.comdat) if run else None


def count_shared(args, params, client):
    """Compiles as stock every module of the packages searched (all of
    them, whatever --sample keeps: every object of a package can carry a
    copy), then writes, per package, OUT/shared/<package>.json: how many of
    its modules' stock objects carry each C++ inline function (COMDAT,
    llvm-nm's W)."""
    searched = recipelib.search_modules(args,
                                        packages=args.packages.split(","))
    if all(os.path.exists(os.path.join(args.out, "shared", os.path.dirname(m)
                                       + ".json")) for m in searched):
        return  # written at the end of a finished count
    mods = recipelib.corpus_modules(
        args.corpus, packages=sorted({m.split("/")[1] for m in searched}))
    comdat = recipelib.map_resumable(
        functools.partial(stock_task, args), mods, args.out, params,
        args.jobs, client)
    count = collections.defaultdict(collections.Counter)
    for m, fs in comdat.items():
        count[os.path.dirname(m)].update(fs or ())
    for pkg, c in count.items():
        recipelib.write_file(os.path.join(args.out, "shared", pkg + ".json"),
                             json.dumps(dict(sorted(c.items()))))


def shared_of(args, module, stock):
    """The C++ inline functions that the stock object of another module of
    the package carries: the link keeps one of those copies whatever this
    module does. Empty without --linked."""
    if not args.linked:
        return frozenset()
    path = os.path.join(args.out, "shared", os.path.dirname(module) + ".json")
    with open(path) as f:
        return recipelib.shared_inline(json.load(f), stock.comdat)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    recipelib.add_arguments(p)
    # As collect-inline.sh: $CLANG, else clang-22.
    p.add_argument("--clang", default=os.environ.get("CLANG", "clang-22"))
    p.add_argument("--packages", default="",
                   help="only the modules of these packages (comma-separated)")
    p.add_argument("--budget", type=int, default=60)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--exhaustive", type=int, default=3)
    p.add_argument("--linked", action="store_true",
                   help="minimise what the package's link keeps (see above)")
    p.add_argument("--scheduler", help="a Dask scheduler's address")
    p.add_argument("--workers", type=int,
                   help="run the modules on a local Dask cluster of this "
                   "many workers")
    args = p.parse_args()
    if args.budget < 0 or args.rounds < 0 or not 0 <= args.exhaustive <= 8:
        p.error("--budget and --rounds must not be negative, --exhaustive "
                "is 0 to 8")
    args.out = os.path.abspath(args.out)
    args.corpus = os.path.abspath(args.corpus)
    args.plugin = os.path.abspath(args.plugin)
    with contextlib.ExitStack() as stack:
        client = None
        if args.scheduler or args.workers:
            client = stack.enter_context(recipelib.dask_client(
                args.scheduler, args.workers or os.cpu_count() or 1))
        # --budget and --rounds are not parameters: more only searches
        # further from the same records.
        params = {"corpus": args.corpus, "exhaustive": args.exhaustive,
                  "clang": args.clang, "start": "stock, every edge forced",
                  "objective": "linked" if args.linked else "module"}
        if args.linked:
            count_shared(args, params, client)
        results = recipelib.search_all(
            args, search, params=params, packages=args.packages.split(","),
            client=client)

    rows = []
    for m, r in sorted(results.items()):
        if not r:
            print(f"{m}: the stock compile failed; not searched (its record: "
                  f"{os.path.join(args.out, 'runs', m, 'stock.status')})",
                  file=sys.stderr)
            continue
        stock, best, current, compiles, edges, whole, ostock, obest = r
        recipelib.write_file(os.path.join(args.out, "decisions", m + ".txt"),
                             decisions_text(current))
        rows.append((m, edges, whole, compiles, stock, best, ostock, obest))
    recipelib.write_file(os.path.join(args.out, "outcomes.tsv"), "".join(
        "\t".join(map(str, r)) + "\n" for r in
        [("module", "edges", "exhaustive clusters", "compiles", "stock",
          "searched", "objective stock", "objective searched")] + rows))
    stock = sum(r[4] for r in rows)
    best = sum(r[5] for r in rows)
    summary = {
        "modules": len(rows), "failed": len(results) - len(rows),
        "compiles": sum(r[3] for r in rows),
        "text stock": stock, "text searched": best,
        "change": f"{100 * (best / stock - 1):+.3f}%" if stock else "n/a"}
    if args.linked:
        summary["objective stock"] = sum(r[6] for r in rows)
        summary["objective searched"] = sum(r[7] for r in rows)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
