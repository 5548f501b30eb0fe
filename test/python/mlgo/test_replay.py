# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The pipeline advisor's replay policy in clang (-irtk-pipeline-policy=
replay): a clang-reachable config applied by the plugin gives the bitcode
opt gives for the config's text; "outline": false marks every function
nooutline; default is stock; bad choices files are one-line errors."""

import json
import os
import re
import subprocess
import unittest

import fixtures
from ir2vec.mlgo import pipeline as pl
from ir2vec.mlgo import tune
from ir2vec.mlgo.corpus import Corpus

PLUGIN = os.environ.get("IRTK_PLUGIN", "")
OPT = os.path.join(fixtures.LLVM_BIN, "opt")
DIS = os.path.join(fixtures.LLVM_BIN, "llvm-dis")


@unittest.skipUnless(os.path.exists(PLUGIN), "IRTK_PLUGIN is not set")
class ReplayTest(fixtures.CorpusTestCase):
    def result(self, name, cfg):
        """A tune result whose best config is cfg."""
        return {"module": name, "best": {"config": cfg.key(), "text": 1},
                "settings": {"Oz": 2}}

    def clang(self, name, choices, *extra):
        out = self.tmp("replay.bc")
        argv = [fixtures.CLANG, "-Oz", "-c", "-emit-llvm", self.bc(name),
                "-o", out, "-fpass-plugin=" + PLUGIN] + list(extra)
        if choices is not None:
            path = self.tmp("choices.json")
            with open(path, "w") as f:
                json.dump(choices, f)
            argv += ["-mllvm", "-irtk-pipeline-policy=replay", "-mllvm",
                     "-irtk-pipeline-choices=" + path]
        return subprocess.run(argv, capture_output=True, text=True), out

    def opt(self, name, cfg):
        out = self.tmp("opt.bc")
        subprocess.run([OPT, "-passes=" + cfg.text(), self.bc(name), "-o",
                        out], check=True)
        return out

    def ir(self, bc):
        text = subprocess.run([DIS, bc, "-o", "-"], capture_output=True,
                              text=True, check=True).stdout
        return text.split("\n", 1)[1]  # without the ModuleID line

    def test_replay_is_the_configs_pipeline(self):
        sp = pl.space()
        oz, last = list(sp.oz), sp.last_point
        name = "Oz-preopt/prog/prog"
        stock = self.ir(self.opt(name, pl.Config(oz)))
        for cfg in (pl.Config(oz[:last] + ["mergefunc", "combine"] +
                              oz[last:], veto=["licm", "loop-unroll"],
                              outline=True),
                    pl.Config(oz, veto=["tailcallelim"], outline=True),
                    pl.Config(oz[:last] + ["inline", "iroutliner"] +
                              oz[last:], outline=True)):
            doc = tune.replay_file([self.result(name, cfg)],
                                   Corpus(self.corpus))
            done, bc = self.clang(name, doc)
            self.assertEqual(done.returncode, 0, done.stderr)
            want = self.ir(self.opt(name, cfg))
            self.assertNotEqual(want, stock, cfg.describe())
            self.assertEqual(self.ir(bc), want, cfg.describe())

    def test_no_outline_marks_every_function(self):
        name = "Oz-preopt/prog/prog"
        cfg = pl.Config(pl.space().oz, veto=["licm"], outline=False)
        doc = tune.replay_file([self.result(name, cfg)], Corpus(self.corpus))
        done, bc = self.clang(name, doc)
        self.assertEqual(done.returncode, 0, done.stderr)
        text = self.ir(bc)
        defined = [ln for ln in text.splitlines() if ln.startswith("define")]
        self.assertGreater(len(defined), 1)
        groups = {ln.split(" = ")[0].split()[1]: ln for ln in
                  text.splitlines() if ln.startswith("attributes #")}
        for d in defined:
            group = re.search(r" (#\d+) ", d).group(1)
            self.assertIn('"nooutline"', groups[group], d)
        # Without the flag, the IR is the config's outliner-on text.
        self.assertEqual(text.replace(' "nooutline"', ""),
                         self.ir(self.opt(name, cfg)))

    def test_a_relative_source_name_finds_its_absolute_key(self):
        # A build that compiles "prog.c" in its directory gets the choice
        # keyed by the file's absolute path.
        key = os.path.join(str(fixtures.INPUTS), "prog.c")
        doc = {"format": "irtk-pipeline-choices", "version": 1,
               "modules": {key: {"append": "", "veto": ["licm"],
                                 "outline": False}}}
        path = self.tmp("relative.json")
        with open(path, "w") as f:
            json.dump(doc, f)

        def compile_from(cwd, source, choices):
            out = self.tmp("from-source.ll")
            argv = [fixtures.CLANG, "-Oz", "-S", "-emit-llvm", source, "-o",
                    out]
            if choices:
                argv += ["-fpass-plugin=" + PLUGIN, "-mllvm",
                         "-irtk-pipeline-policy=replay", "-mllvm",
                         "-irtk-pipeline-choices=" + choices]
            subprocess.run(argv, cwd=cwd, check=True)
            with open(out) as f:
                return "".join(ln for ln in f if not ln.startswith(
                    ("; ModuleID", "source_filename")))
        relative = compile_from(str(fixtures.INPUTS), "prog.c", path)
        self.assertIn('"nooutline"', relative)
        self.assertEqual(relative, compile_from("/", key, path))
        self.assertNotEqual(relative, compile_from("/", key, None))

    def test_a_module_without_a_choice_is_stock(self):
        doc = {"format": "irtk-pipeline-choices", "version": 1,
               "modules": {"elsewhere.c": {"append": "mergefunc"}}}
        done, bc = self.clang("Oz-preopt/prog/prog", doc)
        self.assertEqual(done.returncode, 0, done.stderr)
        stock = self.tmp("stock.bc")
        subprocess.run([fixtures.CLANG, "-Oz", "-c", "-emit-llvm",
                        self.bc("Oz-preopt/prog/prog"), "-o", stock],
                       check=True)
        self.assertEqual(self.ir(bc), self.ir(stock))

    def test_default_policy_is_stock(self):
        done, bc = self.clang("Oz-preopt/shapes/shapes", None, "-mllvm",
                              "-irtk-pipeline-policy=default")
        self.assertEqual(done.returncode, 0, done.stderr)
        stock = self.tmp("stock.bc")
        subprocess.run([fixtures.CLANG, "-Oz", "-c", "-emit-llvm",
                        self.bc("Oz-preopt/shapes/shapes"), "-o", stock],
                       check=True)
        with open(bc, "rb") as a, open(stock, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_bad_choices_are_one_line_errors(self):
        name = "Oz-preopt/prog/prog"
        cases = [
            ({"format": "other", "version": 1, "modules": {}},
             "not a pipeline choices file"),
            ({"format": "irtk-pipeline-choices", "version": 9,
              "modules": {}}, "version 1 is the one this irtk reads"),
            ({"format": "irtk-pipeline-choices", "version": 1,
              "modules": {"x.c": {"veto": "licm"}}}, "'veto' is not a list"),
        ]
        for doc, want in cases:
            done, _ = self.clang(name, doc)
            self.assertNotEqual(done.returncode, 0)
            self.assertIn(want, done.stderr)
            self.assertIn("choices.json", done.stderr)
        # A module's text that does not parse names the module.
        src = Corpus(self.corpus).source_filename(name)
        done, _ = self.clang(name, {
            "format": "irtk-pipeline-choices", "version": 1,
            "modules": {src: {"append": "no-such-pass"}}})
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("the pipeline choice of " + src, done.stderr)
        # Replay without a file.
        out = subprocess.run(
            [fixtures.CLANG, "-Oz", "-c", self.bc(name), "-o",
             self.tmp("x.o"), "-fpass-plugin=" + PLUGIN, "-mllvm",
             "-irtk-pipeline-policy=replay"], capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("wants -irtk-pipeline-choices", out.stderr)


if __name__ == "__main__":
    unittest.main()
