# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A tiny MLGO corpus for the ir2vec.mlgo tests, made from Inputs/ the way
vocab/recipe/build-corpus.sh makes its inline-* splits (pre-optimisation
bitcode, clang-22 -Oz -Xclang -disable-llvm-passes).

ctest sets PYTHONPATH to <build>/python, IRTK_LLVM_TOOLS_DIR (LLVM 22's bin
dir) and IRTK_PLUGIN."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
INPUTS = HERE / "Inputs"
LLVM_BIN = os.environ.get("IRTK_LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")
CLANG = os.path.join(LLVM_BIN, "clang")
# module name -> source
MODULES = {"Oz-preopt/prog/prog": "prog.c",
           "Oz-preopt/prog/table": "table.c",
           "Oz-preopt/shapes/shapes": "shapes.cpp"}


def llvm_size_text(obj):
    """Bytes of the object's .text* sections as llvm-size -A lists them:
    what ir2vec.mlgo's measures are checked against."""
    out = subprocess.run([os.path.join(LLVM_BIN, "llvm-size"), "-A", obj],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in out.splitlines()]
    return sum(int(r[1]) for r in rows
               if len(r) >= 2 and r[0].startswith(".text"))


def preopt(src, out):
    subprocess.run([CLANG, "-Oz", "-Xclang", "-disable-llvm-passes", "-c",
                    "-emit-llvm", str(INPUTS / src), "-o", out], check=True)


def make_corpus(root, modules=MODULES):
    """Writes the corpus at root; returns root."""
    for name, src in modules.items():
        path = os.path.join(root, name + ".bc")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        preopt(src, path)
    with open(os.path.join(root, "corpus_description.json"), "w") as f:
        json.dump({"has_thinlto": False, "modules": sorted(modules)}, f)
    return root


class TempDir:
    """A temporary directory for a test class (setUpClass/tearDownClass)."""

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="irtk-mlgo-")
        self.path = self._dir.name

    def __call__(self, *parts):
        return os.path.join(self.path, *parts)

    def cleanup(self):
        self._dir.cleanup()


class CorpusTestCase(unittest.TestCase):
    """A test class with its own temporary directory (tmp) and the tiny
    corpus in it (corpus, of the class's modules; bc(name) is a module's
    bitcode)."""

    modules = MODULES

    @classmethod
    def setUpClass(cls):
        cls.tmp = TempDir()
        cls.corpus = make_corpus(cls.tmp("corpus"), cls.modules)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def bc(self, name):
        return os.path.join(self.corpus, name + ".bc")

    def mlgo(self, *argv):
        """`python3 -m ir2vec.mlgo argv...`, which must succeed."""
        done = subprocess.run([sys.executable, "-m", "ir2vec.mlgo", *argv],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done
