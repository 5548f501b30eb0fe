# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""``python3 -m ir2vec.mlgo <command>``: one option set for every command.

Commands:
  toolchain   what this package finds (clang, opt, the plugin, irtk-train)
  corpus      a corpus's modules and packages; --write DIR writes the
              selection (a sample) as a corpus
  collect     compile every module under a policy (or the inline
              advisor's named runs, --runs); records and totals
  extract     a corpus from a user's build: compile_commands.json compiled
              again to pre-optimisation bitcode, or the bitcode embedded in
              objects (-Xclang -fembed-bitcode=all)
  settings    compile every module under each fixed configuration of stock
              flags; module and linked .text against -Oz
  tune        the per-module search of the size pipeline; writes the
              choices (choices.json) a replay applies
  headroom    the Phase-1 report of docs/Pipeline.md: -Oz, the best fixed
              configuration (chosen on --train-out), the oracles and the
              searches, on the held-out corpus
  nearest     a first policy: a module's nearest training modules (by
              embedding) vote for one of a few configurations; validation
              chooses k, the held-out corpus reports
  choose      a saved nearest policy's choices for any corpus (a user's
              own, from extract), as the plugin's choices file
  learn       learned size-pipeline policies: a values network over the
              candidates, BC-Max and DQN on the pipeline environment;
              validation chooses the trainer, state and margin, the
              held-out corpus reports
  search      an inlining search per module (--kind flip, caller or
              edge): the labels imitation and BC-Max learn from
  judge       a collection's runs compared: .text and linked totals and
              oracles (inline), RegAllocScore (evict)
  train       imitation through irtk-train fit: of each module's best
              run (inline) or function's (evict), or of a search's steps
              with the margin chosen on validation packages
  bcmax       BC-Max for the inline advisor: rounds of imitation of each
              module's best run so far; validation chooses the margin
  es          evolution strategies for the inline advisor from a warm
              start, rewarded by .text (or what the link keeps)
  corpus-build
              MLGO corpora from Debian source packages by a recipes table
              (vocab/recipe/build-corpus.sh's logic): packages, prep, build
  programs    held-out packages built from source with a policy's flags,
              their own tests run; summed .text
  workloads   lua, bzip2 and zstd built with a policy's flags; their
              workloads' instructions under callgrind
"""

import argparse
import collections
import contextlib
import json
import os
import shlex
import subprocess
import sys
import time

from . import (bcmax, debcorpus, edgesearch, es, evictsearch, extract,
               imitation, inlinesearch, judge, nearest, programs, report,
               runs, tune)
from .corpus import Corpus, CorpusError, link_packages
from .engine import (Engine, EngineError, Job, record_path, summary,
                     write_atomically)
from .extract import ExtractError
from .log import LogError
from .pipeline import Config, Pipeline, PipelineError
from .pipelineenv import DEFAULT_HORIZON as PIPELINE_HORIZON
from .policy import Default, Model, Policy, Replay
from .toolchain import MissingTool, Toolchain

PROG = "python3 -m ir2vec.mlgo"


class UsageError(Exception):
    pass


class OutputError(Exception):
    """An output that would replace an input."""


def _check_outputs(outputs, corpora):
    """Refuses, before any work, an output path that is one of the inputs:
    a corpus's description or modules (ir2vec.store.checkNotAnInput)."""
    from ..store import StoreError, checkNotAnInput
    inputs = []
    for c in corpora:
        inputs.append(os.path.join(c.root, "corpus_description.json"))
        inputs += [c.bitcode(m) for m in c]
    for out, more in outputs:
        if out:
            try:
                checkNotAnInput(out, inputs + list(more))
            except StoreError as e:
                raise OutputError(str(e)) from None


def _positive(text):
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"wants a positive number, not "
                                         f"'{text}'")
    return v


def shared_options(p, corpus=True, out=True):
    """The options every command shares."""
    if corpus:
        p.add_argument("--corpus", required=True, help="an MLGO corpus")
        p.add_argument("--levels", help="only modules of these levels (a,b)")
        p.add_argument("--packages", default="", help="only these packages")
        p.add_argument("--exclude-packages", default="")
        p.add_argument("--sample", type=_positive, default=1,
                       help="every K-th module")
        p.add_argument("--stratified", type=_positive,
                       help="a sample of at most N modules, stratified by "
                       "package and size (with --seed)")
    if out:
        p.add_argument("--out", required=True,
                       help="where the records go (resumable)")
    p.add_argument("--workers", type=_positive, default=os.cpu_count() or 1,
                   help="local processes (default: the cores)")
    p.add_argument("--scheduler", help="a Dask scheduler (tcp://HOST:PORT); "
                   "the paths must be shared by every worker")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=_positive, default=900,
                   help="seconds per compile stage")
    p.add_argument("--clang", help="the compiler (default: $CLANG, else "
                   "clang-22)")
    p.add_argument("--plugin", help="irtk's pass plugin (default: found)")
    p.add_argument("--irtk-train")
    p.add_argument("--irtk-build", help="an irtk build tree to take the "
                   "plugin and irtk-train from")


def _corpus(args):
    c = Corpus(args.corpus).select(
        args.levels.split(",") if args.levels else None,
        args.packages.split(","), args.exclude_packages.split(","),
        args.sample)
    if args.stratified:
        c = c.stratified(args.stratified, args.seed)
    if not len(c):
        raise UsageError(f"{args.corpus}: no module is selected")
    return c


def _tools(args):
    return Toolchain(args.clang, args.plugin, args.irtk_train,
                     args.irtk_build)


@contextlib.contextmanager
def _client(args):
    """The Dask client of --scheduler, or None (local --workers)."""
    if args.scheduler:
        from .. import distributed
        with distributed.cluster(args.scheduler) as client:
            yield client
    else:
        yield None


@contextlib.contextmanager
def _engine(args, params, out=None, functions=False):
    tools = _tools(args)
    with _client(args) as client:
        yield Engine(out or args.out, params, tools, workers=args.workers,
                     client=client, timeout=args.timeout,
                     functions=functions)


class Progress:
    """A progress line every few seconds, and at the end."""

    def __init__(self, total, what):
        self.total, self.what, self.done = total, what, 0
        self.last = time.monotonic()

    def __call__(self, *_):
        self.done += 1
        now = time.monotonic()
        if now - self.last > 10 or self.done == self.total:
            self.last = now
            print(f"{self.what}: {self.done} of {self.total}",
                  file=sys.stderr, flush=True)


# --- Commands ------------------------------------------------------------------

def cmd_toolchain(args):
    for name, path in _tools(args).describe().items():
        print(f"{name}: {path}")
    return 0


def cmd_corpus(args):
    c = _corpus(args)
    pk = c.packages()
    print(f"{len(c)} modules of {len(pk)} packages")
    for p in sorted(pk):
        print(f"  {p}: {len(pk[p])}")
    if args.write:
        print(c.write(args.write))
    if args.link:
        parts = link_packages(c, args.link, _tools(args), lambda w: print(
            f"{PROG} corpus: warning: {w}", file=sys.stderr))
        print(f"{os.path.join(args.link, 'corpus_description.json')}: "
              f"{len(parts)} whole-package modules from {len(c)} modules of "
              f"{len({os.path.dirname(n) for n in parts})} packages")
    return 0


