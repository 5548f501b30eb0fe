# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The per-module search of the size pipeline (``tune``): greedy with random
restarts over ``ir2vec.mlgo.pipeline``'s action space, on the engine.

For each module, within a budget of compiles:

1. the fixed configurations of stock flags (``stock_policies("size")``),
   each compiled by clang exactly as a user would;
2. greedy descent (first improvement, neighbours in an order drawn from the
   seed and the module's name) from the config nearest the best of them;
3. random restarts: a random walk of a few moves from Oz, then greedy
   descent again, until the budget is spent.

A neighbour is one move: switch the machine outliner, veto or restore an
optional pass, add a sub-pipeline at the optimizer-last point or remove
one added there, and, in the ``opt`` space only, add a sub-pipeline after
any group or remove one of the groups the space calls removable. The
``clang`` space keeps the moves a pass plugin can make inside clang -Oz.

A module's search is deterministic for a seed and resumable: its compiles
are engine jobs, replayed from their records on a rerun.
"""

import hashlib
import json
import os
import random

from .engine import Job, write_atomically
from .pipeline import Config, Pipeline, space, stock_policies

SPACES = ("opt", "clang")
DEFAULT_BUDGET = 40
RESTART_WALK = 3


def start_config(name, sp):
    """The config nearest a stock size setting (its flags as passes)."""
    parts = name.split("+")
    extras = [e for e, flag in (("mergefunc", "mf"), ("iroutliner", "iro"))
              if flag in parts]
    oz = list(sp.oz)
    return Config(oz[:sp.last_point] + extras + oz[sp.last_point:],
                  outline="mo" in parts)


def neighbours(config, sp, kind):
    """Every config one move away, in a fixed order."""
    out = [Config(config.passes, config.veto, not config.outline)]
    for v in sp.vetoes:
        veto = set(config.veto) ^ {v}
        out.append(Config(config.passes, veto, config.outline))
    passes = list(config.passes)
    tail = len(sp.oz) - sp.last_point
    last = len(passes) - tail  # the optimizer-last point
    for name in sp.addable():
        out.append(Config(passes[:last] + [name] + passes[last:],
                          config.veto, config.outline))
    for i in range(sp.last_point, last):
        out.append(Config(passes[:i] + passes[i + 1:], config.veto,
                          config.outline))
    if kind == "opt":
        for i in range(last):
            for name in sp.addable():
                out.append(Config(passes[:i + 1] + [name] + passes[i + 1:],
                                  config.veto, config.outline))
            if passes[i] in sp.removable and i < sp.last_point:
                out.append(Config(passes[:i] + passes[i + 1:], config.veto,
                                  config.outline))
    seen, unique = {config}, []
    for c in out:
        if c not in seen:
            seen.add(c)
            unique.append(c)
    return unique


class Search:
    """One module's search: ``run()`` gives its result (a dict)."""

    def __init__(self, engine, name, bitcode, kind="opt",
                 budget=DEFAULT_BUDGET, seed=0):
        if kind not in SPACES:
            raise ValueError(f"unknown space '{kind}' ({', '.join(SPACES)})")
        self.engine, self.name, self.bitcode = engine, name, bitcode
        self.kind, self.budget, self.seed = kind, budget, seed
        self.sp = space()
        digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
        self.rng = random.Random(int.from_bytes(digest[:8], "little"))
        self.tried = {}  # Config -> text (None: failed)
        self.order = []  # (what, text) in evaluation order
        self.used = 0

    def _compile(self, policy):
        self.used += 1
        rec = self.engine.run([Job(self.name, self.bitcode, policy)])[0]
        return rec.text if rec.ok else None

    def evaluate(self, config):
        if config not in self.tried:
            if self.used >= self.budget:
                return None
            self.tried[config] = self._compile(Pipeline(config))
            self.order.append((config.key(), self.tried[config]))
        return self.tried[config]

    def _better(self, a, b):
        return a is not None and (b is None or a < b)

    def _descend(self, config, text):
        while self.used < self.budget:
            nbrs = neighbours(config, self.sp, self.kind)
            self.rng.shuffle(nbrs)
            for n in nbrs:
                if self.used >= self.budget:
                    return config, text
                if n in self.tried:
                    continue
                t = self.evaluate(n)
                if self._better(t, text):
                    config, text = n, t
                    break
            else:
                return config, text
        return config, text

    def run(self):
        settings = {}
        for name, policy in stock_policies("size"):
            settings[name] = self._compile(policy)
        ok = {n: t for n, t in settings.items() if t is not None}
        start_name = min(ok, key=lambda n: (ok[n], n)) if ok else "Oz"
        start = start_config(start_name, self.sp)
        if self.kind == "clang" and not start.clang_reachable(self.sp):
            start = Config.oz(self.sp)
        best, best_text = start, self.evaluate(start)
        cur, text = self._descend(best, best_text)
        if self._better(text, best_text):
            best, best_text = cur, text
        stalled = 0
        while self.used < self.budget and stalled < 20:
            before = self.used
            walk = Config.oz(self.sp)
            for _ in range(RESTART_WALK):
                walk = self.rng.choice(neighbours(walk, self.sp, self.kind))
            cur, text = self._descend(walk, self.evaluate(walk))
            stalled = stalled + 1 if self.used == before else 0
            if self._better(text, best_text):
                best, best_text = cur, text
        return {"module": self.name, "space": self.kind, "seed": self.seed,
                "budget": self.budget, "compiles": self.used,
                "settings": settings,
                "best": {"config": best.key(), "describe": best.describe(),
                         "text": best_text},
                "evaluated": self.order}


def search_module(engine, item, out, kind, budget, seed):
    """A module's search, replayed from out/<kind>/<module>.json when it is
    there (a module-level function, for Engine.map). item: (name,
    bitcode)."""
    name, bitcode = item
    path = os.path.join(out, kind, name + ".json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    result = Search(engine, name, bitcode, kind, budget, seed).run()
    write_atomically(path, json.dumps(result, sort_keys=True) + "\n")
    return result


def choices(results):
    """The choices file ``tune`` writes: {module: {config, describe, text,
    oz}} of the modules whose search found a config."""
    out = {}
    for r in results:
        if r and r["best"]["text"] is not None:
            out[r["module"]] = dict(r["best"], oz=r["settings"].get("Oz"))
    return out


def replay_file(results, corpus, sp=None):
    """The plugin's choices file (-irtk-pipeline-choices) of clang-space
    results: per module source file name, the sub-pipelines to append at
    the optimizer-last point, the vetoes and the outliner. Modules whose
    best config is -Oz itself are left out (they compile as stock)."""
    sp = sp or space()
    modules = {}
    for r in results:
        if not r or r["best"]["text"] is None:
            continue
        cfg = Config.from_key(r["best"]["config"])
        if not cfg.clang_reachable(sp):
            raise ValueError(f"{r['module']}: its config is not "
                             "clang-reachable")
        if cfg == Config.oz(sp):
            continue
        modules[corpus.source_filename(r["module"])] = dict(
            cfg.plugin_choice(sp), module=r["module"],
            describe=cfg.describe(sp), text=r["best"]["text"],
            oz=r["settings"].get("Oz"))
    return {"format": "irtk-pipeline-choices", "version": 1,
            "modules": modules}
