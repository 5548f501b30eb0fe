# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.toolchain: a package installed on its own (pip) finds an
installed irtk, or a build tree named by IRTK_BUILD_DIR, or says what is
missing and how to name it."""

import os
import shutil
import subprocess
import sys
import unittest

import fixtures
import ir2vec

PACKAGE = os.path.dirname(os.path.abspath(ir2vec.__file__))


class ToolchainTest(unittest.TestCase):
    def setUp(self):
        self.tmp = fixtures.TempDir()
        # The package alone, as pip installs it under a prefix.
        pyver = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        self.prefix = self.tmp("prefix")
        self.site = os.path.join(self.prefix, "lib", pyver, "dist-packages")
        shutil.copytree(PACKAGE, os.path.join(self.site, "ir2vec"),
                        ignore=shutil.ignore_patterns("__pycache__"))

    def tearDown(self):
        self.tmp.cleanup()

    def toolchain(self, *extra, env=None):
        clean = {k: v for k, v in os.environ.items()
                 if not k.startswith("IRTK_") or k == "IRTK_LLVM_TOOLS_DIR"}
        clean["PYTHONPATH"] = self.site
        clean["PATH"] = "/usr/bin:/bin"
        clean.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "ir2vec.mlgo", "toolchain"] + list(extra),
            capture_output=True, text=True, env=clean, cwd=self.tmp.path)

    def install(self, root, plugin_dir):
        for rel in (os.path.join(plugin_dir, "IRTKPlugin.so"),
                    os.path.join("bin", "irtk-train")):
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("")

    def test_missing_pieces_are_named(self):
        if any(os.path.exists(p) for p in ("/usr/lib/IRTKPlugin.so",
                                           "/usr/local/lib/IRTKPlugin.so")):
            self.skipTest("irtk is installed on this machine")
        done = self.toolchain()
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = dict(ln.split(": ", 1) for ln in done.stdout.splitlines())
        self.assertTrue(lines["plugin"].startswith("missing: irtk's pass "
                                                   "plugin not found"))
        self.assertIn(os.path.join(self.prefix, "lib", "IRTKPlugin.so"),
                      lines["plugin"])
        self.assertIn("--plugin or IRTK_PLUGIN", lines["plugin"])
        self.assertIn("IRTK_BUILD_DIR", lines["irtk-train"])
        self.assertTrue(lines["clang"].endswith("clang"))

    def test_finds_the_install_prefix(self):
        self.install(self.prefix, "lib")
        done = self.toolchain()
        lines = dict(ln.split(": ", 1) for ln in done.stdout.splitlines())
        self.assertEqual(lines["plugin"],
                         os.path.join(self.prefix, "lib", "IRTKPlugin.so"))
        self.assertEqual(lines["irtk-train"],
                         os.path.join(self.prefix, "bin", "irtk-train"))

    def test_finds_a_named_build_tree(self):
        build = self.tmp("build")
        self.install(build, "lib")
        done = self.toolchain(env={"IRTK_BUILD_DIR": build})
        lines = dict(ln.split(": ", 1) for ln in done.stdout.splitlines())
        self.assertEqual(lines["plugin"],
                         os.path.join(build, "lib", "IRTKPlugin.so"))
        done = self.toolchain("--irtk-build", build)
        self.assertIn(os.path.join(build, "bin", "irtk-train"), done.stdout)

    def test_a_named_piece_that_does_not_exist(self):
        done = self.toolchain("--plugin", self.tmp("nope.so"))
        self.assertIn("nope.so does not exist", done.stdout)


if __name__ == "__main__":
    unittest.main()
