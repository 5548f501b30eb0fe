# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.pipelineenv and pipelinelearn: the moves reach what they
say, an episode pays each move the .text it saves (measured by the engine),
stops, truncates at the horizon and ends on a failed compile keeping the
last configuration that compiled; BC-Max learns its labels' moves, DQN and
BC-Max are deterministic for a seed, a plan needs no compile and plays what
the environment would; the random-vocabulary state is seeded."""

import json
import random
import unittest

import numpy as np

import fixtures
from ir2vec.mlgo import engine as eng
from ir2vec.mlgo import nearest
from ir2vec.mlgo import pipeline as pl
from ir2vec.mlgo.corpus import Corpus
from ir2vec.mlgo.pipelineenv import Actions, PipelineEnv
from ir2vec.mlgo.tune import start_config

try:
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    print("PyTorch is not installed (Debian: python3-torch); skipped")
    raise SystemExit(77)

MODS = sorted(fixtures.MODULES)


def fixed():
    return start_config("Oz+mf+mo+iro", pl.space())


class ActionsTest(unittest.TestCase):
    def test_moves_do_what_they_say(self):
        a = Actions()
        start = fixed()
        self.assertEqual(start.appended(), ("mergefunc", "iroutliner"))
        c = a.apply(start, a.index["-licm"])
        self.assertEqual(c.veto, ("licm",))
        c = a.apply(c, a.index["+inline"])
        self.assertEqual(c.appended(), ("mergefunc", "iroutliner", "inline"))
        c = a.apply(c, a.index["~mergefunc"])
        self.assertEqual(c.appended(), ("iroutliner", "inline"))
        self.assertFalse(a.apply(c, a.index["outline"]).outline)
        self.assertTrue(c.clang_reachable())
        self.assertIsNone(a.apply(c, a.index["stop"]))
        self.assertIsNone(a.apply(c, a.index["~mergefunc"]))  # not there

    def test_appending_stops_at_the_repeat_limit(self):
        a = Actions()
        c = a.apply(fixed(), a.index["+mergefunc"])
        self.assertIsNone(a.apply(c, a.index["+mergefunc"]))
        self.assertFalse(a.mask(c)[a.index["+mergefunc"]])
        self.assertTrue(a.mask(c)[a.index["+inline"]])

    def test_path_reaches_the_target(self):
        a = Actions()
        rng = random.Random(5)
        for _ in range(200):
            start, target = fixed(), pl.Config.oz()
            for _ in range(rng.randrange(6)):
                legal = np.flatnonzero(a.mask(target))[1:]
                target = a.apply(target, int(rng.choice(legal)))
            moves = a.path(start, target)
            self.assertEqual(moves[-1], 0)
            c = start
            for m in moves[:-1]:
                c = a.apply(c, m)
            self.assertEqual(c, target)

    def test_encoding_tells_configs_apart(self):
        a = Actions()
        c = a.apply(fixed(), a.index["+inline"])
        self.assertFalse(np.array_equal(a.encode(c), a.encode(fixed())))
        self.assertEqual(len(a.encode(c)), 1 + len(a.sp.vetoes) +
                         len(a.addable))


class _FailingEngine:
    """An engine whose compiles of configs with a veto fail."""

    def __init__(self, real):
        self.real = real

    def run(self, jobs):
        recs = self.real.run(jobs)
        return [eng.Record(status="failed") if j.policy.config.veto else r
                for j, r in zip(jobs, recs)]


class EnvTest(fixtures.CorpusTestCase):
    def env(self, out, engine=None, horizon=2, reward="relative"):
        e = engine or eng.Engine(self.tmp(out), workers=2)
        feats = {m: np.arange(3, dtype=np.float32) + i
                 for i, m in enumerate(MODS)}
        return PipelineEnv(e, Corpus(self.corpus), feats, start=fixed(),
                           horizon=horizon, reward=reward), e

    def text(self, e, module, config):
        rec = e.run([eng.Job(module, self.bc(module),
                             pl.Pipeline(config))])[0]
        return fixtures.llvm_size_text(e.path(rec["object"]))

    def test_reward_is_the_text_saved(self):
        env, e = self.env("reward", reward="bytes")
        m = "Oz-preopt/prog/prog"
        obs, info = env.reset(options={"module": m})
        self.assertEqual(info["text"], self.text(e, m, fixed()))
        self.assertEqual(len(obs), env.observation_size)
        a = env.actions.index["outline"]
        obs2, r, term, trunc, info2 = env.step(a)
        after = self.text(e, m, env.actions.apply(fixed(), a))
        self.assertEqual(r, info["text"] - after)
        self.assertEqual(info2["text"], after)
        self.assertFalse(term or trunc)
        self.assertFalse(np.array_equal(obs, obs2))

    def test_relative_reward_and_horizon(self):
        env, _ = self.env("horizon", horizon=2)
        _, info = env.reset(options={"module": "Oz-preopt/prog/table"})
        start = info["text"]
        _, r1, _, t1, i1 = env.step(env.actions.index["+inline"])
        _, r2, term, t2, i2 = env.step(env.actions.index["outline"])
        self.assertAlmostEqual(r1, (start - i1["text"]) / start)
        self.assertAlmostEqual(r2, (i1["text"] - i2["text"]) / start)
        self.assertEqual((t1, t2, term), (False, True, False))
        with self.assertRaises(RuntimeError):
            env.step(0)

    def test_stop_ends_without_a_compile(self):
        env, _ = self.env("stop")
        env.reset(options={"module": MODS[0]})
        before = env.compiles
        _, r, term, trunc, info = env.step(0)
        self.assertEqual((r, term, trunc), (0.0, True, False))
        self.assertEqual(env.compiles, before)
        self.assertEqual(info["config"], fixed())

    def test_failed_compile_keeps_the_last_config(self):
        real = eng.Engine(self.tmp("fail"), workers=2)
        env, _ = self.env("fail", engine=_FailingEngine(real))
        _, info = env.reset(options={"module": MODS[1]})
        _, r, term, _, info2 = env.step(env.actions.index["-licm"])
        self.assertEqual((r, term), (-1.0, True))
        self.assertEqual(info2["config"], fixed())
        self.assertEqual(info2["text"], info["text"])

    def test_episodes_advance_together(self):
        env, _ = self.env("batch", reward="bytes")
        eps = env.begin(MODS)
        out = env.advance(eps, [env.actions.index["outline"]] * len(eps))
        for ep, (r, term, trunc) in zip(eps, out):
            self.assertEqual(r, ep.start_text - ep.text)
            self.assertFalse(term)


class LearnTest(fixtures.CorpusTestCase):
    def setUp(self):
        from ir2vec.mlgo import pipelinelearn
        self.learn = pipelinelearn

    def env(self, out):
        e = eng.Engine(self.tmp(out), workers=2)
        feats = {m: np.array([i, 1.0 - i, 0.5 * i], dtype=np.float32)
                 for i, m in enumerate(MODS)}
        return PipelineEnv(e, Corpus(self.corpus), feats, start=fixed(),
                           horizon=3)

    def results(self, env):
        """Made-up search results: module i's best is i moves away."""
        a, out = env.actions, []
        goals = [fixed(), a.apply(fixed(), a.index["+inline"]),
                 a.apply(a.apply(fixed(), a.index["-licm"]),
                         a.index["outline"])]
        for m, goal in zip(MODS, goals):
            out.append({"module": m, "settings": {"Oz+mf+mo+iro": 100},
                        "evaluated": [[goal.key(), 90 if goal != fixed()
                                       else 100],
                                      [pl.Config.oz().key(), 105]]})
        return out, goals

    def test_bc_max_learns_its_labels(self):
        env = self.env("bc")
        res, goals = self.results(env)
        targets = self.learn.bc_max_targets(env, res)
        self.assertEqual([targets[m][0] for m in MODS], goals)
        net = self.learn.bc_max(env, targets, epochs=300, seed=3)
        plan = self.learn.plan(net, env, MODS)
        self.assertEqual([plan[m][0] for m in MODS], goals)
        self.assertEqual(env.compiles, 0)  # a plan compiles nothing

    def test_margin_keeps_the_start(self):
        env = self.env("margin")
        res, _ = self.results(env)
        targets = self.learn.bc_max_targets(env, res, margin=0.2)
        self.assertTrue(all(t[0] == fixed() for t in targets.values()))
        self.assertTrue(all(t[2] == [0] for t in targets.values()))

    def test_deterministic_for_a_seed(self):
        env = self.env("det")
        res, _ = self.results(env)
        targets = self.learn.bc_max_targets(env, res)
        a = self.learn.bc_max(env, targets, epochs=20, seed=1)
        b = self.learn.bc_max(env, targets, epochs=20, seed=1)
        c = self.learn.bc_max(env, targets, epochs=20, seed=2)
        for x, y in zip(a.state_dict().values(), b.state_dict().values()):
            self.assertTrue(torch.equal(x, y))
        self.assertFalse(torch.equal(a[1].weight, c[1].weight))
        d1 = self.learn.dqn(env, rounds=2, batch=2, updates=3, net=a, seed=4)
        d2 = self.learn.dqn(env, rounds=2, batch=2, updates=3, net=a, seed=4)
        for x, y in zip(d1.state_dict().values(), d2.state_dict().values()):
            self.assertTrue(torch.equal(x, y))
        self.assertFalse(torch.equal(d1[1].weight, a[1].weight))

    def test_plan_plays_what_the_env_would(self):
        env = self.env("plan")
        net = self.learn.network(env, seed=7)
        plan = self.learn.plan(net, env, MODS)
        for m in MODS:
            obs, info = env.reset(options={"module": m})
            done = False
            while not done:
                q = net(torch.as_tensor(obs, dtype=torch.float64)[None])
                q = q.detach().numpy()[0]
                q[~info["mask"]] = -np.inf
                obs, _, term, trunc, info = env.step(int(np.argmax(q)))
                done = term or trunc
            self.assertEqual(info["config"], plan[m][0], m)


