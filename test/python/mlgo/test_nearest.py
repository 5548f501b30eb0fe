# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.nearest: the nearest training modules vote for the candidate
with the largest mean relative gain over the best fixed setting, beyond a
margin; the candidates are the stock settings and the search's most
frequent best configurations, or the fixed setting's analogue and its most
frequent additions; `nearest` with k=1 on its own training modules reaches
the candidates' oracle."""

import json
import os
import shutil
import subprocess
import sys
import unittest

import numpy as np

import fixtures
import ir2vec
from ir2vec.mlgo import nearest
from ir2vec.mlgo import pipeline as pl


def result(config, text=100):
    return {"best": {"config": config.key(), "text": text}}


class ChooseTest(unittest.TestCase):
    # Four unit rows: two near (1, 0), two near (0, 1).
    TRAIN = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.6, 0.8]])
    # .text of each training row under candidates 0 (the base), 1 and 2.
    # Relative gains over the base: (0, .2, .1), (0, .1, -.2),
    # (0, -.4, .3), (0, -.2, .2).
    TEXT = np.array([[10.0, 8.0, 9.0],
                     [10.0, 9.0, 12.0],
                     [10.0, 14.0, 7.0],
                     [10.0, 12.0, 8.0]])

    def choose(self, x, k, margin=0.0, base=0):
        return list(nearest.choose(self.TRAIN, self.TEXT, np.array(x), k,
                                   base, margin))

    def test_one_neighbour_copies_its_best(self):
        self.assertEqual(self.choose([[0.99, 0.14], [0.1, 0.995]], 1),
                         [1, 2])

    def test_every_neighbour_gives_one_choice(self):
        # Mean gains -.075 and .1: candidate 2 for any row.
        x = [[1.0, 0.0], [0.0, 1.0]]
        self.assertEqual(self.choose(x, 4), [2, 2])
        self.assertEqual(self.choose(x, 99), [2, 2])

    def test_two_neighbours_average_their_gains(self):
        # Rows 0 and 1 nearest: mean gains .15 and -.05.
        self.assertEqual(self.choose([[0.95, 0.3]], 2), [1])

    def test_a_gain_under_the_margin_keeps_the_base(self):
        self.assertEqual(self.choose([[0.95, 0.3]], 2, margin=0.14), [1])
        self.assertEqual(self.choose([[0.95, 0.3]], 2, margin=0.16), [0])

    def test_no_gain_keeps_the_base(self):
        # Near rows 2 and 3 with the base at column 2: every other
        # candidate is larger.
        self.assertEqual(self.choose([[0.3, 0.95]], 2, base=2), [2])

    def test_a_tie_goes_to_the_first_candidate(self):
        text = np.array([[8.0, 8.0, 10.0]])
        train = np.array([[1.0, 0.0]])
        self.assertEqual(list(nearest.choose(train, text, train, 1, 2)), [0])


class StandardiseTest(unittest.TestCase):
    def test_unit_rows_and_constant_features(self):
        train = np.array([[1.0, 5.0, 2.0], [3.0, 5.0, 2.0], [2.0, 5.0, 8.0]])
        other = np.array([[2.0, 5.0, 4.0], [2.0, 5.0, 4.0]])
        t, o = nearest.standardise(train, other)
        self.assertTrue(np.all(np.isfinite(t)) and np.all(np.isfinite(o)))
        np.testing.assert_allclose(np.linalg.norm(t, axis=1), 1.0)
        # other's rows are train's mean: nothing is left to scale.
        np.testing.assert_array_equal(o, np.zeros_like(o))
        # By train's statistics: column 0 becomes (-1.22, 1.22, 0), column 2
        # (-0.71, -0.71, 1.41), then each row is scaled to unit length.
        np.testing.assert_allclose(t[0], [-0.8660254, 0, -0.5], atol=1e-6)


