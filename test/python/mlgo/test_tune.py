# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.tune: the per-module search is deterministic for a seed,
keeps its budget and its space, never ends worse than its start, and a rerun
replays it; `tune` writes the choices."""

import json
import os
import subprocess
import sys
import unittest

import fixtures
from ir2vec.mlgo import engine as eng
from ir2vec.mlgo import pipeline as pl
from ir2vec.mlgo import tune


class TuneTest(fixtures.CorpusTestCase):
    def search(self, out, kind="opt", budget=14, seed=3):
        e = eng.Engine(self.tmp(out))
        m = "Oz-preopt/prog/prog"
        return tune.Search(e, m, self.bc(m), kind, budget, seed).run()

    def test_deterministic_for_a_seed(self):
        a, b = self.search("det-a"), self.search("det-b")
        self.assertEqual(a, b)
        c = self.search("det-c", seed=4)
        self.assertNotEqual(a["evaluated"], c["evaluated"])

    def test_budget_and_start(self):
        r = self.search("budget", budget=12)
        self.assertEqual(r["compiles"], 12)
        self.assertEqual(len(r["settings"]), len(pl.stock_policies()))
        self.assertEqual(len(r["evaluated"]), 12 - len(r["settings"]))
        best = min(t for t in r["settings"].values())
        self.assertLessEqual(r["best"]["text"], best + 0)  # never worse
        texts = [t for _, t in r["evaluated"] if t is not None]
        self.assertEqual(r["best"]["text"], min(texts + [r["best"]["text"]]))

    def test_clang_space_stays_reachable(self):
        r = self.search("clang", kind="clang", budget=20)
        for key, _ in r["evaluated"]:
            self.assertTrue(pl.Config.from_key(key).clang_reachable(), key)

    def test_neighbours_are_one_move(self):
        sp = pl.space()
        oz = pl.Config.oz()
        clang = tune.neighbours(oz, sp, "clang")
        opt = tune.neighbours(oz, sp, "opt")
        self.assertTrue(set(clang) < set(opt))
        self.assertNotIn(oz, opt)
        self.assertIn(pl.Config(oz.passes, outline=True), clang)
        self.assertEqual(len(clang), 1 + len(sp.vetoes) + len(sp.addable()))

    def test_command_writes_choices_and_replays(self):
        out = self.tmp("cmd")
        argv = [sys.executable, "-m", "ir2vec.mlgo", "tune", "--corpus",
                self.corpus, "--out", out, "--budget", "10", "--workers",
                "2", "--packages", "prog"]
        done = subprocess.run(argv, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(out, "choices-opt.json")) as f:
            doc = json.load(f)
        self.assertEqual(sorted(doc["choices"]),
                         ["Oz-preopt/prog/prog", "Oz-preopt/prog/table"])
        for c in doc["choices"].values():
            self.assertLessEqual(c["text"], c["oz"])
        # The rerun compiles nothing: every record and result is there.
        records = sum(len(fs) for _, _, fs in os.walk(
            os.path.join(out, "records")))
        done = subprocess.run(argv, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(records, sum(len(fs) for _, _, fs in os.walk(
            os.path.join(out, "records"))))
        with open(os.path.join(out, "choices-opt.json")) as f:
            self.assertEqual(json.load(f)["choices"], doc["choices"])
        # Another budget in the same directory is refused... by the search
        # results' parameters (the engine keeps the command's).
        argv[argv.index("--budget") + 1] = "11"
        done = subprocess.run(argv, capture_output=True, text=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("use another output directory", done.stderr)


if __name__ == "__main__":
    unittest.main()
