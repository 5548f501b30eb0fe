# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Class 2 of the hostile inputs: an input that is not a regular file.

Every row names one input of one reader. It runs twice: with a FIFO that
nobody writes (opening it for reading blocks forever) and with a link to
/dev/zero (read until memory runs out). Both must be refused at once with
'<name>: ... not a regular file', a non-zero exit and no output.
"""

import os
import sys
import unittest

import harness
import trained
from harness import INPUTS, python, tool

VOCAB = str(INPUTS / "ids2d.json")
MIR_VOCAB = str(INPUTS / "mir-dim2.json")
LL = str(INPUTS / "cfg.ll")
MIR = str(INPUTS / "mir-simple.mir")
MODEL = trained.MODEL
EVICT_MODEL = str(INPUTS / "advisors" / "evict-never.json")
TRAIN = tool("irtk-train")
FIT = [TRAIN, "fit", "--advisor", "inline", "--hidden", "2", "--epochs", "1",
       "--quiet", "-o", "{out}"]


def plugin_opt(*flags):
    return harness.plugin_opt(LL, "{out}", *flags)


def plugin_llc(*flags):
    return harness.plugin_llc(LL, "{out}", *flags)


def good_store(w):
    """A good store (and its index) in the row's directory as s/: the
    row's bad file then replaces one of its files."""
    w.copy(harness.fixture("store", harness.store), "s")


SIMILARITY = tool("irtk-similarity")
STORE_FILES = ("store.json", "embeddings.npy", "index.jsonl")
INDEX = "s/approx-ivf-flat-cosine.index"


def distributed(*args):
    return [sys.executable, "-m", "ir2vec.distributed", *args,
            "--workers", "1"]


