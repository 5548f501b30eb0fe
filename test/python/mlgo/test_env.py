# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.env: InlineEnv and EvictionEnv over the interactive policy.

Answering the default decision gives stock's object (clang and llc without
the plugin), byte for byte; a never-inline policy gives the object the
never-inline model gives in-process, with the decisions its trace counts
and the .text llvm-size reads; a compiler that is killed, fails, exits
without an object or stays silent ends the episode with EnvError within
the timeout, and its process group is gone."""

import os
import re
import signal
import stat
import subprocess
import sys
import time
import unittest

import fixtures
from ir2vec.mlgo import log
from ir2vec.mlgo.env import EnvError, EvictionEnv, InlineEnv
from ir2vec.mlgo.toolchain import Toolchain

PLUGIN = os.environ.get("IRTK_PLUGIN", "")
LLC = os.path.join(fixtures.LLVM_BIN, "llc")
ADVISORS = fixtures.HERE.parent.parent / "Inputs" / "advisors"
MODULES = dict(fixtures.MODULES, **{"Oz-preopt/calls/calls": "calls.c"})


def read(path):
    with open(path, "rb") as f:
        return f.read()


def default(obs):
    return int(obs["inlining_default"][0])


def alive(pid):
    """Whether pid is a process that has not exited (zombies have)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


# A compiler that misbehaves on the channel, by its file name fake-MODE:
# "silent" never opens the pipes; "header" sends the header and nothing
# more; "partial" sends the header and part of an observation. It starts a
# child in its process group, writes both process ids to <itself>.pids and
# sleeps.
FAKE = """#!@PYTHON@
import json, os, subprocess, sys, time
base = [a.split("=", 1)[1] for a in sys.argv if "-channel=" in a][0]
mode = os.path.basename(sys.argv[0]).split("-")[1]
child = subprocess.Popen(["sleep", "600"])
with open(sys.argv[0] + ".pids", "w") as f:
    f.write("%d %d" % (os.getpid(), child.pid))
if mode != "silent":
    fd = os.open(base + ".in", os.O_RDONLY | os.O_NONBLOCK)
    out = open(base + ".out", "wb", buffering=0)
    spec = {"name": "inlining_default", "type": "int64_t", "shape": [1]}
    advice = {"name": "inlining_decision", "type": "int64_t", "shape": [1]}
    out.write(json.dumps({"features": [spec], "advice": advice}).encode() +
              b"\\n")
    if mode == "partial":
        out.write(b'{"observation": 0}\\n' + bytes(3))
time.sleep(600)
"""


