# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Imitation through ``irtk-train fit`` (``python3 -m ir2vec.mlgo train``):
the training examples a model imitates, from a collection or from a
search, and the fit.

- ``inline_examples``: per module, the teacher is the baseline run with
  the smallest ``.text`` (ties: the earlier baseline); the examples are the
  decisions the runs of ``states`` logged in that module, each labelled
  with what the teacher decides there (its logged decision feature:
  ``teacher_thr<N>`` for ``thr<N>``, ``inlining_default`` for ``Oz``).
  ``best`` is the teacher's own run; other states are runs (a learned
  policy's) relabelled by the teacher (DAgger).
- ``evict_examples``: per function, the eviction run with the lowest
  RegAllocScore (the first listed wins ties and differences below
  ``margin``, relative); one log per (run, module) with that run's
  contexts of the functions it won.
- ``Steps``: a search's labelled steps (``search``'s ``steps.txt``): one
  model per default margin fitted on every package but the validation
  ones, each compiled on the validation packages (``collect --runs``); the
  margin that scores lowest (``.text``, or RegAllocScore) is the final
  model's, fitted on every package's steps.
"""

import collections
import json
import os
import subprocess

from . import judge, log, runs
from .engine import write_atomically


class TrainError(ValueError):
    """Examples that cannot be made as asked."""


def fit(tools, advisor, logs_from, out, options=(), margin=None):
    """irtk-train fit of the examples listed in ``logs_from``."""
    argv = [tools.irtk_train, "fit", "--advisor", advisor, "--quiet", "-o",
            out, "--logs-from", logs_from]
    if margin is not None:
        argv += ["--default-margin", str(margin)]
    subprocess.run(argv + list(options), check=True)


def label_of(run):
    if run == "Oz":
        return "inlining_default"
    if run.startswith("thr"):
        return "teacher_" + run
    return ""  # a learned policy: its own decisions


def inline_examples(data, baselines, states=("best",), states_data=None):
    """([list lines for irtk-train fit --logs-from], {teacher: modules},
    {module: {run: .text}})."""
    extra = [s for s in states if s != "best"]
    table = runs.texts(data, list(baselines) + extra)
    if not table:
        raise TrainError(f"{data}: no module compiled by every run of "
                         f"{list(baselines) + extra}")
    teachers, lines = collections.Counter(), []
    for m in sorted(table):
        best = min(baselines, key=lambda r: (table[m][r], baselines.index(r)))
        teachers[best] += 1
        label, seen = label_of(best), set()
        for s in states:
            run = best if s == "best" else s
            path = os.path.abspath(os.path.join(states_data or data, run,
                                                m + ".log"))
            if run in seen or not os.path.exists(path):
                continue
            seen.add(run)
            lines.append(f"{path} 1 {label}" if label else f"{path} 1")
    return lines, teachers, table


def evict_examples(data, names, out, margin=0.0):
    """Writes the winners' logs under ``out`` and ``out/logs.txt``;
    {run: functions won} and the logs written."""
    scores, text = judge.evict_collected(data, names)
    lines, chosen = [], {r: 0 for r in names}
    for m in judge.common_modules(text, names):
        winners, funcs = {}, set()
        for r in names:
            funcs |= set(scores[r].get(m, {}))
        for f in funcs:
            have = [r for r in names if f in scores[r].get(m, {})]
            best = have[0]
            for r in have[1:]:
                if scores[r][m][f][0] < scores[best][m][f][0] * (1 - margin):
                    best = r
            winners.setdefault(best, set()).add(f)
        for r, fs in winners.items():
            header, blocks = log.read_contexts(os.path.join(data, r,
                                                            m + ".log"))
            keep = [b for name, b, _, _ in blocks if name in fs]
            if not keep:
                continue
            path = os.path.join(out, r, m + ".log")
            write_atomically(path, header + b"".join(keep))
            lines.append(path)
            chosen[r] += len(fs)
    write_atomically(os.path.join(out, "logs.txt"), "".join(
        os.path.abspath(p) + "\n" for p in lines))
    return chosen, lines


class Steps:
    """Training on a search's steps, the default margin chosen on the
    validation packages (see the module's docstring). ``engine_args``:
    what the validation collection's Engine takes (tools, workers,
    client, timeout)."""

    def __init__(self, advisor, search, corpus, out, valid, margins,
                 name=None, fit_options=(), embedding="symbolic",
                 vocab=None, **engine_args):
        self.advisor, self.search, self.corpus = advisor, search, corpus
        self.out, self.valid, self.margins = out, set(valid), list(margins)
        self.name = name or advisor
        self.fit_options = list(fit_options)
        if advisor == "evict":
            self.fit_options = ["--positional", "--exclude",
                                "evict_default"] + self.fit_options
        self.embedding, self.vocab = embedding, vocab
        self.engine_args = engine_args
        self.tools = engine_args["tools"]
        self.stock = "default" if advisor == "evict" else "Oz"

    def _fit_list(self):
        """<out>/<name>-fit.txt: the steps of every package but the
        validation ones, absolute."""
        steps = os.path.join(self.search, "steps.txt")
        if not os.path.isfile(steps):
            raise TrainError(f"{self.search}: no steps.txt (a search's "
                             "output: search --kind flip, caller, edge or "
                             "evict)")
        base = os.path.dirname(os.path.abspath(steps))
        with open(steps, encoding="utf-8") as f:
            lines = [ln.strip() for ln in f if ln.strip()]
        keep = [os.path.join(base, ln) for ln in lines
                if judge.package_of(ln) not in self.valid]
        if not keep:
            raise TrainError(f"no training steps left outside "
                             f"{','.join(sorted(self.valid))}")
        path = os.path.join(self.out, f"{self.name}-fit.txt")
        write_atomically(path, "".join(p + "\n" for p in keep))
        return path

    def _valid_corpus(self):
        if self.advisor == "evict":
            return self.corpus.select(levels=["O2"], packages=self.valid)
        return self.corpus.select(packages=self.valid)

    def _totals(self, names):
        """{run: total score} of the validation runs (lower is better)."""
        data = os.path.join(self.out, "valid")
        if self.advisor == "evict":
            s = judge.evict_scores(data, names)
            write_atomically(os.path.join(
                self.out, f"{self.name}-scores.json"),
                json.dumps(s, indent=1) + "\n")
            return {r: v["score"] for r, v in s["runs"].items()}
        common = runs.texts(data, names)
        if not common:
            raise TrainError(f"no module was compiled by every run (see the "
                             f"failed records under {data})")
        total = {r: sum(t[r] for t in common.values()) for r in names}
        write_atomically(os.path.join(self.out, f"{self.name}-valid.tsv"),
                         "run\tmodules\ttext\tvs Oz\n" + "".join(
                             f"{r}\t{len(common)}\t{total[r]}\t"
                             f"{100 * (total[r] / total['Oz'] - 1):+.3f}%\n"
                             for r in names))
        return total

    def run(self):
        """The chosen margin, and the final model's path."""
        fit_list = self._fit_list()
        spec, names = [self.stock], [self.stock]
        for m in self.margins:
            model = os.path.join(self.out, "models", f"{self.name}-m{m}.json")
            os.makedirs(os.path.dirname(model), exist_ok=True)
            fit(self.tools, self.advisor, fit_list, model, self.fit_options,
                margin=m)
            spec.append(f"{self.name}-m{m}={model}")
            names.append(f"{self.name}-m{m}")
        data = os.path.join(self.out, "valid")
        engine = runs.engine(data, **self.engine_args)
        runs.collect(engine, self._valid_corpus(),
                     runs.parse(",".join(spec), advisor=self.advisor), data,
                     embedding=self.embedding, vocab=self.vocab,
                     advisor=self.advisor)
        totals = self._totals(names)
        scored = [n for n in names if n != self.stock]
        best = min(scored, key=lambda n: (totals[n], scored.index(n)))
        margin = self.margins[scored.index(best)]
        final = os.path.join(self.out, f"{self.name}.json")
        fit(self.tools, self.advisor, os.path.join(self.search, "steps.txt"),
            final, self.fit_options, margin=margin)
        return margin, final

