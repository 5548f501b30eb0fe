# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.corpus: reading, selecting, sampling, combining and writing
MLGO corpora."""

import json
import os
import unittest

import fixtures
from ir2vec.mlgo.corpus import Corpus, CorpusError, combine, write_corpus


def fake_corpus(root, sizes):
    """A corpus of empty-ish modules: {name: bytes}."""
    for name, n in sizes.items():
        path = os.path.join(root, name + ".bc")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"x" * n)
    with open(os.path.join(root, "corpus_description.json"), "w") as f:
        json.dump({"has_thinlto": False, "modules": sorted(sizes)}, f)
    return Corpus(root)


class CorpusTest(unittest.TestCase):
    def setUp(self):
        self.tmp = fixtures.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def test_packages_and_select(self):
        c = fake_corpus(self.tmp("c"), {"Oz/a/x": 1, "Oz/a/y": 1,
                                        "O2/b/z": 1, "Oz/c/w": 1})
        self.assertEqual(c.packages(), {"a": ["Oz/a/x", "Oz/a/y"],
                                        "b": ["O2/b/z"], "c": ["Oz/c/w"]})
        self.assertEqual(c.select(levels=["Oz"]).modules,
                         ["Oz/a/x", "Oz/a/y", "Oz/c/w"])
        self.assertEqual(c.select(packages=["a"], sample=2).modules,
                         ["Oz/a/x"])
        self.assertEqual(c.select(exclude=["a", "c"]).modules, ["O2/b/z"])

    def test_stratified_covers_packages_and_sizes(self):
        sizes = {f"Oz/big/m{i:02}": 10 + i for i in range(40)}
        sizes.update({f"Oz/small/s{i}": 5 + i for i in range(4)})
        c = fake_corpus(self.tmp("c"), sizes)
        s = c.stratified(11, seed=1)
        self.assertEqual(len(s), 11)
        self.assertEqual(s.modules, c.stratified(11, seed=1).modules)
        per = s.packages()
        self.assertEqual(len(per["small"]), 1)
        self.assertEqual(len(per["big"]), 10)
        # One module from each tenth of big's modules by size.
        idx = sorted(int(m[-2:]) for m in per["big"])
        self.assertEqual([i // 4 for i in idx], list(range(10)))

    def test_bad_descriptions(self):
        root = self.tmp("bad")
        os.makedirs(root)
        with self.assertRaisesRegex(CorpusError, "cannot read it"):
            Corpus(root)
        with open(os.path.join(root, "corpus_description.json"), "w") as f:
            f.write('{"modules": [1]}')
        with self.assertRaisesRegex(CorpusError, "not a list of names"):
            Corpus(root)
        with open(os.path.join(root, "corpus_description.json"), "w") as f:
            f.write('{"modules": []')
        with self.assertRaisesRegex(CorpusError, "not JSON"):
            Corpus(root)

    def test_write_and_combine(self):
        a = fake_corpus(self.tmp("a"), {"Oz/p/x": 3})
        b = fake_corpus(self.tmp("b"), {"Oz/q/y": 4})
        write_corpus(self.tmp("ab"), combine([a, b]))
        ab = Corpus(self.tmp("ab"))
        self.assertEqual(ab.modules, ["Oz/p/x", "Oz/q/y"])
        self.assertEqual(os.path.getsize(ab.bitcode("Oz/q/y")), 4)
        with self.assertRaisesRegex(CorpusError, "already there"):
            a.write(self.tmp("ab"))
        with self.assertRaisesRegex(CorpusError, "in both"):
            combine([a, a])
        # Writing never touches the corpus being read.
        with self.assertRaisesRegex(CorpusError, "already there"):
            a.write(a.root)

    def test_command_flags(self):
        c = fake_corpus(self.tmp("c"), {"Oz/p/x": 3})
        with open(os.path.join(c.root, "Oz/p/x.cmd"), "wb") as f:
            f.write(b"-Oz\0-Iinclude\0")
        self.assertEqual(c.command("Oz/p/x"), ["-Oz", "-Iinclude"])


if __name__ == "__main__":
    unittest.main()
