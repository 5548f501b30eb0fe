# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.initMIREmbedding and embedMIRFiles against llvm-ir2vec
--mode=mir: the function, block and instruction vectors of .mir files and of
LLVM IR lowered in-process are those of --format=jsonl, exactly, with the
bundled x86-64 vocabulary by default and with a vocabulary and weights
given; machine blocks are keyed bb.N[.name], so unnamed ones do not collide;
and each misuse raises its exception."""

import collections
import json
import os
import re
import subprocess
import sys
import unittest
import warnings

import ir2vec
from common import SHARED_INPUTS, as_list, env_path

MIR_SIMPLE = str(SHARED_INPUTS / "mir-simple.mir")
MIR_CLASSLESS = str(SHARED_INPUTS / "mir-classless.mir")
MIR_TWO = str(SHARED_INPUTS / "mir-two.mir")
MIR_DIM2 = str(SHARED_INPUTS / "mir-dim2.json")
LOWER_LL = str(SHARED_INPUTS / "lower.ll")
CFG_LL = str(SHARED_INPUTS / "cfg.ll")
UNNAMED_LL = str(SHARED_INPUTS / "unnamed-blocks.ll")
MALFORMED_LL = str(SHARED_INPUTS / "malformed.ll")
WEIGHTS = {"opcWeight": 0.5, "commonOperandWeight": 2.0,
           "regOperandWeight": 0.25}
WEIGHT_FLAGS = ["--mir2vec-opc-weight=0.5",
                "--mir2vec-common-operand-weight=2",
                "--mir2vec-reg-operand-weight=0.25"]


def cli_records(level, args):
    """llvm-ir2vec embeddings --mode=mir --format=jsonl's records."""
    p = subprocess.run([env_path("IRTK_LLVM_IR2VEC"), "embeddings",
                        "--mode=mir", "--format=jsonl", f"--level={level}",
                        *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"llvm-ir2vec {' '.join(args)}: {p.stderr}")
    return [json.loads(line) for line in p.stdout.splitlines()]


def ir_block(key):
    """The CLI's "block" (the IR block's name, "" for none) of a machine
    block key, bb.N or bb.N.name."""
    m = re.fullmatch(r"bb\.\d+(?:\.(.+))?", key)
    assert m, key
    return m.group(1) or ""


# (tool arguments, llvm-ir2vec arguments) for the same embeddings.
CASES = {
    "mir, bundled vocabulary": ((MIR_SIMPLE,), {}, [MIR_SIMPLE]),
    "mir, vocabulary and weights": (
        (MIR_CLASSLESS, ir2vec.loadMIRVocab(MIR_DIM2, **WEIGHTS)), {},
        [f"--mir2vec-vocab-path={MIR_DIM2}", *WEIGHT_FLAGS, MIR_CLASSLESS]),
    "lowered IR, bundled vocabulary": ((LOWER_LL,), {}, [LOWER_LL]),
    "lowered IR, -O0, vocabulary path": (
        (CFG_LL,), {"vocabPath": ir2vec.vocab.mir2vecX86_64, "optLevel": 0},
        ["-O0", f"--mir2vec-vocab-path={ir2vec.vocab.mir2vecX86_64}",
         CFG_LL]),
}


def tools():
    """(case name, tool, llvm-ir2vec arguments) for every case."""
    for name, (args, kwargs, cli) in CASES.items():
        yield name, ir2vec.initMIREmbedding(*args, **kwargs), cli


class MIREmbeddingTest(unittest.TestCase):
    def test_function_vectors_are_the_clis(self):
        for name, tool, cli in tools():
            with self.subTest(name):
                records = cli_records("func", cli)
                self.assertGreater(len(records), 0)
                self.assertEqual(tool.getFuncNames(),
                                 [r["function"] for r in records])
                emb = tool.getFuncEmbMap()
                for r in records:
                    self.assertEqual(as_list(emb[r["function"]]),
                                     r["embedding"])
                    self.assertEqual(as_list(tool.getFuncEmb(r["function"])),
                                     r["embedding"])

    def check_level(self, level, key, query):
        for name, tool, cli in tools():
            with self.subTest(name):
                records = cli_records(level, cli)
                self.assertGreater(len(records), 0)
                expected = {}
                for r in records:
                    # A dict: the last record of a key wins, in IR order.
                    expected.setdefault(r["function"], {})[r[key]] = \
                        r["embedding"]
                for function, rows in expected.items():
                    got = getattr(tool, query)(function)
                    self.assertEqual(list(got), list(rows))
                    self.assertEqual({k: as_list(v) for k, v in got.items()},
                                     rows)

    def test_block_vectors_are_the_clis(self):
        # Every block: machine block keys do not collide.
        for name, tool, cli in tools():
            with self.subTest(name):
                expected = collections.defaultdict(list)
                for r in cli_records("bb", cli):
                    expected[r["function"]].append((r["block"], r["embedding"]))
                self.assertGreater(len(expected), 0)
                for function, rows in expected.items():
                    got = tool.getBBEmbMap(function)
                    self.assertEqual([(ir_block(k), as_list(v))
                                      for k, v in got.items()], rows)

    def test_instruction_vectors_are_the_clis(self):
        self.check_level("inst", "inst", "getInstEmbMap")

    def test_program_vector_is_the_clis_module_and_the_sum(self):
        for name, tool, cli in tools():
            with self.subTest(name):
                [module] = cli_records("module", cli)
                self.assertEqual(as_list(tool.getProgramVector()),
                                 module["embedding"])
                # The function vectors added in module order, in double.
                total = None
                for r in cli_records("func", cli):
                    total = r["embedding"] if total is None else \
                        [a + b for a, b in zip(total, r["embedding"])]
                self.assertEqual(as_list(ir2vec.getProgramVector(tool)), total)

    def test_program_vector_by_hand(self):
        # mir-two.mir with mir-dim2.json: f [111, 602] + g [100, 102]; h
        # has no machine function (llvm-ir2vec/mir-embeddings-module.test).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            tool = ir2vec.initMIREmbedding(MIR_TWO, vocabPath=MIR_DIM2)
        self.assertEqual(as_list(tool.getProgramVector()), [211.0, 704.0])

    def test_default_vocabulary_is_the_bundled_x86_64_one(self):
        a = ir2vec.initMIREmbedding(MIR_SIMPLE)
        b = ir2vec.MIR2VecTool(
            MIR_SIMPLE, ir2vec.loadMIRVocab(ir2vec.vocab.mir2vecX86_64))
        self.assertEqual(a.filename, MIR_SIMPLE)
        self.assertEqual(as_list(a.getFuncEmb("f")), as_list(b.getFuncEmb("f")))
        self.assertEqual(len(a.getFuncEmb("f")), 75)

    def test_stop_point_is_the_clis(self):
        # One stop point per process: this one runs in a process of its own.
        code = (
            "import json, sys, ir2vec\n"
            f"t = ir2vec.initMIREmbedding({LOWER_LL!r}, "
            "stopAfter='virtregrewriter')\n"
            "print(json.dumps({k: v.tolist() for k, v in "
            "t.getFuncEmbMap().items()}))\n")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True,
                           text=True, env=os.environ)
        self.assertEqual(p.returncode, 0, p.stderr)
        records = cli_records("func", ["--stop-after=virtregrewriter",
                                       LOWER_LL])
        self.assertEqual(json.loads(p.stdout),
                         {r["function"]: r["embedding"] for r in records})


