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
import sys
import unittest

import harness
from harness import INPUTS, python, tool

VOCAB = str(INPUTS / "ids2d.json")
SIMILARITY = tool("irtk-similarity")
INDEX = "{dir}/s/approx-ivf-flat-cosine.index"


def store():
    """A store with its default ivf-flat index, copied in as s/ (made when
    the first row runs)."""
    return {"s": lambda: harness.fixture("store", harness.store)}


def distributed(*args):
    return [sys.executable, "-m", "ir2vec.distributed", *args,
            "--workers", "1"]


# (row, {name: source file or directory, or a callable returning one,
# copied into the row's directory}, argv with {dir}; no file under the
# directory may change).
ROWS = [
    ("irtk-vocab pack -o the vocabulary", {"v.json": VOCAB},
     [tool("irtk-vocab"), "pack", "{dir}/v.json", "-o", "{dir}/v.json"]),
    ("irtk-vocab pack -o another path to the vocabulary", {"v.json": VOCAB},
     [tool("irtk-vocab"), "pack", "{dir}/v.json", "-o", "{dir}/./v.json"]),
    ("irtk-vocab convert -o its input", {"v.json": VOCAB},
     [tool("irtk-vocab"), "convert", "{dir}/v.json", "-o", "{dir}/v.json"]),
    ("llvm-ir2vec -o the vocabulary", {"v.json": VOCAB},
     [tool("llvm-ir2vec"), "embeddings", "--ir2vec-vocab-path={dir}/v.json",
      str(INPUTS / "cfg.ll"), "-o", "{dir}/v.json"]),
    # The store's files and its index, under every command that reads them.
    ("irtk-similarity index -o index.jsonl", store(),
     [SIMILARITY, "index", "--store", "{dir}/s", "-o", "{dir}/s/index.jsonl"]),
    ("irtk-similarity topk -o store.json", store(),
     [SIMILARITY, "topk", "--store", "{dir}/s", "--row", "0",
      "-o", "{dir}/s/store.json"]),
    ("irtk-similarity topk --index -o the index", store(),
     [SIMILARITY, "topk", "--store", "{dir}/s", "--row", "0", "--index",
      INDEX, "-o", INDEX]),
    ("irtk-similarity pairs -o embeddings.npy", store(),
     [SIMILARITY, "pairs", "--store", "{dir}/s", "--threshold", "0.5",
      "-o", "{dir}/s/embeddings.npy"]),
    ("ir2vec.distributed topk -o store.json", store(),
     distributed("topk", "--store", "{dir}/s", "--row", "0",
                 "-o", "{dir}/s/store.json")),
    ("ir2vec.distributed pairs -o embeddings.npy", store(),
     distributed("pairs", "--store", "{dir}/s", "--threshold", "0.5",
                 "-o", "{dir}/s/embeddings.npy")),
    ("ir2vec.distributed index -o index.jsonl", store(),
     distributed("index", "--store", "{dir}/s", "-o", "{dir}/s/index.jsonl")),
    ("ir2vec.distributed index -o the index it builds", store(),
     distributed("index", "--store", "{dir}/s", "-o", INDEX)),
    ("ir2vec.distributed merge into the store", store(),
     [sys.executable, "-m", "ir2vec.distributed", "merge", "{dir}/s",
      "{dir}/./s"]),
]
for f in ("embeddings.npy", "store.json", "index.jsonl", "./embeddings.npy"):
    ROWS.append((f"Python Store.index(path=<store>/{f})", store(),
                 python("import ir2vec\n"
                        "ir2vec.loadStore('{dir}/s').index("
                        f"path='{{dir}}/s/{f}')")))


class OutputsOverInputsTest(harness.TableTest):
    def check_rows(self, rows):
        for row, files, argv in rows:
            with self.subTest(row=row), harness.Workdir() as w:
                for name, source in files.items():
                    w.copy(source() if callable(source) else source, name)
                named = w.files()
                named += [p + ".bin" for p in named]
                before = harness.snapshot(named)
                args = [a.replace("{dir}", str(w.path)) for a in argv]
                r = harness.run(args, w.path)
                self.check_refused(row, r, ["it is the input"], before, named)

    def test_rows(self):
        self.check_rows(ROWS)


if __name__ == "__main__":
    unittest.main()
