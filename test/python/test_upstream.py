# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Upstream LLVM's own binding tests, rewritten as unittests.

llvm/test/tools/llvm-ir2vec/bindings/*.py check these values with
dummy_3D_nonzero_opc_vocab.json on Inputs/input.ll, through the first API
(mode="sym", vocabPath=...) and through LLVM main's (loadVocab, IR2VecKind,
vocab=...). Both must work here, with the same numbers. By hand: add = Add
[37,38,39] + Ret [1,2,3]; conditional's entry = ICmp [157,158,159] +
0.2f * ICMP_sgt [1,1,1] + Br [4,5,6], so 0.20000000298023224 shows.
"""

import os
import tempfile
import unittest

import ir2vec

from common import DUMMY3D, UPSTREAM_LL, as_list

ADD = [38.0, 40.0, 42.0]
MULTIPLY = [50.0, 52.0, 54.0]
CONDITIONAL = [413.20000000298023, 421.20000000298023, 429.20000000298023]
CONDITIONAL_BBS = {
    "entry": [161.20000000298023, 163.20000000298023, 165.20000000298023],
    "exit": [164.0, 166.0, 168.0],
    "negative": [47.0, 49.0, 51.0],
    "positive": [41.0, 43.0, 45.0],
}
# Keys are Instruction::print's text, two leading spaces included.
ADD_INSTS = {
    "  %sum = add i32 %a, %b": [37.0, 38.0, 39.0],
    "  ret i32 %sum": [1.0, 2.0, 3.0],
}


def old_api():
    return ir2vec.initEmbedding(filename=UPSTREAM_LL, mode="sym", vocabPath=DUMMY3D)


def new_api():
    vocab = ir2vec.loadVocab(DUMMY3D)
    return ir2vec.initEmbedding(
        filename=UPSTREAM_LL, mode=ir2vec.IR2VecKind.Symbolic, vocab=vocab
    )


class UpstreamValues(unittest.TestCase):
    def check_tool(self, tool):
        self.assertEqual(type(tool).__name__, "IR2VecTool")
        self.assertEqual(sorted(tool.getFuncNames()), ["add", "conditional", "multiply"])
        emb_map = tool.getFuncEmbMap()
        self.assertEqual(sorted(emb_map), ["add", "conditional", "multiply"])
        self.assertEqual(as_list(emb_map["add"]), ADD)
        self.assertEqual(as_list(emb_map["multiply"]), MULTIPLY)
        self.assertEqual(as_list(emb_map["conditional"]), CONDITIONAL)
        self.assertEqual(as_list(tool.getFuncEmb("add")), ADD)
        self.assertEqual(as_list(tool.getFuncEmb("multiply")), MULTIPLY)
        self.assertEqual(as_list(tool.getFuncEmb("conditional")), CONDITIONAL)
        bbs = tool.getBBEmbMap("conditional")
        self.assertEqual({k: as_list(v) for k, v in bbs.items()}, CONDITIONAL_BBS)
        insts = tool.getInstEmbMap("add")
        self.assertEqual({k: as_list(v) for k, v in insts.items()}, ADD_INSTS)
        for method in (tool.getFuncEmb, tool.getBBEmbMap, tool.getInstEmbMap):
            with self.assertRaises(ValueError):
                method("nonexistent")

    def test_first_api(self):
        self.check_tool(old_api())

    def test_main_api(self):
        self.check_tool(new_api())

    def test_positional_main_api(self):
        vocab = ir2vec.loadVocab(DUMMY3D)
        self.check_tool(ir2vec.initEmbedding(UPSTREAM_LL, ir2vec.Symbolic, vocab))
        self.check_tool(ir2vec.IR2VecTool(UPSTREAM_LL, ir2vec.Symbolic, vocab))

    def test_flow_aware_add(self):
        # %sum's operands are arguments, ret's is %sum: [37,38,39] + [1,2,3]
        # + the embedding of %sum.
        vocab = ir2vec.loadVocab(DUMMY3D)
        tool = ir2vec.initEmbedding(
            filename=UPSTREAM_LL, mode=ir2vec.IR2VecKind.FlowAware, vocab=vocab
        )
        self.assertEqual(as_list(tool.getFuncEmb("add")), [75.0, 78.0, 81.0])
        tool = ir2vec.initEmbedding(filename=UPSTREAM_LL, mode="fa", vocabPath=DUMMY3D)
        self.assertEqual(as_list(tool.getFuncEmb("add")), [75.0, 78.0, 81.0])


class UpstreamExceptions(unittest.TestCase):
    """ir2vec-exceptions.py (LLVM main) and ir2vec-initEmbedding.py (first
    revision): which exception each misuse raises."""

    def setUp(self):
        self.vocab = ir2vec.loadVocab(DUMMY3D)

    def test_load_vocab(self):
        self.assertEqual(type(self.vocab).__name__, "Vocab")
        with self.assertRaises(ValueError):
            ir2vec.loadVocab("")
        with self.assertRaises(ValueError):
            ir2vec.loadVocab("/nonexistent/path/bad.json")
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write("{ this is not valid json }")
        try:
            with self.assertRaises(ValueError):
                ir2vec.loadVocab(f.name)
            with self.assertRaises(ValueError):
                ir2vec.initEmbedding(filename=UPSTREAM_LL, mode="sym", vocabPath=f.name)
        finally:
            os.unlink(f.name)
        with self.assertRaises(TypeError):
            ir2vec.loadVocab(42)

    def test_init_embedding_main(self):
        sym = ir2vec.IR2VecKind.Symbolic
        with self.assertRaises(TypeError):
            ir2vec.initEmbedding(filename=UPSTREAM_LL, mode="invalid", vocab=self.vocab)
        with self.assertRaises(TypeError):
            ir2vec.initEmbedding(filename=UPSTREAM_LL, mode=99, vocab=self.vocab)
        with self.assertRaises(ValueError):
            ir2vec.initEmbedding(filename="/nonexistent/bad.ll", mode=sym, vocab=self.vocab)
        with self.assertRaises(ValueError):
            ir2vec.initEmbedding(filename="", mode=sym, vocab=self.vocab)
        for bad in ("vocab.json", 123):
            with self.assertRaises(TypeError):
                ir2vec.initEmbedding(filename=UPSTREAM_LL, mode=sym, vocab=bad)
        # Upstream raises TypeError without a vocabulary (vocab=None or
        # none given); irtk uses its default vocabulary there, as its CLI and
        # plugin do (docs/Python.md, "Differences from upstream").
        for tool in (ir2vec.initEmbedding(filename=UPSTREAM_LL, mode=sym, vocab=None),
                     ir2vec.initEmbedding(filename=UPSTREAM_LL, mode=sym)):
            self.assertEqual(len(tool.getFuncEmb("add")), 75)
        with self.assertRaises(TypeError):
            ir2vec.initEmbedding(filename=42, mode=sym, vocab=self.vocab)

    def test_init_embedding_first_revision(self):
        with self.assertRaises(ValueError):
            ir2vec.initEmbedding(filename=UPSTREAM_LL, mode="invalid", vocabPath=DUMMY3D)
        with self.assertRaises(ValueError):
            ir2vec.initEmbedding(filename=UPSTREAM_LL, mode="sym", vocabPath="")
        with self.assertRaises(ValueError):
            ir2vec.initEmbedding(filename="/bad.ll", mode="sym", vocabPath=DUMMY3D)
        with self.assertRaises(ValueError):
            ir2vec.initEmbedding(filename=UPSTREAM_LL, mode="sym", vocabPath="/bad.json")


class UpstreamNames(unittest.TestCase):
    def test_names(self):
        self.assertEqual(
            {m.name: int(m) for m in (ir2vec.IR2VecKind.Symbolic, ir2vec.IR2VecKind.FlowAware)},
            {"Symbolic": 0, "FlowAware": 1},
        )
        # export_values(), as upstream's enum.
        self.assertIs(ir2vec.Symbolic, ir2vec.IR2VecKind.Symbolic)
        self.assertIs(ir2vec.FlowAware, ir2vec.IR2VecKind.FlowAware)
        # The bundled vocabulary, under both of upstream's names.
        self.assertEqual(ir2vec.SEED_EMBEDDING_75D, ir2vec.vocab.seedEmbedding75D)
        self.assertTrue(ir2vec.vocab.seedEmbedding75D.endswith(".json"))


if __name__ == "__main__":
    unittest.main()