class CandidatesTest(unittest.TestCase):
    def test_stock_first_then_by_count_without_oz(self):
        oz = pl.Config.oz()
        a = pl.Config(oz.passes, veto=("licm",))
        b = pl.Config(oz.passes, outline=True)
        results = [result(oz)] * 5 + [result(b)] * 2 + [result(a)] * 3 + \
            [None, {"best": {"config": a.key(), "text": None}}]
        cands = nearest.candidates(results, 1)
        stock = [n for n, _ in pl.stock_policies("size")]
        self.assertEqual([n for n, _ in cands], stock + [a.describe()])
        self.assertEqual(cands[-1][1].config, a)
        two = nearest.candidates(results, 5)
        self.assertEqual([n for n, _ in two][len(stock):],
                         [a.describe(), b.describe()])


class AroundTest(unittest.TestCase):
    def test_the_fixed_setting_and_its_most_frequent_additions(self):
        sp = pl.space()
        oz = list(sp.oz)
        last = sp.last_point
        licm = pl.Config(oz, veto=("licm",))
        inline = pl.Config(oz[:last] + ["inline"] + oz[last:])
        results = [result(licm)] * 3 + [result(inline)] * 2 + \
            [result(pl.Config.oz())] * 4
        base = pl.Config(oz[:last] + ["mergefunc", "iroutliner"] +
                         oz[last:], outline=True)
        stock = [n for n, _ in pl.stock_policies("size")]
        one = nearest.around("Oz+mf+mo+iro", results, 1)
        self.assertEqual([n for n, _ in one][len(stock):],
                         [base.describe(),
                          pl.Config(base.passes, ("licm",),
                                    True).describe()])
        self.assertEqual(one[len(stock)][1].config, base)
        # Moves no best configuration makes are not candidates.
        many = nearest.around("Oz+mf+mo+iro", results, 50)
        with_inline = pl.Config(base.passes[:last + 2] + ("inline",) +
                                base.passes[last + 2:], outline=True)
        self.assertEqual([n for n, _ in many][len(stock) + 1:],
                         [pl.Config(base.passes, ("licm",),
                                    True).describe(),
                          with_inline.describe()])

    def test_additions_to_another_base(self):
        # Around a base that already appends inline, inline counts again
        # only for best configurations that append it twice.
        sp = pl.space()
        oz = list(sp.oz)
        last = sp.last_point
        once = pl.Config(oz[:last] + ["inline"] + oz[last:])
        twice = pl.Config(oz[:last] + ["inline", "inline"] + oz[last:])
        licm = pl.Config(once.passes, veto=("licm",))
        results = [result(once)] * 5 + [result(licm)] * 2 + [result(twice)]
        got = [p.config for _, p in nearest.additions(once, results, 5)]
        self.assertEqual(got, [licm, twice])


class ReplayTest(fixtures.CorpusTestCase):
    def test_every_module_with_its_clang_space_config(self):
        from ir2vec.mlgo.corpus import Corpus
        sp = pl.space()
        oz = list(sp.oz)
        last = sp.last_point
        licm = pl.Config(oz[:last] + ["mergefunc"] + oz[last:],
                         veto=("licm",), outline=True)
        cands = pl.stock_policies("size") + [(licm.describe(),
                                              pl.Pipeline(licm))]
        corpus = Corpus(self.corpus)
        doc = nearest.replay_file(
            {"Oz-preopt/prog/prog": "Oz+mf+iro",
             "Oz-preopt/prog/table": "Oz",
             "Oz-preopt/shapes/shapes": licm.describe()}, cands, corpus)
        rows = {r["module"]: r for r in doc["modules"].values()}
        self.assertEqual(sorted(rows), sorted(fixtures.MODULES))
        self.assertEqual(
            rows["Oz-preopt/prog/prog"]["append"],
            sp.text("mergefunc") + "," + sp.text("iroutliner"))
        self.assertFalse(rows["Oz-preopt/prog/prog"]["outline"])
        self.assertEqual(rows["Oz-preopt/prog/table"]["append"], "")
        self.assertEqual(rows["Oz-preopt/shapes/shapes"],
                         {"module": "Oz-preopt/shapes/shapes",
                          "append": sp.text("mergefunc"), "veto": ["licm"],
                          "outline": True, "describe": licm.describe()})
        # Keyed by what clang names the module after.
        self.assertIn(os.path.join(str(fixtures.INPUTS), "shapes.cpp"),
                      doc["modules"])