# (row, the bad input's file name, argv[, extra]; {bad} is the bad input,
# {dir} the row's directory, {out} an output that must not appear; extra
# makes the good files the bad one joins or replaces: a function given the
# row's Workdir, or {name: file copied into the row's directory, or a
# function that makes it}).
ROWS = [
    # llvm-ir2vec
    ("llvm-ir2vec input", "in.ll",
     [tool("llvm-ir2vec"), "embeddings", "--ir2vec-vocab-path=" + VOCAB,
      "{bad}", "-o", "{out}"]),
    ("llvm-ir2vec --ir2vec-vocab-path", "v.json",
     [tool("llvm-ir2vec"), "embeddings", "--ir2vec-vocab-path={bad}", LL,
      "-o", "{out}"]),
    ("llvm-ir2vec vocabulary's binary form", "v.json.bin",
     [tool("llvm-ir2vec"), "embeddings", "--ir2vec-vocab-path={dir}/v.json",
      LL, "-o", "{out}"]),
    ("llvm-ir2vec corpus description", "corpus_description.json",
     [tool("llvm-ir2vec"), "embeddings", "--ir2vec-vocab-path=" + VOCAB,
      "{dir}", "-o", "{out}"]),
    ("llvm-ir2vec --mode=mir .mir input", "in.mir",
     [tool("llvm-ir2vec"), "embeddings", "--mode=mir",
      "--mir2vec-vocab-path=" + MIR_VOCAB, "{bad}", "-o", "{out}"]),
    ("llvm-ir2vec --mode=mir IR input", "in.ll",
     [tool("llvm-ir2vec"), "embeddings", "--mode=mir",
      "--mir2vec-vocab-path=" + MIR_VOCAB, "{bad}", "-o", "{out}"]),
    ("llvm-ir2vec --mir2vec-vocab-path", "m.json",
     [tool("llvm-ir2vec"), "embeddings", "--mode=mir",
      "--mir2vec-vocab-path={bad}", MIR, "-o", "{out}"]),
    # irtk-vocab
    ("irtk-vocab validate", "v.json", [tool("irtk-vocab"), "validate",
                                      "{bad}"]),
    ("irtk-vocab stats", "v.json", [tool("irtk-vocab"), "stats", "{bad}"]),
    ("irtk-vocab diff", "v.json",
     [tool("irtk-vocab"), "diff", "{bad}", VOCAB]),
    ("irtk-vocab train", "train2id.txt",
     [tool("irtk-vocab"), "train", "{bad}", "-o", "{out}", "--dim", "2",
      "--epochs", "1"]),
    ("irtk-vocab convert", "seed.txt",
     [tool("irtk-vocab"), "convert", "{bad}", "-o", "{out}"]),
    ("irtk-vocab pack", "v.json",
     [tool("irtk-vocab"), "pack", "{bad}", "-o", "{out}"]),
    # The plugin
    ("opt -irtk-vocab-path", "v.json",
     plugin_opt("-irtk-inline-policy=default", "-irtk-inline-log={dir}/l",
                "-irtk-vocab-path={bad}")),
    ("llc -irtk-mir-vocab-path", "m.json",
     plugin_llc("-irtk-mir-after=virtregrewriter",
                "-irtk-mir-record-embeddings={dir}/e.jsonl",
                "-irtk-mir-vocab-path={bad}")),
    # Python
    ("Python loadVocab", "v.json",
     python("import ir2vec\nir2vec.loadVocab('{bad}')")),
    ("Python loadMIRVocab", "m.json",
     python("import ir2vec\nir2vec.loadMIRVocab('{bad}')")),
    ("Python initEmbedding", "in.ll",
     python("import ir2vec\n"
            f"ir2vec.initEmbedding(filename='{{bad}}', mode=ir2vec."
            f"IR2VecKind.Symbolic, vocab=ir2vec.loadVocab('{VOCAB}'))")),
    ("Python initMIREmbedding", "in.mir",
     python("import ir2vec\n"
            f"ir2vec.initMIREmbedding(filename='{{bad}}', "
            f"vocab=ir2vec.loadMIRVocab('{MIR_VOCAB}'))")),
    # irtk-train
    ("irtk-train dump", "a.log", [TRAIN, "dump", "{bad}"]),
    ("irtk-train fit", "a.log", FIT + ["{bad}"]),
    ("irtk-train fit --logs-from", "list", FIT + ["--logs-from", "{bad}"]),
    ("irtk-train fit, a log its --logs-from list names", "a.log",
     FIT + ["--logs-from", "{dir}/list"], {"list": trained.log_list}),
    ("irtk-train eval --model", "m.json",
     [TRAIN, "eval", "--model", "{bad}", "{dir}/a.log"],
     {"a.log": trained.log}),
    ("irtk-train eval, the model's binary form", "m.json.bin",
     [TRAIN, "eval", "--model", "{dir}/m.json", "{dir}/a.log"],
     {"m.json": MODEL, "a.log": trained.log}),
    ("irtk-train pack", "m.json", [TRAIN, "pack", "{bad}", "-o", "{out}"]),
    ("irtk-train es-start --model", "m.json",
     [TRAIN, "es-start", "--model", "{bad}", "-o", "{out}"]),
    ("irtk-train es-start, the model's binary form", "m.json.bin",
     [TRAIN, "es-start", "--model", "{dir}/m.json", "-o", "{out}"],
     {"m.json": MODEL}),
    ("irtk-train es-candidates --model", "m.json",
     [TRAIN, "es-candidates", "--model", "{bad}", "--checkpoint",
      "{dir}/c.json", "-o", "{out}"], {"c.json": trained.checkpoint}),
    ("irtk-train es-candidates --checkpoint", "c.json",
     [TRAIN, "es-candidates", "--model", MODEL, "--checkpoint", "{bad}",
      "-o", "{out}"]),
    ("irtk-train es-update --checkpoint", "c.json",
     [TRAIN, "es-update", "--checkpoint", "{bad}", "--rewards",
      "{dir}/r.txt"]),
    ("irtk-train es-update --rewards", "r.txt",
     [TRAIN, "es-update", "--checkpoint", "{dir}/c.json", "--rewards",
      "{bad}"], {"c.json": trained.checkpoint}),
    ("irtk-train es-update --model", "m.json",
     [TRAIN, "es-update", "--checkpoint", "{dir}/c.json", "--rewards",
      "{dir}/r.txt", "--model", "{bad}"],
     {"c.json": trained.checkpoint, "r.txt": trained.rewards}),
    # The plugin's advisors
    ("opt -irtk-inline-model", "m.json",
     plugin_opt("-irtk-inline-policy=model", "-irtk-inline-embedding=none",
                "-irtk-inline-model={bad}")),
    ("opt -irtk-inline-model's binary form", "m.json.bin",
     plugin_opt("-irtk-inline-policy=model", "-irtk-inline-embedding=none",
                "-irtk-inline-model={dir}/m.json"), {"m.json": MODEL}),
    ("llc -irtk-evict-model", "m.json",
     plugin_llc("-O2", "-irtk-evict-policy=model",
                "-irtk-evict-model={bad}")),
    ("llc -irtk-evict-model's binary form", "m.json.bin",
     plugin_llc("-O2", "-irtk-evict-policy=model",
                "-irtk-evict-model={dir}/m.json"), {"m.json": EVICT_MODEL}),
    # The eviction advisor reads the vocabulary's header first, the rest at
    # its first decision: both readers refuse a stream.
    ("llc -irtk-evict-policy, the MIR vocabulary", "v.json",
     plugin_llc("-O2", "-irtk-evict-policy=default",
                "-irtk-evict-log={dir}/l.log", "-irtk-mir-vocab-path={bad}")),
    ("llc -irtk-evict-policy, the MIR vocabulary's binary form",
     "v.json.bin",
     plugin_llc("-O2", "-irtk-evict-policy=default",
                "-irtk-evict-log={dir}/l.log",
                "-irtk-mir-vocab-path={dir}/v.json"), {"v.json": MIR_VOCAB}),
    ("opt -irtk-inline-decisions", "d.txt",
     plugin_opt("-irtk-inline-policy=default", "-irtk-inline-embedding=none",
                "-irtk-inline-decisions={bad}")),
    ("opt -irtk-inline-follow-callers", "callers.txt",
     plugin_opt("-irtk-inline-policy=default", "-irtk-inline-embedding=none",
                "-irtk-inline-teachers=-100000",
                "-irtk-inline-follow-callers={bad}")),
]

