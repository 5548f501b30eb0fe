# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.loadStore against llvm-ir2vec's own output: the rows of a store
(LLVM IR and machine IR) are the vectors of --format=jsonl rounded to
float32, in the same order, with the same sites; and every broken store is
a StoreError naming the file."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest

import numpy

import ir2vec
from common import IDS2D, SHARED_INPUTS, env_path

LOWER_LL = str(SHARED_INPUTS / "lower.ll")
CFG_LL = str(SHARED_INPUTS / "cfg.ll")
MIR_VOCAB = str(SHARED_INPUTS.parent.parent / "vocab" / "data" /
                "mir2vec-x86-64-75d.json")


def llvm_ir2vec(*args):
    p = subprocess.run([env_path("IRTK_LLVM_IR2VEC"), *args],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"llvm-ir2vec {' '.join(args)}: {p.stderr}")
    return p.stdout


class StoreTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def check_against_jsonl(self, args, kind):
        store = os.path.join(self.tmp, "store")
        llvm_ir2vec("embeddings", *args, "--format=npy", "-o", store)
        lines = [json.loads(l) for l in
                 llvm_ir2vec("embeddings", *args, "--format=jsonl").splitlines()]
        s = ir2vec.loadStore(store)
        self.assertEqual(s.kind, kind)
        self.assertEqual(len(s), len(lines))
        self.assertGreater(len(s), 0)
        for i, line in enumerate(lines):
            self.assertEqual(s.records[i]["function"], line["function"])
            self.assertEqual(s.records[i]["module"], line["module"])
            numpy.testing.assert_array_equal(
                s.vectors[i], numpy.array(line["embedding"], dtype=numpy.float32))
        return s

    def test_ir_store(self):
        s = self.check_against_jsonl(["--level=bb", LOWER_LL, CFG_LL],
                                     "symbolic")
        self.assertEqual(s.level, "bb")
        self.assertEqual(s.source, {})

    def test_mir_store(self):
        s = self.check_against_jsonl(
            ["--mode=mir", "--mtriple=x86_64-unknown-linux-gnu",
             "--stop-after=virtregrewriter", f"--mir2vec-vocab-path={MIR_VOCAB}",
             LOWER_LL, CFG_LL], "mir2vec-symbolic")
        self.assertEqual(s.dimension, 75)
        self.assertEqual(s.source["stop_after"], "virtregrewriter")
        self.assertEqual(s.source["target"], "x86_64-unknown-linux-gnu")
        self.assertEqual(s.rows(function="sum"), [0])
        self.assertEqual(s.rows(module=LOWER_LL), [0, 1])

    def test_module_stores(self):
        s = self.check_against_jsonl(["--level=module", LOWER_LL, CFG_LL],
                                     "symbolic")
        self.assertEqual(s.level, "module")
        self.assertEqual([(r["module"], r["function"]) for r in s.records],
                         [(LOWER_LL, ""), (CFG_LL, "")])
        s = self.check_against_jsonl(
            ["--mode=mir", "--level=module", "--mtriple=x86_64-unknown-linux-gnu",
             f"--mir2vec-vocab-path={MIR_VOCAB}", LOWER_LL, CFG_LL],
            "mir2vec-symbolic")
        self.assertEqual(s.level, "module")

    def test_write_store_at_the_module_level(self):
        # The Python writer (ir2vec.distributed's) writes llvm-ir2vec's rows.
        a, b = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        llvm_ir2vec("embeddings", "--format=npy", "--level=module", "-o", a,
                    f"--vocab={IDS2D}", CFG_LL, LOWER_LL)
        ir2vec._ir2vec.writeStore([CFG_LL, LOWER_LL], b, "sym",
                                  ir2vec.loadVocab(IDS2D), level="module")
        sa, sb = ir2vec.loadStore(a), ir2vec.loadStore(b)
        self.assertEqual(sb.level, "module")
        numpy.testing.assert_array_equal(sa.vectors, sb.vectors)
        self.assertEqual(sa.records, sb.records)

    def test_module_queries_are_irtk_similaritys(self):
        # Two copies of cfg.ll's name in other directories make "cfg.ll"
        # ambiguous; Store.moduleRows and topk(module=...) answer as
        # irtk-similarity topk --module does.
        for d, src in (("a", CFG_LL), ("b", LOWER_LL)):
            os.mkdir(os.path.join(self.tmp, d))
            shutil.copy(src, os.path.join(self.tmp, d, "cfg.ll"))
        a, b = (os.path.join(self.tmp, d, "cfg.ll") for d in "ab")
        store = os.path.join(self.tmp, "s")
        llvm_ir2vec("embeddings", "--format=npy", "--level=module", "-o", store,
                    f"--vocab={IDS2D}", CFG_LL, LOWER_LL, a, b)
        s = ir2vec.loadStore(store)
        self.assertEqual(s.moduleRows(CFG_LL), [0])
        self.assertEqual(s.moduleRows("a/cfg.ll"), [2])
        self.assertEqual(s.moduleRows("lower.ll"), [1])
        self.assertEqual(s.moduleRows("c/cfg.ll"), [])
        sim = env_path("IRTK_SIMILARITY")
        p = subprocess.run([sim, "topk", "--store", store, "--module", "cfg.ll"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        with self.assertRaises(ir2vec.StoreError) as e:
            s.moduleRows("cfg.ll")
        self.assertEqual(p.stderr, f"irtk-similarity: error: {e.exception}\n")
        for name in ("lower.ll", "b/cfg.ll"):
            with self.subTest(name):
                out = subprocess.run([sim, "topk", "--store", store, "--module",
                                      name, "-k", "3", "--format", "json"],
                                     capture_output=True, text=True, check=True)
                [res] = json.loads(out.stdout)["results"]
                [(query, found)] = s.topk(module=name, k=3)
                self.assertEqual(query, res["query"]["row"])
                self.assertEqual([r for r, _ in found],
                                 [n["row"] for n in res["neighbors"]])
        with self.assertRaisesRegex(ir2vec.StoreError,
                                    r"^module 'none\.ll' not found in store"):
            s.topk(module="none.ll")
        with self.assertRaisesRegex(ValueError, "exactly one of function, "
                                    "module and row"):
            s.topk(module="lower.ll", row=0)

    def test_sharded_store(self):
        # Two shards written by llvm-ir2vec and a manifest listing them read
        # as the store of both inputs, rows renumbered; bad manifests are
        # StoreErrors.
        m = os.path.join(self.tmp, "m")
        os.makedirs(os.path.join(m, "shards"))
        for name, f in (("a", LOWER_LL), ("b", CFG_LL)):
            llvm_ir2vec("embeddings", "--format=npy", "-o",
                        os.path.join(m, "shards", name), f)
        both = os.path.join(self.tmp, "both")
        llvm_ir2vec("embeddings", "--format=npy", "-o", both, LOWER_LL,
                    CFG_LL)
        with open(os.path.join(both, "store.json"), encoding="utf-8") as f:
            info = json.load(f)

        def manifest(shards, count=None):
            doc = dict(info, version=2, shards=[
                {"path": p, "count": n} for p, n in shards])
            doc["count"] = sum(n for _, n in shards) if count is None \
                else count
            with open(os.path.join(m, "store.json"), "w",
                      encoding="utf-8") as f:
                json.dump(doc, f)

        na = len(ir2vec.loadStore(os.path.join(m, "shards", "a")))
        nb = len(ir2vec.loadStore(os.path.join(m, "shards", "b")))
        manifest([("shards/a", na), ("shards/b", nb)])
        s, want = ir2vec.loadStore(m), ir2vec.loadStore(both)
        self.assertEqual(s.records, want.records)
        numpy.testing.assert_array_equal(s.vectors, want.vectors)
        self.assertEqual([(os.path.basename(p), first, n)
                          for p, first, n in s.shards],
                         [("a", 0, na), ("b", na, nb)])
        for shards, count, msg in (
                ([("shards/a", na + 1), ("shards/b", nb)], None,
                 f"rows, but {m}/store.json says {na + 1}"),
                ([("shards/a", na)], na + 1, "the shards hold"),
                ([("../both", na + nb)], None, "not a relative path inside"),
                ([("shards/a", na), (".", na)], None,
                 "a shard that is itself sharded")):
            manifest(shards, count)
            with self.assertRaisesRegex(ir2vec.StoreError, msg):
                ir2vec.loadStore(m)

    def test_a_shard_listed_twice_is_refused(self):
        # The same shard twice (count adjusted) used to read as two shards:
        # every row its own duplicate. Refused by path, by any spelling of
        # it, and by directory (a symbolic link to it).
        m = os.path.join(self.tmp, "m")
        a = os.path.join(m, "shards", "a")
        os.makedirs(os.path.dirname(a))
        llvm_ir2vec("embeddings", "--format=npy", "-o", a, LOWER_LL)
        os.symlink("a", os.path.join(m, "shards", "link"))
        with open(os.path.join(a, "store.json"), encoding="utf-8") as f:
            info = json.load(f)
        n = info["count"]
        info_path = os.path.join(m, "store.json")
        for second, msg in (
                ("shards/a", r"shard 1 \('shards/a'\) is shard 0 "
                             r"\('shards/a'\) again"),
                ("./shards//a/", r"shard 1 \('./shards//a/'\) is shard 0 "
                                 r"\('shards/a'\) again"),
                ("shards/link", r"shard 1 \('shards/link'\) is the "
                                r"directory of shard 0 \('shards/a'\)")):
            doc = dict(info, version=2, count=2 * n, shards=[
                {"path": "shards/a", "count": n},
                {"path": second, "count": n}])
            with open(info_path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            with self.assertRaisesRegex(ir2vec.StoreError,
                                        "^" + re.escape(info_path) + ": " +
                                        msg + "$"):
                ir2vec.loadStore(m)

    def test_errors(self):
        store = os.path.join(self.tmp, "store")
        llvm_ir2vec("embeddings", "--format=npy", "-o", store, LOWER_LL)
        with self.assertRaisesRegex(ir2vec.StoreError, "nowhere.*store.json"):
            ir2vec.loadStore(os.path.join(self.tmp, "nowhere"))
        with open(os.path.join(store, "index.jsonl"), "a") as f:
            f.write("{not json\n")
        with self.assertRaisesRegex(ir2vec.StoreError, r"index.jsonl:3:"):
            ir2vec.loadStore(store)
        with open(os.path.join(store, "index.jsonl"), "w") as f:
            f.write('{"row": 0}\n')
        with self.assertRaisesRegex(ir2vec.StoreError, "1 lines for 2 rows"):
            ir2vec.loadStore(store)
        info = os.path.join(store, "store.json")
        with open(info, "w") as f:
            f.write('{"format": "something else"}')
        with self.assertRaisesRegex(ir2vec.StoreError,
                                    "store.json: not a store description"):
            ir2vec.loadStore(store)


    def test_approximate_index(self):
        """Store.index writes an index beside the store; its results are the
        exact search's when every list is visited; a store written again
        refuses it; a truncated file is an error."""
        store = os.path.join(self.tmp, "store")
        llvm_ir2vec("embeddings", "--format=npy", "--level=inst", "-o", store,
                    LOWER_LL, CFG_LL)
        s = ir2vec.loadStore(store)
        i = s.index("ivf-flat", "euclidean", lists=1)
        self.assertEqual(i.path, os.path.join(store,
                                              "approx-ivf-flat-euclidean.index"))
        self.assertEqual(i.info["indexed"], len(s))
        exact = ir2vec._ir2vec.topK(s.vectors[:5], s._matrix(), 3, "euclidean")
        got = s.loadIndex(i.path).topk(s.vectors[:5], k=3, rerank=len(s))
        self.assertEqual(got, exact)
        self.assertEqual(i.topk(s.vectors[0], k=1)[0][0][1], 0.0)
        with self.assertRaisesRegex(ir2vec.StoreError, "--pq-bytes 7 does not "
                                    "divide the dimension 75"):
            s.index("ivf-pq", pqBytes=7)
        with open(i.path, "rb") as f:
            data = f.read()
        cut = os.path.join(self.tmp, "cut.index")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        with self.assertRaisesRegex(ir2vec.StoreError, "^" + re.escape(cut) +
                                    ": truncated or corrupt"):
            s.loadIndex(cut)
        # A path that is not UTF-8 is named in the error, escaped.
        odd = os.fsdecode(os.fsencode(self.tmp) + b"/no\xffpe.index")
        with self.assertRaisesRegex(ir2vec.StoreError,
                                    r"no\\xffpe\.index: cannot read"):
            s.loadIndex(odd)
        saved = os.path.join(self.tmp, "saved.index")
        shutil.copy(i.path, saved)
        llvm_ir2vec("embeddings", "--format=npy", "--level=inst",
                    "--ir2vec-arg-weight=2", "-o", store, LOWER_LL, CFG_LL)
        with self.assertRaisesRegex(ir2vec.StoreError,
                                    "built from other vectors"):
            ir2vec.loadStore(store).loadIndex(saved)

    def test_index_topk_checks_its_arguments(self):
        """Index.topk refuses what irtk-similarity topk refuses, with its
        messages, as ValueError: k from 1, nprobe, ef and rerank up to 2^20
        (0: the default), an excluded row of the store."""
        store = os.path.join(self.tmp, "store")
        llvm_ir2vec("embeddings", "--format=npy", "--level=inst", "-o", store,
                    CFG_LL)
        s = ir2vec.loadStore(store)
        i = s.index("ivf-flat", lists=1)
        q = s.vectors[0]
        for kwargs, message in [
                ({"k": 0}, "invalid k '0'; expected a number from 1 to "
                           "1000000"),
                ({"k": -3}, "invalid k '-3'"),
                ({"nprobe": -1}, "invalid nprobe '-1'; expected 0 (the "
                                 "index's default) or a number from 1 to "
                                 "1048576"),
                ({"nprobe": 2 ** 40}, f"invalid nprobe '{2 ** 40}'"),
                ({"ef": -5}, "invalid ef '-5'"),
                ({"rerank": 2 ** 21}, "invalid rerank"),
                ({"exclude": [len(s)]}, f"exclude: row {len(s)} out of range: "
                                        f"store {store} has {len(s)} rows"),
                ({"exclude": [-2]}, "exclude: row -2 out of range")]:
            with self.subTest(kwargs=kwargs):
                with self.assertRaises(ValueError) as e:
                    i.topk(q, **kwargs)
                self.assertIn(message, str(e.exception))
                self.assertNotIsInstance(e.exception, TypeError)
        self.assertEqual(len(i.topk(q, k=1, nprobe=1, exclude=[-1])[0]), 1)

    def test_unaligned_matrices_are_searched(self):
        """A float32 array whose data is not 4-byte aligned (numpy allows
        it) is searched as its aligned copy: the search loads floats from
        it, which must be aligned (the sanitized build checks)."""
        rng = numpy.random.default_rng(1)
        base = rng.standard_normal((50, 6)).astype(numpy.float32)
        raw = numpy.zeros(base.nbytes + 1, dtype=numpy.uint8)
        odd = raw[1:].view(numpy.float32).reshape(base.shape)
        odd[...] = base
        self.assertFalse(odd.flags.aligned)
        want = ir2vec._ir2vec.topK(base[:3], base, 4, "cosine")
        self.assertEqual(ir2vec._ir2vec.topK(odd[:3], odd, 4, "cosine"), want)
        index = ir2vec._ir2vec.ApproxIndex.build(odd, lists=1)
        self.assertEqual(index.search(odd[:3], odd, k=4), want)


class StoreSearchTest(unittest.TestCase):
    """Store.functionRows, topk, pairs and sizeRows: irtk-similarity's rules
    for function names and function sizes."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_function_by_qualified_name(self):
        clangxx = pathlib.Path(env_path("IRTK_LLVM_TOOLS_DIR")) / "clang++"
        if not clangxx.exists():
            self.skipTest(f"{clangxx} not found")
        ll = os.path.join(self.tmp, "q.ll")
        subprocess.run([str(clangxx), "-O0", "-S", "-emit-llvm", "-o", ll,
                        str(SHARED_INPUTS / "qualified.cpp")], check=True)
        store = os.path.join(self.tmp, "s")
        llvm_ir2vec("embeddings", "--format=npy", "-o", store, f"--vocab={IDS2D}",
                    ll)
        s = ir2vec.loadStore(store)
        self.assertEqual([r["function"] for r in s.records],
                         ["_ZNK3mup7OprtAdd4EvalEPKdi", "_ZN3mup5scaleEi",
                          "_ZN3mup5scaleEd"])
        self.assertEqual(s.functionRows("mup::OprtAdd::Eval"), [0])
        self.assertEqual(s.functionRows("mup::scale(double)"), [2])
        self.assertEqual(s.functionRows("_ZN3mup5scaleEi"), [1])
        self.assertEqual(s.functionRows("OprtAdd::Eval"), [])
        with self.assertRaises(ir2vec.StoreError) as e:
            s.functionRows("mup::scale")
        self.assertEqual(str(e.exception),
                         f"function 'mup::scale' matches 2 functions in store "
                         f"{store}: 'mup::scale(int)', 'mup::scale(double)'; "
                         f"name one by its full signature or symbol")
        [(query, found)] = s.topk("mup::OprtAdd::Eval", k=2)
        self.assertEqual(query, 0)
        self.assertEqual(sorted(r for r, _ in found), [1, 2])

    def test_size_filter(self):
        # The store of irtk-similarity/min-size.test: add (2 instructions,
        # 1 block), f (6, 4), _Z3addii (2, 1), _Z3addff (1, 1).
        store = os.path.join(self.tmp, "s")
        llvm_ir2vec("embeddings", "--format=npy", "-o", store,
                    f"--vocab={IDS2D}", "--ir2vec-type-weight=1",
                    "--ir2vec-arg-weight=1", CFG_LL,
                    str(SHARED_INPUTS / "mangled.ll"))
        s = ir2vec.loadStore(store)
        self.assertEqual([(r["instructions"], r["blocks"]) for r in s.records],
                         [(2, 1), (6, 4), (2, 1), (1, 1)])
        self.assertEqual(s.sizeRows(minInstructions=2), [0, 1, 2])
        self.assertEqual(s.sizeRows(minBlocks=2), [1])
        pairs = s.pairs(800, "euclidean", minInstructions=2)
        self.assertEqual([(a, b) for a, b, _ in pairs], [(0, 2), (0, 1), (1, 2)])
        self.assertAlmostEqual(pairs[1][2], 765.094112, places=6)
        self.assertEqual(len(s.pairs(800, "euclidean")), 5)
        [(query, found)] = s.topk(row=3, k=5, metric="euclidean",
                                  minInstructions=2)
        self.assertEqual((query, [r for r, _ in found]), (3, [0, 2, 1]))
        [(query, found)] = s.topk("add", k=5, metric="euclidean",
                                  minInstructions=2)
        self.assertEqual((query, [r for r, _ in found]), (0, [2, 1]))

        # A store written before sizes were recorded.
        index = os.path.join(store, "index.jsonl")
        with open(index, encoding="utf-8") as f:
            text = re.sub(r',"instructions":\d+,"blocks":\d+', "", f.read())
        with open(index, "w", encoding="utf-8") as f:
            f.write(text)
        old = ir2vec.loadStore(store)
        self.assertEqual(len(old.pairs(800, "euclidean")), 5)
        with self.assertRaises(ir2vec.StoreError) as e:
            old.pairs(800, "euclidean", minInstructions=2)
        self.assertEqual(str(e.exception),
                         f"{store}: row 0 records no function size (the store "
                         f"was written before irtk recorded sizes); write it "
                         f"again to filter by size")

    def test_vocabulary_hash(self):
        # The same vocabulary under two paths, written by llvm-ir2vec and by
        # the Python writer (ir2vec.distributed's), has one hash.
        copy = os.path.join(self.tmp, "copy.json")
        shutil.copy(IDS2D, copy)
        a, b = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        llvm_ir2vec("embeddings", "--format=npy", "-o", a, f"--vocab={IDS2D}",
                    CFG_LL)
        ir2vec._ir2vec.writeStore([CFG_LL], b, "sym",
                                  ir2vec.loadVocab(copy))
        ha = ir2vec.loadStore(a).info["vocabulary_hash"]
        self.assertRegex(ha, r"^xxh3:[0-9a-f]{16}$")
        self.assertEqual(ir2vec.loadStore(b).info["vocabulary_hash"], ha)
        self.assertNotEqual(ir2vec.loadStore(b).info["vocabulary"],
                            ir2vec.loadStore(a).info["vocabulary"])


if __name__ == "__main__":
    unittest.main()