class MIRBlockKeyTest(unittest.TestCase):
    # llc-22 -O0 -stop-after=finalize-isel unnamed-blocks.ll prints @clamp's
    # blocks as bb.0 (%ir-block.2) ... bb.3 (%ir-block.7) and @mixed's as
    # bb.0.entry, bb.1 (%ir-block.0), bb.2.exit.
    def setUp(self):
        self.tool = ir2vec.initMIREmbedding(UNNAMED_LL, optLevel=0)

    def test_unnamed_blocks_are_keyed_by_their_numbers(self):
        self.assertEqual(list(self.tool.getBBEmbMap("clamp")),
                         ["bb.0", "bb.1", "bb.2", "bb.3"])

    def test_named_blocks_are_keyed_as_mir_prints_them(self):
        self.assertEqual(list(self.tool.getBBEmbMap("mixed")),
                         ["bb.0.entry", "bb.1", "bb.2.exit"])


# A .mir file and lowered IR of the same target, in one run.
FILES = [MIR_SIMPLE, LOWER_LL, UNNAMED_LL]


def as_python(results):
    """embedMIRFiles' results with lists for arrays, to compare."""
    def value(v):
        return [(k, as_list(x)) for k, x in v] if isinstance(v, list) \
            else as_list(v)
    return [dict(r, embeddings=None if r["embeddings"] is None else
                 {f: value(v) for f, v in r["embeddings"].items()})
            for r in results]


