# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The size pipeline as an environment (docs/Pipeline.md, "The
environment"): an episode builds one module's clang-reachable
configuration move by move, and each move is paid in ``.text``.

- ``Actions``: the discrete moves over ``pipeline``'s clang space: stop,
  switch the machine outliner, veto or restore each optional pass, append a
  sub-pipeline at the optimizer-last point (at most ``MAX_REPEAT`` times
  each) or remove the last one of a name appended. ``path(start, target)``
  gives the moves from one configuration to another (for imitation).
- ``PipelineEnv``: gymnasium's ``reset``/``step`` without depending on it.
  An episode starts from a configuration (by default the clang-space
  analogue of the best fixed setting) and ends when the policy stops, when
  a move's compile fails (the configuration stays the last one that
  compiled) or after ``horizon`` moves (truncated).

The observation is a float32 vector: the module's own state (the module
vector of its pre-optimisation IR, cheap IR counts, or both:
``nearest.states``), then the configuration (outliner, vetoes, appended
counts) and the moves left. The state depends on the module and the moves
only, never on a compile: a policy plays a whole episode before a single
compile, which is what lets it decide inside clang. The reward is the
``.text`` saved by the move, relative to the episode's start (``reward=
"relative"``, comparable across modules) or in bytes; a move whose compile
fails is paid -1 (relative) or minus the start's bytes and ends the
episode. Compiles go through the engine (recorded, replayed, cached by
optimised IR); ``advance`` steps many episodes at once so that their
compiles run in parallel on the engine's workers or cluster.
"""

import random

import numpy as np

from .engine import Job
from .pipeline import Config, Pipeline, space
from .tune import start_config

MAX_REPEAT = 2
DEFAULT_HORIZON = 4


class Actions:
    """The moves, by index: ``names[i]`` ("stop", "outline", "-licm",
    "+inline", "~inline", ...)."""

    def __init__(self, sp=None):
        self.sp = sp or space()
        self.addable = self.sp.addable()
        self.names = (["stop", "outline"] +
                      ["-" + v for v in self.sp.vetoes] +
                      ["+" + x for x in self.addable] +
                      ["~" + x for x in self.addable])
        self.index = {n: i for i, n in enumerate(self.names)}

    def __len__(self):
        return len(self.names)

    def apply(self, config, action):
        """The config after a move; None for stop or a move not legal here
        (removing a name not appended, appending one MAX_REPEAT times)."""
        name = self.names[action]
        sp, kind, what = self.sp, name[0], name[1:]
        if name == "stop":
            return None
        if name == "outline":
            return Config(config.passes, config.veto, not config.outline)
        if kind == "-":
            return Config(config.passes, set(config.veto) ^ {what},
                          config.outline)
        passes = list(config.passes)
        last = len(passes) - (len(sp.oz) - sp.last_point)
        appended = passes[sp.last_point:last]
        if kind == "+":
            if appended.count(what) >= MAX_REPEAT:
                return None
            return Config(passes[:last] + [what] + passes[last:],
                          config.veto, config.outline)
        if what not in appended:
            return None
        i = sp.last_point + len(appended) - 1 - appended[::-1].index(what)
        return Config(passes[:i] + passes[i + 1:], config.veto,
                      config.outline)

    def mask(self, config):
        """The legal moves (stop always is)."""
        return np.array([i == 0 or self.apply(config, i) is not None
                         for i in range(len(self))], dtype=bool)

    def encode(self, config):
        """outliner, each veto, each addable's appended count (float32)."""
        appended = config.appended(self.sp)
        return np.array([float(config.outline)] +
                        [float(v in config.veto) for v in self.sp.vetoes] +
                        [float(appended.count(x)) for x in self.addable],
                        dtype=np.float32)

    def path(self, start, target):
        """The moves from start to target (clang-reachable configs): the
        appended names after their common prefix removed from the end, the
        outliner, the vetoes, then target's remaining names appended; the
        last move is stop. None if target's appended names repeat more than
        MAX_REPEAT times."""
        a, b = list(start.appended(self.sp)), list(target.appended(self.sp))
        if any(b.count(x) > MAX_REPEAT for x in b):
            return None
        p = 0
        while p < min(len(a), len(b)) and a[p] == b[p]:
            p += 1
        moves = ["~" + x for x in reversed(a[p:])]
        if start.outline != target.outline:
            moves.append("outline")
        moves += ["-" + v for v in sorted(set(start.veto) ^
                                          set(target.veto))]
        moves += ["+" + x for x in b[p:]]
        return [self.index[m] for m in moves] + [0]