def _policy(args):
    if args.policy == "stock":
        return Policy()
    if args.policy == "default":
        return Default(args.advisor, logged=True)
    if not args.policy_file:
        raise UsageError(f"--policy {args.policy} wants --policy-file")
    cls = Model if args.policy == "model" else Replay
    return cls(args.advisor, os.path.abspath(args.policy_file),
               logged=args.log)


def cmd_collect(args):
    if args.advisor == "evict":
        if not args.runs:
            raise UsageError("--advisor evict collects --runs (default, "
                             "NAME=MODEL)")
        if not args.levels:
            args.levels = "O2"  # optimised bitcode, as llc -O2 compiles it
    c = _corpus(args)
    if args.runs:
        return _collect_runs(args, c)
    policy = _policy(args)
    jobs = [Job(m, c.bitcode(m), policy, tuple(args.flag)) for m in c]
    with _engine(args, {"command": "collect"}) as engine:
        records = engine.run(jobs, Progress(len(jobs), "collect"))
    s = summary(records)
    total = sum(r.text for r in records if r.ok)
    print(json.dumps(dict(s, text=total)))
    return 0 if s["ok"] else 1


SEARCH_BUDGETS = {"caller": 40, "edge": 60}


def _search_options(args, corpus):
    """The search's Options from the command line, checked."""
    try:
        teachers = tuple(int(t) for t in args.teachers.split(","))
        alternatives = tuple(int(j) for j in args.alternatives.split(","))
    except ValueError:
        raise UsageError("--teachers and --alternatives: expected integers, "
                         f"got '{args.teachers}', '{args.alternatives}'") \
            from None
    budget = SEARCH_BUDGETS.get(args.kind, 0) if args.budget is None \
        else args.budget
    evict = args.kind == "evict"
    depth = (8 if evict else 16) if args.depth is None else args.depth
    margin = (0.001 if evict else 1) if args.margin is None else args.margin
    if not evict and margin != int(margin):
        raise UsageError("--margin: bytes, a whole number")
    if budget < 0 or args.rounds < 0 or depth < 0:
        raise UsageError("--budget, --rounds and --depth must not be "
                         "negative")
    if not 0 <= args.exhaustive <= 8:
        raise UsageError("--exhaustive is 0 to 8")
    return inlinesearch.Options(
        corpus.root, args.embedding, depth,
        margin if evict else int(margin), teachers, budget, args.rounds,
        args.exhaustive, args.linked, alternatives)


def _search_params(kind, opts):
    """What a search's records and outputs depend on (a larger budget,
    depth or round count only searches further)."""
    params = {"command": "search", "kind": kind}
    if kind == "edge":
        params.update(exhaustive=opts.exhaustive,
                      objective="linked" if opts.linked else "module")
    else:
        params["embedding"] = opts.embedding
    if kind == "caller":
        params.update(teachers=list(opts.teachers), margin=opts.margin)
    return params


def cmd_search(args):
    kind = args.kind
    if kind == "evict" and not args.levels:
        args.levels = "O2"  # optimised bitcode, as llc -O2 compiles it
    c = _corpus(args)
    opts = _search_options(args, c)
    with _engine(args, _search_params(kind, opts),
                 functions=kind == "edge") as engine:
        out = engine.out
        if kind == "edge":
            if opts.linked:
                edgesearch.count_shared(engine, Corpus(args.corpus), list(c),
                                        opts, out)
            fn = _partial(edgesearch.edge_module, opts=opts, out=out)
        else:
            fn = _partial({"flip": inlinesearch.flip_module,
                           "caller": inlinesearch.caller_module,
                           "evict": evictsearch.evict_module}[kind],
                          opts=opts)
        res = engine.map(fn, list(c), Progress(len(c), f"search {kind}"))
    results = dict(zip(c, res))
    if kind == "edge":
        summary_, failed = edgesearch.edge_outputs(
            out, results, opts, lambda m: record_path(
                out, edgesearch.stock_job(engine, opts, m)))
        for line in failed:
            print(f"{PROG} search: {line}", file=sys.stderr)
    elif kind == "flip":
        summary_ = inlinesearch.flip_outputs(out, results, opts)
    elif kind == "caller":
        summary_ = inlinesearch.caller_outputs(out, results, opts)
    else:
        summary_ = evictsearch.evict_outputs(out, results)
    print(json.dumps(summary_))
    searched = summary_["functions"] if kind == "evict" \
        else summary_["modules"]
    return 0 if searched or not results else 1


def _collect_runs(args, c):
    """collect --runs: the inline advisor's named runs (ir2vec.mlgo.runs),
    laid out per run under --out, the engine's records in --out/engine."""
    try:
        teachers = tuple(int(t) for t in args.teachers.split(","))
    except ValueError:
        raise UsageError(f"--teachers: expected integers, got "
                         f"'{args.teachers}'") from None
    try:
        rs = runs.parse(args.runs, teachers, args.advisor)
    except runs.RunError as e:
        raise UsageError(str(e)) from None
    if args.vocab and not os.path.isfile(args.vocab):
        raise UsageError(f"--vocab: no file '{args.vocab}'")
    out = os.path.abspath(args.out)
    with _client(args) as client:
        engine = runs.engine(out, tools=_tools(args), workers=args.workers,
                             client=client, timeout=args.timeout)
        table = runs.collect(engine, c, rs, out, teachers, args.embedding,
                             args.vocab, Progress(len(c) * len(rs),
                                                  "collect"), args.advisor)
    totals = {name: {"modules": len(recs),
                     "failed": sum(1 for r in recs.values() if not r.ok),
                     "text": sum(r.text for r in recs.values() if r.ok)}
              for name, recs in table.items()}
    print(json.dumps({"runs": totals}))
    return 0 if any(t["failed"] < t["modules"] for t in totals.values()) \
        else 1


def _margins(text):
    try:
        values = [float(m) for m in text.split(",")]
    except ValueError:
        raise UsageError(f"--margins: expected numbers, got '{text}'") \
            from None
    return [int(m) if m == int(m) else m for m in values]


def cmd_bcmax(args):
    train = _corpus(args)
    valid = Corpus(args.valid_corpus)
    baselines = [b for b in args.baselines.split(",") if b]
    if "Oz" not in baselines:
        raise UsageError("--baselines must include Oz")
    try:
        runs.parse(",".join(baselines))
    except runs.RunError as e:
        raise UsageError(f"--baselines: {e}") from None
    if args.rounds < 0:
        raise UsageError("--rounds must not be negative")
    margins = _margins(args.margins)
    fit = shlex.split(args.fit_options)
    vocab = os.path.abspath(args.vocab) if args.vocab else None
    shared = os.path.abspath(args.shared) if args.shared else None
    params = {"train corpus": train.root, "valid corpus": valid.root,
              "baselines": baselines, "margins": margins,
              "sample": args.sample, "embedding": args.embedding,
              "vocab": vocab, "fit": fit,
              # Only with --shared: the records of earlier runs stay valid.
              **({"shared": shared} if shared else {})}
    with _client(args) as client:
        trainer = bcmax.Trainer(
            os.path.abspath(args.out), train, valid, baselines, margins, fit,
            args.embedding, vocab, shared, params, tools=_tools(args),
            workers=args.workers, client=client, timeout=args.timeout)
        model = trainer.run(args.rounds)
    if model:
        print(model)
    return 0