class EmbedMIRFilesTest(unittest.TestCase):
    def check_level(self, level, key_of, cli_key):
        results = ir2vec.embedMIRFiles(FILES, level=level, threads=2)
        expected = collections.defaultdict(dict)
        for r in cli_records(level, FILES):
            rows = expected[r["module"]]
            if cli_key is None:
                rows[r["function"]] = r["embedding"]
            else:
                rows.setdefault(r["function"], []).append(
                    (r[cli_key], r["embedding"]))
        self.assertEqual([r["filename"] for r in results], FILES)
        for r in results:
            self.assertIsNone(r["error"])
            got = {f: as_list(v) if cli_key is None else
                   [(key_of(k), as_list(x)) for k, x in v]
                   for f, v in r["embeddings"].items()}
            self.assertEqual(got, expected[r["filename"]])

    def test_functions_are_the_clis(self):
        self.check_level("func", None, None)

    def test_blocks_are_the_clis(self):
        self.check_level("bb", ir_block, "block")

    def test_instructions_are_the_clis(self):
        self.check_level("inst", lambda k: k, "inst")

    def test_modules_are_the_clis(self):
        results = ir2vec.embedMIRFiles(FILES, level="module", threads=2)
        expected = {r["module"]: r["embedding"]
                    for r in cli_records("module", FILES)}
        self.assertEqual({r["filename"]: as_list(r["embeddings"])
                          for r in results}, expected)
        self.assertEqual(len(expected), len(FILES))

    def test_block_keys_are_getBBEmbMaps(self):
        [r] = ir2vec.embedMIRFiles([UNNAMED_LL], level="bb", optLevel=0)
        tool = ir2vec.initMIREmbedding(UNNAMED_LL, optLevel=0)
        for f, rows in r["embeddings"].items():
            self.assertEqual([k for k, _ in rows], list(tool.getBBEmbMap(f)))

    def test_a_bad_file_does_not_stop_the_others(self):
        bad, good = ir2vec.embedMIRFiles([MALFORMED_LL, MIR_SIMPLE])
        self.assertRegex(bad["error"],
                         r"malformed\.ll:3:3: expected ',' in arithmetic")
        self.assertIsNone(bad["embeddings"])
        self.assertIsNone(good["error"])
        self.assertEqual(list(good["embeddings"]), ["f"])

    def test_iterator_gives_the_lists_results(self):
        it = ir2vec.embedMIRFilesIter(FILES, level="bb", threads=2)
        self.assertEqual(len(it), len(FILES))
        self.assertEqual(as_python(it), as_python(
            ir2vec.embedMIRFiles(FILES, level="bb", threads=2)))

    def test_no_files(self):
        self.assertEqual(ir2vec.embedMIRFiles([]), [])

    def test_invalid_level(self):
        with self.assertRaisesRegex(
                ValueError, r"^Invalid level 'x'\. Use 'func', 'bb', 'inst' or 'module'$"):
            ir2vec.embedMIRFiles([MIR_SIMPLE], level="x")

    def test_run_without_vocabulary(self):
        # What stops llvm-ir2vec --mode=mir as a whole raises.
        with self.assertRaisesRegex(
                ValueError, r"^MIR2Vec vocabulary file path not specified"):
            ir2vec.embedMIRFiles([LOWER_LL], mtriple="aarch64-linux-gnu")


class MIRErrorTest(unittest.TestCase):
    def test_no_bundled_vocabulary_for_the_target(self):
        with self.assertRaisesRegex(
                ValueError, r"^MIR2Vec vocabulary file path not specified; "
                r"set it using vocab or vocabPath \(irtk bundles one for "
                r"x86-64 only\)$"):
            ir2vec.initMIREmbedding(LOWER_LL, mtriple="aarch64-linux-gnu")

    def test_unreadable_input(self):
        with self.assertRaisesRegex(
                ValueError, r"malformed\.ll:3:3: expected ',' in arithmetic"):
            ir2vec.initMIREmbedding(str(SHARED_INPUTS / "malformed.ll"))

    def test_function_without_machine_function(self):
        tool = ir2vec.initMIREmbedding(MIR_SIMPLE)
        with self.assertRaisesRegex(
                ValueError, r"^Function 'g' has no machine function in module "
                r"'.*mir-simple\.mir'$"):
            tool.getBBEmbMap("g")

    def test_vocabulary_that_cannot_be_read(self):
        with self.assertRaisesRegex(
                ValueError, r"^Failed to load vocabulary: .*no-such\.json"):
            ir2vec.loadMIRVocab(str(SHARED_INPUTS / "no-such.json"))

    def test_vocab_and_vocab_path_together(self):
        with self.assertRaisesRegex(TypeError, "vocab or vocabPath, not both"):
            ir2vec.initMIREmbedding(MIR_SIMPLE, ir2vec.loadMIRVocab(MIR_DIM2),
                                    vocabPath=MIR_DIM2)

    def test_ir_vocabulary_as_vocab(self):
        with self.assertRaisesRegex(
                TypeError, r"^vocab must be an ir2vec\.MIRVocab from "
                r"ir2vec\.loadMIRVocab\(\), not Vocab$"):
            ir2vec.initMIREmbedding(
                MIR_SIMPLE, ir2vec.loadVocab(str(SHARED_INPUTS / "ids2d.json")))

    def test_opt_level_out_of_range(self):
        with self.assertRaisesRegex(ValueError,
                                    r"^optLevel must be 0, 1, 2 or 3, not 4$"):
            ir2vec.initMIREmbedding(LOWER_LL, optLevel=4)


if __name__ == "__main__":
    unittest.main()
