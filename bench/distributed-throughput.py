#!/usr/bin/env python3
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Throughput of ir2vec.distributed against the single-process CLI.

Usage: /usr/bin/python3 bench/distributed-throughput.py [--runs N]

On the benchmark corpus (bench/work/bench, the MLGO corpus bench/run.sh
builds: 410 modules, 9.2 MB of bitcode) with the benchmark vocabulary
(bench/work/vocab75.json), at func level, each the median of N runs
(default 3):

  cli-j1, cli-j2     llvm-ir2vec embeddings --format=npy, -j 1 and -j 2
  dask-1w, dask-2w   python3 -m ir2vec.distributed embed on an already
                     running local cluster (--scheduler) of 1 and 2 worker
                     processes, --task-bytes 1 MiB; the command's whole wall
                     time (Python start, connecting, planning, the tasks, the
                     manifest)
  dask-2w-cold       the same, starting its own 2-worker cluster (--workers 2)
  fixed-1w, fixed-2w the fixed cost of a run: embed of one tiny module (one
                     task) on the running cluster
  overhead           the engine's cost per task: 200 tasks of one tiny module
                     each (test/Inputs/cfg.ll copies) on 1 worker, minus
                     fixed-1w and the CLI's time for the same 200 files,
                     divided by 199

Before timing, the merged sharded store is compared with the CLI's store
byte for byte. The table goes to standard output and
bench/work/distributed-results.md.

Environment: IRTK_BUILD (default build), IRTK_BENCH_WORK (default
bench/work).
"""

import argparse
import logging
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("IRTK_BUILD", os.path.join(ROOT, "build"))
WORK = os.environ.get("IRTK_BENCH_WORK", os.path.join(ROOT, "bench", "work"))
CLI = os.path.join(BUILD, "bin", "llvm-ir2vec")
CORPUS = os.path.join(WORK, "bench")
VOCAB = os.path.join(WORK, "vocab75.json")
OUT = os.path.join(WORK, "distributed")
ENV = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
sys.path.insert(0, os.path.join(BUILD, "python"))


def timed(cmd, runs, before=None):
    times = []
    for _ in range(runs):
        if before:
            before()
        start = time.perf_counter()
        p = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return statistics.median(times), min(times)


def fresh(*paths):
    def clean():
        for p in paths:
            shutil.rmtree(p, ignore_errors=True)
    return clean


def distributed(*args):
    return ["/usr/bin/python3", "-m", "ir2vec.distributed", *args]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    runs = ap.parse_args().runs
    for p in (CLI, CORPUS, VOCAB):
        if not os.path.exists(p):
            sys.exit(f"{p} is missing: build, then run bench/run.sh once")
    from distributed import Client, LocalCluster
    os.makedirs(OUT, exist_ok=True)
    ref, sharded = os.path.join(OUT, "ref"), os.path.join(OUT, "sharded")
    cli = [CLI, "embeddings", "--format=npy", f"--ir2vec-vocab-path={VOCAB}",
           "-o", ref, CORPUS]
    emb = ["embed", f"--vocab={VOCAB}", "--task-bytes", str(1 << 20), "-o",
           sharded, CORPUS]
    size = sum(os.path.getsize(os.path.join(r, f))
               for r, _, fs in os.walk(CORPUS) for f in fs
               if f.endswith(".bc"))
    rows = {}

    # Tiny tasks for the overhead: 200 copies of a small module.
    tiny = os.path.join(OUT, "tiny")
    shutil.rmtree(tiny, ignore_errors=True)
    os.makedirs(tiny)
    for i in range(200):
        shutil.copy(os.path.join(ROOT, "test", "Inputs", "cfg.ll"),
                    os.path.join(tiny, f"m{i:03d}.ll"))
    tiny_files = sorted(os.path.join(tiny, f) for f in os.listdir(tiny))
    tiny_ref, tiny_out = os.path.join(OUT, "tiny-ref"), os.path.join(
        OUT, "tiny-sharded")

    rows["cli-j1"] = timed(cli + ["-j", "1"], runs, fresh(ref))
    rows["cli-j2"] = timed(cli + ["-j", "2"], runs, fresh(ref))
    rows["dask-2w-cold"] = timed(distributed(*emb, "--workers", "2"), runs,
                                 fresh(sharded))
    for n in (1, 2):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1,
                               processes=True, host="127.0.0.1",
                               dashboard_address=None,
                               silence_logs=logging.CRITICAL)
        client = Client(cluster)
        addr = cluster.scheduler_address
        rows[f"dask-{n}w"] = timed(distributed(*emb, "--scheduler", addr),
                                   runs, fresh(sharded))
        one = os.path.join(OUT, "one")
        rows[f"fixed-{n}w"] = timed(distributed(
            "embed", f"--vocab={VOCAB}", "-o", one, "--scheduler", addr,
            tiny_files[0]), runs, fresh(one))
        if n == 1:
            tiny_cli = timed([CLI, "embeddings", "--format=npy",
                              f"--ir2vec-vocab-path={VOCAB}", "-j", "1",
                              "-o", tiny_ref, *tiny_files], runs,
                             fresh(tiny_ref))
            tiny_dask = timed(distributed("embed", f"--vocab={VOCAB}",
                                          "--task-bytes", "1", "-o", tiny_out,
                                          "--scheduler", addr, tiny), runs,
                              fresh(tiny_out))
        client.close()
        cluster.close()

    # Identical results.
    merged = os.path.join(OUT, "merged")
    shutil.rmtree(merged, ignore_errors=True)
    subprocess.run(distributed("merge", sharded, merged), env=ENV, check=True,
                   capture_output=True)
    same = all(open(os.path.join(merged, f), "rb").read() ==
               open(os.path.join(ref, f), "rb").read()
               for f in ("embeddings.npy", "index.jsonl"))
    if not same:
        sys.exit("the merged store differs from the CLI's")

    fixed = rows["fixed-1w"][0]
    overhead = (tiny_dask[0] - fixed - tiny_cli[0]) / 199
    load = os.getloadavg()[0]
    lines = [
        f"Corpus: {CORPUS}, {size / 1e6:.1f} MB of bitcode; func level; "
        f"median (min) of {runs} runs; load average {load:.2f} at the end; "
        f"merged store identical to the CLI's: {same}",
        "",
        "| run | median (s) | min (s) | MB/s |",
        "|---|---:|---:|---:|",
    ]
    for name, (med, mn) in rows.items():
        lines.append(f"| {name} | {med:.3f} | {mn:.3f} | "
                     f"{size / 1e6 / med:.1f} |")
    lines += ["",
              f"Per-task overhead: 200 one-module tasks on 1 worker "
              f"{tiny_dask[0]:.3f} s, minus the fixed cost of a run "
              f"(fixed-1w, one task) {fixed:.3f} s and the CLI on the same "
              f"200 files {tiny_cli[0]:.3f} s, over 199 more tasks: "
              f"{overhead * 1000:.1f} ms per task."]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(WORK, "distributed-results.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
