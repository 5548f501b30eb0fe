#!/usr/bin/env python3
# ===- recipelib_test.py - Tests of advisors/recipe/recipelib.py ----------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""The recipes' shared library on a fake compiler (a shell script that logs
its item, and sleeps or fails for some): a timeout fails its item only, a
rerun replays the records and compiles nothing, a rerun with other
parameters is refused, and a failure leaves no partial record."""

import functools
import importlib.util
import json
import os
import shutil
import stat
import sys
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "advisors", "recipe"))
import recipelib  # noqa: E402

# fake-cc ITEM LOG CALLS: appends ITEM to CALLS; "slow" sleeps past any
# timeout here, "bad" writes half a log and fails, others write a log.
FAKE_CC = """#!/bin/sh
echo "$1" >> "$3"
case $1 in
slow) exec sleep 60 ;;
bad) printf half > "$2"; exit 1 ;;
esac
printf 'log of %s\\n' "$1" > "$2"
"""
ITEMS = ["a", "slow", "b", "bad", "c"]


def compile_item(work, timeout, item):
    """A recipe's whole per-item logic: one recorded compile, measured. Only
    the slow item gets the short timeout: the others must not depend on how
    loaded the machine is."""
    if item != "slow":
        timeout = 60
    base = os.path.join(work, "out", "runs", item)
    done = recipelib.compile_recorded(
        base, lambda tmp: [os.path.join(work, "fake-cc"), item, tmp[".log"],
                           os.path.join(work, "calls")],
        products=(".log",),
        measure=lambda tmp: os.path.getsize(tmp[".log"]), timeout=timeout)
    return done.value if done.ok else None


def parse_item(item):
    if item == "b":
        raise ValueError("records that make no sense")
    return item.upper()


class RecipeLibTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="recipelib-test.")
        self.out = os.path.join(self.work, "out")
        self.write_compiler()

    def write_compiler(self):
        cc = os.path.join(self.work, "fake-cc")
        with open(cc, "w") as f:
            f.write(FAKE_CC)
        os.chmod(cc, os.stat(cc).st_mode | stat.S_IXUSR)

    def tearDown(self):
        shutil.rmtree(self.work)

    def calls(self):
        path = os.path.join(self.work, "calls")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return sorted(f.read().split())

    def read(self, name):
        with open(os.path.join(self.out, "runs", name)) as f:
            return f.read()

    def leftovers(self):
        return sorted(n for n in os.listdir(os.path.join(self.out, "runs"))
                      if n.endswith(".tmp"))

    def search(self, params=None, jobs=2, client=None, timeout=1):
        return recipelib.map_resumable(
            functools.partial(compile_item, self.work, timeout), ITEMS,
            self.out, params, jobs, client)

    def test_timeout_fails_its_item_only(self):
        got = self.search()
        self.assertEqual(got, {"a": 9, "slow": None, "b": 9, "bad": None,
                               "c": 9})
        self.assertEqual(self.read("a.status"), "ok 9\n")
        self.assertEqual(self.read("a.log"), "log of a\n")
        self.assertEqual(self.read("slow.status"), "failed 0\n")
        self.assertFalse(os.path.exists(
            os.path.join(self.out, "runs", "slow.log")))

    def test_rerun_skips_recorded_items(self):
        first = self.search(params={"teachers": [0, 225]})
        self.assertEqual(self.calls(), sorted(ITEMS))
        # A compiler that cannot even start would fail every item: none is
        # started, the records answer.
        os.remove(os.path.join(self.work, "fake-cc"))
        again = self.search(params={"teachers": [0, 225]})
        self.assertEqual(again, first)
        self.assertEqual(self.calls(), sorted(ITEMS))
        # A lost record is the only work a rerun does.
        os.remove(os.path.join(self.out, "runs", "c.status"))
        self.write_compiler()
        self.assertEqual(self.search(params={"teachers": [0, 225]}), first)
        self.assertEqual(self.calls(), sorted(ITEMS + ["c"]))

    def test_rerun_with_other_parameters_is_refused(self):
        self.search(params={"teachers": [0, 225], "margin": 1})
        with open(os.path.join(self.out, "search.json")) as f:
            self.assertEqual(json.load(f), {"teachers": [0, 225],
                                            "margin": 1})
        with self.assertRaises(SystemExit) as e:
            self.search(params={"teachers": [0], "margin": 1})
        self.assertIn("search.json: the records in", str(e.exception))
        self.assertIn("use another --out", str(e.exception))
        self.assertEqual(self.calls(), sorted(ITEMS))  # nothing compiled

    def test_records_are_atomic(self):
        self.search()
        # A compile that fails half-way leaves its status only.
        self.assertEqual(self.read("bad.status"), "failed 0\n")
        self.assertFalse(os.path.exists(
            os.path.join(self.out, "runs", "bad.log")))
        self.assertEqual(self.leftovers(), [])
        # A write that fails leaves the old file whole and no temporary.
        path = os.path.join(self.out, "record.txt")
        recipelib.write_file(path, "old\n")
        with self.assertRaises(UnicodeEncodeError):
            recipelib.write_file(path, "new\n\ud800 cannot be encoded\n")
        with open(path) as f:
            self.assertEqual(f.read(), "old\n")
        self.assertFalse(os.path.exists(path + ".tmp"))
        fresh = os.path.join(self.out, "fresh", "record.txt")
        with self.assertRaises(UnicodeEncodeError):
            recipelib.write_file(fresh, "\ud800")
        self.assertEqual(os.listdir(os.path.dirname(fresh)), [])

    def test_unmeasured_records(self):
        # evict-search's records: no measurement, "ok" / "failed".
        done = recipelib.compile_recorded(
            os.path.join(self.out, "runs", "x"),
            lambda tmp: ["sh", "-c", "echo x > " + tmp[".log"]],
            products=(".log",))
        self.assertEqual((done.ok, done.value), (True, None))
        self.assertEqual(self.read("x.status"), "ok\n")
        done = recipelib.compile_recorded(
            os.path.join(self.out, "runs", "y"), lambda tmp: ["false"],
            products=(".log",))
        self.assertFalse(done.ok)
        self.assertEqual(self.read("y.status"), "failed\n")
        self.assertTrue(recipelib.recorded(
            os.path.join(self.out, "runs", "y")))

    def test_an_item_whose_records_make_no_sense_fails_alone(self):
        for jobs in (1, 2):
            self.assertEqual(recipelib.parallel_map(parse_item, "abc", jobs),
                             {"a": "A", "b": None, "c": "C"})

    def test_any_executor_as_client(self):
        with ThreadPoolExecutor(2) as pool:
            got = self.search(client=pool)
        self.assertEqual(got["slow"], None)
        self.assertEqual(got["c"], 9)

    def test_dask_client(self):
        if importlib.util.find_spec("distributed") is None:
            self.skipTest("no Dask (python3-distributed)")
        try:
            recipelib.ir2vec_distributed()
        except ImportError as e:  # a build without the ir2vec module
            self.skipTest(f"no ir2vec.distributed: {e}")
        with recipelib.dask_client(workers=1) as client:
            got = self.search(client=client)
        self.assertEqual(got, {"a": 9, "slow": None, "b": 9, "bad": None,
                               "c": 9})

    def test_corpus_modules(self):
        corpus = os.path.join(self.work, "corpus")
        os.makedirs(corpus)
        with open(os.path.join(corpus, "corpus_description.json"), "w") as f:
            json.dump({"modules": ["O2/q/m", "O3/p/m", "O2/p/b", "O2/p/a",
                                   "O2/r/m"]}, f)
        self.assertEqual(recipelib.corpus_modules(corpus, 2),
                         ["O2/p/a", "O2/q/m", "O3/p/m"])
        self.assertEqual(recipelib.corpus_modules(
            corpus, 1, ["O2"], [""], ["r"]), ["O2/p/a", "O2/p/b", "O2/q/m"])
        self.assertEqual(recipelib.corpus_modules(
            corpus, 1, ["O2", "O3"], ["p"], []),
            ["O2/p/a", "O2/p/b", "O3/p/m"])


if __name__ == "__main__":
    unittest.main()