def cmd_es(args):
    es.check_options(args)  # before anything is read or written
    c = _corpus(args)
    with _client(args) as client:
        model = es.Evolution(os.path.abspath(args.out), c, args, _tools(args),
                             args.workers, client, args.timeout).run()
    print(model)
    return 0


def cmd_judge(args):
    if args.advisor == "evict":
        names = [r for r in args.runs.split(",") if r]
        if not names:
            raise UsageError("--runs: the eviction runs to compare")
        print(json.dumps(judge.evict_scores(args.data, names), indent=1))
        return 0
    if not args.baselines:
        raise UsageError("--baselines: the inline baseline runs, Oz among "
                         "them")
    print(judge.inline_table(
        args.data, args.baselines.split(","),
        [r for r in args.runs.split(",") if r], args.per_package,
        args.linked))
    return 0


def cmd_train(args):
    fit_options = shlex.split(args.fit_options)
    tools = _tools(args)
    if args.search:
        if not (args.corpus and args.valid_packages):
            raise UsageError("--search wants --corpus and --valid-packages")
        with _client(args) as client:
            margin, model = imitation.Steps(
                args.advisor, args.search, Corpus(args.corpus),
                os.path.abspath(args.out), args.valid_packages.split(","),
                _margins(args.margins), args.name, fit_options,
                args.embedding, args.vocab, tools=tools,
                workers=args.workers, client=client,
                timeout=args.timeout).run()
        print(f"margin {margin} scored lowest on {args.valid_packages}; "
              f"{model}")
        return 0
    if args.advisor == "evict":
        if not args.runs:
            raise UsageError("--data evict wants --runs")
        chosen, lines = imitation.evict_examples(
            args.data, args.runs.split(","), args.out + ".examples",
            args.margin)
        print(json.dumps({"functions won": chosen, "logs": len(lines)}))
        imitation.fit(tools, "evict", os.path.join(
            args.out + ".examples", "logs.txt"), args.out, fit_options)
        return 0
    if not args.baselines:
        raise UsageError("--data inline wants --baselines")
    baselines = args.baselines.split(",")
    lines, teachers, table = imitation.inline_examples(
        args.data, baselines, args.states.split(","), args.states_data)
    write_atomically(args.out + ".list", "\n".join(lines) + "\n")
    print(f"{len(table)} modules; teacher per module: " + ", ".join(
        f"{r} {n}" for r, n in teachers.most_common()))
    if "Oz" in baselines:
        oz = sum(r["Oz"] for r in table.values())
        oracle = sum(min(r[b] for b in baselines) for r in table.values())
        print(f"oracle over the baselines: {oracle} bytes, "
              f"{100 * (oracle / oz - 1):+.2f}% vs Oz")
    imitation.fit(tools, "inline", args.out + ".list", args.out, fit_options)
    return 0


def cmd_extract(args):
    tools = _tools(args)
    if args.compile_commands:
        units = extract.from_compile_commands(args.compile_commands, tools,
                                              args.prefix)
        what = f"{args.compile_commands}: no compile command"
    else:
        units = extract.from_objects(args.objects, args.prefix)
        what = "no object file (*.o) in " + " ".join(args.objects)
    if not units:
        raise ExtractError(what)
    command = " ".join([PROG] + sys.argv[1:])
    with _client(args) as client:
        s = extract.extract(units, args.out, tools, args.workers, client,
                            args.timeout, command,
                            Progress(len(units), "extract"))
    for m in s.warnings:
        print(f"{PROG} extract: warning: {m}", file=sys.stderr)
    for m in s.failed:
        print(f"{PROG} extract: error: {m}", file=sys.stderr)
    failed = f", {len(s.failed)} failed" if s.failed else ""
    if not s.modules:
        print(f"{PROG} extract: error: no module extracted (of {s.total}); "
              f"{args.out} not written", file=sys.stderr)
        return 1
    print(f"{os.path.abspath(args.out)}: {len(s.modules)} of {s.total} "
          f"modules{failed}")
    return 0


def cmd_settings(args):
    c = _corpus(args)
    mods = list(c)
    with _engine(args, {"command": "settings"}) as engine:
        table = report.run_table(engine, c, mods, args.table)
        common = sorted(m for m in mods
                        if all(t[m] is not None and t[m].ok
                               for t in table.values()))
        oracle = report.oracle(list(table.values()))
        rows = report.compare(engine, dict(
            table, **{"oracle (smallest per module)": oracle}), base="Oz")
    print(report.markdown(rows, report.best_counts(table, common)))
    failed = sum(1 for t in table.values() for r in t.values()
                 if r is None or not r.ok)
    print(f"\n{len(common)} of {len(mods)} modules compiled by every "
          f"setting; {failed} failed compiles")
    if args.json:
        write_atomically(args.json, json.dumps(
            {"corpus": c.root, "table": args.table, "rows": rows,
             "modules": report.per_module(table, common)},
            indent=1) + "\n")
    return 0 if common else 1


def cmd_tune(args):
    c = _corpus(args)
    items = [(m, c.bitcode(m)) for m in c]
    results = {}
    with _engine(args, _tune_params(args)) as engine:
        for kind in args.space.split(","):
            fn = _partial(tune.search_module, out=os.path.join(
                engine.out, "tune"), kind=kind, budget=args.budget,
                seed=args.seed)
            res = engine.map(fn, items, Progress(len(items), f"tune {kind}"))
            results[kind] = res
            path = os.path.join(engine.out, f"choices-{kind}.json")
            write_atomically(path, json.dumps(
                {"command": " ".join([PROG] + sys.argv[1:]),
                 "space": kind, "budget": args.budget, "seed": args.seed,
                 "choices": tune.choices(res)}, indent=1,
                sort_keys=True) + "\n")
            if kind == "clang":
                replay = os.path.join(engine.out, "replay-clang.json")
                write_atomically(replay, json.dumps(
                    tune.replay_file(res, c), indent=1, sort_keys=True)
                    + "\n")
                print(f"{replay}: the choices for -irtk-pipeline-choices")
            failed = sum(1 for r in res if r is None)
            print(f"{path}: {len(res) - failed} modules"
                  + (f", {failed} failed" if failed else ""))
    return 0


def _tune_params(args):
    """What a tune directory's records and results depend on (the spaces
    may differ from run to run: their results are apart)."""
    return {"command": "tune", "budget": args.budget, "seed": args.seed}


def _partial(fn, **kw):
    import functools
    return functools.partial(fn, **kw)


