# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""``python3 -m ir2vec.mlgo programs`` on a stand-in for tinyxml2's sources
(a library, a test program that prints tinyxml2's "Pass N, Fail M" line and
needs resources/ beside it): what a build and its tests report, extra flags
reaching every compile, failures, and the errors of bad input."""

import glob
import os
import subprocess
import sys
import unittest

import fixtures

LIBRARY = "int tx_twice(int x) { return 2 * x; }\n"
XMLTEST = r"""#include <cstdio>
int tx_twice(int);
#ifdef BROKEN
#error broken on purpose
#endif
int main() {
  std::printf("built %s\n", __DATE__);
  if (!std::fopen("resources/dream.xml", "r")) {
    std::printf("Pass 0, Fail 1\n");
    return 1;
  }
#ifdef FAILS
  std::printf("Pass 2, Fail 1\n");
  return 1;
#else
  std::printf("Pass %d, Fail 0\n", tx_twice(1) + 1);
  return 0;
#endif
}
"""


class ProgramsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = fixtures.TempDir()
        root = cls.tmp("src", "tinyxml2-9.0.0+dfsg")
        os.makedirs(os.path.join(root, "resources"))
        for name, text in [("tinyxml2.cpp", LIBRARY),
                           ("xmltest.cpp", XMLTEST),
                           ("resources/dream.xml", "<dream/>\n")]:
            with open(os.path.join(root, name), "w") as f:
                f.write(text)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def mlgo(self, command, out, *argv):
        """`python3 -m ir2vec.mlgo command --out tmp/out --src tmp/src`."""
        return subprocess.run(
            [sys.executable, "-m", "ir2vec.mlgo", command, "--out",
             self.tmp(out), "--src", self.tmp("src"), *argv],
            capture_output=True, text=True)

    def programs(self, out, *argv):
        return self.mlgo("programs", out, "--packages", "tinyxml2", "--clang",
                         fixtures.CLANG, "--jobs", "2", *argv)

    def summary(self, out):
        with open(self.tmp(out, "summary.tsv")) as f:
            return [line.rstrip("\n").split("\t") for line in f]

    def test_build_and_tests_pass(self):
        done = self.programs("pass")
        self.assertEqual(done.returncode, 0, done.stderr)
        objects = sorted(glob.glob(self.tmp("pass", "tinyxml2", "obj", "*.o")))
        self.assertEqual([os.path.basename(o) for o in objects],
                         ["tinyxml2.o", "xmltest.o"])
        text = sum(fixtures.llvm_size_text(o) for o in objects)
        self.assertGreater(text, 0)
        self.assertEqual(self.summary("pass"), [
            ["package", "build", "tests", "passed", "run", "text_bytes"],
            ["tinyxml2", "ok", "passed", "3", "3", str(text)]])
        with open(self.tmp("pass", "tinyxml2", "test.log")) as f:
            log = f.read()
        self.assertIn("=== xmltest\n", log)
        # __DATE__ is SOURCE_DATE_EPOCH's (0), so two builds compare.
        self.assertIn("built Jan  1 1970\n", log)

    def test_extra_flags_reach_the_compiles_and_a_failed_test_fails(self):
        done = self.programs("fails", "--", "-DFAILS")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(self.summary("fails")[1][:5],
                         ["tinyxml2", "ok", "failed", "2", "3"])
        with open(self.tmp("fails", "extra-cflags")) as f:
            self.assertEqual(f.read(), "-DFAILS\n")

    def test_a_failed_build_is_reported(self):
        done = self.programs("broken", "--", "-DBROKEN")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(self.summary("broken")[1],
                         ["tinyxml2", "failed", "-", "0", "0", "0"])
        with open(self.tmp("broken", "tinyxml2", "build.log")) as f:
            self.assertIn("broken on purpose", f.read())

    def test_unknown_package(self):
        done = self.mlgo("programs", "unknown", "--packages", "tinyxml2,zlib")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr.splitlines(), [
            "python3 -m ir2vec.mlgo programs: error: unknown package 'zlib' "
            "(cjson, giflib, tinyxml2, double-conversion)"])
        self.assertFalse(os.path.exists(self.tmp("unknown")))

    def test_missing_sources(self):
        done = self.mlgo("programs", "missing", "--packages", "giflib")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr.splitlines(), [
            f"python3 -m ir2vec.mlgo programs: error: {self.tmp('src')}: "
            "no sources of giflib"])

    def test_workloads_name_the_missing_sources(self):
        done = self.mlgo("workloads", "w", "--name", "stock")
        self.assertEqual(done.returncode, 1)
        self.assertRegex(done.stderr, r"^python3 -m ir2vec.mlgo workloads: "
                         r"error: .*: no lua5.4, bzip2 or libzstd sources\n$")


if __name__ == "__main__":
    unittest.main()
