# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Class 1 of the hostile inputs: an output that names an input.

Every row gives an output the name of one of the command's inputs (or
another path to it). The command must refuse with "cannot write '<out>':
it is the input '<in>'", exit non-zero, and leave every file it was given
byte for byte as it was (the input and, where it has one, its binary form).
"""

import os
import unittest

import harness
from harness import INPUTS, host, python, tool

VOCAB = str(INPUTS / "ids2d.json")
MIR_VOCAB = str(INPUTS / "mir-dim2.json")
LL = str(INPUTS / "cfg.ll")
NEVER = str(INPUTS / "advisors" / "never.json")
EVICT = str(INPUTS / "advisors" / "evict-never.json")
PLUGIN = os.environ.get("IRTK_PLUGIN", "")


def opt(*flags):
    return host("opt") + ["-load-pass-plugin=" + PLUGIN,
                          "-passes=default<Oz>", *flags, LL,
                          "-o", "{dir}/out.bc"]


def llc(*flags):
    return host("llc") + ["-load-pass-plugin=" + PLUGIN, *flags, LL,
                          "-o", "{dir}/out.s"]

# (row, {name: source file copied into the row's directory}, argv with
# {dir}; the files copied are the ones that must not change).
ROWS = [
    ("irtk-vocab pack -o the vocabulary", {"v.json": VOCAB},
     [tool("irtk-vocab"), "pack", "{dir}/v.json", "-o", "{dir}/v.json"]),
    ("irtk-vocab pack -o another path to the vocabulary", {"v.json": VOCAB},
     [tool("irtk-vocab"), "pack", "{dir}/v.json", "-o", "{dir}/./v.json"]),
    ("irtk-vocab convert -o its input", {"v.json": VOCAB},
     [tool("irtk-vocab"), "convert", "{dir}/v.json", "-o", "{dir}/v.json"]),
    ("llvm-ir2vec -o the vocabulary", {"v.json": VOCAB},
     [tool("llvm-ir2vec"), "embeddings", "--ir2vec-vocab-path={dir}/v.json",
      LL, "-o", "{dir}/v.json"]),
    # The plugin: every output against every input it names.
    ("opt -irtk-inline-log=<the model>", {"m.json": NEVER},
     opt("-irtk-inline-policy=model", "-irtk-inline-model={dir}/m.json",
         "-irtk-inline-log={dir}/m.json")),
    ("opt -irtk-inline-log=<the vocabulary>", {"v.json": VOCAB},
     opt("-irtk-inline-policy=default", "-irtk-vocab-path={dir}/v.json",
         "-irtk-inline-log={dir}/v.json")),
    ("opt -irtk-inline-trace=<the model>", {"m.json": NEVER},
     opt("-irtk-inline-policy=model", "-irtk-inline-model={dir}/m.json",
         "-irtk-inline-trace={dir}/m.json")),
    ("opt -irtk-record-embeddings=<the vocabulary>", {"v.json": VOCAB},
     opt("-irtk-vocab-path={dir}/v.json",
         "-irtk-record-embeddings={dir}/v.json")),
    ("llc -irtk-evict-log=<the model>", {"m.json": EVICT},
     llc("-irtk-evict-policy=model", "-irtk-evict-model={dir}/m.json",
         "-irtk-evict-log={dir}/m.json")),
    ("llc -irtk-mir-record-embeddings=<the MIR vocabulary>",
     {"m.json": MIR_VOCAB},
     llc("-irtk-mir-after=virtregrewriter", "-irtk-mir-vocab-path={dir}/m.json",
         "-irtk-mir-record-embeddings={dir}/m.json")),
]


class OutputsOverInputsTest(harness.TableTest):
    def check_rows(self, rows):
        for row, files, argv in rows:
            with self.subTest(row=row), harness.Workdir() as w:
                for name, source in files.items():
                    w.copy(source, name)
                named = [w.file(n) for n in files]
                named += [p + ".bin" for p in named]
                before = harness.snapshot(named)
                args = [a.replace("{dir}", str(w.path)) for a in argv]
                r = harness.run(args, w.path)
                self.check_refused(row, r, ["it is the input"], before, named)

    def test_rows(self):
        self.check_rows(ROWS)


if __name__ == "__main__":
    unittest.main()