class ValuesTest(unittest.TestCase):
    def setUp(self):
        from ir2vec.mlgo import pipelinelearn
        self.learn = pipelinelearn

    def test_values_learn_who_gains_what(self):
        # Two groups of states: candidate 1 saves 10% on the first, candidate
        # 2 on the second; candidate 0 is the base.
        rng = np.random.default_rng(0)
        x = np.vstack([rng.normal(0, 0.1, (20, 3)) + [1, 0, 0],
                       rng.normal(0, 0.1, (20, 3)) + [0, 1, 0]])
        text = np.array([[100.0, 90.0, 105.0]] * 20 +
                        [[100.0, 104.0, 90.0]] * 20)
        net = self.learn.fit_values(x, text, 0, hidden=(8,), epochs=3000,
                                    seed=1)
        doc = self.learn.layers_doc(net)
        pred = nearest.values(doc, x)
        with torch.no_grad():
            want = net(torch.as_tensor(x)).numpy()
        np.testing.assert_allclose(pred, want, rtol=0, atol=1e-12)
        picks = nearest.choose_values(pred, 0, 0.0)
        self.assertEqual(list(picks), [1] * 20 + [2] * 20)
        self.assertAlmostEqual(float(pred[0][1]), 0.1, delta=0.02)
        # A margin above every predicted gain keeps the base.
        self.assertEqual(set(nearest.choose_values(pred, 0, 0.5)), {0})