def _results(out, kind, modules):
    res = []
    for m in modules:
        path = os.path.join(out, "tune", kind, m + ".json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                res.append(json.load(f))
    return res


def cmd_headroom(args):
    held = _corpus(args)
    train = Corpus(args.train_corpus)
    with _engine(args, _tune_params(args), out=args.train_out) as tengine:
        tmods = [m for m in train if os.path.exists(os.path.join(
            tengine.out, "tune", "opt", m + ".json"))]
        if not tmods:
            raise UsageError(f"{args.train_out}: no tune results")
        ttable = report.run_table(tengine, train, tmods, "size")
        trows = report.compare(tengine, ttable)
    best = min((r for r in trows), key=lambda r: (r[2], r[0]))[0]
    mods = list(held)
    with _engine(args, _tune_params(args)) as engine:
        size = report.run_table(engine, held, mods, "size")
        inl = report.run_table(engine, held, mods, "inliner")
        choices = {"-Oz": size["Oz"],
                   f"best fixed configuration ({best}, chosen on training)":
                       size[best],
                   "oracle of the size settings": report.oracle(
                       list(size.values())),
                   "oracle of the nine inliner settings": report.oracle(
                       list(inl.values()))}
        for kind in ("clang", "opt"):
            res = _results(engine.out, kind, mods)
            if res:
                t = report.tuned(engine, held, res)
                choices[f"tune, {kind} space (oracle)"] = report.oracle(
                    [t, report.oracle(list(size.values()))])
        rows = report.compare(engine, choices, base="-Oz")
    print(f"training sample: {len(tmods)} modules; best fixed "
          f"configuration by module .text: {best}")
    print(report.markdown(trows))
    print()
    print(report.markdown(rows))
    return 0


def _best(table, modules):
    """The name of table's setting with the smallest total .text over
    modules (the first listed on a tie)."""
    return min(table, key=lambda n: sum(table[n][m].text for m in modules))


def _ok_everywhere(table, modules):
    return [m for m in modules
            if all(t.get(m) is not None and t[m].ok for t in table.values())]


def _training_side(engine, train, out):
    """(clang-space search results, their modules, the best fixed stock
    setting on them) of a training directory."""
    res = [r for r in _results(engine.out, "clang", list(train)) if r]
    if not res:
        raise UsageError(f"{out}: no clang-space tune results")
    tmods = [r["module"] for r in res]
    stock = report.run_table(engine, train, tmods, "size")
    return res, tmods, _best(stock, _ok_everywhere(stock, tmods))


def _print_splits(vrows, vnote, hrows, hnote, blank=False):
    """The validation and held-out tables, each under its title."""
    print(("\n" if blank else "") +
          f"validation ({vrows[0][1]} modules); {vnote}")
    print(report.markdown(vrows))
    print(f"\nheld-out ({hrows[0][1]} modules): {hnote}")
    print(report.markdown(hrows))


def _three_corpora(args):
    """The training, validation and held-out corpora of nearest and learn,
    their outputs checked against them."""
    train, valid, held = (Corpus(args.train_corpus), Corpus(args.valid_corpus),
                          _corpus(args))
    _check_outputs([(args.json, ()), (args.replay, ()), (args.save, ())],
                   [train, valid, held])
    return train, valid, held


def _states(text):
    states = text.split(",")
    for st in states:
        if st not in nearest.STATES:
            raise UsageError(f"--states: unknown state '{st}' "
                             f"({', '.join(nearest.STATES)})")
    return states


def cmd_nearest(args):
    import numpy as np
    ks = _numbers(args.ks, "--ks", int)
    margins = _numbers(args.margins, "--margins", float)
    states = _states(args.states)
    train, valid, held = _three_corpora(args)
    params = _tune_params(args)
    with _engine(args, params, out=args.train_out) as te:
        res, tmods, fixed = _training_side(te, train, args.train_out)
        cands = nearest.around(fixed, res, args.candidates) \
            if args.around_fixed else nearest.candidates(res, args.candidates)
        names = [n for n, _ in cands]
        ttab = report.policy_table(te, train, tmods, cands)
    tmods = _ok_everywhere(ttab, tmods)
    base = names.index(fixed)
    ttext = np.array([[ttab[n][m].text for n in names] for m in tmods],
                     dtype=np.float64)
    print(f"{len(tmods)} training modules, {len(names)} candidates; "
          f"best fixed configuration: {fixed}", file=sys.stderr)

    def states_of(corpus, mods):
        return nearest.states([corpus.bitcode(m) for m in mods], states)

    def table_of(engine, corpus):
        mods = list(corpus)
        table = report.policy_table(engine, corpus, mods, cands)
        return table, _ok_everywhere(table, mods)

    def choice(table, mods, picks):
        return {m: table[names[c]][m] for m, c in zip(mods, picks)}

    tx = states_of(train, tmods)
    with _engine(args, params, out=args.valid_out) as ve:
        vtab, vmods = table_of(ve, valid)
        vx = states_of(valid, vmods)
        vrows = {"-Oz": vtab["Oz"], f"best fixed ({fixed})": vtab[fixed],
                 "oracle of the candidates": report.oracle(list(vtab.values()))}
        tried = []
        for st in states:
            txs, vxs = nearest.standardise(tx[st], vx[st])
            for k in ks:
                for margin in margins:
                    picks = nearest.choose(txs, ttext, vxs, k, base, margin)
                    vrows[f"nearest, {st}, k={k}, margin={margin:g}"] = \
                        choice(vtab, vmods, picks)
                    tried.append((st, k, margin))
        rows = report.compare(ve, vrows, base="-Oz")
    scored = rows[3:]

    def best_of(st):
        mine = [(r, t) for r, t in zip(scored, tried) if t[0] == st]
        return min(mine, key=lambda rt: (rt[0][4], rt[0][2]))

    chosen = min((best_of(st) for st in states),
                 key=lambda rt: (rt[0][4], rt[0][2]))[1]
    with _engine(args, params) as he:
        htab, hmods = table_of(he, held)
        hx = states_of(held, hmods)
        hchoices = {"-Oz": htab["Oz"],
                    f"best fixed ({fixed}, chosen on training)": htab[fixed]}
        picked = {}
        for st in states:
            _, k, margin = best_of(st)[1]
            txs, hxs = nearest.standardise(tx[st], hx[st])
            picked[st] = nearest.choose(txs, ttext, hxs, k, base, margin)
            mark = " (chosen on validation)" if st == chosen[0] else ""
            hchoices[f"nearest, {st}, k={k}, margin={margin:g}{mark}"] = \
                choice(htab, hmods, picked[st])
        hchoices["oracle of the candidates"] = report.oracle(
            list(htab.values()))
        hrows = report.compare(he, hchoices, base="-Oz")
    picks = picked[chosen[0]]
    print(f"candidates ({len(names)}, from {len(tmods)} training modules):")
    for n in names:
        print(f"- {n}")
    _print_splits(rows, f"state, k and margin by linked .text: {chosen[0]}, "
                  f"{chosen[1]}, {chosen[2]:g}", hrows,
                  "each state with the k and margin validation chose for it",
                  blank=True)
    hchoice = {m: names[c] for m, c in zip(hmods, picks)}
    if args.json:
        write_atomically(args.json, json.dumps(
            {"candidates": names, "fixed": fixed, "state": chosen[0],
             "k": chosen[1], "margin": chosen[2], "validation": rows,
             "heldout": hrows, "choices": hchoice}, indent=1,
            sort_keys=True) + "\n")
    if args.replay:
        write_atomically(args.replay, json.dumps(nearest.replay_file(
            hchoice, cands, held), indent=1, sort_keys=True) + "\n")
    if args.save:
        _, k, margin = chosen
        write_atomically(args.save, json.dumps(nearest.policy_doc(
            chosen[0], k, margin, fixed, cands, tx[chosen[0]], ttext)) +
            "\n")
    return 0


def cmd_choose(args):
    c = _corpus(args)
    _check_outputs([(args.replay, (args.policy,))], [c])
    try:
        doc = nearest.read_policy(args.policy)
        mods = list(c)
        names = nearest.decide(doc, [c.bitcode(m) for m in mods])
    except ValueError as e:  # a bad policy or module: the file's error
        print(f"{PROG} choose: error: {e}", file=sys.stderr)
        return 1
    configs = {d["name"]: Config.from_key(d["config"])
               for d in doc["candidates"]}
    write_atomically(args.replay, json.dumps(nearest.replay_file(
        dict(zip(mods, names)), configs, c), indent=1, sort_keys=True) +
        "\n")
    print(f"{args.replay}: {len(mods)} modules; " + ", ".join(
        f"{n}: {k}" for n, k in collections.Counter(names).most_common()))
    return 0


def cmd_learn(args):
    try:
        from . import pipelinelearn as learn
    except ImportError as e:
        raise UsageError(str(e)) from e
    trainers = args.trainers.split(",")
    for t in trainers:
        if t not in LEARNERS:
            raise UsageError(f"--trainers: unknown trainer '{t}' "
                             f"({', '.join(LEARNERS)})")
    states = _states(args.states)
    if args.second < 0:
        raise UsageError("--second: not a number of additions")
    margins = _numbers(args.margins, "--margins", float)
    train, valid, held = _three_corpora(args)
    params = _tune_params(args)
    with _engine(args, params, out=args.train_out) as te:
        res, tmods, fixed = _training_side(te, train, args.train_out)
        cands = nearest.around(fixed, res, args.candidates)
        if "values" in trainers:
            ttab = report.policy_table(te, train, tmods, cands)
            if args.second:
                # A second round: the single additions to the candidate
                # best on training.
                best = _best(ttab, _ok_everywhere(ttab, tmods))
                more = [c for c in nearest.additions(
                    nearest.config_of(best, dict(cands)[best]), res,
                    args.second) if c[0] not in dict(cands)]
                cands += more
                ttab.update(report.policy_table(te, train, tmods, more))
            tmods = _ok_everywhere(ttab, tmods)
        tx = nearest.states([train.bitcode(m) for m in tmods], states)
        policies = {}
        for st in states:
            if "values" in trainers:
                policies.update(_train_values(args, learn, st, tx[st], ttab,
                                              tmods, cands, fixed, margins))
            if {"bcmax", "dqn"} & set(trainers):
                policies.update(_train_moves(args, learn, st, te, train,
                                             tmods, tx[st], res, fixed,
                                             trainers, margins))
    print(f"{len(tmods)} training modules; best fixed setting {fixed}",
          file=sys.stderr)
    # The baselines a per-module choice must beat besides the stock flags:
    # each candidate for every module (plugin-reachable fixed settings),
    # the one best on training marked.
    single = {}
    if "values" in trainers:
        best = _best(ttab, tmods)
        for name, policy in cands:
            mark = ", best on training" if name == best else ""
            single[f"every module: {name}{mark}"] = nearest.config_of(
                name, policy)
    with _engine(args, params, out=args.valid_out) as ve:
        vrows, _ = _judge(ve, valid, fixed, policies, single)
    score = {k: (r[4], r[2]) for k, r in zip(policies, vrows[2:])}

    def best_of(st):
        return min((k for k in policies if policies[k].state == st),
                   key=lambda k: score[k])

    chosen = min((best_of(st) for st in states), key=lambda k: score[k])
    mine = {best_of(st) + (" (chosen on validation)"
                           if best_of(st) == chosen else ""):
            policies[best_of(st)] for st in states}
    with _engine(args, params) as he:
        hrows, hplans = _judge(he, held, fixed, mine, single)
    _print_splits(vrows, f"chosen by linked .text: {chosen}", hrows,
                  "each state with what validation chose for it")
    plan = hplans[chosen + " (chosen on validation)"]
    if args.json:
        write_atomically(args.json, json.dumps(
            {"fixed": fixed, "chosen": chosen, "validation": vrows,
             "heldout": hrows,
             "choices": {m: c.describe() for m, c in plan.items()}},
            indent=1, sort_keys=True) + "\n")
    if args.replay:
        configs = {c.describe(): c for c in plan.values()}
        write_atomically(args.replay, json.dumps(nearest.replay_file(
            {m: c.describe() for m, c in plan.items()}, configs, held),
            indent=1, sort_keys=True) + "\n")
    if args.save:
        write_atomically(args.save, json.dumps(policies[chosen].doc()) +
                         "\n")
    return 0


LEARNERS = ("bcmax", "dqn", "values")
# What validation chooses the values network from.
VALUE_SHAPES = ((32,), (64, 64))
VALUE_DECAYS = (1e-3, 1e-2)


class _Learned:
    """A trained policy: its state's kind, plan(corpus, modules, states)
    -> {module: Config} (no compile), and doc() for --save."""

    def __init__(self, state, plan, doc):
        self.state, self.plan, self.doc = state, plan, doc


def _train_values(args, learn, st, x, ttab, tmods, cands, fixed, margins):
    names = [n for n, _ in cands]
    text = [[ttab[n][m].text for n in names] for m in tmods]
    base = names.index(fixed)
    configs = [nearest.config_of(n, p) for n, p in cands]
    out = {}
    for hidden in VALUE_SHAPES:
        for decay in VALUE_DECAYS:
            net = learn.layers_doc(learn.fit_values(
                x, text, base, hidden, epochs=args.epochs,
                weight_decay=decay, seed=args.train_seed))
            for margin in margins:
                def plan(corpus, mods, states, net=net, margin=margin):
                    picks = nearest.choose_values(
                        nearest.values(net, states[st]), base, margin)
                    return {m: configs[c] for m, c in zip(mods, picks)}

                def doc(net=net, margin=margin):
                    return nearest.values_doc(st, margin, fixed, cands, net)
                shape = "x".join(map(str, hidden))
                out[f"values, {st}, {shape}, decay={decay:g}, "
                    f"margin={margin:g}"] = _Learned(st, plan, doc)
    return out


def _train_moves(args, learn, st, te, train, tmods, x, res, fixed, trainers,
                 margins):
    from .pipelineenv import PipelineEnv
    env = PipelineEnv(te, train, dict(zip(tmods, x)), start=fixed,
                      horizon=args.horizon, seed=args.train_seed)
    out = {}

    def learned(net, trainer):
        def plan(corpus, mods, states):
            other = PipelineEnv(None, corpus, dict(zip(mods, states[st])),
                                start=env.start, horizon=env.horizon)
            return {m: c for m, (c, _) in learn.plan(net, other,
                                                     mods).items()}
        return _Learned(st, plan, lambda: learn.policy_doc(net, env, st,
                                                           trainer))
    for margin in margins:
        targets = learn.bc_max_targets(env, res, margin)
        net = learn.bc_max(env, targets, epochs=args.epochs,
                           seed=args.train_seed)
        if "bcmax" in trainers:
            out[f"bcmax, {st}, margin={margin:g}"] = learned(net, "bcmax")
        if "dqn" in trainers:
            net = learn.dqn(env, rounds=args.rounds, net=net,
                            seed=args.train_seed,
                            on_round=_Rounds(f"dqn, {st}, margin {margin:g}",
                                             args.rounds))
            out[f"dqn, {st}, margin={margin:g}"] = learned(net, "dqn")
    return out


class _Rounds:
    def __init__(self, what, total):
        self.what, self.total = what, total

    def __call__(self, k, stats):
        print(f"{self.what}: round {k + 1}/{self.total}, mean gain "
              f"{stats['gain']:+.3f}%, {stats['compiles']} compiles",
              file=sys.stderr)


def _judge(engine, corpus, fixed, policies, single=None):
    """Rows (-Oz, the fixed setting, each policy's, then each of single's
    {name: Config} for every module) of the policies' plans on corpus, and
    the plans; a module whose planned configuration does not compile ships
    the fixed setting (counted in the row's name)."""
    mods = list(corpus)
    stock = report.run_table(engine, corpus, mods, "size")
    mods = _ok_everywhere(stock, mods)
    x = nearest.states([corpus.bitcode(m) for m in mods],
                       sorted({p.state for p in policies.values()}))
    rows = {"-Oz": stock["Oz"], f"best fixed ({fixed})": stock[fixed]}
    plans = {}
    every = {name: _Learned(None, lambda c, ms, xs, cfg=cfg: dict.fromkeys(
        ms, cfg), None) for name, cfg in (single or {}).items()}
    for name, policy in list(policies.items()) + list(every.items()):
        plans[name] = policy.plan(corpus, mods, x)
        recs = engine.run([Job(m, corpus.bitcode(m),
                               Pipeline(plans[name][m])) for m in mods])
        failed = sum(1 for r in recs if not r.ok)
        label = name + (f" ({failed} failed: fixed)" if failed else "")
        rows[label] = {m: r if r.ok else stock[fixed][m]
                       for m, r in zip(mods, recs)}
    return report.compare(engine, rows, base="-Oz"), plans


def _numbers(text, option, kind):
    try:
        values = [kind(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 0 or (kind is int and min(values) < 1):
        raise UsageError(f"{option}: '{text}' is not a list of "
                         f"{'positive' if kind is int else 'non-negative'} "
                         "numbers")
    return values




def _shared(corpus=True, out=True):
    return lambda s: shared_options(s, corpus=corpus, out=out)


def _extract_arguments(s):
    shared_options(s, corpus=False)
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--compile-commands", metavar="JSON",
                     help="compile every command again to pre-optimisation "
                     "bitcode")
    src.add_argument("--objects", nargs="+", metavar="PATH",
                     help="objects (or directories of them) built with "
                     "-Xclang -fembed-bitcode=all")
    s.add_argument("--prefix", default="",
                   help="put the modules under this directory of the corpus "
                   "(e.g. Oz-preopt/PACKAGE)")


def _corpus_arguments(s):
    shared_options(s, out=False)
    s.add_argument("--write", help="write the selection as a corpus")
    s.add_argument("--link", metavar="DIR",
                   help="write a corpus of whole-package modules: each "
                   "package's modules linked (llvm-link) into as few as "
                   "their strong symbols allow")


def _collect_arguments(s):
    shared_options(s)
    s.add_argument("--policy", default="stock",
                   choices=["stock", "default", "model", "replay"])
    s.add_argument("--advisor", default="inline", choices=["inline", "evict"],
                   help="evict: with --runs (default, NAME=MODEL), llc -O2 "
                   "of optimised bitcode")
    s.add_argument("--policy-file", help="the model or decisions")
    s.add_argument("--log", action="store_true",
                   help="keep the advisor's log and trace")
    s.add_argument("--flag", action="append", default=[],
                   help="a clang flag for every compile (repeat)")
    s.add_argument("--runs", help="the inline advisor's named runs instead "
                   "of --policy (Oz, thr<N>, NAME=MODEL, NAME@CALLERS-DIR, "
                   "NAME:DECISIONS-DIR), each logged and laid out under "
                   "--out/<run>/")
    s.add_argument("--teachers", default=",".join(
        map(str, runs.DEFAULT_TEACHERS)),
        help="--runs: the teachers logged (default: %(default)s)")
    _embedding(s, "--runs: the embedding features logged")
    s.add_argument("--vocab", help="--runs: the vocabulary of the embedding "
                   "features (default: the bundled one)")


def _settings_arguments(s):
    shared_options(s)
    s.add_argument("--table", default="size", choices=["size", "inliner"])
    s.add_argument("--json", help="also write the rows as JSON")


def _embedding(s, what):
    """--embedding: the inline advisor's embedding features (symbolic,
    flow-aware) in the logs, or none."""
    s.add_argument("--embedding", default="symbolic",
                   choices=["none", "symbolic", "flow-aware"],
                   help=what + " (default: %(default)s)")


def _budget(s):
    s.add_argument("--budget", type=_positive, default=tune.DEFAULT_BUDGET,
                   help="compiles per module (default: %(default)s)")


def _splits(s, valid):
    """The pipeline commands' training (and validation) corpora and their
    search records."""
    s.add_argument("--train-corpus", required=True)
    s.add_argument("--train-out", required=True)
    if valid:
        s.add_argument("--valid-corpus", required=True)
        s.add_argument("--valid-out", required=True)


def _tune_arguments(s):
    shared_options(s)
    s.add_argument("--space", default="opt,clang",
                   help="opt, clang or both (opt,clang)")
    _budget(s)


def _headroom_arguments(s):
    shared_options(s)
    _budget(s)
    _splits(s, valid=False)


def _nearest_arguments(s):
    shared_options(s)
    _budget(s)
    _splits(s, valid=True)
    s.add_argument("--candidates", type=_positive, default=8,
                   help="clang-space configurations (or moves) besides the "
                   "stock settings (default: %(default)s)")
    s.add_argument("--ks", default="1,3,5,10,25,50,100,400",
                   help="the neighbourhoods validation chooses from "
                   "(default: %(default)s)")
    s.add_argument("--around-fixed", action="store_true",
                   help="candidates: the best fixed setting's clang-space "
                   "analogue and its most frequent single moves")
    _policy_options(s, "nearest")


def _learn_arguments(s):
    shared_options(s)
    _budget(s)
    _splits(s, valid=True)
    s.add_argument("--trainers", default="values",
                   help="values, bcmax, dqn (from BC-Max's network), or "
                   "several; validation chooses (default: %(default)s)")
    s.add_argument("--candidates", type=_positive, default=6,
                   help="values: the fixed setting's most frequent single "
                   "moves among the candidates (default: %(default)s)")
    s.add_argument("--second", type=int, default=0,
                   help="values: also the N most frequent single additions "
                   "to the candidate best on training (default: "
                   "%(default)s)")
    s.add_argument("--horizon", type=_positive, default=PIPELINE_HORIZON,
                   help="moves per episode (default: %(default)s)")
    s.add_argument("--train-seed", type=int, default=0,
                   help="the trainers' seed (--seed is the search's, whose "
                   "records are read)")
    s.add_argument("--epochs", type=_positive, default=300,
                   help="BC-Max's and the values network's epochs (default: "
                   "%(default)s)")
    s.add_argument("--rounds", type=_positive, default=24,
                   help="DQN's rounds of 32 episodes (default: %(default)s)")
    _policy_options(s, "learn")


def _choose_arguments(s):
    shared_options(s, out=False)
    s.add_argument("--policy", required=True,
                   help="a policy nearest --save or learn --save (values) "
                   "wrote")
    s.add_argument("--replay", required=True,
                   help="the plugin's choices file to write (build with "
                   "-enable-machine-outliner)")


def _shared_inline(s):
    s.add_argument("--shared", help="judge by what each package's link "
                   "keeps: the C++ inline functions shared at stock (shared/ "
                   "of search --kind edge --linked)")


def _corpus_build_arguments(s):
    s.add_argument("action", choices=["packages", "prep", "build"],
                   help="packages: the list's packages of --splits, one a "
                   "line; prep: --package's prep steps (STAMP<TAB>COMMAND); "
                   "build: the module table, the compiles, the corpus "
                   "descriptions and the manifest")
    s.add_argument("--recipes", required=True,
                   help="the recipes table (vocab/recipe/corpus-recipes.txt)")
    s.add_argument("--packages", help="the package list (packages, build)")
    s.add_argument("--package", help="prep: the package")
    s.add_argument("--splits", default="train,heldout")
    s.add_argument("--work", help="build: the output directory")
    s.add_argument("--src", help="build: where the sources are")
    s.add_argument("--jobs", type=_positive, default=os.cpu_count() or 1)
    s.add_argument("--levels-per-file", type=int, default=3,
                   choices=range(1, 7), metavar="K")
    s.add_argument("--clang", default="clang-22")
    s.add_argument("--clangxx", default="clang++-22")


def _program_arguments(s, name):
    s.add_argument("--out", required=True, help="where to build (created)")
    if name:
        s.add_argument("--name", required=True,
                       help="the build's name: its directory in --out")
    else:
        s.add_argument("--packages", default="cjson,giflib",
                       help=f"of {', '.join(programs.PACKAGES)} (default: "
                       "%(default)s)")
    s.add_argument("--src", required=True, help="the Debian sources "
                   "(vocab/recipe/build-corpus.sh fetches them)")
    s.add_argument("--jobs", type=_positive, default=os.cpu_count() or 1)
    s.add_argument("--clang", help="the compiler (default: $CLANG, else "
                   "clang-22)")
    s.add_argument("extra", nargs="*", metavar="-- EXTRA-CFLAGS",
                   help="added to every compile (a policy's flags)")


def cmd_programs(args):
    tools = Toolchain(args.clang)
    if args.command == "workloads":
        return programs.workloads(tools, args.out, args.name, args.src,
                                  args.extra, args.jobs)
    return programs.programs(tools, args.out, args.src,
                             args.packages.split(","), args.extra, args.jobs)


def _judge_arguments(s):
    shared_options(s, corpus=False, out=False)
    s.add_argument("--data", required=True,
                   help="a collection (collect --runs --out)")
    s.add_argument("--advisor", default="inline", choices=["inline", "evict"])
    s.add_argument("--baselines", help="inline: the baseline runs, Oz among "
                   "them (the oracle of the baselines)")
    s.add_argument("--runs", default="", help="the other runs (evict: "
                   "every run, the first the reference)")
    s.add_argument("--per-package", action="store_true",
                   help="inline: a table per package too")
    s.add_argument("--linked", action="store_true",
                   help="inline: what each package's link keeps (ld -r)")


def _train_arguments(s):
    shared_options(s, corpus=False)
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--data", help="imitate the best run of a collection "
                     "per module (inline) or per function (evict)")
    src.add_argument("--search", help="a search's labelled steps "
                     "(steps.txt), the margin chosen on --valid-packages")
    s.add_argument("--advisor", default="inline", choices=["inline", "evict"])
    s.add_argument("--baselines", help="--data inline: the runs a teacher "
                   "is chosen from")
    s.add_argument("--states", default="best",
                   help="--data inline: the runs whose states are labelled "
                   "(best: the teacher's own) (default: %(default)s)")
    s.add_argument("--states-data", help="--data inline: read the states' "
                   "logs from this collection")
    s.add_argument("--runs", help="--data evict: the runs, the first "
                   "winning ties")
    s.add_argument("--margin", type=float, default=0.0,
                   help="--data evict: the relative score a later run must "
                   "save to win a function (default: %(default)s)")
    s.add_argument("--corpus", help="--search: the corpus the search "
                   "ran on (its validation packages are compiled)")
    s.add_argument("--valid-packages", help="--search: the packages that "
                   "choose the margin (their steps are not fitted on)")
    s.add_argument("--margins", default="0,1,2,4",
                   help="--search: the default margins tried (default: "
                   "%(default)s)")
    s.add_argument("--name", help="--search: the models' name (default: "
                   "the advisor's)")
    _embedding(s, "--search inline: the embedding features of the "
               "validation compiles, as the steps' logs had")
    s.add_argument("--vocab", help="--search inline: their vocabulary")
    s.add_argument("--fit-options", default="",
                   help="irtk-train fit options, as one string")


def _bcmax_arguments(s):
    shared_options(s)
    s.add_argument("--valid-corpus", required=True,
                   help="the validation corpus (chooses the margin)")
    s.add_argument("--baselines", required=True,
                   help="the first teachers: runs of collect --runs, Oz "
                   "among them (e.g. Oz,searched:DIR/decisions)")
    s.add_argument("--rounds", type=int, default=3,
                   help="rounds; more continue a finished run (default: "
                   "%(default)s)")
    s.add_argument("--margins", default="0,1,2,4",
                   help="the default margins validation chooses from "
                   "(default: %(default)s)")
    _embedding(s, "the embedding features of the logs")
    s.add_argument("--vocab", help="the vocabulary of the embedding "
                   "features (default: the bundled one)")
    s.add_argument("--fit-options", default="",
                   help="irtk-train fit options for every model, as one "
                   "string (e.g. '--hidden 32 --epochs 20')")
    _shared_inline(s)


def _es_arguments(s):
    shared_options(s)
    s.add_argument("--model", required=True,
                   help="the warm-start model (irtk-mlp, inline advisor)")
    s.add_argument("--steps", type=int, default=10,
                   help="steps; more continue a finished run (default: "
                   "%(default)s)")
    s.add_argument("--perturbations", type=int, default=100,
                   help="candidates a step, even (default: %(default)s)")
    s.add_argument("--sigma", type=float, default=0.025,
                   help="the perturbations' scale (default: %(default)s, a "
                   "warm start's; MLGO's cold start: 0.5)")
    s.add_argument("--step-size", type=float, default=0.01,
                   help="(default: %(default)s)")
    s.add_argument("--modules-per-step", type=int, default=0,
                   help="judge each step on this many modules, drawn per "
                   "step (default: all)")
    s.add_argument("--relative-noise", action="store_true")
    s.add_argument("--residual", action="store_true",
                   help="start from exactly -Oz (docs/InlineTraining.md)")
    s.add_argument("--keep-hidden", action="store_true",
                   help="with --residual: keep the warm model's hidden "
                   "layers")
    s.add_argument("--layers", help="perturb only these layers (irtk-train "
                   "es-start --layers: indices from 0, or 'last')")
    s.set_defaults(seed=1)
    _shared_inline(s)


def _search_arguments(s):
    shared_options(s)
    s.add_argument("--kind", required=True,
                   choices=["flip", "caller", "edge", "evict"],
                   help="inlining: flip (each of the first --depth "
                   "decisions flipped alone), caller (a teacher per "
                   "caller, greedily) or edge (a decision per call edge); "
                   "eviction: evict (one-step deviations per function)")
    _embedding(s, "flip, caller, evict: the embedding features of the "
               "logs (evict: none or not)")
    s.add_argument("--depth", type=int,
                   help="flip, evict: the decisions searched (default: "
                   "flip 16, evict 8)")
    s.add_argument("--margin", type=float,
                   help="flip, caller: the bytes a departure must save "
                   "(default 1); evict: the relative score it must save "
                   "(default 0.001)")
    s.add_argument("--alternatives", default="-1,0,1",
                   help="evict: the departures tried at each step (-1: no "
                   "eviction; j: the j-th other candidate) (default: "
                   "%(default)s)")
    s.add_argument("--teachers", default=",".join(
        map(str, inlinesearch.DEFAULT_TEACHERS)),
        help="caller: the teachers' thresholds (default: %(default)s)")
    s.add_argument("--budget", type=int,
                   help="caller, edge: compiles per module besides stock "
                   "(default: caller 40, edge 60)")
    s.add_argument("--rounds", type=int, default=4,
                   help="edge: rounds of moves (default: %(default)s)")
    s.add_argument("--exhaustive", type=int, default=3,
                   help="edge: clusters of at most this many edges are "
                   "searched exhaustively (default: %(default)s)")
    s.add_argument("--linked", action="store_true",
                   help="edge: minimise what the package's link keeps of "
                   "each module")


def _policy_options(s, name):
    """The options nearest and learn share: what validation chooses from,
    and the outputs."""
    learn = name == "learn"
    s.add_argument("--states", default="both" if learn else "embedding",
                   help="the states validation chooses from: embedding, "
                   "counts, both, random (the module vector under a random "
                   "vocabulary) (default: %(default)s)")
    s.add_argument("--margins", default="0,0.0025,0.005" if learn else "0",
                   help="the least relative gain over the best fixed "
                   "setting that makes a module leave it (" +
                   ("BC-Max: in its labels; values: predicted"
                    if learn else "the neighbours' mean") +
                   "); validation chooses (default: %(default)s)")
    s.add_argument("--json", help="also write the results as JSON")
    s.add_argument("--replay", help="write the held-out choices as the "
                   "plugin's choices file (build with "
                   "-enable-machine-outliner)")
    s.add_argument("--save", help="write the chosen policy" +
                   (": a values policy is what choose and the plugin's "
                    "model policy read; BC-Max's and DQN's networks are "
                    "for Python (pipelinelearn.plan)"
                    if learn else " (for choose and the plugin)"))


# name: (what runs it, what declares its options, its help)
COMMANDS = {
    "toolchain": (
        cmd_toolchain, _shared(corpus=False, out=False),
        "what this package finds"),
    "corpus": (
        cmd_corpus, _corpus_arguments,
        "a corpus's modules; --write a sample, --link whole-package modules"),
    "collect": (
        cmd_collect, _collect_arguments,
        "compile a corpus under a policy, or under an advisor's named runs "
        "(--runs)"),
    "extract": (
        cmd_extract, _extract_arguments,
        "a corpus from a build (compile commands or objects with embedded "
        "bitcode)"),
    "settings": (
        cmd_settings, _settings_arguments,
        "the fixed stock-flag configurations"),
    "tune": (
        cmd_tune, _tune_arguments,
        "the per-module search of the size pipeline"),
    "headroom": (
        cmd_headroom, _headroom_arguments,
        "the headroom report (docs/Pipeline.md)"),
    "nearest": (
        cmd_nearest, _nearest_arguments,
        "a first policy: nearest training modules vote for a candidate "
        "configuration"),
    "choose": (
        cmd_choose, _choose_arguments,
        "a saved nearest policy's choices for a corpus, as the plugin's "
        "choices file (no compile)"),
    "learn": (
        cmd_learn, _learn_arguments,
        "learned size-pipeline policies (values network, BC-Max, DQN); "
        "validation chooses"),
    "search": (
        cmd_search, _search_arguments,
        "a search per module: one flipped inlining decision, a teacher per "
        "caller, a decision per call edge, or one-step eviction deviations"),
    "judge": (
        cmd_judge, _judge_arguments,
        "a collection's runs compared: .text (and linked) totals and "
        "oracles, or eviction scores"),
    "train": (
        cmd_train, _train_arguments,
        "imitation through irtk-train fit: of each module's (function's) "
        "best run, or of a search's steps"),
    "bcmax": (
        cmd_bcmax, _bcmax_arguments,
        "BC-Max for the inline advisor: rounds of imitation of each "
        "module's best run so far"),
    "es": (
        cmd_es, _es_arguments,
        "evolution strategies for the inline advisor, rewarded by the .text"
        " of every module"),
    "corpus-build": (
        debcorpus.run, _corpus_build_arguments,
        "MLGO corpora from Debian source packages by a recipes table "
        "(build-corpus.sh)"),
    "programs": (
        cmd_programs, lambda s: _program_arguments(s, False),
        "held-out packages built with a policy's flags, their own tests "
        "run"),
    "workloads": (
        cmd_programs, lambda s: _program_arguments(s, True),
        "lua, bzip2 and zstd built with a policy's flags, their workloads "
        "counted under callgrind"),
}


def parser():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="command")
    for name, (_, options, help_text) in COMMANDS.items():
        options(sub.add_parser(name, help=help_text))
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    fn = COMMANDS[args.command][0]
    try:
        if getattr(args, "space", None):
            for k in args.space.split(","):
                if k not in tune.SPACES:
                    raise UsageError(f"--space: unknown space '{k}'")
        return fn(args)
    except UsageError as e:
        print(f"{PROG} {args.command}: {e}", file=sys.stderr)
        return 2
    except (CorpusError, EngineError, ExtractError, MissingTool,
            PipelineError, LogError, OutputError, OSError, runs.RunError,
            bcmax.BCMaxError, debcorpus.CorpusBuildError, es.ESError,
            judge.JudgeError, programs.ProgramError,
            imitation.TrainError) as e:
        print(f"{PROG} {args.command}: error: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"{PROG} {args.command}: error: {os.path.basename(e.cmd[0])} "
              f"{e.cmd[1]} failed (exit {e.returncode})", file=sys.stderr)
        return 1
