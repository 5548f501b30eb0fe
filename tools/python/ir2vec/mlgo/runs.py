# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Named runs of an advisor over a corpus (``collect --runs``): every
module compiled once per run as a user's compile would, on the engine, each
run's outputs laid out for reading and for the trainers.

For the inline advisor (``clang -Oz -c`` of pre-optimisation bitcode), a
run is one of:

- ``Oz``: the default policy (stock ``-Oz`` decisions);
- ``thr<N>``: the default policy following the teacher of threshold N
  (``-irtk-inline-follow=N``: the stock heuristic as
  ``-inline-threshold=N`` sets it up); N must be one of the teachers;
- ``<name>=<model.json>``: the model policy with that model;
- ``<name>@<dir>``: the default policy following, in each module, the
  per-caller teachers of ``<dir>/<module>.txt`` (``search --kind caller``'s
  ``callers/``);
- ``<name>:<dir>``: the default policy taking, in each module, the
  per-edge decisions of ``<dir>/<module>.txt`` (``search --kind edge``'s
  ``decisions/``).

Every inline run logs every decision with every teacher's decision
(``-irtk-inline-teachers``; threshold 5 is ``-Oz``'s own) and the
embedding features. For the eviction advisor (``llc -O2`` of optimised
bitcode), a run is ``default`` (stock decisions) or
``<name>=<model.json>``; every decision is logged, each function's
RegAllocScore the reward after its last one.

The engine's records go to ``<out>/engine``; per (run, module) the
collection writes:

- ``<out>/<run>/<module>.txt``: tab-separated ``status`` (ok or failed),
  ``run``, ``policy`` (the job's policy, JSON), ``command`` (the compile
  that ran), then ``text`` (bytes of the ``.text*`` sections) or
  ``error``;
- ``<out>/<run>/<module>.o`` and ``.log``: the object and the training log
  (copies of the engine's: what a reader does to them never reaches the
  engine's cache).

A rerun replays the engine's records: a run whose model or files changed
since is not compiled again.
"""

import dataclasses
import json
import os
import shlex
import shutil

from .engine import Engine, Job, write_atomically
from .policy import Default, Model, Replay

DEFAULT_TEACHERS = (-100000, 0, 5, 25, 50, 100, 225)


class RunError(ValueError):
    """A run that cannot be compiled as given."""


@dataclasses.dataclass(frozen=True)
class Run:
    """A parsed run: its name, its kind (oz, thr, model, callers,
    decisions) and its argument (the threshold, the model or the
    directory)."""

    name: str
    kind: str
    arg: str = ""


def parse(text, teachers=DEFAULT_TEACHERS, advisor="inline"):
    """The runs of a comma-separated list; RunError for one that is
    unknown, names a missing file or a threshold not among the teachers."""
    runs = []
    for r in filter(None, text.split(",")):
        if advisor == "evict" and r != "default" and "=" not in r:
            raise RunError(f"unknown run '{r}' (default or NAME=MODEL)")
        if r == "Oz" or (advisor == "evict" and r == "default"):
            run = Run(r, "oz")
        elif "=" in r:
            name, path = r.split("=", 1)
            if not os.path.isfile(path) or not os.path.getsize(path):
                raise RunError(f"run {r}: no model file '{path}'")
            run = Run(name, "model", os.path.abspath(path))
        elif "@" in r or ":" in r:
            sep = "@" if "@" in r else ":"
            name, path = r.split(sep, 1)
            if not os.path.isdir(path):
                raise RunError(f"run {r}: no directory '{path}'")
            run = Run(name, "callers" if sep == "@" else "decisions",
                      os.path.abspath(path))
        elif r.startswith("thr"):
            try:
                n = int(r[3:])
            except ValueError:
                raise RunError(f"unknown run '{r}'") from None
            if n not in teachers:
                raise RunError(f"run {r}: {n} is not among the teachers")
            run = Run(r, "thr", str(n))
        else:
            raise RunError(f"unknown run '{r}'")
        if any(x.name == run.name for x in runs):
            raise RunError(f"run {run.name} is named twice")
        runs.append(run)
    if not runs:
        raise RunError("no run is given")
    return runs


def policy(run, module, teachers=DEFAULT_TEACHERS, embedding="symbolic",
           vocab=None, advisor="inline"):
    """The logged policy of ``run`` for ``module``."""
    if advisor == "evict":
        extra = ["-irtk-evict-embeddings=" +
                 ("false" if embedding == "none" else "true")]
        if run.kind == "model":
            return Model("evict", run.arg, logged=True, extra=extra)
        return Default("evict", logged=True, extra=extra)
    extra = ["-irtk-inline-teachers=" + ",".join(map(str, teachers)),
             "-irtk-inline-embedding=" + embedding]
    if vocab:
        extra.append("-irtk-vocab-path=" + os.path.abspath(vocab))
    per_module = os.path.join(run.arg, module + ".txt")
    if run.kind == "model":
        return Model("inline", run.arg, logged=True, extra=extra)
    if run.kind == "decisions":
        return Replay("inline", per_module, logged=True, extra=extra)
    if run.kind == "thr":
        extra.append("-irtk-inline-follow=" + run.arg)
    elif run.kind == "callers":
        extra.append("-irtk-inline-follow-callers=" + per_module)
    return Default("inline", logged=True, extra=extra)


def engine(out, **engine_args):
    """The engine of the collection laid out under ``out``: its records in
    ``<out>/engine``. ``engine_args``: tools, workers, client, timeout."""
    return Engine(os.path.join(out, "engine"), {"command": "collect"},
                  **engine_args)


def collect(engine, corpus, runs, out, teachers=DEFAULT_TEACHERS,
            embedding="symbolic", vocab=None, on_record=None,
            advisor="inline"):
    """Compiles every module of ``corpus`` under every run (module by
    module) and writes the runs' layout under ``out``; {run name: {module:
    Record}}."""
    level = "O2" if advisor == "evict" else "Oz"
    jobs = [(r, m, Job(m, corpus.bitcode(m), policy(
        r, m, teachers, embedding, vocab, advisor), level=level))
            for m in corpus for r in runs]
    records = engine.run([j for _, _, j in jobs], on_record)
    table = {r.name: {} for r in runs}
    for (r, m, _), rec in zip(jobs, records):
        _lay_out(engine, out, r.name, m, rec)
        table[r.name][m] = rec
    return table


def _copy(src, dst):
    """dst as a copy of src, replaced whole."""
    tmp = f"{dst}.tmp{os.getpid()}"
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def _lay_out(engine, out, run, module, rec):
    base = os.path.join(out, run, module)
    os.makedirs(os.path.dirname(base), exist_ok=True)
    lines = [("status", "ok" if rec.ok else "failed"), ("run", run),
             ("policy", json.dumps(rec["job"]["policy"], sort_keys=True))]
    if "command" in rec:
        lines.append(("command", shlex.join(rec["command"])))
    if rec.ok:
        lines.append(("text", rec.text))
        _copy(engine.path(rec["object"]), base + ".o")
        if "log" in rec.get("products", {}):
            _copy(engine.path(rec["products"]["log"]), base + ".log")
    else:
        lines.append(("error", rec.get("error", "")))
        for suffix in (".o", ".log"):
            if os.path.exists(base + suffix):
                os.remove(base + suffix)
    write_atomically(base + ".txt",
                     "".join(f"{k}\t{v}\n" for k, v in lines))


# --- Reading a collection --------------------------------------------------

def read_record(path):
    """The fields of a run's record (<run>/<module>.txt), {key: value}."""
    with open(path, encoding="utf-8") as f:
        return dict(line.rstrip("\n").split("\t", 1) for line in f
                    if "\t" in line)


def records(data, run):
    """{module: record fields} of every record of ``run`` under ``data``."""
    root = os.path.join(data, run)
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith(".txt"):
                path = os.path.join(dirpath, name)
                out[os.path.relpath(path, root)[:-len(".txt")]] = \
                    read_record(path)
    return out


def texts(data, names):
    """{module: {run: .text bytes}} of the modules every run compiled."""
    table = {}
    for run in names:
        for m, f in records(data, run).items():
            if f.get("status") == "ok" and "text" in f:
                table.setdefault(m, {})[run] = int(f["text"])
    return {m: r for m, r in table.items() if all(x in r for x in names)}
