# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The ir2vec module's values, computed by hand.

With test/Inputs/ids2d.json (entity k is [k, 1]) and every weight 1, a
vector's first element is the sum of the ids of the entities it adds and the
second counts them (ids in common.py). test/Inputs/cfg.ll:

  @add:  %s = add i32 %a, %b   Add + IntegerTy + 2 Variable     [252, 4]
         ret i32 %s            Ret + VoidTy + Variable          [152, 3]
  @f:    entry: br i1 %c, label %a, label %b
                               Br + VoidTy + 3 Variable         [319, 5]
         a:  %p = phi i32 [ 0, %entry ], [ %q, %b ]
                               PHI + IntegerTy + Constant + Variable
                                                                [294, 4]
             ret i32 %p        Ret + VoidTy + Variable          [152, 3]
         b:  %q = add i32 %x, 1  Add + IntegerTy + Variable + Constant
                                                                [251, 4]
             br label %a       Br + VoidTy + Variable           [153, 3]
         dead: ret i32 7       Ret + VoidTy + Constant          [151, 3]
  @ext:  a declaration.

f's vector leaves out the unreachable block: [1169, 19]. The module's
(getProgramVector, level "module") is add + f = [1573, 26]. Flow-aware, an
operand defined by an instruction the embedder has already embedded adds that
instruction's vector instead of Variable: `ret i32 %p` becomes Ret + VoidTy +
phi = [363, 6]; the phi comes before %q in both layout and DFS order, so it
keeps Variable. Hence a = [657, 10] and f = [1380, 22], and the module
[573 + 1380, 10 + 22] = [1953, 32].
"""

import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest
import warnings

import numpy

import ir2vec

from common import IDS2D, SHARED_INPUTS, as_list

CFG = str(SHARED_INPUTS / "cfg.ll")
UNNAMED = str(SHARED_INPUTS / "unnamed-blocks.ll")
MANGLED = str(SHARED_INPUTS / "mangled.ll")

SYM_INSTS_F = {
    "  br i1 %c, label %a, label %b": [319.0, 5.0],
    "  %p = phi i32 [ 0, %entry ], [ %q, %b ]": [294.0, 4.0],
    "  ret i32 %p": [152.0, 3.0],
    "  %q = add i32 %x, 1": [251.0, 4.0],
    "  br label %a": [153.0, 3.0],
    "  ret i32 7": [151.0, 3.0],
}
FA_INSTS_F = dict(SYM_INSTS_F, **{"  ret i32 %p": [363.0, 6.0]})


def unit_vocab():
    return ir2vec.loadVocab(IDS2D, opcWeight=1, typeWeight=1, argWeight=1)


def f32(x):
    """A weight as upstream applies it: a float promoted to double."""
    return float(numpy.float32(x))


class Symbolic(unittest.TestCase):
    def setUp(self):
        self.tool = ir2vec.initEmbedding(
            filename=CFG, mode=ir2vec.IR2VecKind.Symbolic, vocab=unit_vocab()
        )

    def test_function_names_are_definitions_in_ir_order(self):
        self.assertEqual(self.tool.getFuncNames(), ["add", "f"])

    def test_function_map(self):
        emb = self.tool.getFuncEmbMap()
        self.assertEqual(list(emb), ["add", "f"])
        self.assertEqual(as_list(emb["add"]), [404.0, 7.0])
        self.assertEqual(as_list(emb["f"]), [1169.0, 19.0])

    def test_single_function(self):
        self.assertEqual(as_list(self.tool.getFuncEmb("add")), [404.0, 7.0])
        self.assertEqual(as_list(self.tool.getFuncEmb("f")), [1169.0, 19.0])

    def test_blocks_include_unreachable_ones(self):
        bbs = self.tool.getBBEmbMap("f")
        self.assertEqual(list(bbs), ["entry", "a", "b", "dead"])
        self.assertEqual(
            {k: as_list(v) for k, v in bbs.items()},
            {"entry": [319.0, 5.0], "a": [446.0, 7.0], "b": [404.0, 7.0], "dead": [151.0, 3.0]},
        )

    def test_unnamed_entry_block_is_keyed_by_its_number(self):
        # Upstream keys blocks by BasicBlock::getName(), "" for every unnamed
        # one; here by the printer's label: the arguments are named, so the
        # entry block is %0.
        bbs = self.tool.getBBEmbMap("add")
        self.assertEqual({k: as_list(v) for k, v in bbs.items()}, {"%0": [404.0, 7.0]})

    def test_instructions(self):
        insts = self.tool.getInstEmbMap("f")
        self.assertEqual(list(insts), list(SYM_INSTS_F))
        self.assertEqual({k: as_list(v) for k, v in insts.items()}, SYM_INSTS_F)

    def test_arrays_are_fresh_copies(self):
        a = self.tool.getFuncEmb("add")
        a[0] = -1.0
        self.assertEqual(as_list(self.tool.getFuncEmb("add")), [404.0, 7.0])

    def test_properties(self):
        self.assertEqual(self.tool.filename, CFG)
        self.assertEqual(self.tool.mode, ir2vec.IR2VecKind.Symbolic)

    def test_program_vector_sums_the_defined_functions(self):
        # IITH IR2Vec's name, as a method and as its module function.
        self.assertEqual(as_list(self.tool.getProgramVector()), [1573.0, 26.0])
        self.assertEqual(as_list(ir2vec.getProgramVector(self.tool)), [1573.0, 26.0])
        self.assertEqual(self.tool.getProgramVector().dtype, numpy.float64)

    def test_program_vector_of_declarations_only_is_zero(self):
        with tempfile.NamedTemporaryFile("w", suffix=".ll", delete=False) as f:
            f.write("declare void @ext()\n")
        try:
            tool = ir2vec.initEmbedding(filename=f.name, mode="sym", vocab=unit_vocab())
            self.assertEqual(as_list(tool.getProgramVector()), [0.0, 0.0])
        finally:
            os.unlink(f.name)

    def test_get_program_vector_takes_a_tool(self):
        with self.assertRaisesRegex(TypeError, r"^getProgramVector takes an "
                                    r"ir2vec\.IR2VecTool or MIR2VecTool .*, not str$"):
            ir2vec.getProgramVector(CFG)


class FlowAware(unittest.TestCase):
    def setUp(self):
        self.tool = ir2vec.initEmbedding(
            filename=CFG, mode=ir2vec.IR2VecKind.FlowAware, vocab=unit_vocab()
        )

    def test_program_vector(self):
        self.assertEqual(as_list(self.tool.getProgramVector()), [1953.0, 32.0])

    def test_function(self):
        self.assertEqual(as_list(self.tool.getFuncEmbMap()["f"]), [1380.0, 22.0])
        self.assertEqual(as_list(self.tool.getFuncEmb("f")), [1380.0, 22.0])
        # %s's operands are arguments; ret adds %s's vector [252, 4].
        self.assertEqual(as_list(self.tool.getFuncEmb("add")), [252.0 + 69 + 252, 4.0 + 2 + 4])

    def test_blocks(self):
        bbs = self.tool.getBBEmbMap("f")
        self.assertEqual(
            {k: as_list(v) for k, v in bbs.items()},
            {"entry": [319.0, 5.0], "a": [657.0, 10.0], "b": [404.0, 7.0], "dead": [151.0, 3.0]},
        )

    def test_instructions(self):
        insts = self.tool.getInstEmbMap("f")
        self.assertEqual({k: as_list(v) for k, v in insts.items()}, FA_INSTS_F)

    def test_each_query_starts_afresh(self):
        # A fresh embedder per call, as upstream: the phi never sees %q.
        for _ in range(2):
            self.assertEqual(as_list(self.tool.getInstEmbMap("f")["  ret i32 %p"]), [363.0, 6.0])


class UnnamedBlocks(unittest.TestCase):
    """test/Inputs/unnamed-blocks.ll, symbolic, by hand (ids in common.py):

    @clamp  %2: %3 = icmp sgt i32 %0, %1  ICmp + IntegerTy + 2 Variable
                                           + ICMP_sgt             [399, 5]
                br i1 %3, label %4, label %5                      [319, 5]
            %4: br label %7                Br + VoidTy + Variable [153, 3]
            %5: %6 = add i32 %0, 1                                [251, 4]
                br label %7                                       [153, 3]
            %7: %8 = phi i32 [ %1, %4 ], [ %6, %5 ]
                                           PHI + IntegerTy + 2 Variable
                                                                  [295, 4]
                ret i32 %8                                        [152, 3]
    @mixed  entry: icmp sgt %x, 0 [398, 5]; br i1 [319, 5]
            %0:    br label %exit [153, 3]
            exit:  phi [ 1, %0 ], [ %x, %entry ] [294, 4]; ret [152, 3]

    The numbers are those of the file, which `llvm-dis` prints back the same
    (`; preds = %2` names @clamp's unlabelled entry block).
    """

    def setUp(self):
        self.tool = ir2vec.initEmbedding(UNNAMED, "sym", unit_vocab())

    def test_one_entry_per_unnamed_block_keyed_by_its_number(self):
        bbs = self.tool.getBBEmbMap("clamp")
        self.assertEqual(
            [(k, as_list(v)) for k, v in bbs.items()],
            [("%2", [718.0, 10.0]), ("%4", [153.0, 3.0]), ("%5", [404.0, 7.0]), ("%7", [447.0, 7.0])],
        )

    def test_named_blocks_keep_their_names(self):
        bbs = self.tool.getBBEmbMap("mixed")
        self.assertEqual(
            [(k, as_list(v)) for k, v in bbs.items()],
            [("entry", [717.0, 10.0]), ("%0", [153.0, 3.0]), ("exit", [446.0, 7.0])],
        )

    def test_embed_files_uses_the_same_keys(self):
        [r] = ir2vec.embedFiles([UNNAMED], "sym", unit_vocab(), level="bb")
        for f in ("clamp", "mixed"):
            self.assertEqual([(k, as_list(v)) for k, v in r["embeddings"][f]],
                             [(k, as_list(v)) for k, v in self.tool.getBBEmbMap(f).items()])

    @unittest.skipUnless(os.environ.get("IRTK_LLVM_TOOLS_DIR"), "needs LLVM's tools")
    def test_keys_are_the_labels_of_clangs_output(self):
        # Clang names no block: each is numbered, the entry block right after
        # the (unnamed) arguments, the others by their labels in the .ll.
        clang = pathlib.Path(os.environ["IRTK_LLVM_TOOLS_DIR"]) / "clang"
        if not clang.exists():
            self.skipTest(f"no {clang}")
        src = ("int count(const char *s, int n) {\n  int k = 0;\n"
               "  for (int i = 0; i < n; i++)\n    if (s[i] == 'a')\n      k++;\n"
               "    else if (s[i] == 'b')\n      k += 2;\n  return k;\n}\n")
        with tempfile.TemporaryDirectory() as d:
            c, ll = os.path.join(d, "count.c"), os.path.join(d, "count.ll")
            pathlib.Path(c).write_text(src)
            subprocess.run([str(clang), "-O0", "-S", "-emit-llvm", c, "-o", ll], check=True)
            text = pathlib.Path(ll).read_text()
            bbs = ir2vec.initEmbedding(ll, "sym", unit_vocab()).getBBEmbMap("count")
        define = next(line for line in text.splitlines() if line.startswith("define") and "@count(" in line)
        entry = len(re.findall(r"%\d+[,)]", define))
        body = text[text.index(define):]
        body = body[: body.index("\n}\n")]
        labels = re.findall(r"^(\d+):", body, re.M)
        self.assertGreater(len(labels), 5)
        self.assertEqual(list(bbs), [f"%{n}" for n in [entry, *labels]])


class Modes(unittest.TestCase):
    def test_strings_of_the_first_revision(self):
        for mode, f in (("sym", 1169.0), ("fa", 1380.0), ("symbolic", 1169.0), ("flow-aware", 1380.0)):
            tool = ir2vec.initEmbedding(filename=CFG, mode=mode, vocab=unit_vocab())
            self.assertEqual(tool.getFuncEmb("f")[0], f, mode)

    def test_default_mode_is_symbolic(self):
        tool = ir2vec.initEmbedding(CFG, vocab=unit_vocab())
        self.assertEqual(tool.mode, ir2vec.Symbolic)


class Vocabularies(unittest.TestCase):
    def test_default_weights(self):
        # Opcodes x1, Types x0.5, Arguments x0.2f, added in upstream's order:
        # inst = (opc + type) + ((0 + op0) + op1), block = (0 + i0) + i1.
        w = f32(0.2)
        v = ir2vec.loadVocab(IDS2D)
        self.assertEqual(v.dimension, 2)
        tool = ir2vec.initEmbedding(filename=CFG, mode=ir2vec.Symbolic, vocab=v)
        opc_add, opc_ret = [12.0, 1.0], [0.0, 1.0]
        int_ty, void_ty = [74 * 0.5, 0.5], [69 * 0.5, 0.5]
        var = [83 * w, 1 * w]
        add = [(opc_add[i] + int_ty[i]) + ((0 + var[i]) + var[i]) for i in range(2)]
        ret = [(opc_ret[i] + void_ty[i]) + (0 + var[i]) for i in range(2)]
        func = [0 + ((0 + add[i]) + ret[i]) for i in range(2)]
        self.assertEqual(as_list(tool.getFuncEmb("add")), func)
        # 82.2 + 51.1 and 4.2 + 2.2 (0.2f shows in the last digits; the
        # second is the 3.6000000089406967 of docs/VocabFormat.md).
        self.assertEqual(func, [133.30000074207783, 3.6000000089406967])

    def test_custom_weights(self):
        v = ir2vec.loadVocab(IDS2D, opcWeight=2, typeWeight=0, argWeight=0.5)
        tool = ir2vec.initEmbedding(filename=CFG, mode=ir2vec.Symbolic, vocab=v)
        # add: 2*[12,1] + 0 + 0.5*2*[83,1] = [107, 3];
        # ret: 2*[0,1] + 0 + 0.5*[83,1] = [41.5, 2.5].
        self.assertEqual(as_list(tool.getFuncEmb("add")), [148.5, 5.5])

    def test_vocab_outlives_its_python_object(self):
        tool = ir2vec.initEmbedding(filename=CFG, mode=ir2vec.Symbolic, vocab=unit_vocab())
        import gc

        gc.collect()
        self.assertEqual(as_list(tool.getFuncEmb("add")), [404.0, 7.0])

    def test_repr_and_path(self):
        v = unit_vocab()
        self.assertEqual(v.path, IDS2D)
        self.assertIn("dimension=2", repr(v))

    def test_bundled_default(self):
        path = ir2vec.vocab.seedEmbedding75D
        if os.path.isfile(path):
            self.assertEqual(ir2vec.loadVocab(path).dimension, 75)
        else:
            with self.assertRaisesRegex(ValueError, "bundled default vocabulary .* was not available"):
                ir2vec.loadVocab(path)

    def test_path_like(self):
        v = ir2vec.loadVocab(pathlib.Path(IDS2D), opcWeight=1, typeWeight=1, argWeight=1)
        tool = ir2vec.initEmbedding(filename=pathlib.Path(CFG), mode="sym", vocab=v)
        self.assertEqual(as_list(tool.getFuncEmb("add")), [404.0, 7.0])


class Lookup(unittest.TestCase):
    def test_demangled_names(self):
        tool = ir2vec.initEmbedding(filename=MANGLED, mode="sym", vocab=unit_vocab())
        self.assertEqual(tool.getFuncNames(), ["_Z3addii", "_Z3addff"])
        self.assertEqual(as_list(tool.getFuncEmb("add(int, int)")), [404.0, 7.0])
        self.assertEqual(as_list(tool.getFuncEmb("_Z3addii")), [404.0, 7.0])
        # ret i32 0: Ret + VoidTy + Constant.
        self.assertEqual(as_list(tool.getFuncEmb("add(float, float)")), [151.0, 3.0])


class Bitcode(unittest.TestCase):
    def test_bitcode_equals_text(self):
        llvm_as = shutil.which("llvm-as-22") or "/usr/lib/llvm-22/bin/llvm-as"
        # llvm-as comes with LLVM 22's tools, a dependency: fail, not skip.
        self.assertTrue(os.path.exists(llvm_as), "llvm-as not found")
        with tempfile.TemporaryDirectory() as d:
            bc = os.path.join(d, "cfg.bc")
            subprocess.run([llvm_as, CFG, "-o", bc], check=True)
            v = unit_vocab()
            for mode in (ir2vec.Symbolic, ir2vec.FlowAware):
                text = ir2vec.initEmbedding(filename=CFG, mode=mode, vocab=v)
                bits = ir2vec.initEmbedding(filename=bc, mode=mode, vocab=v)
                self.assertEqual(
                    {k: as_list(x) for k, x in bits.getFuncEmbMap().items()},
                    {k: as_list(x) for k, x in text.getFuncEmbMap().items()},
                )


class EmbedFiles(unittest.TestCase):
    def test_levels(self):
        v = unit_vocab()
        [r] = ir2vec.embedFiles([CFG], mode=ir2vec.FlowAware, vocab=v)
        self.assertEqual(sorted(r), ["embeddings", "error", "filename", "warnings"])
        self.assertEqual((r["filename"], r["error"], r["warnings"]), (CFG, None, []))
        self.assertEqual({k: as_list(x) for k, x in r["embeddings"].items()},
                         {"add": [573.0, 10.0], "f": [1380.0, 22.0]})
        [r] = ir2vec.embedFiles([CFG], ir2vec.Symbolic, v, level="bb")
        self.assertEqual(
            [(k, as_list(x)) for k, x in r["embeddings"]["f"]],
            [("entry", [319.0, 5.0]), ("a", [446.0, 7.0]), ("b", [404.0, 7.0]), ("dead", [151.0, 3.0])],
        )
        self.assertEqual([k for k, _ in r["embeddings"]["add"]], ["%0"])
        [r] = ir2vec.embedFiles([CFG], "fa", v, level="inst")
        self.assertEqual([(k, as_list(x)) for k, x in r["embeddings"]["f"]], list(FA_INSTS_F.items()))

    def test_module_level_is_one_vector_per_file(self):
        v = unit_vocab()
        # mangled.ll: _Z3addii [404, 7] + _Z3addff (ret i32 0) [151, 3].
        results = ir2vec.embedFiles([CFG, "/nonexistent/x.ll", MANGLED], "sym", v,
                                    level="module", threads=2)
        self.assertEqual([as_list(r["embeddings"]) if r["error"] is None else None
                          for r in results],
                         [[1573.0, 26.0], None, [555.0, 10.0]])
        [r] = ir2vec.embedFiles([CFG], "fa", v, level="module")
        self.assertEqual(as_list(r["embeddings"]), [1953.0, 32.0])
        [r] = list(ir2vec.embedFilesIter([CFG], "sym", v, level="module"))
        self.assertEqual(as_list(r["embeddings"]), [1573.0, 26.0])

    def test_lists_keep_what_dicts_collapse(self):
        # Two identical instructions: one dict entry, two list entries.
        src = "define void @g() {\n  ret void\nx:\n  ret void\n}\n"
        with tempfile.NamedTemporaryFile("w", suffix=".ll", delete=False) as f:
            f.write(src)
        try:
            v = unit_vocab()
            tool = ir2vec.initEmbedding(filename=f.name, mode="sym", vocab=v)
            self.assertEqual({k: as_list(x) for k, x in tool.getInstEmbMap("g").items()},
                             {"  ret void": [69.0, 2.0]})
            [r] = ir2vec.embedFiles([f.name], "sym", v, level="inst")
            self.assertEqual([(k, as_list(x)) for k, x in r["embeddings"]["g"]],
                             [("  ret void", [69.0, 2.0])] * 2)
        finally:
            os.unlink(f.name)

    def test_errors_are_per_file_and_order_is_kept(self):
        files = [CFG, "/nonexistent/x.ll", str(SHARED_INPUTS / "malformed.ll"), MANGLED] * 5
        results = ir2vec.embedFiles(files, vocab=unit_vocab(), threads=2)
        self.assertEqual([r["filename"] for r in results], files)
        for r in results:
            if r["filename"] in (CFG, MANGLED):
                self.assertIsNone(r["error"])
                self.assertEqual(len(r["embeddings"]), 2)
            else:
                self.assertIsNone(r["embeddings"])
                self.assertRegex(r["error"], "^Failed to parse IR file '" + r["filename"])

    def test_thread_counts_agree(self):
        files = [CFG, MANGLED, CFG] * 4
        v = unit_vocab()
        runs = [ir2vec.embedFiles(files, "fa", v, level="inst", threads=t) for t in (1, 2, 0, 64)]
        flat = [[(r["filename"], f, k, as_list(x)) for r in run for f, rows in r["embeddings"].items() for k, x in rows]
                for run in runs]
        for other in flat[1:]:
            self.assertEqual(other, flat[0])

    def test_empty_and_generators(self):
        self.assertEqual(ir2vec.embedFiles([], vocab=unit_vocab()), [])
        r = ir2vec.embedFiles((p for p in [pathlib.Path(CFG)]), vocab=unit_vocab())
        self.assertEqual(r[0]["filename"], CFG)
        self.assertIsNone(r[0]["error"])

    def test_vocab_path(self):
        [r] = ir2vec.embedFiles([CFG], "sym", vocabPath=IDS2D)
        self.assertEqual(as_list(r["embeddings"]["add"]), [133.30000074207783, 3.6000000089406967])


class EmbedFilesIter(unittest.TestCase):
    def test_same_results_in_order(self):
        files = [CFG, "/nonexistent/x.ll", MANGLED] * 7
        v = unit_vocab()
        want = ir2vec.embedFiles(files, "fa", v, level="bb", threads=3)
        it = ir2vec.embedFilesIter(files, "fa", v, level="bb", threads=3)
        self.assertIsInstance(it, ir2vec.EmbedFilesIterator)
        self.assertIs(iter(it), it)
        self.assertEqual(len(it), len(files))
        got = list(it)
        self.assertEqual([r["filename"] for r in got], files)
        flat = lambda rs: [(r["filename"], r["error"], f, k, as_list(x))
                           for r in rs for f, rows in (r["embeddings"] or {}).items()
                           for k, x in rows]
        self.assertEqual(flat(got), flat(want))
        self.assertEqual(list(it), [])  # exhausted
        with self.assertRaises(StopIteration):
            next(it)

    def test_yields_before_the_last_file_is_done(self):
        # The first result comes while later files are still queued: with one
        # worker, after one next() most files cannot have been embedded yet,
        # and closing drops them.
        files = [CFG] * 200
        it = ir2vec.embedFilesIter(files, vocab=unit_vocab(), threads=1)
        first = next(it)
        self.assertEqual(first["filename"], CFG)
        it.close()
        self.assertEqual(list(it), [])

    def test_arguments_are_checked_at_the_call(self):
        with self.assertRaisesRegex(ValueError, "^Invalid level 'x'"):
            ir2vec.embedFilesIter([CFG], vocab=unit_vocab(), level="x")
        with self.assertRaisesRegex(TypeError, "^filenames must be a list"):
            ir2vec.embedFilesIter(CFG, vocab=unit_vocab())

    def test_abandoned_iterator_stops(self):
        it = ir2vec.embedFilesIter([CFG] * 100, vocab=unit_vocab(), threads=2)
        next(it)
        del it  # joins its threads; must not hang or crash


class DefaultVocabulary(unittest.TestCase):
    """Without vocab or vocabPath, the bundled default (as the CLI)."""

    def test_every_entry_point_uses_it(self):
        bundled = ir2vec.loadVocab(ir2vec.vocab.seedEmbedding75D)
        want = ir2vec.initEmbedding(CFG, vocab=bundled).getFuncEmbMap()
        self.assertEqual(len(want["add"]), 75)
        for got in (ir2vec.initEmbedding(CFG).getFuncEmbMap(),
                    ir2vec.IR2VecTool(CFG).getFuncEmbMap(),
                    ir2vec.embedFiles([CFG])[0]["embeddings"],
                    next(ir2vec.embedFilesIter([CFG]))["embeddings"]):
            self.assertEqual({k: as_list(v) for k, v in got.items()},
                             {k: as_list(v) for k, v in want.items()})
        self.assertIs(ir2vec._defaultVocab(), ir2vec._defaultVocab())


class Threads(unittest.TestCase):
    def test_one_tool_from_many_threads(self):
        tool = ir2vec.initEmbedding(filename=CFG, mode="fa", vocab=unit_vocab())
        expect = {k: as_list(x) for k, x in tool.getInstEmbMap("f").items()}
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda _: {k: as_list(x) for k, x in tool.getInstEmbMap("f").items()},
                                range(32)))
        for g in got:
            self.assertEqual(g, expect)


class Warnings(unittest.TestCase):
    def test_llvm_warnings_become_python_warnings(self):
        # Debug info of a version LLVM does not know: the IR reader drops it
        # and warns.
        src = ("define void @g() {\n  ret void\n}\n"
               "!llvm.dbg.cu = !{!1}\n"
               "!llvm.module.flags = !{!0}\n"
               "!0 = !{i32 2, !\"Debug Info Version\", i32 1}\n"
               "!1 = distinct !DICompileUnit(language: DW_LANG_C99, file: !2, "
               "emissionKind: FullDebug)\n"
               "!2 = !DIFile(filename: \"w.c\", directory: \"/\")\n")
        with tempfile.NamedTemporaryFile("w", suffix=".ll", delete=False) as f:
            f.write(src)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                tool = ir2vec.initEmbedding(filename=f.name, mode="sym", vocab=unit_vocab())
            self.assertEqual(tool.getFuncNames(), ["g"])
            self.assertEqual([w.category for w in caught], [RuntimeWarning])
            self.assertIn("ignoring debug info with an invalid version (1)", str(caught[0].message))
            [r] = ir2vec.embedFiles([f.name], vocab=unit_vocab())
            self.assertEqual(len(r["warnings"]), 1)
            self.assertIn("ignoring debug info with an invalid version (1)", r["warnings"][0])
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
