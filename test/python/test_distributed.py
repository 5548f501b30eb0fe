# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.distributed on a local Dask cluster of two worker processes on
127.0.0.1: the sharded store against one `llvm-ir2vec --format=npy` run, bit
for bit (merged, and read as one store by irtk-similarity and
ir2vec.loadStore); a worker killed mid-task; an interrupted run resumed; a
corrupt module recorded; top-k and pairs on the cluster against
irtk-similarity; collect."""

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy

import ir2vec
from common import SHARED_INPUTS, SOURCE_ROOT, env_path

try:
    from distributed import Client, LocalCluster
except ImportError:  # pragma: no cover
    Client = None

IDS2D = str(SHARED_INPUTS / "ids2d.json")
MALFORMED = str(SHARED_INPUTS / "malformed.ll")


def corpus():
    """Every .ll file of the test tree, valid or not, in sorted order."""
    files = sorted(glob.glob(str(SOURCE_ROOT / "test" / "**" / "*.ll"),
                             recursive=True))
    return [f for f in files if "/fuzz/" not in f]


def run(*args, check=None):
    p = subprocess.run(list(args), capture_output=True, text=True,
                       errors="surrogateescape")
    if check is not None and p.returncode != check:
        raise AssertionError(f"{' '.join(args)}: exit {p.returncode}\n"
                             f"{p.stderr}")
    return p


def distributed(*args):
    return [sys.executable, "-m", "ir2vec.distributed", *args]


def read(path):
    with open(path, "rb") as f:
        return f.read()


def info_without_tool(store):
    with open(os.path.join(store, "store.json"), encoding="utf-8") as f:
        info = json.load(f)
    info.pop("tool")
    return info


@unittest.skipIf(Client is None, "python3-distributed is not installed")
class DistributedTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import logging
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1,
                                   processes=True, host="127.0.0.1",
                                   dashboard_address=None,
                                   silence_logs=logging.CRITICAL)
        cls.client = Client(cls.cluster)
        cls.address = cls.cluster.scheduler_address
        assert cls.address.startswith("tcp://127.0.0.1:"), cls.address
        cls.inputs = corpus()
        assert MALFORMED in cls.inputs and len(cls.inputs) > 20
        cls.tmp = tempfile.mkdtemp()
        # The reference: one llvm-ir2vec run over the same inputs (some of
        # them fail, so it exits 1 and writes the others' rows).
        cls.ref = os.path.join(cls.tmp, "ref")
        cls.ref_run = run(env_path("IRTK_LLVM_IR2VEC"), "embeddings",
                          "--format=npy", "-o", cls.ref,
                          f"--ir2vec-vocab-path={IDS2D}", *cls.inputs,
                          check=1)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        shutil.rmtree(cls.tmp)

    def embed(self, out, *extra, inputs=None, check=None):
        return run(*distributed("embed", "--scheduler", self.address, "-o",
                                out, f"--vocab={IDS2D}", "--task-bytes=3000",
                                *extra, *(inputs or self.inputs)),
                   check=check)

    def assertSameAsReference(self, sharded, ref=None):
        ref = ref or self.ref
        merged = sharded + ".merged"
        run(*distributed("merge", sharded, merged), check=0)
        for name in ("embeddings.npy", "index.jsonl"):
            self.assertEqual(read(os.path.join(merged, name)),
                             read(os.path.join(ref, name)), name)
        self.assertEqual(info_without_tool(merged), info_without_tool(ref))
        # Read as one store, without merging.
        s, r = ir2vec.loadStore(sharded), ir2vec.loadStore(ref)
        self.assertGreater(len(s.shards), 1)
        self.assertTrue(numpy.array_equal(s.vectors, r.vectors))
        self.assertEqual(s.records, r.records)
        shutil.rmtree(merged)

    def test_sharded_store_is_the_cli_store(self):
        out = os.path.join(self.tmp, "sharded")
        p = self.embed(out, check=1)
        self.assertSameAsReference(out)
        # A corrupt module is a recorded failure with llvm-ir2vec's message,
        # in a shard of its own (3000 bytes per task) that has no rows.
        with open(os.path.join(out, "failures.jsonl"), encoding="utf-8",
                  errors="surrogateescape") as f:
            failures = [json.loads(line) for line in f]
        by_input = {f["input"]: f["error"] for f in failures}
        self.assertIn(MALFORMED, by_input)
        for err in by_input.values():
            self.assertIn(f"llvm-ir2vec: error: {err}", self.ref_run.stderr)
            self.assertIn(err, p.stderr)
        # llvm-ir2vec's last line counts them.
        self.assertEqual(len(failures) + 1,
                         self.ref_run.stderr.count(" error: "))
        self.assertIn(f"{len(failures)} of {len(self.inputs)} inputs failed",
                      p.stderr)
        with open(os.path.join(out, "store.json"), encoding="utf-8") as f:
            info = json.load(f)
        self.assertEqual(info["version"], 2)
        # irtk-similarity reads it as one store: the same answers as on the
        # reference store, row numbers included.
        sim = env_path("IRTK_SIMILARITY")
        for cmd in (["topk", "--function", "add", "-k", "5"],
                    ["topk", "--row", "7", "-k", "4", "--metric",
                     "euclidean"],
                    ["pairs", "--threshold", "0.999"],
                    # Functions of at least 3 instructions and 2 blocks.
                    ["topk", "--function", "add", "-k", "5",
                     "--min-instructions", "3"],
                    ["pairs", "--threshold", "0.999", "--min-instructions",
                     "3", "--min-blocks", "2"]):
            a = run(sim, *cmd, "--store", out, "--format", "json", check=0)
            b = run(sim, *cmd, "--store", self.ref, "--format", "json",
                    check=0)
            self.assertEqual(a.stdout.replace(json.dumps(out), '"S"'),
                             b.stdout.replace(json.dumps(self.ref), '"S"'))
            # ... and so does the cluster, per shard and merged.
            c = run(*distributed(*cmd, "--store", out, "--scheduler",
                                 self.address), check=0)
            doc, want = json.loads(c.stdout), json.loads(a.stdout)
            self.assertEqual(doc, want)

    def test_shard_indexes(self):
        """An index per shard, built on the cluster; with one list each,
        topk --index is the exact search; a shard written again refuses
        its old index."""
        out = os.path.join(self.tmp, "indexed")
        self.embed(out, check=1)
        p = run(*distributed("index", "--store", out, "--lists", "1",
                             "--metric", "euclidean", "--scheduler",
                             self.address), check=0)
        built = json.loads(p.stdout)["indexes"]
        s = ir2vec.loadStore(out)
        self.assertEqual(len(built), sum(1 for sh in s.shards if sh[2]))
        self.assertEqual(sum(b["indexed"] for b in built), len(s))
        cmd = ["topk", "--row", "7", "-k", "4", "--metric", "euclidean",
               "--store", out, "--scheduler", self.address]
        exact = json.loads(run(*distributed(*cmd), check=0).stdout)
        approx = json.loads(run(*distributed(*cmd, "--index", "ivf-flat",
                                             "--rerank", "1000"),
                                check=0).stdout)
        self.assertEqual(approx, exact)
        # A rerun keeps the valid indexes.
        p = run(*distributed("index", "--store", out, "--lists", "1",
                             "--metric", "euclidean", "--scheduler",
                             self.address), check=0)
        self.assertTrue(all(b["skipped"] for b in json.loads(p.stdout)[
            "indexes"]))
        # Another shard's index in a shard's place is refused.
        a, b = [sh[0] for sh in s.shards if sh[2]][:2]
        shutil.copy(os.path.join(a, "approx-ivf-flat-euclidean.index"),
                    os.path.join(b, "approx-ivf-flat-euclidean.index"))
        p = run(*distributed(*cmd, "--index", "ivf-flat"), check=1)
        self.assertRegex(p.stderr, "error: .*approx-ivf-flat-euclidean.index: "
                                   "an index of a store of|built from other")

    def test_corrupt_module_alone(self):
        # One input per task: the corrupt module's shard has no rows and
        # is still a shard; the store is the CLI's.
        inputs = [str(SHARED_INPUTS / "cfg.ll"), MALFORMED,
                  str(SHARED_INPUTS / "mangled.ll")]
        ref = os.path.join(self.tmp, "corrupt-ref")
        run(env_path("IRTK_LLVM_IR2VEC"), "embeddings", "--format=npy", "-o",
            ref, f"--ir2vec-vocab-path={IDS2D}", *inputs, check=1)
        out = os.path.join(self.tmp, "corrupt")
        self.embed(out, "--task-bytes=1", inputs=inputs, check=1)
        with open(os.path.join(out, "store.json"), encoding="utf-8") as f:
            counts = [s["count"] for s in json.load(f)["shards"]]
        self.assertEqual(counts, [2, 0, 2])
        self.assertSameAsReference(out, ref)
        # Nothing but corrupt modules: no store, as llvm-ir2vec, and no
        # plan or shard left behind.
        out = os.path.join(self.tmp, "all-corrupt")
        p = self.embed(out, inputs=[MALFORMED], check=1)
        self.assertIn("every input failed; no store written", p.stderr)
        self.assertFalse(os.path.exists(out))

    def test_flow_aware_blocks(self):
        out = os.path.join(self.tmp, "bb")
        ref = os.path.join(self.tmp, "bb-ref")
        inputs = [f for f in self.inputs if f != MALFORMED][:12]
        opts = ["--level=bb", "--ir2vec-kind=flow-aware",
                "--ir2vec-type-weight=1", "--ir2vec-arg-weight=0.3"]
        want = run(env_path("IRTK_LLVM_IR2VEC"), "embeddings",
                   "--format=npy", "-o", ref, f"--ir2vec-vocab-path={IDS2D}",
                   *opts, *inputs).returncode
        self.embed(out, *opts, inputs=inputs, check=want)
        self.assertSameAsReference(out, ref)

    def worker_pids(self):
        return self.client.run(os.getpid)

    def wait_for_workers(self, n=2, timeout=60):
        deadline = time.monotonic() + timeout
        while len(self.client.scheduler_info()["workers"]) < n:
            self.assertLess(time.monotonic(), deadline, "workers lost")
            time.sleep(0.2)

    def start_slow_embed(self, out, delay):
        """embed in the background, each task waiting delay seconds with its
        shard written but not yet renamed into place."""
        return subprocess.Popen(
            distributed("embed", "--scheduler", self.address, "-o", out,
                        f"--vocab={IDS2D}", "--task-bytes=3000",
                        f"--delay-tasks={delay}", *self.inputs),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_killed_worker(self):
        self.wait_for_workers()
        out = os.path.join(self.tmp, "killed")
        proc = self.start_slow_embed(out, 0.7)
        # Kill a worker while it holds a task whose shard is written but not
        # yet in place.
        victim = None
        deadline = time.monotonic() + 60
        while victim is None:
            self.assertLess(time.monotonic(), deadline)
            busy = [w for w, keys in self.client.processing().items()
                    if any(str(k).startswith("irtk-embed-") for k in keys)]
            if busy and glob.glob(os.path.join(out, "shards", "*.tmp-*")):
                victim = busy[0]
            else:
                time.sleep(0.05)
        pid = self.worker_pids()[victim]
        os.kill(pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
        self.assertEqual(proc.returncode, 1, err)  # malformed.ll etc.
        self.assertEqual(glob.glob(os.path.join(out, "shards", "*.tmp-*")),
                         [])
        self.assertSameAsReference(out)
        self.wait_for_workers()
        self.assertNotIn(pid, self.worker_pids().values())

    def test_interrupt_and_resume(self):
        self.wait_for_workers()
        out = os.path.join(self.tmp, "resumed")
        proc = self.start_slow_embed(out, 0.4)
        shards = os.path.join(out, "shards")
        deadline = time.monotonic() + 60
        while not glob.glob(os.path.join(shards, "*", "inputs.jsonl")):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("run the same command again to resume", err)
        # Not a store yet: no manifest; what is there is complete shards.
        self.assertFalse(os.path.exists(os.path.join(out, "store.json")))
        with self.assertRaises(ir2vec.StoreError):
            ir2vec.loadStore(out)
        self.assertNotEqual(run(env_path("IRTK_SIMILARITY"), "pairs",
                                "--store", out, "--threshold", "1")
                            .returncode, 0)
        time.sleep(1.5)  # tasks that were running when it stopped end
        complete = {d: os.stat(d).st_ino for d in
                    (os.path.dirname(p) for p in glob.glob(
                        os.path.join(shards, "*", "inputs.jsonl")))}
        with open(os.path.join(out, "plan.json"), encoding="utf-8") as f:
            plan = json.load(f)
        self.assertLess(len(complete), len(plan["tasks"]))
        p = self.embed(out, check=1)
        self.assertIn(f"resuming: {len(complete)} shards complete", p.stderr)
        for d, ino in complete.items():
            self.assertEqual(os.stat(d).st_ino, ino, d)
        self.assertSameAsReference(out)
        # Another plan in the same directory is refused.
        p = self.embed(out, "--level=bb", check=1)
        self.assertIn("holds a run of other inputs", p.stderr)

    def test_collect(self):
        out = os.path.join(self.tmp, "collect")
        inputs = self.inputs[:5]
        run(*distributed("collect", "--scheduler", self.address, "-o", out,
                         "--task-bytes=3000", "--command",
                         "wc -c < {input} | awk '{print $1}' > {out}/size "
                         "&& test {name} != cfg.ll", *inputs), check=1)
        with open(os.path.join(out, "results.jsonl"), encoding="utf-8") as f:
            results = [json.loads(line) for line in f]
        self.assertEqual([r["input"] for r in results], inputs)
        for r in results:
            size = [v for k, v in r["files"].items()
                    if k.endswith("/size")]
            self.assertEqual(len(size), 1)
            path = os.path.join(out, [k for k in r["files"]
                                      if k.endswith("/size")][0])
            with open(path, encoding="utf-8") as f:
                self.assertEqual(int(f.read()), os.path.getsize(r["input"]))
            self.assertEqual(r["status"] != 0,
                             os.path.basename(r["input"]) == "cfg.ll")


class EmbedInputsTest(unittest.TestCase):
    """embed's inputs are checked before anything is written and before a
    cluster starts (so without python3-distributed too)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def embed(self, *inputs):
        # A timeout: a named pipe as an input used to block its task for
        # ever.
        return subprocess.run(
            distributed("embed", "-o", self.out, "--workers=1",
                        f"--vocab={IDS2D}", *inputs),
            capture_output=True, text=True, errors="surrogateescape",
            timeout=120)

    def test_a_named_pipe_is_refused(self):
        fifo = os.path.join(self.tmp, "pipe.ll")
        os.mkfifo(fifo)
        p = self.embed(str(SHARED_INPUTS / "cfg.ll"), fifo)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"python3 -m ir2vec.distributed: error: "
                                   f"{fifo}: not a regular file; expected an "
                                   f"IR or bitcode file\n")
        self.assertFalse(os.path.exists(self.out))

    def test_every_input_missing_leaves_no_output(self):
        missing = os.path.join(self.tmp, "missing.ll")
        p = self.embed(missing)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"python3 -m ir2vec.distributed: error: "
                                   f"{missing}: No such file or directory; "
                                   f"no store written\n")
        self.assertFalse(os.path.exists(self.out))
        p = self.embed(missing, missing + "2")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"python3 -m ir2vec.distributed: error: "
                                   f"none of the 2 inputs can be read "
                                   f"({missing}: No such file or directory); "
                                   f"no store written\n")
        self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    unittest.main()
