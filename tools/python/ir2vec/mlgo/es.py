# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Evolution strategies for the inline advisor (``python3 -m ir2vec.mlgo
es``): MLGO's blackbox trainer over a warm-start model (``irtk-train
es-start``, ``es-candidates``, ``es-update``), each candidate judged by
compiling the corpus's modules with it at ``-Oz`` on the engine.

A candidate's reward is the mean over the (step's) modules of
``1 - (text + 0.01) / (text at -Oz + 0.01)``, ``.text`` bytes of the
module's object (a compile that fails scores -1). With ``shared`` (a
``search --kind edge --linked`` search's ``shared/``), text is what the
package's link keeps of the module: its ``.text`` less the C++ inline
functions that another object of the package carries at stock.

``residual`` starts from exactly ``-Oz`` rather than from the warm model's
decisions: the warm model's network with every weight and bias 0 but a
path that passes the ``inlining_default`` feature through the first hidden
unit to a logit of -2 or +2 (``residual.json``). With ``keep_hidden`` the
hidden units but the path's keep the warm model's weights, and only the
last layer starts at 0.

``modules_per_step`` judges each step's candidates on that many modules,
drawn afresh each step by the seed and the step (the same draw for every
candidate of the step), as MLGO's trainer samples modules per step.

Records under the output directory: ``params.json`` (a rerun with other
parameters is refused), ``checkpoint.json`` (the state after the last
finished step), ``engine/`` (every compile), ``oz.tsv`` (each module's
measure at ``-Oz``: its ``.text``, or what the link keeps), per step
``steps/<k>/candidate-<c>.json``, ``texts.tsv`` (candidate, module,
measure) and ``rewards.txt``, then ``progress.tsv`` and
``final/current.json`` (the model after the last step). A run killed anywhere continues where it
stopped, to the same result.
"""

import json
import math
import os
import random
import subprocess
import sys

from . import objective
from .engine import Engine, Job, keep_params, write_atomically
from .policy import Model, Policy


class ESError(RuntimeError):
    """A run that cannot start or go on; one line."""


def reward(text, oz):
    if text is None:
        return -1.0
    return 1 - (text + 0.01) / (oz + 0.01)


def residual_model(warm, keep_hidden=False):
    """The warm model's network deciding exactly as inlining_default: every
    weight and bias 0 but unit 0 of each hidden layer, which carries the
    default decision (0 or 1) forward, and the logit 4 * unit - 2. With
    ``keep_hidden``, the other hidden units keep the warm weights (less
    what they took from unit 0)."""
    m = json.loads(json.dumps(warm))
    names = [i["name"] for i in m["inputs"]]
    if "inlining_default" not in names:
        raise ESError("--residual: the model does not read inlining_default")
    # The first layer's column of inlining_default, after normalisation.
    col = sum(len(i["mean"]) for i in
              m["inputs"][:names.index("inlining_default")])
    d = m["inputs"][names.index("inlining_default")]
    lo = (0 - d["mean"][0]) / d["scale"][0]
    hi = (1 - d["mean"][0]) / d["scale"][0]
    layers = m["layers"]
    if len(layers) < 2 or any(x["activation"] != "relu" for x in layers[:-1]):
        raise ESError("--residual: the model needs relu hidden layers")
    for li, layer in enumerate(layers):
        hidden = li < len(layers) - 1
        if keep_hidden and hidden:
            # Unit 0 is the path; no other unit reads the path's unit.
            layer["weights"][0] = [0.0] * len(layer["weights"][0])
            layer["bias"][0] = 0.0
            if li > 0:
                for row in layer["weights"]:
                    row[0] = 0.0
        else:
            layer["weights"] = [[0.0] * len(r) for r in layer["weights"]]
            layer["bias"] = [0.0] * len(layer["bias"])
        if li == 0:
            # unit 0 = relu((x - lo) / (hi - lo)): 0 or 1.
            layer["weights"][0][col] = 1.0 / (hi - lo)
            layer["bias"][0] = -lo / (hi - lo)
        elif hidden:
            layer["weights"][0][0] = 1.0
        else:
            layer["weights"][0][0] = 4.0
            layer["bias"][0] = -2.0
    # Neither a margin nor support boxes: the start decides as stock by its
    # weights alone, and where training departs from it is the
    # perturbations' to find.
    m["output"].pop("default_margin", None)
    m["output"].pop("support", None)
    m["training"] = {"tool": "es-train.py --residual" +
                     (" --keep-hidden" if keep_hidden else ""),
                     "from": warm.get("training", {})}
    return m


def check_options(o):
    """What irtk-train would refuse, refused before anything is recorded."""
    if o.steps < 0:
        raise ESError("--steps must be 0 or more")
    if o.perturbations < 2 or o.perturbations % 2:
        raise ESError("--perturbations must be even and at least 2")
    for name, value in (("--sigma", o.sigma), ("--step-size", o.step_size)):
        if not (math.isfinite(value) and value > 0):
            raise ESError(f"{name} must be a positive number, not {value}")
    if o.seed < 0:
        raise ESError("--seed must be 0 or more")
    if o.keep_hidden and not o.residual:
        raise ESError("--keep-hidden needs --residual")


class Evolution:
    """One run of evolution strategies under ``out`` (options ``o``: model,
    steps, perturbations, sigma, step_size, seed, modules_per_step,
    relative_noise, residual, keep_hidden, layers, shared)."""

    def __init__(self, out, corpus, o, tools, workers=1, client=None,
                 timeout=900):
        check_options(o)
        self.out, self.corpus, self.o, self.tools = out, corpus, o, tools
        self.modules = list(corpus)
        if not 0 <= o.modules_per_step <= len(self.modules):
            raise ESError(f"--modules-per-step must be 0 to "
                          f"{len(self.modules)} (the modules of the corpus "
                          "sample)")
        self.warm = os.path.abspath(o.model)
        self.model = self.warm
        if o.residual:
            with open(self.warm, encoding="utf-8") as f:
                start = residual_model(json.load(f), o.keep_hidden)
            self.model = os.path.join(out, "residual.json")
            if not os.path.exists(self.model):
                write_atomically(self.model, json.dumps(start))
        self.engine_args = dict(tools=tools, workers=workers, client=client,
                                timeout=timeout,
                                functions=bool(o.shared))
        self.checkpoint = os.path.join(out, "checkpoint.json")

    def params(self):
        """What the records depend on (the steps do not: a longer run
        continues a shorter one)."""
        o = self.o
        return {
            "corpus": self.corpus.root, "modules": self.modules,
            "model": self.model, "perturbations": o.perturbations,
            "sigma": o.sigma, "step size": o.step_size, "seed": o.seed,
            "relative noise": o.relative_noise,
            "residual from": self.warm if o.residual else None,
            **({"shared": os.path.abspath(o.shared)} if o.shared else {}),
            **({"modules per step": o.modules_per_step}
               if o.modules_per_step else {}),
            **({"keep hidden": True} if o.keep_hidden else {}),
            **({"layers": o.layers} if o.layers else {})}

    def train(self, argv):
        """Runs irtk-train; its refusal ends the run with its one error
        line."""
        p = subprocess.run([self.tools.irtk_train] + argv,
                           stderr=subprocess.PIPE, text=True)
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        if p.returncode == 0:
            for line in lines:  # warnings
                print(line, file=sys.stderr, flush=True)
            return
        raise ESError(lines[-1] if lines else
                      f"irtk-train {argv[0]} failed (exit {p.returncode})")

    def start(self):
        """Checks the parameters and starts the checkpoint: another run's
        records are refused before anything is written, and a start that
        irtk-train refuses records nothing."""
        path = os.path.join(self.out, "params.json")
        if os.path.exists(path):
            keep_params(path, self.params())
        if not os.path.exists(self.checkpoint):
            os.makedirs(self.out, exist_ok=True)
            o = self.o
            self.train(["es-start", "--model", self.model, "-o",
                        self.checkpoint, "--perturbations",
                        str(o.perturbations), "--sigma", repr(o.sigma),
                        "--step-size", repr(o.step_size), "--seed",
                        str(o.seed)] +
                       (["--relative-noise"] if o.relative_noise else []) +
                       (["--layers", o.layers] if o.layers else []))
        keep_params(path, self.params())
        self.engine = Engine(os.path.join(self.out, "engine"),
                             {"command": "es"}, **self.engine_args)

    def _shared(self, module, oz):
        """The C++ inline functions the link keeps from another object of
        the package (None without shared), given -Oz's record."""
        if not self.o.shared:
            return None
        path = os.path.join(self.o.shared, os.path.dirname(module) + ".json")
        with open(path, encoding="utf-8") as f:
            counts = json.load(f)
        return objective.shared_inline(counts,
                                       objective.comdat(oz["functions"]))

    def _text(self, rec, shared):
        if not rec.ok:
            return None
        if shared is None:
            return rec.text
        return objective.linked_objective(
            rec.text, {f: tuple(v) for f, v in rec["functions"].items()},
            shared)

    def step_modules(self, step):
        """The modules that judge a step's candidates: all, or
        modules_per_step drawn by the seed and the step (corpus order)."""
        if not self.o.modules_per_step:
            return self.modules
        rng = random.Random(f"es-train {self.o.seed} {step}")
        chosen = set(rng.sample(range(len(self.modules)),
                                self.o.modules_per_step))
        return [m for i, m in enumerate(self.modules) if i in chosen]

    def warn_disappeared(self, modules, gone):
        """Says once per module that its bitcode is gone since the run
        started: its compiles fail, and every candidate scores -1 on it."""
        for m in modules:
            path = self.corpus.bitcode(m)
            if m not in gone and not os.path.exists(path):
                gone.add(m)
                print(f"warning: {path}: the module disappeared during the "
                      "run; its compiles fail (reward -1)", file=sys.stderr,
                      flush=True)

    def run(self):
        """The steps still to do, the progress table; the final model's
        path."""
        self.start()
        recs = self.engine.run(Job(m, self.corpus.bitcode(m), Policy())
                               for m in self.modules)
        failed = [m for m, r in zip(self.modules, recs) if not r.ok]
        if failed:
            raise ESError(f"{failed[0]}: the -Oz compile failed "
                          f"({len(failed)} modules); see its record")
        shared = {m: self._shared(m, r) for m, r in zip(self.modules, recs)}
        oz = {m: self._text(r, shared[m]) for m, r in zip(self.modules, recs)}
        write_atomically(os.path.join(self.out, "oz.tsv"), "".join(
            f"{m}\t{oz[m]}\n" for m in self.modules))
        gone = set()
        for step in range(self.o.steps):
            with open(self.checkpoint, encoding="utf-8") as f:
                if json.load(f)["step"] > step:
                    continue
            out = os.path.join(self.out, "steps", str(step))
            self.train(["es-candidates", "--model", self.model,
                        "--checkpoint", self.checkpoint, "-o", out])
            judged = self.step_modules(step)
            self.warn_disappeared(judged, gone)
            items = [(c, m) for c in range(self.o.perturbations)
                     for m in judged]
            recs = self.engine.run(
                Job(m, self.corpus.bitcode(m), Model(
                    "inline", os.path.join(out, f"candidate-{c}.json")))
                for c, m in items)
            texts = {i: self._text(r, shared[i[1]])
                     for i, r in zip(items, recs)}
            write_atomically(os.path.join(out, "texts.tsv"), "".join(
                f"{c}\t{m}\t{'failed' if t is None else t}\n"
                for (c, m), t in texts.items()))
            rewards = [sum(reward(texts[(c, m)], oz[m]) for m in judged) /
                       len(judged) for c in range(self.o.perturbations)]
            write_atomically(os.path.join(out, "rewards.txt"),
                             "".join(f"{r!r}\n" for r in rewards))
            self.train(["es-update", "--quiet", "--checkpoint",
                        self.checkpoint, "--model", self.model, "--rewards",
                        os.path.join(out, "rewards.txt")])
            hits = sum(1 for r in recs if r.ok and r.get("cache") == "hit")
            print(f"step {step + 1}/{self.o.steps}: mean reward "
                  f"{sum(rewards) / len(rewards):+.5f}, best "
                  f"{max(rewards):+.5f}; {hits} of {len(recs)} compiles "
                  "skipped code generation (their IR was measured before)",
                  file=sys.stderr, flush=True)
        rows, step = [], 0
        while os.path.exists(os.path.join(self.out, "steps", str(step),
                                          "rewards.txt")):
            with open(os.path.join(self.out, "steps", str(step),
                                   "rewards.txt"), encoding="utf-8") as f:
                rs = [float(x) for x in f.read().split()]
            rows.append(f"{step + 1}\t{sum(rs) / len(rs):.6f}\t"
                        f"{max(rs):.6f}\n")
            step += 1
        write_atomically(os.path.join(self.out, "progress.tsv"),
                         "step\tmean reward\tbest reward\n" + "".join(rows))
        final = os.path.join(self.out, "final")
        self.train(["es-candidates", "--model", self.model, "--checkpoint",
                    self.checkpoint, "-o", final])
        return os.path.join(final, "current.json")