class CountsTest(fixtures.CorpusTestCase):
    IR = """define i32 @f(i32 %a, ptr %p) {
entry:
  %c = icmp sgt i32 %a, 0
  br i1 %c, label %yes, label %no
yes:
  %v = load i32, ptr %p
  %s = add i32 %v, %a
  store i32 %s, ptr %p
  ret i32 %s
no:
  %r = tail call i32 @g(i32 %a)
  ret i32 %r
}
declare i32 @g(i32)
define void @h() {
  ret void
}
"""

    def test_counts_by_hand(self):
        ll, bc = self.tmp("counts.ll"), self.tmp("counts.bc")
        with open(ll, "w") as f:
            f.write(self.IR)
        subprocess.run([os.path.join(fixtures.LLVM_BIN, "llvm-as"), ll,
                        "-o", bc], check=True)
        got = np.expm1(nearest.ir_counts(bc)).round().astype(int)
        # 2 functions, 4 blocks, 9 instructions; then COUNTED's order:
        # call load store br icmp getelementptr phi alloca ret switch
        # select add mul.
        want = [2, 4, 9] + [1, 1, 1, 1, 1, 0, 0, 0, 3, 0, 0, 1, 0]
        self.assertEqual(list(got), want)

    def test_both_is_embedding_then_counts(self):
        paths = [self.bc(m) for m in sorted(fixtures.MODULES)]
        both = nearest.state(paths, "both")
        np.testing.assert_array_equal(both[:, :-16],
                                      nearest.state(paths, "embedding"))
        np.testing.assert_array_equal(both[:, -16:],
                                      nearest.state(paths, "counts"))
        with self.assertRaisesRegex(ValueError, "unknown state 'bag'"):
            nearest.state(paths, "bag")


