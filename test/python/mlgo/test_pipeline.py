# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.pipeline: the action space is clang -Oz's pipeline, and every
action leaves a program that compiles, links and runs as before."""

import os
import subprocess
import unittest

import fixtures
from ir2vec.mlgo import engine as eng
from ir2vec.mlgo import pipeline as pl
from ir2vec.mlgo.policy import Policy

OPT = os.path.join(fixtures.LLVM_BIN, "opt")


class TextTest(unittest.TestCase):
    def test_parse_render_round_trip(self):
        text = pl.Config.oz().text()
        self.assertEqual(pl.render(pl.parse(text)), text)

    def test_veto_drops_the_pass_and_empty_adaptors(self):
        nodes = pl.parse("a,function(b<x;y>,loop(c)),loop(c),d")
        self.assertEqual(pl.render(pl.drop(nodes, {"c"})),
                         "a,function(b<x;y>),d")
        self.assertEqual(pl.render(pl.drop(nodes, {"b"})),
                         "a,function(loop(c)),loop(c),d")

    def test_unknown_veto_is_refused(self):
        with self.assertRaises(pl.PipelineError):
            pl.Config(pl.space().oz, veto=["instcombine"]).text()

    def test_clang_reachability(self):
        sp = pl.space()
        oz = list(sp.oz)
        last = sp.last_point
        self.assertTrue(pl.Config(oz).clang_reachable())
        added = pl.Config(oz[:last] + ["mergefunc", "inline"] + oz[last:],
                          veto=["licm"], outline=True)
        self.assertTrue(added.clang_reachable())
        self.assertEqual(added.appended(), ("mergefunc", "inline"))
        self.assertFalse(pl.Config(oz[:2] + ["mergefunc"] + oz[2:])
                         .clang_reachable())
        self.assertFalse(pl.Config([g for g in oz if g != "optimize"])
                         .clang_reachable())


class ClangTest(fixtures.CorpusTestCase):
    def test_oz_is_clangs_pipeline(self):
        # The Oz sequence is the text clang -Oz prints for its pipeline.
        out = subprocess.run(
            [fixtures.CLANG, "-Oz", "-c", "-emit-llvm",
             self.bc("Oz-preopt/prog/prog"), "-o", os.devnull, "-mllvm",
             "-print-pipeline-passes"], capture_output=True, text=True,
            check=True).stdout.strip()
        self.assertEqual(out, pl.Config.oz().text() + ",BitcodeWriterPass")

    def test_oz_gives_clangs_bitcode(self):
        for m in ("Oz-preopt/prog/prog", "Oz-preopt/shapes/shapes"):
            a, b = self.tmp("a.bc"), self.tmp("b.bc")
            subprocess.run([fixtures.CLANG, "-Oz", "-c", "-emit-llvm",
                            self.bc(m), "-o", a], check=True)
            subprocess.run([OPT, "-passes=" + pl.Config.oz().text(),
                            self.bc(m), "-o", b], check=True)
            with open(a, "rb") as f, open(b, "rb") as g:
                self.assertEqual(f.read(), g.read(), m)

    def _configs(self):
        """Each single action: every addable at the optimizer-last point
        and after the first group, every veto, every removable group, the
        outliner, and all vetoes at once."""
        sp = pl.space()
        oz, last = list(sp.oz), sp.last_point
        out = [pl.Config(oz, outline=True),
               pl.Config(oz, veto=sp.vetoes)]
        for name in sp.addable():
            out.append(pl.Config(oz[:last] + [name] + oz[last:]))
            out.append(pl.Config(oz[:1] + [name] + oz[1:]))
        for v in sp.vetoes:
            out.append(pl.Config(oz, veto=[v]))
        for g in sp.removable:
            out.append(pl.Config([x for x in oz if x != g]))
        return out

    def test_every_action_compiles_links_and_runs(self):
        e = eng.Engine(self.tmp("out"), workers=2)
        mods = ["Oz-preopt/prog/prog", "Oz-preopt/prog/table"]
        stock = e.run([eng.Job(m, self.bc(m), Policy()) for m in mods])
        want = self.link_and_run(e, stock, "stock")
        self.assertEqual(want.returncode, 0)
        configs = self._configs()
        jobs = [eng.Job(m, self.bc(m), pl.Pipeline(c))
                for c in configs for m in mods]
        recs = e.run(jobs)
        for i, c in enumerate(configs):
            pair = recs[2 * i:2 * i + 2]
            for r in pair:
                self.assertTrue(r.ok, f"{c.describe()}: {r.get('error')}")
            got = self.link_and_run(e, pair, f"c{i}")
            self.assertEqual((got.returncode, got.stdout),
                             (want.returncode, want.stdout), c.describe())

    def link_and_run(self, e, recs, name):
        exe = self.tmp(name)
        subprocess.run([fixtures.CLANG, "-o", exe] +
                       [e.path(r["object"]) for r in recs], check=True)
        return subprocess.run([exe, "x"], capture_output=True, text=True)


if __name__ == "__main__":
    unittest.main()
