# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Class 1 of the hostile inputs: an output that names an input.

Every row gives an output the name of one of the command's inputs (or
another path to it). The command must refuse with "cannot write '<out>':
it is the input '<in>'", exit non-zero, and leave every file it was given
byte for byte as it was (the input and, where it has one, its binary form).
"""

import sys
import unittest

import harness
import trained
from harness import INPUTS, python, tool

VOCAB = str(INPUTS / "ids2d.json")
MIR_VOCAB = str(INPUTS / "mir-dim2.json")
LL = str(INPUTS / "cfg.ll")
NEVER = str(INPUTS / "advisors" / "never.json")
EVICT = str(INPUTS / "advisors" / "evict-never.json")
MODEL = trained.MODEL
FIT = [tool("irtk-train"), "fit", "--advisor", "inline", "--hidden", "2",
       "--epochs", "1", "--quiet"]


def opt(*flags):
    return harness.plugin_opt(LL, "{dir}/out.bc", *flags)


def llc(*flags):
    return harness.plugin_llc(LL, "{dir}/out.s", *flags)


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
    # irtk-train
    ("irtk-train pack -o the model", {"m.json": MODEL},
     [tool("irtk-train"), "pack", "{dir}/m.json", "-o", "{dir}/m.json"]),
    ("irtk-train fit -o its log", {"a.log": trained.log},
     FIT + ["-o", "{dir}/a.log", "{dir}/a.log"]),
    ("irtk-train fit -o another path to its log", {"a.log": trained.log},
     FIT + ["-o", "{dir}/./a.log", "{dir}/a.log"]),
    ("irtk-train fit -o its --logs-from list",
     {"a.log": trained.log, "list": trained.log_list},
     FIT + ["-o", "{dir}/list", "--logs-from", "{dir}/list"]),
    ("irtk-train fit -o a log its --logs-from list names",
     {"a.log": trained.log, "list": trained.log_list},
     FIT + ["-o", "{dir}/a.log", "--logs-from", "{dir}/list"]),
    ("irtk-train fit -o a model whose binary form is its log",
     {"m.json.bin": trained.log},
     FIT + ["-o", "{dir}/m.json", "{dir}/m.json.bin"]),
    ("irtk-train es-start -o its model", {"m.json": MODEL},
     [tool("irtk-train"), "es-start", "--model", "{dir}/m.json", "-o",
      "{dir}/m.json"]),
    ("irtk-train es-candidates -o the directory of its model",
     {"current.json": MODEL, "c.json": trained.checkpoint},
     [tool("irtk-train"), "es-candidates", "--model", "{dir}/current.json",
      "--checkpoint", "{dir}/c.json", "-o", "{dir}"]),
    ("irtk-train es-candidates -o the directory of its checkpoint",
     {"m.json": MODEL, "candidate-1.json": trained.checkpoint},
     [tool("irtk-train"), "es-candidates", "--model", "{dir}/m.json",
      "--checkpoint", "{dir}/candidate-1.json", "-o", "{dir}"]),
    ("irtk-train es-update --rewards its checkpoint",
     {"c.json": trained.checkpoint},
     [tool("irtk-train"), "es-update", "--checkpoint", "{dir}/c.json",
      "--rewards", "{dir}/c.json"]),
    ("irtk-train es-update --model its checkpoint",
     {"c.json": trained.checkpoint},
     [tool("irtk-train"), "es-update", "--checkpoint", "{dir}/c.json",
      "--model", "{dir}/c.json", "--rewards", "{dir}/r.txt"]),
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
# ir2vec.mlgo: outputs named as the policy, a corpus's module or its
# description (refused before any work).
CORPUS = {"c": lambda: harness.fixture("corpus", harness.corpus),
          "p.json": VOCAB}
NEAREST = harness.mlgo("nearest", "--corpus", "{dir}/c", "--out", "{dir}/o",
                       "--train-corpus", "{dir}/c", "--train-out", "{dir}/t",
                       "--valid-corpus", "{dir}/c", "--valid-out", "{dir}/v")
ROWS += [
    ("ir2vec.mlgo choose --replay the policy", CORPUS,
     harness.mlgo("choose", "--policy", "{dir}/p.json", "--corpus",
                  "{dir}/c", "--replay", "{dir}/./p.json")),
    ("ir2vec.mlgo choose --replay a module", CORPUS,
     harness.mlgo("choose", "--policy", "{dir}/p.json", "--corpus",
                  "{dir}/c", "--replay", "{dir}/c/Oz-preopt/p/cfg.bc")),
    ("ir2vec.mlgo nearest --save a module", CORPUS,
     NEAREST + ["--save", "{dir}/c/Oz-preopt/p/cfg.bc"]),
    ("ir2vec.mlgo nearest --json the corpus description", CORPUS,
     NEAREST + ["--json", "{dir}/c/corpus_description.json"]),
    ("ir2vec.mlgo nearest --replay a module", CORPUS,
     NEAREST + ["--replay", "{dir}/c/Oz-preopt/p/cfg.bc"]),
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
