# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python3 -m ir2vec.mlgo extract: on a tiny CMake project built with
clang-22 and -Xclang -fembed-bitcode=all, the corpus from its
compile_commands.json and the one from its objects are corpora Corpus
reads, with the same modules holding the same pre-optimisation IR, each of
which clang-22 -Oz -c compiles; a broken command is reported and skipped;
bad input is a one-line error naming the file; nothing is overwritten."""

import json
import os
import shlex
import shutil
import subprocess
import sys
import unittest

import fixtures
from ir2vec.mlgo.corpus import Corpus

DIS = os.path.join(fixtures.LLVM_BIN, "llvm-dis")
FILES = {
    "CMakeLists.txt": """cmake_minimum_required(VERSION 3.16)
project(demo C)
add_library(demo STATIC src/a.c src/b.c)
target_include_directories(demo PUBLIC include)
target_compile_definitions(demo PRIVATE SCALE=3)
add_executable(app src/main.c)
target_link_libraries(app demo)
""",
    "include/demo.h": "int scaled(int x);\nint twice(int x);\n",
    "src/a.c": """#include "demo.h"
static int sq(int x) { return x * x; }
int scaled(int x) { return SCALE * sq(x) + twice(x); }
""",
    "src/b.c": """#include "demo.h"
int twice(int x) { return 2 * x; }
""",
    "src/main.c": """#include <stdio.h>
