# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.debcorpus: the train split's level sampling, the package
list's checks and a module's resumability (vocab/recipe/build-corpus.sh's
logic)."""

import subprocess
import unittest

import fixtures
from ir2vec.mlgo import debcorpus
from ir2vec.mlgo.debcorpus import CorpusBuildError


class LevelsTest(unittest.TestCase):
    def test_cksum_is_posix_cksum(self):
        for key in ["", "zlib/deflate.c", "lua5.4/src/lvm.c"]:
            out = subprocess.run(["cksum"], input=key.encode(), check=True,
                                 capture_output=True).stdout
            self.assertEqual(debcorpus.cksum(key.encode()),
                             int(out.split()[0]))

    def test_train_levels_grow_with_k(self):
        key = "zlib/deflate.c"
        six = debcorpus.levels_of("train", key, 6)
        self.assertEqual(sorted(six), sorted(debcorpus.ALL_LEVELS))
        for k in range(1, 6):
            self.assertEqual(debcorpus.levels_of("train", key, k), six[:k])

    def test_fixed_levels(self):
        self.assertEqual(debcorpus.levels_of("heldout", "p/f.c", 3),
                         ("O0", "O2", "Oz"))
        self.assertEqual(debcorpus.levels_of("inline-valid", "p/f.c", 3),
                         ("Oz-preopt",))
        self.assertEqual(debcorpus.level_flags("Oz-preopt"),
                         ["-Oz", "-Xclang", "-disable-llvm-passes"])


class PackageListTest(unittest.TestCase):
    def setUp(self):
        self.tmp = fixtures.TempDir()
        self.table = {"giflib": [], "cjson": []}

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, text, splits):
        path = self.tmp("packages.txt")
        with open(path, "w") as f:
            f.write(text)
        return debcorpus.read_packages(path, self.table, splits)

    def test_implied_splits(self):
        self.assertEqual(
            self.read("# c\n\ngiflib C train\ncjson C train inline-valid\n",
                      ["train", "inline-train", "inline-valid"]),
            [("giflib", "C", ["train", "inline-train"]),
             ("cjson", "C", ["train", "inline-valid"])])

    def test_refused(self):
        for text, msg in [("giflib C train heldout\n", "both the training"),
                          ("giflib C inline-train inline-valid\n",
                           "inline-train and inline-valid"),
                          ("giflib Go train\n", "neither C nor C++"),
                          ("zlib C train\n", "has no recipe"),
                          ("giflib C\n", "has no split")]:
            with self.assertRaisesRegex(CorpusBuildError, msg):
                self.read(text, ["train"])


class CurrentTest(unittest.TestCase):
    def setUp(self):
        self.tmp = fixtures.TempDir()

    def tearDown(self):
        self.tmp.cleanup()

    def test_cmd_must_match(self):
        dest = self.tmp("m")
        with open(dest + ".bc", "wb") as f:
            f.write(b"BC")
        with open(dest + ".cmd", "wb") as f:
            f.write(debcorpus.cmd_bytes(["-O2", "-Ia b"]))
        self.assertTrue(debcorpus.is_current(dest, ["-O2", "-Ia b"]))
        self.assertFalse(debcorpus.is_current(dest, ["-O2", "-Ia", "b"]))
        self.assertFalse(debcorpus.is_current(dest, ["-O3", "-Ia b"]))


if __name__ == "__main__":
    unittest.main()
