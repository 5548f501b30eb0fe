# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""BC-Max for the inline advisor (``python3 -m ir2vec.mlgo bcmax``): round
by round, imitation of the smallest of the trajectories so far, per module,
among the baselines (``-Oz``, a search's decisions, ...) and the earlier
rounds' policies (the seed paper's "Offline Imitation Learning from
Multiple Baselines").

The baselines are runs of ``ir2vec.mlgo.runs`` (``Oz``, ``thr<N>``,
``NAME:DIR`` for a search's per-edge decisions, ``NAME@DIR`` for per-caller
teachers); ``Oz`` must be one. Round k:

1. The training modules are compiled under every baseline once, and under
   the policies of the earlier rounds (``<out>/train``: each run's
   ``.text``, object and log).
2. Per module, the run with the smallest ``.text`` (ties: the earliest in
   the order baselines, then rounds) is the teacher; with ``shared`` (a
   ``search --kind edge --linked`` search's ``shared/``), the smallest
   linked objective instead: the ``.text`` less the C++ inline functions
   that the link keeps from another object of the package. The teachers'
   logs are the round's examples, ``<out>/rounds/<k>/fit.txt``.
3. A model is fitted on them (``irtk-train fit`` with the fit options), one
   copy per default margin, and each is compiled on every validation
   module (``<out>/valid``); validation chooses the margin with the
   smallest linked ``.text``: ``<out>/rounds/<k>/model.json``.
4. Exploration: the chosen model, and the same model at margin 0, are
   compiled on the training modules as runs ``p<k>`` and ``p<k>-explore``,
   candidates for the next rounds' teachers.

A round whose examples are the last round's ends the run: its model would
be the same, and so would every later round. ``<out>/progress.tsv`` has a
line per round; ``<out>/best.json`` names the round validation liked best
and its model. Resumable: the collections replay their records, a fitted
model is kept, a finished round is not redone, and a rerun with other
parameters (``<out>/params.json``) is refused; more rounds continue. The
held-out split is not read: judge the chosen model on it once, with
``collect --runs``.
"""

import json
import os
import shutil
import sys

from . import imitation, objective, report, runs
from .engine import keep_params, write_atomically


class BCMaxError(RuntimeError):
    """A run that cannot go on (nothing compiled, a file that cannot be
    read)."""


def run_name(run):
    for sep in "=@:":
        run = run.split(sep, 1)[0]
    return run


class Trainer:
    """BC-Max's rounds under ``out``. ``engine_args``: what every
    collection's Engine takes besides its directory and parameters
    (tools, workers, client, timeout)."""

    def __init__(self, out, train, valid, baselines, margins, fit=(),
                 embedding="symbolic", vocab=None, shared=None,
                 params=None, **engine_args):
        self.out, self.train, self.valid = out, train, valid
        self.baselines, self.margins, self.fit_options = (
            list(baselines), list(margins), list(fit))
        self.embedding, self.vocab, self.shared = embedding, vocab, shared
        self.engine_args = engine_args
        keep_params(os.path.join(out, "params.json"), params or {})

    def collect(self, corpus, where, spec):
        out = os.path.join(self.out, where)
        engine = runs.engine(out, **self.engine_args)
        table = runs.collect(engine, corpus, runs.parse(",".join(spec)), out,
                             embedding=self.embedding, vocab=self.vocab)
        return engine, table

    def fit(self, logs, margin, model):
        if not os.path.exists(model):
            imitation.fit(self.engine_args["tools"], "inline", logs, model,
                          self.fit_options, margin=margin)

    def linked_objectives(self, table):
        """``table`` ({module: {run: .text}}) with each run's linked
        objective in place of its ``.text``."""
        counts, out = {}, {}
        for m, row in table.items():
            pkg = os.path.dirname(m)
            if pkg not in counts:
                path = os.path.join(self.shared, pkg + ".json")
                try:
                    with open(path, encoding="utf-8") as f:
                        counts[pkg] = json.load(f)
                except (OSError, ValueError) as e:
                    raise BCMaxError(f"{path}: cannot read the shared inline "
                                     f"functions: {e}") from None

            def functions(run):
                return objective.object_functions(
                    os.path.join(self.out, "train", run, m + ".o"))
            stock = functions("Oz")
            shared = objective.shared_inline(counts[pkg],
                                             objective.comdat(stock))
            out[m] = {r: objective.linked_objective(
                text, stock if r == "Oz" else functions(r), shared)
                for r, text in row.items()}
        return out

    def round(self, k, teachers):
        """Round k with the teacher runs so far; its progress row."""
        rdir = os.path.join(self.out, "rounds", str(k))
        _, collected = self.collect(self.train, "train", teachers)
        names = [run_name(r) for r in teachers]
        table = texts(collected, names)
        if not table:
            raise BCMaxError("no training module compiled by every run")
        if self.shared:
            table = self.linked_objectives(table)
        lines, best_total, chosen = [], 0, {}
        for m in sorted(table):
            best = min(names, key=lambda r: (table[m][r], names.index(r)))
            chosen[best] = chosen.get(best, 0) + 1
            best_total += table[m][best]
            log = os.path.join(self.out, "train", best, m + ".log")
            if os.path.exists(log):
                lines.append(log)
        oz = sum(r["Oz"] for r in table.values())
        fit_list = os.path.join(rdir, "fit.txt")
        write_atomically(fit_list, "".join(os.path.abspath(p) + "\n"
                                           for p in lines))
        write_atomically(os.path.join(rdir, "teachers.json"),
                         json.dumps(chosen, sort_keys=True) + "\n")
        last = os.path.join(self.out, "rounds", str(k - 1))
        if k > 0 and _read(fit_list) == _read(os.path.join(last, "fit.txt")):
            # The same examples give the same model (the fit is
            # deterministic), and its runs are the last round's: every
            # later round is this one.
            row = json.loads(_read(os.path.join(last, "result.json")))
            row.update({"round": k, "same as round": k - 1})
            write_atomically(os.path.join(rdir, "result.json"),
                             json.dumps(row) + "\n")
            return row

        # The margin does not change the fit: one model, copied per margin.
        models = {m: os.path.join(rdir, f"m{m}.json") for m in self.margins}
        first = self.margins[0]
        self.fit(fit_list, first, models[first])
        for margin in self.margins[1:]:
            if not os.path.exists(models[margin]):
                with_margin(models[first], margin, models[margin])
        spec = ["Oz"] + [f"r{k}-m{m}={p}" for m, p in models.items()]
        engine, collected = self.collect(self.valid, "valid", spec)
        totals = linked_totals(engine, collected,
                               ["Oz"] + [f"r{k}-m{m}" for m in models])
        margin = min(self.margins, key=lambda m: (totals[f"r{k}-m{m}"], m))
        shutil.copyfile(models[margin], os.path.join(rdir, "model.json.tmp"))
        os.replace(os.path.join(rdir, "model.json.tmp"),
                   os.path.join(rdir, "model.json"))
        with_margin(models[margin], 0, os.path.join(rdir, "explore.json"))
        row = {"round": k, "train best-of vs Oz": best_total / oz - 1,
               "margin": margin,
               "valid linked vs Oz": totals[f"r{k}-m{margin}"] /
               totals["Oz"] - 1,
               "valid linked": totals[f"r{k}-m{margin}"],
               "valid linked Oz": totals["Oz"]}
        write_atomically(os.path.join(rdir, "result.json"),
                         json.dumps(row) + "\n")
        return row

    def run(self, rounds):
        """The rounds still to do; the chosen model's path (None without a
        round)."""
        rows, teachers = [], list(self.baselines)
        for k in range(rounds):
            result = os.path.join(self.out, "rounds", str(k), "result.json")
            row = json.loads(_read(result)) if os.path.exists(result) \
                else self.round(k, teachers)
            rows.append(row)
            if "same as round" in row:
                print(f"round {k + 1}/{rounds}: train best-of "
                      f"{100 * row['train best-of vs Oz']:+.3f}% vs Oz, the "
                      f"teachers of round {row['same as round'] + 1} again: "
                      "its model stands, no more rounds", file=sys.stderr,
                      flush=True)
                break
            print(f"round {k + 1}/{rounds}: train best-of "
                  f"{100 * row['train best-of vs Oz']:+.3f}% vs Oz, margin "
                  f"{row['margin']}, valid linked "
                  f"{100 * row['valid linked vs Oz']:+.3f}% vs Oz",
                  file=sys.stderr, flush=True)
            rdir = os.path.join(self.out, "rounds", str(k))
            teachers += [f"p{k}={rdir}/model.json",
                         f"p{k}-explore={rdir}/explore.json"]
        done = [r for r in rows if "same as round" not in r]
        write_atomically(os.path.join(self.out, "progress.tsv"), "".join(
            "\t".join(map(str, r)) + "\n" for r in
            [("round", "train best-of vs Oz", "margin",
              "valid linked vs Oz")] +
            [(r["round"] + 1, f"{100 * r['train best-of vs Oz']:+.3f}%",
              r["margin"], f"{100 * r['valid linked vs Oz']:+.3f}%")
             for r in done]))
        if not done:
            return None
        best = min(done, key=lambda r: (r["valid linked"], r["round"]))
        model = os.path.join(self.out, "rounds", str(best["round"]),
                             "model.json")
        write_atomically(os.path.join(self.out, "best.json"), json.dumps(
            {"round": best["round"] + 1, "model": model,
             "valid linked vs Oz": best["valid linked vs Oz"]}) + "\n")
        return model


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def with_margin(model, margin, out):
    """A copy of ``model`` with another default margin."""
    m = json.loads(_read(model))
    m.setdefault("output", {})["default_margin"] = margin
    write_atomically(out, json.dumps(m))


def texts(table, names):
    """{module: {run: .text}} of the modules every run of ``names``
    compiled (``table`` as ``runs.collect`` gives it)."""
    mods = set.intersection(*(
        {m for m, r in table[n].items() if r.ok} for n in names))
    return {m: {n: table[n][m].text for n in names} for m in mods}


def linked_totals(engine, table, names):
    """{run: linked .text summed over the packages} over the modules every
    run compiled."""
    mods = sorted(texts(table, names))
    if not mods:
        raise BCMaxError(f"{engine.out}: no module compiled by every run")
    return {n: report.totals(engine, table[n], mods)[1] for n in names}