#include "demo.h"
int main(int argc, char **argv) { printf("%d\\n", scaled(argc)); return 0; }
""",
}
MODULES = ["CMakeFiles/app.dir/src/main.c.o", "CMakeFiles/demo.dir/src/a.c.o",
           "CMakeFiles/demo.dir/src/b.c.o"]


def extract(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ir2vec.mlgo", "extract",
                           "--workers", "2"] + list(args),
                          capture_output=True, text=True, cwd=cwd)


class ExtractTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = fixtures.TempDir()
        src = cls.tmp("project")
        for rel, text in FILES.items():
            path = os.path.join(src, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        cls.build = cls.tmp("build")
        subprocess.run(
            ["cmake", "-S", src, "-B", cls.build, "-G", "Ninja",
             "-DCMAKE_C_COMPILER=" + fixtures.CLANG,
             "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DCMAKE_BUILD_TYPE=",
             "-DCMAKE_C_FLAGS=-Oz -Xclang -fembed-bitcode=all"],
            check=True, capture_output=True)
        subprocess.run(["cmake", "--build", cls.build], check=True,
                       capture_output=True)
        cls.db = os.path.join(cls.build, "compile_commands.json")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def ir(self, bc):
        text = subprocess.run([DIS, bc, "-o", "-"], capture_output=True,
                              text=True, check=True).stdout
        return text.split("\n", 1)[1]  # without the ModuleID line

    def check_corpus(self, out):
        c = Corpus(out)
        self.assertEqual(c.modules, MODULES)
        for m in c:
            done = subprocess.run([fixtures.CLANG, "-Oz", "-c", c.bitcode(m),
                                   "-o", self.tmp("check.o")],
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(out, "extract.json")) as f:
            self.assertEqual(json.load(f)["modules"], len(MODULES))
        return c

    def test_both_ways_give_the_same_corpus(self):
        a = self.tmp("from-commands")
        done = extract("--compile-commands", self.db, "--out", a)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"{a}: 3 of 3 modules", done.stdout)
        b = self.tmp("from-objects")
        done = extract("--objects", self.build, "--out", b)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("warning", done.stderr)
        ca, cb = self.check_corpus(a), self.check_corpus(b)
        for m in MODULES:
            # Pre-optimisation IR both ways: sq is still called in a.c.
            ir = self.ir(ca.bitcode(m))
            self.assertEqual(ir, self.ir(cb.bitcode(m)), m)
        self.assertIn("call i32 @sq", self.ir(ca.bitcode(MODULES[1])))
        # .cmd: the flags without action, input and output (commands), or
        # the cc1 command line (objects).
        flags = ca.command(MODULES[1])
        self.assertIn("-DSCALE=3", flags)
        self.assertIn("-Oz", flags)
        for gone in ("-c", "-o", "-Xclang"):
            self.assertNotIn(gone, flags)
        self.assertFalse(any(f.endswith("a.c") for f in flags))
        self.assertEqual(cb.command(MODULES[1])[0], "-cc1")

    def test_prefix(self):
        out = self.tmp("prefixed")
        done = extract("--compile-commands", self.db, "--out", out,
                       "--prefix", "Oz-preopt/demo")
        self.assertEqual(done.returncode, 0, done.stderr)
        c = Corpus(out)
        self.assertEqual(c.packages(), {"demo": ["Oz-preopt/demo/" + m
                                                 for m in MODULES]})

    def test_arguments_form_and_a_broken_command(self):
        with open(self.db) as f:
            db = json.load(f)
        # CMake writes "command"; the "arguments" form (Bear and others),
        # with the dependency-file flags a Makefile build adds: the
        # recompile must not write them beside the build.
        for e in db:
            if "command" in e:
                args = shlex.split(e.pop("command"))
                obj = args[args.index("-o") + 1]
                e["arguments"] = args + ["-MD", "-MT", obj, "-MF",
                                         obj + ".d"]
        self.assertTrue(all("arguments" in e for e in db))
        broken = dict(db[0], file="missing.c", arguments=[
            a.replace(db[0]["file"], "missing.c").replace(".c.o",
                                                          "-missing.o")
            for a in db[0]["arguments"]])
        broken.pop("output", None)
        db.append(broken)
        db.append({"directory": self.build, "file": "x.c"})
        path = self.tmp("broken.json")
        with open(path, "w") as f:
            json.dump(db, f)
        out = self.tmp("broken-out")
        done = extract("--compile-commands", path, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("3 of 5 modules, 2 failed", done.stdout)
        errors = [ln for ln in done.stderr.splitlines() if "error:" in ln]
        self.assertEqual(len(errors), 2, done.stderr)
        self.assertIn("missing.c", errors[0] + errors[1])
        self.assertIn("entry 4: has neither 'arguments'", done.stderr)
        self.check_corpus(out)
        with open(os.path.join(out, "extract.json")) as f:
            self.assertEqual(len(json.load(f)["failed"]), 2)
        for m in MODULES:
            self.assertFalse(os.path.exists(os.path.join(self.build,
                                                         m + ".d")), m)

    def test_post_optimisation_bitcode_is_flagged(self):
        objs = self.tmp("driver-embed")
        os.makedirs(objs)
        src = os.path.join(self.tmp("project"), "src", "b.c")
        subprocess.run([fixtures.CLANG, "-Oz", "-fembed-bitcode=all", "-c",
                        src, "-I", self.tmp("project", "include"), "-o",
                        os.path.join(objs, "b.o")], check=True)
        done = extract("--objects", os.path.join(objs, "b.o"), "--out",
                       self.tmp("driver-out"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("post-optimisation", done.stderr)

    def test_bad_input(self):
        def one_line_error(done, name):
            self.assertEqual(done.returncode, 1, done.stderr)
            lines = done.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, done.stderr)
            self.assertIn(name, lines[0])

        missing = self.tmp("nope.json")
        one_line_error(extract("--compile-commands", missing, "--out",
                               self.tmp("o1")), missing)
        notjson = self.tmp("notjson.json")
        with open(notjson, "w") as f:
            f.write("{not json")
        one_line_error(extract("--compile-commands", notjson, "--out",
                               self.tmp("o2")), notjson)
        notlist = self.tmp("notlist.json")
        with open(notlist, "w") as f:
            f.write("{}")
        one_line_error(extract("--compile-commands", notlist, "--out",
                               self.tmp("o3")), notlist)
        one_line_error(extract("--objects", missing, "--out",
                               self.tmp("o4")), missing)
        for o in ("o1", "o2", "o3", "o4"):
            self.assertFalse(os.path.exists(self.tmp(o)))
        # No module at all: nothing written, exit 1.
        src = self.tmp("project", "src", "a.c")
        objs = self.tmp("plain")
        os.makedirs(objs)
        subprocess.run([fixtures.CLANG, "-c", src, "-I",
                        self.tmp("project", "include"), "-DSCALE=1", "-o",
                        os.path.join(objs, "a.o")], check=True)
        done = extract("--objects", objs, "--out", self.tmp("o5"))
        self.assertEqual(done.returncode, 1)
        self.assertIn("no module extracted", done.stderr)
        self.assertIn("a.o", done.stderr)
        self.assertFalse(os.path.exists(self.tmp("o5")))

    def test_never_overwrites(self):
        # An existing, non-empty output (here: the build directory itself)
        # is refused and left as it was.
        before = sorted(os.listdir(self.build))
        done = extract("--compile-commands", self.db, "--out", self.build)
        self.assertEqual(done.returncode, 1)
        self.assertIn("not an empty directory", done.stderr)
        self.assertEqual(sorted(os.listdir(self.build)), before)
        # The build's own files are untouched by the recompile, and it
        # writes none beside them.
        obj = os.path.join(self.build, MODULES[1])
        stamp = os.stat(obj).st_mtime_ns
        self.assertFalse(os.path.exists(obj + ".d"))
        done = extract("--compile-commands", self.db, "--out",
                       self.tmp("again"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(os.stat(obj).st_mtime_ns, stamp)
        self.assertFalse(os.path.exists(obj + ".d"))
        self.assertEqual(sorted(os.listdir(self.build)), before)
        # An empty directory is a fine output.
        empty = self.tmp("empty")
        os.makedirs(empty)
        done = extract("--compile-commands", self.db, "--out", empty)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(len(Corpus(empty)), 3)
        shutil.rmtree(empty)


if __name__ == "__main__":
    unittest.main()
