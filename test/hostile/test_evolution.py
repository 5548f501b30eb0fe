# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Class 4 of the hostile inputs: evolution strategies given what they
cannot use.

Every row is an irtk-train es-* command (or ir2vec.mlgo es) and the state it
starts from: options whose candidates or updates would not load, a
checkpoint that is not whole, a model the checkpoint was not started from,
an empty option value. The command must refuse with one error line, exit
1 (2 for a usage error), and leave every file it was given as it was, and
write none of the outputs named.
"""

import os
import unittest

import harness
import trained
from harness import mlgo, tool

TRAIN = tool("irtk-train")
MODEL = trained.MODEL


def es_start(*options):
    return [TRAIN, "es-start", "--model", "{dir}/m.json", "-o",
            "{dir}/c.json", *options]


CANDIDATES = [TRAIN, "es-candidates", "--model", "{dir}/m.json",
              "--checkpoint", "{dir}/c.json", "-o", "{dir}/d"]
UPDATE = [TRAIN, "es-update", "--checkpoint", "{dir}/c.json", "--rewards",
          "{dir}/r.txt", "--model", "{dir}/m.json"]


def bad(name, change):
    return {"m.json": MODEL, "c.json": trained.changed_checkpoint(name, change),
            "r.txt": trained.rewards}


def set_adam(key, value):
    return lambda c: c["adam"].__setitem__(key, value)


# (row, {name: file copied in, or a function that makes it}, argv with
# {dir}, exit status, what the error line says, paths that must not
# appear).
ROWS = [
    # Options whose models would not load: nothing written.
    ("es-start --sigma 1e300", {"m.json": MODEL},
     es_start("--sigma", "1e300"), 1,
     ["c.json: not written: candidate 0", "overflows double"], ["c.json"]),
    ("es-start --step-size 1e300", {"m.json": MODEL},
     es_start("--step-size", "1e300"), 1,
     ["c.json: not written: the parameters after the next update",
      "overflows double"], ["c.json"]),
    # An empty value is not the default.
    ("es-start --sigma ''", {"m.json": MODEL}, es_start("--sigma", ""), 2,
     ["invalid --sigma ''"], ["c.json"]),
    ("es-start --step-size ''", {"m.json": MODEL},
     es_start("--step-size", ""), 2, ["invalid --step-size ''"], ["c.json"]),
    ("es-start --layers ''", {"m.json": MODEL}, es_start("--layers", ""), 2,
     ["invalid --layers ''"], ["c.json"]),
    ("es-start --perturbations ''", {"m.json": MODEL},
     es_start("--perturbations", ""), 2, ["invalid --perturbations ''"],
     ["c.json"]),
    ("es-start --seed ''", {"m.json": MODEL}, es_start("--seed", ""), 2,
     ["invalid --seed ''"], ["c.json"]),
    # A checkpoint that is not whole.
    ("es-candidates, a parameter that is not finite",
     bad("inf.json", lambda c: c["parameters"].__setitem__(0, float("inf"))),
     CANDIDATES, 1, ["c.json: parameters[0]: expected a finite number"],
     ["d"]),
    ("es-update, a negative second moment",
     bad("negv.json", lambda c: c["adam"]["v"].__setitem__(0, -1.0)),
     UPDATE, 1, ["c.json: adam.v[0]: is negative"], []),
    ("es-update, a negative noise scale",
     bad("negscale.json",
         lambda c: c["noise_scale"].__setitem__(0, -1.0)),
     UPDATE, 1, ["c.json: noise_scale[0]: is negative"], []),
    ("es-update, the last step there is",
     bad("laststep.json", lambda c: c.__setitem__("step", 2**32 - 1)),
     UPDATE, 1, ["c.json: step: 4294967295 is out of range"], []),
    ("es-update, Adam ahead of the run",
     bad("adamt.json", set_adam("t", 5)), UPDATE, 1,
     ["c.json: adam.t: expected Adam's step count"], []),
    ("es-candidates, noise scales for fewer parameters",
     bad("short.json", lambda c: c["noise_scale"].pop()),
     CANDIDATES, 1, ["c.json: noise_scale: 1 numbers; the parameters are 2"],
     ["d"]),
    ("es-candidates, moments for fewer parameters",
     bad("shortm.json", lambda c: c["adam"]["m"].pop()),
     CANDIDATES, 1, ["c.json: adam.m: 1 numbers; the parameters are 2"],
     ["d"]),
    ("es-candidates, a negative seed",
     bad("seed.json", lambda c: c["options"].__setitem__("seed", -1)),
     CANDIDATES, 1, ["c.json: options.seed: -1 is negative"], ["d"]),
    # A checkpoint whose models would not load.
    ("es-candidates, parameters that overflow",
     bad("huge.json", lambda c: c["parameters"].__setitem__(0, 1e300)),
     CANDIDATES, 1, ["d: not written: the current parameters",
                     "overflows double"], ["d"]),
    ("es-update --model, parameters that overflow",
     bad("hugeu.json", lambda c: c["parameters"].__setitem__(0, 1e300)),
     UPDATE, 1, ["c.json: not written: step 2: the current parameters",
                 "overflows double"], []),
    # Another model of the same shape.
    ("es-candidates, a model the checkpoint was not started from",
     {"m.json": trained.shifted_model, "c.json": trained.checkpoint},
     CANDIDATES, 1, ["m.json: the checkpoint", "was started from another "
                     "model"], ["d"]),
    ("es-update --model, a model the checkpoint was not started from",
     {"m.json": trained.shifted_model, "c.json": trained.checkpoint,
      "r.txt": trained.rewards},
     UPDATE, 1, ["was started from another model"], []),
    # The driver: one error line, nothing recorded.
    ("ir2vec.mlgo es --sigma nan", {"m.json": MODEL},
     mlgo("es", "--corpus", "{dir}/corpus", "--out", "{dir}/out", "--model",
          "{dir}/m.json", "--irtk-train", TRAIN, "--sigma", "nan"), 1,
     ["--sigma must be a positive number"], ["out"]),
    ("ir2vec.mlgo es --sigma 1e300",
     {"m.json": MODEL, "corpus/corpus_description.json":
      trained.corpus_description},
     mlgo("es", "--corpus", "{dir}/corpus", "--out", "{dir}/out", "--model",
          "{dir}/m.json", "--irtk-train", TRAIN, "--sigma", "1e300",
          "--perturbations", "2"), 1,
     ["not written: candidate 0", "overflows double"],
     ["out/params.json", "out/checkpoint.json"]),
]


class EvolutionTest(harness.TableTest):
    def check_rows(self, rows):
        for row, files, argv, status, needles, absent in rows:
            with self.subTest(row=row), harness.Workdir() as w:
                for name, source in files.items():
                    os.makedirs(os.path.dirname(w.file(name)),
                                exist_ok=True)
                    w.copy(source() if callable(source) else source, name)
                named = [w.file(n) for n in files]
                named += [p + ".bin" for p in named]
                named += [w.file(a) for a in absent]
                before = harness.snapshot(named)
                args = [a.replace("{dir}", str(w.path)) for a in argv]
                r = harness.run(args, w.path)
                self.check_refused(row, r, needles, before, named)
                where = f"{row}: stderr:\n{r.stderr}"
                self.assertEqual(r.returncode, status, where)
                self.assertEqual(len(r.error_lines()), 1, where)
                for a in absent:
                    self.assertFalse(os.path.exists(w.file(a)),
                                     f"{row}: wrote {a}")

    def test_rows(self):
        self.check_rows(ROWS)


if __name__ == "__main__":
    unittest.main()
