# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""examples/python/train_inline_policy.py on examples/python/inline-demo (a
library and a program, with clang-22): the corpus holds the project's two
modules, the inline logs hold decisions, the exported model is the file the
model build's commands name and clang reads it, the program built with it
prints what the project's own test expects ("385 12 55 5 52 9", worked out
by hand in its CMakeLists.txt) and the printed sizes are llvm-size's.
Without PyTorch the test exits 77, which ctest reports as skipped."""

import importlib
import sys

try:
    importlib.import_module("torch")  # the example trains with it
except ImportError:
    print("PyTorch is not installed (Debian: python3-torch); skipped")
    sys.exit(77)

import glob
import json
import os
import re
import shlex
import subprocess
import unittest

import fixtures
from ir2vec.mlgo import log, objective
from ir2vec.mlgo.corpus import Corpus

EXAMPLES = fixtures.HERE.parents[2] / "examples" / "python"
PROJECT = EXAMPLES / "inline-demo"
MODULES = ["CMakeFiles/demo.dir/main.c.o", "CMakeFiles/stats.dir/stats.c.o"]
OUTPUT = "385 12 55 5 52 9\n"


class ExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = fixtures.TempDir()
        cls.work = cls.tmp("work")
        cls.done = subprocess.run(
            [sys.executable, str(EXAMPLES / "train_inline_policy.py"),
             str(PROJECT), cls.work, "demo"], capture_output=True, text=True,
            env=dict(os.environ, CLANG=fixtures.CLANG), timeout=900)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr[-3000:])

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def test_corpus_holds_the_modules(self):
        c = Corpus(self.path("corpus"))
        self.assertEqual(c.modules, MODULES)
        for m in c:
            self.assertTrue(os.path.getsize(c.bitcode(m)) > 0, m)
            self.assertIn("-Oz", c.command(m))

    def logs(self):
        recs = []
        for p in sorted(glob.glob(self.path("logs", "records", "*", "*"))):
            with open(p) as f:
                recs.append(json.load(f))
        return recs

    def test_logs_hold_decisions(self):
        recs = self.logs()
        self.assertEqual(sorted(r["job"]["name"] for r in recs), MODULES)
        total = 0
        for r in recs:
            self.assertEqual(r["status"], "ok")
            self.assertEqual(r["job"]["policy"]["kind"], "default")
            states = log.read(self.path("logs", r["products"]["log"]))
            states = states.decisions()
            self.assertEqual(len(states), r["decisions"])  # the trace's
            for s in states:
                self.assertIn(int(s["inlining_decision"][0]), (0, 1))
            total += len(states)
        # stats.c's helpers are called from several places.
        self.assertGreaterEqual(total, 10)
        with open(self.path("inline-model.json")) as f:
            self.assertEqual(json.load(f)["training"]["decisions"], total)

    def test_the_model_build_uses_the_model(self):
        model = self.path("inline-model.json")
        with open(model) as f:
            doc = json.load(f)
        self.assertEqual((doc["format"], doc["advisor"]),
                         ("irtk-mlp", "inline"))
        with open(self.path("model", "compile_commands.json")) as f:
            commands = json.load(f)
        self.assertEqual(len(commands), 2)
        for c in commands:
            self.assertIn(f"-irtk-inline-model={model}", c["command"])
            self.assertIn("-irtk-inline-policy=model", c["command"])
        # clang reads the file the flag names: the same command with a
        # model that is not there fails, naming it.
        argv = [a.replace(model, self.tmp("missing.json"))
                for a in shlex.split(commands[0]["command"])]
        argv[argv.index("-o") + 1] = self.tmp("check.o")
        done = subprocess.run(argv, cwd=commands[0]["directory"],
                              capture_output=True, text=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("missing.json: cannot read model", done.stderr)
        # The program built with the model prints what the project's test
        # expects, and that test passes.
        for build in ("Oz", "model"):
            out = subprocess.run([self.path(build, "demo")],
                                 capture_output=True, text=True, check=True)
            self.assertEqual(out.stdout, OUTPUT)
        done = subprocess.run(["ctest", "--test-dir", self.path("model")],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout)

    def test_sizes_are_reported(self):
        got = dict(re.findall(r"^demo \.text with (\w+): (\d+) bytes$",
                              self.done.stdout, re.M))
        self.assertEqual(set(got), {"Oz", "model"})
        for build, size in got.items():
            self.assertEqual(int(size), objective.text_size(
                self.path(build, "demo")), build)
        self.assertRegex(self.done.stdout, r"imitation: \d+% of the "
                         "decisions")


if __name__ == "__main__":
    unittest.main()