class Episode:
    """One module's episode: its config, the .text of its start and of its
    config, the moves taken."""

    def __init__(self, module, features, config, text, horizon):
        self.module, self.features = module, features
        self.config, self.start_text, self.text = config, text, text
        self.moves, self.horizon = [], horizon
        self.done = False


class PipelineEnv:
    """``PipelineEnv(engine, corpus, features)``: features is {module:
    vector} (the module part of the observation, e.g. from
    ``nearest.states``); the episodes draw their modules from it.

    start: a Config, or the name of a stock size setting whose clang-space
    analogue starts every episode (default: plain -Oz)."""

    def __init__(self, engine, corpus, features, start="Oz",
                 horizon=DEFAULT_HORIZON, reward="relative", seed=0):
        if reward not in ("relative", "bytes"):
            raise ValueError(f"unknown reward '{reward}' (relative, bytes)")
        if horizon < 1:
            raise ValueError("the horizon must be at least one move")
        self.engine, self.corpus = engine, corpus
        self.features = features
        self.modules = sorted(features)
        self.actions = Actions()
        self.start = start if isinstance(start, Config) else \
            start_config(start, self.actions.sp)
        if not self.start.clang_reachable(self.actions.sp):
            raise ValueError(f"{self.start.describe()}: not clang-reachable")
        self.horizon, self.reward_kind = horizon, reward
        self.rng = random.Random(seed)
        self.episode = None
        self.compiles = 0

    # --- gymnasium's interface, one episode at a time ---------------------

    def reset(self, *, seed=None, options=None):
        """(observation, info) of a new episode: options {"module": name},
        or a module drawn at random."""
        if seed is not None:
            self.rng = random.Random(seed)
        module = (options or {}).get("module") or \
            self.rng.choice(self.modules)
        self.episode = self.begin([module])[0]
        if self.episode.done:
            raise ValueError(f"{module}: its start configuration "
                             f"({self.start.describe()}) does not compile")
        return self.observation(self.episode), self.info(self.episode)

    def step(self, action):
        if self.episode is None or self.episode.done:
            raise RuntimeError("step() without a running episode: reset()")
        reward, terminated, truncated = self.advance([self.episode],
                                                     [action])[0]
        ep = self.episode
        return (self.observation(ep), reward, terminated, truncated,
                self.info(ep))

    # --- many episodes at once -------------------------------------------

    def begin(self, modules):
        """[Episode] of modules from the start configuration (compiled
        together); an episode whose start fails is done at once."""
        texts = self.measure([(m, self.start) for m in modules])
        out = []
        for m, t in zip(modules, texts):
            ep = Episode(m, self.features[m], self.start, t, self.horizon)
            ep.done = t is None
            out.append(ep)
        return out

    def advance(self, episodes, actions):
        """Each episode takes its action; [(reward, terminated,
        truncated)]. The moves' compiles run together."""
        nexts = []
        for ep, a in zip(episodes, actions):
            if ep.done:
                raise RuntimeError(f"{ep.module}: the episode is over")
            nexts.append(self.actions.apply(ep.config, int(a)))
        todo = [(ep.module, c) for ep, c in zip(episodes, nexts)
                if c is not None]
        texts = iter(self.measure(todo))
        out = []
        for ep, a, cfg in zip(episodes, actions, nexts):
            ep.moves.append(int(a))
            if cfg is None:  # stop, or a move not legal here: stop
                ep.done = True
                out.append((0.0, True, False))
                continue
            text = next(texts)
            if text is None:
                ep.done = True
                out.append((-1.0 if self.reward_kind == "relative"
                            else -float(ep.start_text), True, False))
                continue
            saved = float(ep.text - text)
            ep.config, ep.text = cfg, text
            if self.reward_kind == "relative":
                saved /= max(ep.start_text, 1)
            ep.done = len(ep.moves) >= ep.horizon
            out.append((saved, False, ep.done))
        return out

    def measure(self, pairs):
        """The .text (None: failed) of each (module, Config), through the
        engine."""
        jobs = [Job(m, self.corpus.bitcode(m), Pipeline(c)) for m, c in pairs]
        records = self.engine.run(jobs)
        self.compiles += len(jobs)
        return [r.text if r.ok else None for r in records]

    def observation(self, ep):
        left = (ep.horizon - len(ep.moves)) / ep.horizon
        return np.concatenate([np.asarray(ep.features, dtype=np.float32),
                               self.actions.encode(ep.config),
                               np.array([left], dtype=np.float32)])

    def info(self, ep):
        return {"module": ep.module, "config": ep.config,
                "describe": ep.config.describe(self.actions.sp),
                "text": ep.text, "start_text": ep.start_text,
                "mask": self.actions.mask(ep.config)}

    @property
    def observation_size(self):
        return len(next(iter(self.features.values()))) + \
            len(self.actions.encode(self.start)) + 1