class CommandTest(fixtures.CorpusTestCase):
    def test_learn_chooses_and_its_policy_replays(self):
        tuned = self.tmp("tune")
        self.mlgo("tune", "--corpus", self.corpus, "--out", tuned,
                  "--space", "clang", "--budget", "9", "--workers", "2")
        out, replay, policy = (self.tmp("learn.json"), self.tmp("replay"),
                               self.tmp("policy.json"))
        done = self.mlgo(
            "learn", "--corpus", self.corpus, "--out", self.tmp("held"),
            "--train-corpus", self.corpus, "--train-out", tuned,
            "--valid-corpus", self.corpus, "--valid-out", self.tmp("valid"),
            "--budget", "9", "--workers", "2", "--trainers",
            "values,bcmax", "--states", "counts", "--margins", "0,0.5",
            "--candidates", "2", "--epochs", "30", "--json", out,
            "--replay", replay, "--save", policy)
        with open(out) as f:
            doc = json.load(f)
        names = [r[0] for r in doc["validation"]]
        self.assertIn("bcmax, counts, margin=0", names)
        self.assertIn("values, counts, 32, decay=0.001, margin=0.5", names)
        # Each candidate for every module is reported beside the policies
        # (the baselines they must beat), the one best on training marked.
        every = [r for r in doc["heldout"] if r[0].startswith("every module")]
        stock = [n for n, _ in pl.stock_policies("size")]
        for n in stock:  # and the analogue, and its moves
            self.assertIn(n, {r[0].split(": ", 1)[1].split(",")[0]
                              for r in every})
        self.assertGreater(len(every), len(stock))
        self.assertEqual(
            len([r for r in every if r[0].endswith("best on training")]), 1)
        self.assertTrue(all(r[1] == len(fixtures.MODULES) for r in every))
        self.assertEqual(sorted(doc["choices"]), sorted(fixtures.MODULES))
        self.assertIn(doc["chosen"], names)
        self.assertIn("| configuration |", done.stdout)
        with open(policy) as f:
            saved = json.load(f)
        chosen = self.tmp("chosen")
        if doc["chosen"].startswith("values"):
            # The saved values policy chooses what learn chose.
            self.mlgo("choose", "--policy", policy, "--corpus", self.corpus,
                      "--replay", chosen)
            with open(replay) as a, open(chosen) as b:
                got = {k: v["describe"] for k, v in
                       json.load(b)["modules"].items()}
                want = {k: v["describe"] for k, v in
                        json.load(a)["modules"].items()}
            self.assertEqual(
                {k: pl.Config.from_key(
                    [c for c in saved["candidates"] if c["name"] == v][0]
                    ["config"]).describe() for k, v in got.items()}, want)
        else:
            self.assertEqual(saved["format"], "irtk-pipeline-qnet")


class RandomStateTest(fixtures.CorpusTestCase):
    def test_random_vocabulary_is_seeded_and_differs(self):
        paths = [self.bc(m) for m in MODS]
        a = nearest.states(paths, ["random", "embedding"])
        b = nearest.states(paths, ["random"])
        np.testing.assert_array_equal(a["random"], b["random"])
        self.assertEqual(a["random"].shape, a["embedding"].shape)
        self.assertFalse(np.allclose(a["random"], a["embedding"]))


if __name__ == "__main__":
    unittest.main()