class ModelPolicyTest(fixtures.CorpusTestCase):
    """The plugin's -irtk-pipeline-policy=model decides in clang what
    choose decides, on a policy whose vote leaves the fixed setting."""

    def ir(self, bc, *flags):
        done = subprocess.run(
            [fixtures.CLANG, "-Oz", "-S", "-emit-llvm", bc, "-o", "-",
             "-fpass-plugin=" + os.environ["IRTK_PLUGIN"], "-mllvm",
             "-enable-machine-outliner", *flags], capture_output=True,
            text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout

    def test_model_is_choose_in_clang(self):
        oz = pl.space().oz
        fixed = pl.Config(oz, outline=True)
        other = pl.Config(oz, veto=("licm",), outline=False)
        cands = [("fixed", pl.Pipeline(fixed)), ("other", pl.Pipeline(other))]
        a, b = "Oz-preopt/prog/prog", "Oz-preopt/shapes/shapes"
        # prog's nearest training row is its own: "other" is 20% smaller;
        # shapes' is its own too: "other" is larger.
        states = [nearest.ir_counts(self.bc(a)), nearest.ir_counts(self.bc(b))]
        for kind, x in (("counts", states),
                        ("both", np.hstack([nearest.state(
                            [self.bc(a), self.bc(b)], "embedding"),
                            states]))):
            with self.subTest(state=kind):
                doc = nearest.policy_doc(kind, 1, 0.0, "fixed", cands, x,
                                         [[10.0, 8.0], [10.0, 12.0]])
                policy = self.tmp(f"policy-{kind}.json")
                with open(policy, "w") as f:
                    json.dump(doc, f)
                chosen = self.tmp(f"choose-{kind}.json")
                done = subprocess.run(
                    [sys.executable, "-m", "ir2vec.mlgo", "choose",
                     "--policy", policy, "--corpus", self.corpus,
                     "--replay", chosen], capture_output=True, text=True)
                self.assertEqual(done.returncode, 0, done.stderr)
                with open(chosen) as f:
                    rows = {r["module"]: r for r in
                            json.load(f)["modules"].values()}
                self.assertEqual(rows[a]["describe"], "other")
                self.assertEqual(rows[b]["describe"], "fixed")
                for m in fixtures.MODULES:
                    model = self.ir(self.bc(m), "-mllvm",
                                    "-irtk-pipeline-policy=model", "-mllvm",
                                    "-irtk-pipeline-model=" + policy)
                    self.assertEqual(model, self.ir(
                        self.bc(m), "-mllvm", "-irtk-pipeline-policy=replay",
                        "-mllvm", "-irtk-pipeline-choices=" + chosen), m)
                    if m == a:
                        self.assertIn('"nooutline"', model)

    def test_values_model_is_choose_in_clang(self):
        # A hand-made network over the counts: "other" gains 0.1 at prog's
        # state, less the squared distance from it (shapes: far below 0).
        oz = pl.space().oz
        cands = [("fixed", pl.Pipeline(pl.Config(oz, outline=True))),
                 ("other", pl.Pipeline(pl.Config(oz, veto=("licm",))))]
        a, b = "Oz-preopt/prog/prog", "Oz-preopt/shapes/shapes"
        xa = np.array(nearest.ir_counts(self.bc(a)))
        xb = np.array(nearest.ir_counts(self.bc(b)))
        d = xb - xa
        net = {"mean": xa.tolist(), "scale": [1.0] * len(xa), "layers": [
            {"weight": [[0.0] * len(xa), (-d).tolist()], "bias": [0.0, 0.1],
             "activation": "linear"}]}
        self.assertLess(float(nearest.values(net, [xb])[0][1]), 0)
        doc = nearest.values_doc("counts", 0.0, "fixed", cands, net)
        policy = self.tmp("policy-values.json")
        with open(policy, "w") as f:
            json.dump(doc, f)
        chosen = self.tmp("choose-values.json")
        done = subprocess.run(
            [sys.executable, "-m", "ir2vec.mlgo", "choose", "--policy",
             policy, "--corpus", self.corpus, "--replay", chosen],
            capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(chosen) as f:
            rows = {r["module"]: r for r in json.load(f)["modules"].values()}
        self.assertEqual(rows[a]["describe"], "other")
        self.assertEqual(rows[b]["describe"], "fixed")
        for m in fixtures.MODULES:
            self.assertEqual(
                self.ir(self.bc(m), "-mllvm", "-irtk-pipeline-policy=model",
                        "-mllvm", "-irtk-pipeline-model=" + policy),
                self.ir(self.bc(m), "-mllvm", "-irtk-pipeline-policy=replay",
                        "-mllvm", "-irtk-pipeline-choices=" + chosen), m)
        # A network whose last layer does not give one number per candidate
        # is refused, in one line.
        doc["network"]["layers"][0]["bias"] = [0.0]
        doc["network"]["layers"][0]["weight"] = [[0.0] * len(xa)]
        with open(policy, "w") as f:
            json.dump(doc, f)
        done = subprocess.run(
            [fixtures.CLANG, "-Oz", "-c", self.bc(a), "-o",
             self.tmp("values.o"), "-fpass-plugin=" +
             os.environ["IRTK_PLUGIN"], "-mllvm",
             "-irtk-pipeline-policy=model", "-mllvm",
             "-irtk-pipeline-model=" + policy], capture_output=True,
            text=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("policy-values.json: 'network' gives 1 numbers for 2 "
                      "candidates", done.stderr)
        self.assertEqual(len([ln for ln in done.stderr.splitlines()
                              if "irtk:" in ln]), 1)
        self.assertFalse(os.path.exists(self.tmp("values.o")))

    def test_the_shipped_model_is_taken_without_a_file(self):
        shipped = os.path.join(fixtures.HERE.parents[2], "advisors", "models",
                               "pipeline-oz.json")
        doc = nearest.read_policy(shipped)
        self.assertEqual((doc["rule"], doc["fixed"]), ("values",
                                                       "Oz+mf+mo+iro"))
        for m in fixtures.MODULES:
            self.assertEqual(
                self.ir(self.bc(m), "-mllvm", "-irtk-pipeline-policy=model"),
                self.ir(self.bc(m), "-mllvm", "-irtk-pipeline-policy=model",
                        "-mllvm", "-irtk-pipeline-model=" + shipped), m)
        # A plugin installed without it says where it looked, in one line.
        lib = self.tmp("prefix", "lib")
        os.makedirs(lib)
        plugin = os.path.join(lib, "IRTKPlugin.so")
        shutil.copy(os.environ["IRTK_PLUGIN"], plugin)
        done = subprocess.run(
            [fixtures.CLANG, "-Oz", "-c", self.bc("Oz-preopt/prog/prog"),
             "-o", self.tmp("noship.o"), "-fpass-plugin=" + plugin, "-mllvm",
             "-irtk-pipeline-policy=model"], capture_output=True, text=True)
        self.assertNotEqual(done.returncode, 0)
        want = os.path.join(self.tmp("prefix"), "share", "irtk", "models",
                            "pipeline-oz.json")
        self.assertIn("-irtk-pipeline-policy=model wants "
                      "-irtk-pipeline-model=<file>", done.stderr)
        self.assertIn(f"the shipped model is not beside the plugin ({want})",
                      done.stderr)
        self.assertEqual(len([ln for ln in done.stderr.splitlines()
                              if "irtk:" in ln]), 1)
        self.assertFalse(os.path.exists(self.tmp("noship.o")))

    def test_a_bad_model_is_a_one_line_error(self):
        bad = self.tmp("bad-model.json")
        with open(bad, "w") as f:
            json.dump({"format": "irtk-pipeline-nearest", "version": 1,
                       "state": "counts"}, f)
        done = subprocess.run(
            [fixtures.CLANG, "-Oz", "-c", self.bc("Oz-preopt/prog/prog"),
             "-o", self.tmp("bad.o"), "-fpass-plugin=" +
             os.environ["IRTK_PLUGIN"], "-mllvm",
             "-irtk-pipeline-policy=model", "-mllvm",
             "-irtk-pipeline-model=" + bad], capture_output=True, text=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("bad-model.json: 'k' is not a positive number",
                      done.stderr)
        self.assertFalse(os.path.exists(self.tmp("bad.o")))


class EmbedTest(fixtures.CorpusTestCase):
    def test_rows_are_the_program_vectors(self):
        names = sorted(fixtures.MODULES)
        x = nearest.embed([self.bc(m) for m in names], threads=2)
        self.assertEqual(x.shape[0], len(names))
        for row, m in zip(x, names):
            want = ir2vec.initEmbedding(self.bc(m), "fa").getProgramVector()
            np.testing.assert_array_equal(row, want)

    def test_a_bad_file_is_named(self):
        bad = self.tmp("bad.bc")
        with open(bad, "w") as f:
            f.write("not bitcode")
        with self.assertRaisesRegex(ValueError, "bad.bc"):
            nearest.embed([self.bc("Oz-preopt/prog/prog"), bad])


class CommandTest(fixtures.CorpusTestCase):
    def test_one_neighbour_on_its_training_modules_is_the_oracle(self):
        tuned = self.tmp("tune")
        self.mlgo("tune", "--corpus", self.corpus, "--out", tuned,
                  "--space", "clang", "--budget", "9", "--workers", "2")
        for kind in ([], ["--around-fixed"]):
            with self.subTest(kind=kind):
                out = self.tmp(f"nearest{len(kind)}.json")
                self.mlgo("nearest", "--corpus", self.corpus, "--out",
                          self.tmp("held"), "--train-corpus", self.corpus,
                          "--train-out", tuned, "--valid-corpus",
                          self.corpus, "--valid-out", self.tmp("valid"),
                          "--budget", "9", "--candidates", "2", "--ks",
                          "1,3", "--margins", "0,0.5", "--workers", "2",
                          "--json", out, *kind)
                with open(out) as f:
                    doc = json.load(f)
                rows = {r[0]: r for r in doc["validation"]}
                # Each module is its own nearest: its best candidate.
                self.assertEqual(rows["nearest, embedding, k=1, margin=0"][2:5:2],
                                 rows["oracle of the candidates"][2:5:2])
                # A margin of 50% keeps the best fixed setting.
                fixed = rows[f"best fixed ({doc['fixed']})"]
                self.assertEqual(rows["nearest, embedding, k=3, margin=0.5"][2:5:2],
                                 fixed[2:5:2])
                self.assertEqual((doc["state"], doc["k"], doc["margin"]),
                                 ("embedding", 1, 0))
                self.assertEqual(sorted(doc["choices"]),
                                 sorted(fixtures.MODULES))
                for c in doc["choices"].values():
                    self.assertIn(c, doc["candidates"])
        # A saved policy chooses for a corpus, without compiling, what
        # nearest chose for it.
        replay, policy = self.tmp("nearest.replay"), self.tmp("policy.json")
        self.mlgo("nearest", "--corpus", self.corpus, "--out",
                  self.tmp("held"), "--train-corpus", self.corpus,
                  "--train-out", tuned, "--valid-corpus", self.corpus,
                  "--valid-out", self.tmp("valid"), "--budget", "9",
                  "--candidates", "2", "--ks", "1,3", "--margins", "0,0.5",
                  "--states", "embedding,counts,both", "--workers", "2",
                  "--around-fixed", "--replay", replay, "--save", policy)
        chosen = self.tmp("choose.replay")
        self.mlgo("choose", "--policy", policy, "--corpus", self.corpus,
                  "--replay", chosen)
        with open(replay) as a, open(chosen) as b:
            self.assertEqual(json.load(a), json.load(b))
        # The plugin's model policy decides in clang what choose decided:
        # the same IR as the replay of choose's file, module by module.
        plugin = os.environ["IRTK_PLUGIN"]

        def ir(bc, *flags):
            done = subprocess.run(
                [fixtures.CLANG, "-Oz", "-S", "-emit-llvm", bc, "-o", "-",
                 "-fpass-plugin=" + plugin, "-mllvm",
                 "-enable-machine-outliner", *flags], capture_output=True,
                text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            return done.stdout
        for m in fixtures.MODULES:
            self.assertEqual(
                ir(self.bc(m), "-mllvm", "-irtk-pipeline-policy=model",
                   "-mllvm", "-irtk-pipeline-model=" + policy),
                ir(self.bc(m), "-mllvm", "-irtk-pipeline-policy=replay",
                   "-mllvm", "-irtk-pipeline-choices=" + chosen), m)
        done = subprocess.run(
            [sys.executable, "-m", "ir2vec.mlgo", "choose", "--policy",
             self.bc("Oz-preopt/prog/prog"), "--corpus", self.corpus,
             "--replay", self.tmp("bad.replay")], capture_output=True,
            text=True)
        self.assertEqual(done.returncode, 1)
        self.assertIn("error: ", done.stderr)
        self.assertIn("prog.bc: cannot read it", done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1)
        self.assertFalse(os.path.exists(self.tmp("bad.replay")))


if __name__ == "__main__":
    unittest.main()
