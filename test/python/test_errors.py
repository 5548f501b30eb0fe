# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Every error of the ir2vec module: its exception type and its message.

Messages name the file or function at fault. Where upstream's bindings have a
message, ours starts the same way ("Failed to parse IR file '...'",
"Function '...' not found in module", "Invalid mode. Use 'sym' or 'fa'",
"Empty filename not allowed", ...).
"""

import math
import os
import re
import tempfile
import unittest

import ir2vec

from common import IDS2D, SHARED_INPUTS

CFG = str(SHARED_INPUTS / "cfg.ll")


def inp(name):
    return str(SHARED_INPUTS / name)


class LoadVocabErrors(unittest.TestCase):
    def test_empty_path(self):
        with self.assertRaisesRegex(ValueError, "^Empty vocabulary path not allowed$"):
            ir2vec.loadVocab("")

    def test_missing_file(self):
        with self.assertRaisesRegex(
            ValueError,
            "^Failed to load vocabulary: /nonexistent/bad.json: cannot read "
            "vocabulary: No such file or directory$",
        ):
            ir2vec.loadVocab("/nonexistent/bad.json")

    def test_malformed_json(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write("{ this is not valid json }")
        try:
            with self.assertRaisesRegex(
                ValueError,
                "^Failed to load vocabulary: " + re.escape(f.name) + r":1:3: invalid JSON: ",
            ):
                ir2vec.loadVocab(f.name)
        finally:
            os.unlink(f.name)

    def test_invalid_vocabulary(self):
        path = inp("bad-dim-across.json")
        with self.assertRaisesRegex(
            ValueError,
            "^Failed to load vocabulary: " + re.escape(path)
            + ": section 'Types' has dimension 3 but section 'Opcodes' has 2$",
        ):
            ir2vec.loadVocab(path)

    def test_deeply_nested_json(self):
        # 35,000 levels overflowed the stack of llvm::json::parse and killed
        # the interpreter.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "deep.json")
            with open(path, "w") as f:
                f.write("[" * 35000)
            with self.assertRaisesRegex(
                ValueError,
                "^Failed to load vocabulary: " + re.escape(path)
                + ":1:513: JSON nested deeper than 512 levels$",
            ):
                ir2vec.loadVocab(path)

    def test_wrong_type(self):
        with self.assertRaisesRegex(TypeError, "^vocabPath must be a str or os.PathLike, not int$"):
            ir2vec.loadVocab(42)

    def test_weights(self):
        for name in ("opcWeight", "typeWeight", "argWeight"):
            for bad in (math.inf, math.nan, 1e300):
                with self.assertRaisesRegex(ValueError, f"^{name} must be a finite number$"):
                    ir2vec.loadVocab(IDS2D, **{name: bad})
        with self.assertRaises(TypeError):
            ir2vec.loadVocab(IDS2D, 1.0)  # weights are keyword-only


class InitEmbeddingErrors(unittest.TestCase):
    def setUp(self):
        self.vocab = ir2vec.loadVocab(IDS2D)

    def init(self, filename=CFG, **kw):
        kw.setdefault("mode", ir2vec.Symbolic)
        if "vocabPath" not in kw:
            kw.setdefault("vocab", self.vocab)
        return ir2vec.initEmbedding(filename=filename, **kw)

    def test_empty_filename(self):
        with self.assertRaisesRegex(ValueError, "^Empty filename not allowed$"):
            self.init("")

    def test_missing_file(self):
        with self.assertRaisesRegex(
            ValueError,
            "^Failed to parse IR file '/nonexistent/bad.ll': Could not open input "
            "file: No such file or directory$",
        ):
            self.init("/nonexistent/bad.ll")

    def test_malformed_ir(self):
        path = inp("malformed.ll")
        with self.assertRaisesRegex(
            ValueError,
            "^Failed to parse IR file '" + re.escape(path)
            + "': 3:3: expected ',' in arithmetic operation$",
        ):
            self.init(path)
        path = inp("wrongtype.ll")
        with self.assertRaisesRegex(
            ValueError,
            "^Failed to parse IR file '" + re.escape(path)
            + "': 2:7: value doesn't match function result type 'i32'$",
        ):
            self.init(path)

    def test_not_ir(self):
        with self.assertRaisesRegex(
            ValueError, "^Failed to parse IR file '" + re.escape(IDS2D) + r"': 1:1: expected top-level entity$"
        ):
            self.init(IDS2D)

    def test_invalid_module(self):
        path = inp("invalid-module.ll")
        with self.assertRaisesRegex(
            ValueError,
            "^Invalid module '" + re.escape(path) + "': Instruction does not dominate all uses!$",
        ):
            self.init(path)

    def test_invalid_mode_string(self):
        with self.assertRaisesRegex(
            ir2vec.InvalidModeError,
            r"^Invalid mode. Use 'sym' or 'fa' \(or ir2vec.IR2VecKind.Symbolic / "
            r"FlowAware\), not 'invalid'$",
        ) as cm:
            self.init(mode="invalid")
        # Upstream raised ValueError, then TypeError: both catch it.
        self.assertIsInstance(cm.exception, ValueError)
        self.assertIsInstance(cm.exception, TypeError)

    def test_mode_of_wrong_type(self):
        for bad, name in ((99, "int"), (None, "NoneType"), (1.0, "float")):
            with self.assertRaisesRegex(
                TypeError, f"^mode must be an ir2vec.IR2VecKind, 'sym' or 'fa', not {name}$"
            ) as cm:
                self.init(mode=bad)
            self.assertNotIsInstance(cm.exception, ValueError)

    def test_vocab_of_wrong_type(self):
        with self.assertRaisesRegex(
            TypeError, "^vocab must be an ir2vec.Vocab from ir2vec.loadVocab\\(\\), not int$"
        ):
            self.init(vocab=123)

    def test_iith_ir2vec_call(self):
        # IITH IR2Vec's pip package is also named ir2vec; its third argument
        # is a level ("p": program, "f": functions).
        msg = (r"^vocab must be an ir2vec.Vocab from ir2vec.loadVocab\(\), not "
               r"str. This ir2vec is irtk's, with LLVM's API, not IITH "
               r"IR2Vec's initEmbedding\(file, mode, level\): use "
               r"ir2vec.initEmbedding\(file, 'fa'\) \(default vocabulary; "
               r"vocabPath=... names a file\) and then getFuncEmbMap\(\); see "
               r"docs/Python.md$")
        for level in ("p", "f"):
            with self.assertRaisesRegex(TypeError, msg):
                ir2vec.initEmbedding(CFG, "fa", level)
        with self.assertRaisesRegex(TypeError, msg):
            ir2vec.embedFiles([CFG], "sym", "vocab.json")

    def test_vocab_and_path(self):
        with self.assertRaisesRegex(TypeError, r"^initEmbedding\(\) takes vocab or vocabPath, not both$"):
            ir2vec.initEmbedding(CFG, vocab=self.vocab, vocabPath=IDS2D)

    def test_vocab_path_errors(self):
        with self.assertRaisesRegex(ValueError, "^Empty Vocab Path not allowed$"):
            self.init(vocabPath="")
        with self.assertRaisesRegex(
            ValueError,
            "^Failed to initialize IR2Vec vocabulary: /bad.json: cannot read "
            "vocabulary: No such file or directory$",
        ):
            self.init(vocabPath="/bad.json")

    def test_filename_of_wrong_type(self):
        with self.assertRaisesRegex(TypeError, "^filename must be a str or os.PathLike, not int$"):
            self.init(42)


class QueryErrors(unittest.TestCase):
    def setUp(self):
        self.tool = ir2vec.initEmbedding(CFG, vocab=ir2vec.loadVocab(IDS2D))

    def test_unknown_function(self):
        for method in (self.tool.getFuncEmb, self.tool.getBBEmbMap, self.tool.getInstEmbMap):
            with self.assertRaisesRegex(
                ValueError,
                "^Function 'nonexistent' not found in module '" + re.escape(CFG) + "'$",
            ):
                method("nonexistent")

    def test_declaration(self):
        for method in (self.tool.getFuncEmb, self.tool.getBBEmbMap, self.tool.getInstEmbMap):
            with self.assertRaisesRegex(
                ValueError,
                "^Function 'ext' is a declaration in '" + re.escape(CFG)
                + "'; only defined functions have embeddings$",
            ):
                method("ext")

    def test_name_of_wrong_type(self):
        with self.assertRaises(TypeError):
            self.tool.getFuncEmb(42)


class PathsAndNames(unittest.TestCase):
    """Paths and IR names that are not UTF-8 or hold a NUL byte."""

    def setUp(self):
        self.vocab = ir2vec.loadVocab(IDS2D)

    def test_path_not_utf8(self):
        # Was a ValueError (UnicodeDecodeError) about the message itself.
        with self.assertRaisesRegex(
            ValueError,
            "^Failed to load vocabulary: " + re.escape(r"/nonexistent/\xff\xfe.json")
            + ": cannot read vocabulary: No such file or directory$",
        ) as cm:
            ir2vec.loadVocab(b"/nonexistent/\xff\xfe.json")
        self.assertNotIsInstance(cm.exception, UnicodeError)
        with self.assertRaisesRegex(
            ValueError, "^Failed to parse IR file '" + re.escape(r"/nonexistent/\xff.ll") + "': "
        ):
            ir2vec.initEmbedding(os.fsdecode(b"/nonexistent/\xff.ll"), vocab=self.vocab)

    def test_path_with_nul(self):
        # Was reported as the path cut at the NUL, with no reason.
        with self.assertRaisesRegex(
            ValueError, "^vocabPath contains a null byte: '" + re.escape(r"/tmp/a\x00b.json") + "'$"
        ):
            ir2vec.loadVocab("/tmp/a\x00b.json")
        with self.assertRaisesRegex(
            ValueError, "^filename contains a null byte: '" + re.escape(r"/tmp/a\x00b.ll") + "'$"
        ):
            ir2vec.initEmbedding(b"/tmp/a\x00b.ll", vocab=self.vocab)
        with self.assertRaisesRegex(
            ValueError, r"^filenames\[1\] contains a null byte: '/tmp/a\\x00b.ll'$"
        ):
            ir2vec.embedFiles([CFG, "/tmp/a\x00b.ll"], vocab=self.vocab)

    def test_function_name_not_utf8(self):
        # getFuncNames gives the name with its byte 0xff as a surrogate; the
        # queries take that very string back (they raised TypeError).
        tool = ir2vec.initEmbedding(inp("non-utf8-name.ll"), vocab=self.vocab)
        names = tool.getFuncNames()
        self.assertEqual(names, ["f\udcffx"])
        whole = tool.getFuncEmbMap()["f\udcffx"]
        self.assertEqual(list(tool.getFuncEmb(names[0])), list(whole))
        self.assertEqual(list(tool.getFuncEmb(b"f\xffx")), list(whole))
        self.assertEqual(list(tool.getBBEmbMap(names[0])), ["%0"])
        self.assertEqual(len(tool.getInstEmbMap(names[0])), 1)
        with self.assertRaisesRegex(
            ValueError, "^Function '" + re.escape(r"g\xfe") + "' not found in module "
        ):
            tool.getFuncEmb("g\udcfe")

    def test_function_name_of_wrong_type(self):
        tool = ir2vec.initEmbedding(CFG, vocab=self.vocab)
        for method in (tool.getFuncEmb, tool.getBBEmbMap, tool.getInstEmbMap):
            with self.assertRaisesRegex(TypeError, "^funcName must be a str, not int$"):
                method(42)


class EmbedFilesErrors(unittest.TestCase):
    def setUp(self):
        self.vocab = ir2vec.loadVocab(IDS2D)

    def test_level(self):
        with self.assertRaisesRegex(ValueError, "^Invalid level 'foo'. Use 'func', 'bb', 'inst' or 'module'$"):
            ir2vec.embedFiles([CFG], vocab=self.vocab, level="foo")

    def test_threads(self):
        with self.assertRaisesRegex(ValueError, r"^threads must be 0 \(one per core\) or more$"):
            ir2vec.embedFiles([CFG], vocab=self.vocab, threads=-1)

    def test_filenames(self):
        with self.assertRaisesRegex(TypeError, "^filenames must be a list of paths, not a single str$"):
            ir2vec.embedFiles(CFG, vocab=self.vocab)
        with self.assertRaisesRegex(TypeError, "^filenames must be an iterable of paths, not int$"):
            ir2vec.embedFiles(3, vocab=self.vocab)
        with self.assertRaisesRegex(TypeError, r"^filenames\[1\] must be a str or os.PathLike, not NoneType$"):
            ir2vec.embedFiles([CFG, None], vocab=self.vocab)

    def test_mode_and_vocab(self):
        with self.assertRaises(ir2vec.InvalidModeError):
            ir2vec.embedFiles([CFG], mode="x", vocab=self.vocab)
        with self.assertRaisesRegex(TypeError, r"^embedFiles\(\) takes vocab or vocabPath, not both$"):
            ir2vec.embedFiles([CFG], vocab=self.vocab, vocabPath=IDS2D)

    def test_per_file_messages(self):
        files = ["", "/nonexistent/bad.ll", inp("malformed.ll"), inp("invalid-module.ll"), CFG]
        errors = [r["error"] for r in ir2vec.embedFiles(files, vocab=self.vocab, threads=2)]
        self.assertEqual(
            errors,
            [
                "Empty filename not allowed",
                "Failed to parse IR file '/nonexistent/bad.ll': Could not open input file: "
                "No such file or directory",
                f"Failed to parse IR file '{files[2]}': 3:3: expected ',' in arithmetic operation",
                f"Invalid module '{files[3]}': Instruction does not dominate all uses!",
                None,
            ],
        )


if __name__ == "__main__":
    unittest.main()
