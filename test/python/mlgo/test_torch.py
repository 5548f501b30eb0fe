# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.torchmodel: a PyTorch model trained by imitation on a real
inline log, exported, decides in clang (-irtk-inline-policy=model) exactly
as PyTorch decides on every logged state, in float64; from its binary form
too. What the runtime cannot run is refused with a ValueError. Without
PyTorch the test exits 77, which ctest reports as skipped."""

import sys

try:
    import torch
    from torch import nn
except ImportError:
    print("PyTorch is not installed (Debian: python3-torch); skipped")
    sys.exit(77)

import json
import os
import unittest

import numpy as np

import fixtures
from ir2vec.mlgo import log, torchmodel
from ir2vec.mlgo.engine import Engine, Job
from ir2vec.mlgo.policy import Default, Model
from ir2vec.mlgo.torchmodel import Normalize, export_torch

PLUGIN = os.environ.get("IRTK_PLUGIN", "")
MODULES = dict(fixtures.MODULES, **{"Oz-preopt/calls/calls": "calls.c"})


@unittest.skipUnless(os.path.exists(PLUGIN), "IRTK_PLUGIN is not set")
class TorchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = fixtures.TempDir()
        cls.corpus = fixtures.make_corpus(cls.tmp("corpus"), MODULES)
        cls.engine = Engine(cls.tmp("out"), {"test": "torch"}, workers=2)
        cls.logs = cls.compile(Default("inline", logged=True))
        cls.table = torchmodel.feature_table(cls.logs[0])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def compile(cls, policy):
        """The inline logs of every module compiled under policy."""
        jobs = [_job(cls.corpus, m, policy) for m in sorted(MODULES)]
        recs = cls.engine.run(jobs)
        for r in recs:
            assert r.ok, r
        return [log.read(cls.engine.path(r["products"]["log"]))
                for r in recs]

    def test_registry_matches_the_logs(self):
        info = torchmodel.advisor_info("inline")
        self.assertEqual(list(self.table)[-1], info["decision"])
        self.assertIn(info["default"], self.table)
        with self.assertRaisesRegex(ValueError, "unknown advisor 'x'"):
            torchmodel.advisor_info("x")

    def test_compiler_decides_as_pytorch(self):
        # A model of the scalar features (the embeddings' 150 numbers would
        # need more data than four modules give).
        feats = [f for f in self.table if f not in (
            "inlining_decision", "callee_embedding", "caller_embedding")]
        t = torchmodel.train_imitation(self.logs, "inline", features=feats,
                                       hidden=(16, 8), epochs=300,
                                       batch_size=16, lr=0.01, seed=3)
        # The same logs, options and seed give the same weights.
        again = torchmodel.train_imitation(self.logs, "inline",
                                           features=feats, hidden=(16, 8),
                                           epochs=300, batch_size=16,
                                           lr=0.01, seed=3)
        for a, b in zip(t.model.state_dict().values(),
                        again.model.state_dict().values()):
            self.assertTrue(torch.equal(a, b))
        self.assertEqual(t.model[0].mean.dtype, torch.float64)
        self.assertEqual(t.model[1].weight.dtype, torch.float64)
        self.assertGreater(t.training["agreement"], 0.8)
        # The decision boundary through the middle of the training states
        # (half way between two logits: a logit of exactly 0 is decided by
        # the last bit of the sum, whose order differs between PyTorch and
        # Eigen): the imitation separates them by logits of 10 and more,
        # and states near the boundary are where a difference between
        # PyTorch and the compiler would show.
        states = [s for lg in self.logs for s in lg.decisions()]
        with torch.no_grad():
            z = t.model(torchmodel.inputs(states, feats))[:, 0].unique()
            mid = len(z) // 2
            t.model[-1].bias -= (z[mid - 1] + z[mid]) / 2

        path = self.tmp("torch-inline.json")
        t.export(path)
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual([i["name"] for i in doc["inputs"]], feats)
        self.assertEqual(doc["training"]["seed"], 3)
        self.assertFalse(os.path.exists(path + ".bin"))

        states = self.check_decides_alike(t, path)
        # The binary form: the same decisions.
        bpath = self.tmp("torch-inline-bin.json")
        t.export(bpath, binary=True)
        self.assertTrue(os.path.exists(bpath + ".bin"))
        self.assertEqual(self.check_decides_alike(t, bpath), states)

    def check_decides_alike(self, t, path):
        """Compiles the corpus with the model file at path; checks that every
        logged decision is PyTorch's on the logged state. The states."""
        logs = self.compile(Model("inline", path, logged=True))
        states = [s for lg in logs for s in lg.decisions()]
        compiler = np.array([int(s["inlining_decision"][0]) for s in states])
        self.assertGreater(len(states), 100)
        self.assertEqual(compiler.tolist(), t.decisions(states).tolist())
        # Both decisions occur, and some states are near the boundary, so
        # that a disagreement would show.
        self.assertEqual(set(compiler.tolist()), {0, 1})
        with torch.no_grad():
            z = t.model(torchmodel.inputs(states, t.features))[:, 0]
        self.assertLess(float(z.abs().min()), 1.0)
        return len(states)

    def test_normalisation_and_activations_are_exported(self):
        feats = ["callee_basic_block_count", "callee_users"]
        net = nn.Sequential(Normalize([2.0, 3.0], [4.0, 0.5]),
                            nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 2),
                            nn.ReLU(), nn.Linear(2, 1, bias=False),
                            nn.Identity())
        path = self.tmp("norm.json")
        export_torch(net, "inline", path, feats, self.table)
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual(doc["inputs"][1], {"name": "callee_users",
                                            "mean": [3.0], "scale": [0.5]})
        self.assertEqual([la["activation"] for la in doc["layers"]],
                         ["tanh", "relu", "linear"])
        self.assertEqual(doc["layers"][2]["bias"], [0.0])
        w = net[1].weight.detach().double().numpy().tolist()
        self.assertEqual(doc["layers"][0]["weights"], w)
        # A binary form beside the model is written again with it: the
        # compiler loads the new model, never a stale binary form.
        export_torch(net, "inline", path, feats, self.table, binary=True)
        with torch.no_grad():
            net[-2].weight.mul_(-1)
        export_torch(net, "inline", path, feats, self.table)
        with open(path + ".bin", "rb") as f:
            packed = f.read()
        export_torch(net, "inline", self.tmp("fresh.json"), feats,
                     self.table, binary=True)
        with open(self.tmp("fresh.json.bin"), "rb") as f:
            self.assertEqual(f.read(), packed)
        self.compile(Model("inline", path, logged=True))

    def refused(self, net, pattern, feats=("callee_basic_block_count",),
                advisor="inline", table=None):
        path = self.tmp("refused.json")
        with self.assertRaisesRegex(ValueError, pattern):
            export_torch(net, advisor, path, list(feats), table or self.table)
        self.assertFalse(os.path.exists(path))

    def test_refusals(self):
        lin = nn.Linear(1, 1)
        self.refused(nn.Linear(1, 1), "expected a torch.nn.Sequential")
        self.refused(nn.Sequential(nn.Linear(1, 4), nn.Sigmoid(),
                                   nn.Linear(4, 1)),
                     r"module 1 \(Sigmoid\): the runtime runs only Linear")
        self.refused(nn.Sequential(nn.Conv1d(1, 1, 1)),
                     r"module 0 \(Conv1d\)")
        self.refused(nn.Sequential(nn.Linear(1, 4), nn.Dropout(),
                                   nn.Linear(4, 1)), r"\(Dropout\)")
        self.refused(nn.Sequential(nn.Linear(1, 4), nn.ReLU(), nn.ReLU(),
                                   nn.Linear(4, 1)),
                     "an activation must follow a Linear")
        self.refused(nn.Sequential(lin, Normalize([0.0], [1.0])),
                     "Normalize must be the first")
        self.refused(nn.Sequential(nn.Linear(3, 1)),
                     "the first Linear layer takes 3 inputs; the features "
                     "give 1")
        self.refused(nn.Sequential(nn.Linear(1, 2)),
                     "has 2 outputs; the inline advisor's decision is a "
                     "logit")
        self.refused(nn.Sequential(nn.Linear(1, 3), nn.Linear(2, 1)),
                     "takes 2 inputs; the layer before gives 3")
        self.refused(nn.Sequential(lin), "not one of the inline advisor's",
                     feats=["no_such_feature"])
        self.refused(nn.Sequential(lin), "is the inline advisor's decision",
                     feats=["inlining_decision"])
        self.refused(nn.Sequential(nn.Linear(2, 1)), "named twice",
                     feats=["callee_users", "callee_users"])
        # The embeddings' dimension comes from the table.
        self.refused(nn.Sequential(nn.Linear(10, 1)), "the features give 75",
                     feats=["callee_embedding"])
        bad = nn.Linear(1, 1).double()
        with torch.no_grad():
            bad.weight.fill_(float("nan"))
        self.refused(nn.Sequential(bad), "not a finite number")
        with torch.no_grad():
            bad.weight.fill_(1e300)
        self.refused(nn.Sequential(bad), "can overflow double")
        self.refused(nn.Sequential(Normalize([0.0], [0.0]), lin), "is zero")
        self.refused(nn.Sequential(Normalize([0.0, 1.0], [1.0, 1.0]), lin),
                     "Normalize has 2 elements; the features have 1")
        # The eviction advisor chooses among its mask's positions.
        evict = {"liverange_size": 33, "evictable": 33, "index_to_evict": 1}
        self.refused(nn.Sequential(nn.Linear(33, 1)), "has 1 outputs; the "
                     "evict advisor chooses among 33", ["liverange_size"],
                     "evict", evict)


def _job(corpus, module, policy):
    return Job(module, os.path.join(corpus, module + ".bc"), policy)


if __name__ == "__main__":
    unittest.main()