@unittest.skipUnless(os.path.exists(PLUGIN), "IRTK_PLUGIN is not set")
class InlineEnvTest(fixtures.CorpusTestCase):
    modules = MODULES

    def env(self, *modules, **kw):
        env = InlineEnv([(m, self.bc(m)) for m in modules],
                        workdir=self.tmp("env"), **kw)
        self.addCleanup(env.close)
        return env

    def stock(self, module, *extra):
        out = self.tmp("stock.o")
        subprocess.run([fixtures.CLANG, "-Oz", "-c", self.bc(module), "-o",
                        out] + list(extra), check=True)
        return out

    def test_default_answers_give_stocks_object(self):
        env = self.env(*MODULES)
        asked = 0
        for module in MODULES:
            ep = env.run(default, module)
            self.assertEqual(read(ep["object"]), read(self.stock(module)),
                             module)
            self.assertEqual(ep["reward"], 0.0)
            self.assertEqual(ep["text"],
                             fixtures.llvm_size_text(self.stock(module)))
            asked += ep["decisions"]
        self.assertGreater(asked, 100)  # shapes.cpp alone asks 152 times

    def test_observations_are_the_advisors_features(self):
        module = "Oz-preopt/calls/calls"
        logged = self.tmp("calls.log")
        self.stock(module, "-fpass-plugin=" + PLUGIN, "-mllvm",
                   "-irtk-inline-policy=default", "-mllvm",
                   "-irtk-inline-log=" + logged)
        want = log.read(logged)
        env = self.env(module)
        self.assertIsNone(env.observation_space)
        obs, info = env.reset()
        self.assertEqual(info["module"], module)
        # The log's features but the decision, in order, shaped and typed
        # alike; every value of the first decision the same.
        specs = [s for s in want.features if s.name != "inlining_decision"]
        self.assertEqual(list(env.observation_space),
                         [s.name for s in specs])
        self.assertEqual(list(obs), [s.name for s in specs])
        for s in specs:
            self.assertEqual(env.observation_space[s.name],
                             (s.shape, s.dtype), s.name)
            self.assertEqual(obs[s.name].tolist(),
                             want.decisions()[0][s.name].tolist(), s.name)
        self.assertEqual(obs["callee_embedding"].shape, (75,))
        self.assertEqual(env.action_space.n, 2)
        self.assertEqual(env.action_space.default, "inlining_default")
        # Intermediate rewards are 0; the episode ends with the summary.
        steps, terminated = 0, False
        while not terminated:
            obs, reward, terminated, truncated, info = env.step(default(obs))
            steps += 1
            self.assertFalse(truncated)
            if not terminated:
                self.assertEqual(reward, 0.0)
        self.assertEqual(steps, len(want.decisions()))
        self.assertEqual(info["episode"]["decisions"], steps)
        with self.assertRaisesRegex(EnvError, "call reset"):
            env.step(0)

    def test_never_inline_changes_the_size_it_reports(self):
        module = "Oz-preopt/calls/calls"
        ep = self.env(module).run(lambda obs: 0)
        # The object the never-inline model gives in-process, asked as
        # often as its trace says.
        trace = self.tmp("never.trace")
        model = read(self.stock(
            module, "-fpass-plugin=" + PLUGIN, "-mllvm",
            "-irtk-inline-policy=model", "-mllvm",
            f"-irtk-inline-model={ADVISORS / 'never.json'}", "-mllvm",
            "-irtk-inline-trace=" + trace))
        self.assertEqual(read(ep["object"]), model)
        with open(trace) as f:
            self.assertEqual(ep["decisions"], len(f.readlines()))
        stock = fixtures.llvm_size_text(self.stock(module))
        self.assertEqual(ep["text"], fixtures.llvm_size_text(ep["object"]))
        self.assertNotEqual(ep["text"], stock)
        self.assertEqual(ep["baseline_text"], stock)
        self.assertEqual(ep["reward"], stock - ep["text"])

    def test_killed_compiler_is_an_error(self):
        module = "Oz-preopt/shapes/shapes"
        env = self.env(module, timeout=20)
        obs, _ = env.reset()
        pid = env.compiler_pid
        os.kill(pid, signal.SIGKILL)
        start = time.monotonic()
        with self.assertRaises(EnvError) as e:
            for _ in range(1000):
                env.step(default(obs))
        self.assertLess(time.monotonic() - start, 5)
        self.assertRegex(str(e.exception),
                         f"^{module}: the compiler was killed by SIGKILL")
        self.assertNotIn("\n", str(e.exception))
        self.assertIsNone(env.compiler_pid)
        # The environment goes on.
        self.assertEqual(env.run(default)["reward"], 0.0)

    def fake(self, mode):
        path = self.tmp(f"fake-{mode}")
        with open(path, "w") as f:
            f.write(FAKE.replace("@PYTHON@", sys.executable))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path, path + ".pids"

    def test_silent_compiler_times_out(self):
        module = "Oz-preopt/prog/prog"
        for mode, waiting in (("silent", "the header"),
                              ("header", "question 0"),
                              ("partial", "question 0")):
            clang, pids = self.fake(mode)
            env = self.env(module, tools=Toolchain(clang=clang), timeout=2)
            start = time.monotonic()
            with self.assertRaises(EnvError) as e:
                env.reset()
            self.assertLess(time.monotonic() - start, 10, mode)
            self.assertEqual(
                str(e.exception), f"{module}: the compiler sent nothing "
                f"for 2 s (waiting for {waiting}) (after 0 decisions)")
            with open(pids) as f:
                for pid in map(int, f.read().split()):
                    deadline = time.monotonic() + 5
                    while alive(pid) and time.monotonic() < deadline:
                        time.sleep(0.05)
                    self.assertFalse(alive(pid), f"{mode}: {pid} is alive")

    def test_compiler_that_fails_or_writes_nothing(self):
        module = "Oz-preopt/prog/prog"
        for program, want in (("/bin/false", "failed (exit status 1)"),
                              ("/bin/true", "wrote no object")):
            env = self.env(module, tools=Toolchain(clang=program))
            with self.assertRaisesRegex(EnvError,
                                        f"^{module}: .*{re.escape(want)}"):
                env.run(default)
        env = self.env(module, tools=Toolchain(clang=self.tmp("none")))
        with self.assertRaisesRegex(EnvError, f"^{module}: cannot start"):
            env.reset()


@unittest.skipUnless(os.path.exists(PLUGIN), "IRTK_PLUGIN is not set")
class EvictionEnvTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = fixtures.TempDir()
        cls.ll = cls.tmp("evict.ll")
        subprocess.run([fixtures.CLANG, "-O2", "-S", "-emit-llvm",
                        "--target=x86_64-linux-gnu",
                        str(ADVISORS / "evict.c"), "-o", cls.ll], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def llc(self, *extra):
        out = self.tmp("llc.o")
        subprocess.run([LLC, "-O2", "-filetype=obj", self.ll, "-o", out] +
                       list(extra), check=True)
        return out

    def test_default_answers_give_stocks_object(self):
        with EvictionEnv(self.ll, workdir=self.tmp("env")) as env:
            obs, info = env.reset()
            self.assertEqual(obs["mir2vec_defs_and_uses"].shape, (33, 75))
            self.assertEqual(env.action_space.n, 33)
            self.assertEqual(env.action_space.mask, "evictable")
            self.assertIn(info["context"], ("hash", "mix"))
            ep = env.run(lambda obs: int(obs["evict_default"][0]))
            self.assertEqual(read(ep["object"]), read(self.llc()))
            self.assertGreater(ep["decisions"], 0)
            self.assertEqual(ep["reward"], 0.0)
            self.assertEqual(ep["score"], ep["baseline_score"])

    def test_last_candidate_is_the_never_model(self):
        # Evicting nothing where allowed, else the last accepted candidate:
        # what the evict-never model decides in-process (its log's score).
        def last(obs):
            return int(obs["evictable"].reshape(-1).nonzero()[0][-1])

        with EvictionEnv(self.ll, workdir=self.tmp("env")) as env:
            ep = env.run(last)
            stock = env.baseline(self.ll)
        logged = self.tmp("never.log")
        model = self.llc("-load-pass-plugin=" + PLUGIN,
                         "-irtk-evict-policy=model",
                         f"-irtk-evict-model={ADVISORS / 'evict-never.json'}",
                         "-irtk-evict-log=" + logged)
        self.assertEqual(read(ep["object"]), read(model))
        score = sum(c.reward for c in log.read(logged).contexts)
        self.assertEqual(ep["score"], score)
        self.assertGreater(score, stock["score"])  # never is worse
        self.assertEqual(ep["reward"], stock["score"] - score)
        self.assertEqual(ep["text"], fixtures.llvm_size_text(model))


if __name__ == "__main__":
    unittest.main()