# The store's readers: each file of a store, for each command that opens
# one.
for f in STORE_FILES:
    ROWS += [
        (f"irtk-similarity topk: {f}", "s/" + f,
         [SIMILARITY, "topk", "--store", "{dir}/s", "--row", "0",
          "-o", "{out}"], good_store),
        (f"irtk-similarity pairs: {f}", "s/" + f,
         [SIMILARITY, "pairs", "--store", "{dir}/s", "--threshold", "0.5",
          "-o", "{out}"], good_store),
        (f"irtk-similarity index: {f}", "s/" + f,
         [SIMILARITY, "index", "--store", "{dir}/s", "-o", "{out}"],
         good_store),
        (f"Python loadStore: {f}", "s/" + f,
         python("import ir2vec\nir2vec.loadStore('{dir}/s')"), good_store),
    ]
    ROWS += [(f"ir2vec.distributed {cmd}: {f}", "s/" + f,
              distributed(cmd, "--store", "{dir}/s", *more, "-o", "{out}"),
              good_store)
             for cmd, more in (("topk", ["--row", "0"]),
                               ("pairs", ["--threshold", "0.5"]),
                               ("index", []))]
ROWS += [
    ("irtk-similarity topk --index", INDEX,
     [SIMILARITY, "topk", "--store", "{dir}/s", "--row", "0", "--index",
      "{bad}", "-o", "{out}"], good_store),
    ("irtk-similarity topk --ir", "in.ll",
     [SIMILARITY, "topk", "--store", "{dir}/s", "--ir", "{bad}",
      "--vocab", VOCAB, "-o", "{out}"], good_store),
    ("Python Store.loadIndex", INDEX,
     python("import ir2vec\nir2vec.loadStore('{dir}/s').loadIndex('{bad}')"),
     good_store),
    ("Python ApproxIndex.load", INDEX,
     python("from ir2vec import _ir2vec\n_ir2vec.ApproxIndex.load('{bad}')"),
     good_store),
]


# ir2vec.mlgo: the nearest policy choose reads.
ROWS += [
    ("ir2vec.mlgo choose --policy", "p.json",
     harness.mlgo("choose", "--policy", "{bad}", "--corpus", "{dir}/c",
                  "--replay", "{out}"),
     {"c": lambda: harness.fixture("corpus", harness.corpus)}),
]


def make_bad(kind, path):
    if os.path.lexists(path):
        os.unlink(path)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink("/dev/zero", path)


class NotRegularInputsTest(harness.TableTest):
    def check_rows(self, rows):
        for row, name, argv, *extra in rows:
            for kind in ("fifo", "/dev/zero"):
                with self.subTest(row=row, kind=kind), \
                        harness.Workdir() as w:
                    files = extra[0] if extra else {}
                    if callable(files):
                        files(w)
                        files = {}
                    bad = w.file(name)
                    make_bad(kind, bad)
                    if name.endswith(".bin"):  # the JSON beside it is good
                        w.copy(VOCAB, name[:-len(".bin")])
                    for other, source in files.items():
                        w.copy(source() if callable(source) else source,
                               other)
                    out = w.file("out")
                    args = [a.replace("{bad}", bad).replace(
                        "{dir}", str(w.path)).replace("{out}", out)
                        for a in argv]
                    r = harness.run(args, w.path)
                    self.check_refused(f"{row} ({kind})", r,
                                       [name, "not a regular file"])
                    self.assertFalse(os.path.exists(out),
                                     f"{row} ({kind}): wrote {out}")

    def test_rows(self):
        self.check_rows(ROWS)


if __name__ == "__main__":
    unittest.main()
