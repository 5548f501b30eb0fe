#!/usr/bin/env python3
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Throughput of the training compile farm: the same compiles on 1 worker
and on 2 (local processes of the engine; a Dask cluster is --scheduler).

Usage: /usr/bin/python3 bench/compile-farm.py --corpus DIR [--sample K]
           [--budget N] [--work DIR]

Runs `python3 -m ir2vec.mlgo search --kind edge` (each module's search is
one task: a stock compile and up to --budget trials, default 12) on every
--sample-th module (default 16) of an MLGO corpus of pre-optimisation
bitcode (the inline-train split), once with --workers 1 and once with
--workers 2, each into a fresh directory under --work (default
bench/work/compile-farm), and checks that both found the same .text. Prints
the wall time of each, the ratio, and what it means for 100 machines of 2
cores (the ratio of 2 workers to 1, taken as the efficiency of each added
worker). Run it alone on the machine: the ratio is of wall times.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, workers):
    out = os.path.join(args.work, f"w{workers}")
    shutil.rmtree(out, ignore_errors=True)
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "ir2vec.mlgo", "search", "--kind", "edge",
         "--corpus", args.corpus, "--out", out,
         "--sample", str(args.sample), "--budget", str(args.budget),
         "--workers", str(workers)],
        capture_output=True, text=True, check=True)
    return time.monotonic() - start, json.loads(done.stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--sample", type=int, default=16)
    p.add_argument("--budget", type=int, default=12)
    p.add_argument("--work", default=os.path.join(ROOT, "bench", "work",
                                                  "compile-farm"))
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    t1, s1 = run(args, 1)
    t2, s2 = run(args, 2)
    if (s1["text stock"], s1["text searched"]) != \
            (s2["text stock"], s2["text searched"]):
        sys.exit(f"1 and 2 workers disagree: {s1} against {s2}")
    ratio = t1 / t2
    print(f"{s1['modules']} modules, {s1['compiles']} searched compiles "
          f"plus {s1['modules']} stock ones (--sample {args.sample} "
          f"--budget {args.budget})")
    print(f"| workers | wall time | speed-up |\n|---:|---:|---:|\n"
          f"| 1 | {t1:.1f} s | 1.00x |\n| 2 | {t2:.1f} s | {ratio:.2f}x |")
    eff = ratio / 2
    print(f"per added worker, efficiency {eff:.2f}: 100 machines of 2 cores "
          f"would run these compiles about {200 * eff:.0f}x as fast as one "
          f"worker (if the scheduler and the shared file system keep up)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
