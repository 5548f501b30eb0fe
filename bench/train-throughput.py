#!/usr/bin/env python3
# ===- train-throughput.py - TransE training speed of irtk-vocab train -----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===-----------------------------------------------------------------------===#
"""Measure `irtk-vocab train`: seconds per epoch against the number of
triplets (should be linear) and against the thread count (1 vs 2 threads).

The triplets are `llvm-ir2vec triplets` of a bitcode corpus (by default the
benchmark corpus of bench/build-corpus.sh), not de-duplicated, so there are
millions; the script trains on the first 1/4, 1/2 and all of them.

Reading the triplets and writing the vocabulary are not training: each point
is timed at two epoch counts and the time per epoch is the difference
divided by the difference in epochs. Each timing is the median of --runs
runs. Prints a markdown table, also written to <work>/train-results.md, and
the exact commands.
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", default=os.path.join(ROOT, "bench", "work", "corpus.list"),
                   help="a file listing bitcode modules, or an MLGO corpus directory")
    p.add_argument("--work", default=os.path.join(ROOT, "bench", "work"))
    p.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    p.add_argument("--dim", type=int, default=75)
    p.add_argument("--epochs", type=int, nargs=2, default=[1, 4], metavar=("LOW", "HIGH"))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[1024, 8192],
                   help="batch sizes to measure (default: 1024, the trainer's "
                   "default, and 8192)")
    args = p.parse_args()

    os.makedirs(args.work, exist_ok=True)
    ir2vec = os.path.join(args.bin, "llvm-ir2vec")
    vocab_tool = os.path.join(args.bin, "irtk-vocab")
    full = os.path.join(args.work, "train-triplets.txt")
    if not os.path.exists(full):
        if os.path.isdir(args.corpus):
            inputs = [args.corpus]
        else:
            with open(args.corpus) as f:
                inputs = [line.strip() for line in f if line.strip()]
        print(f"extracting triplets of {len(inputs)} inputs", file=sys.stderr)
        subprocess.run([ir2vec, "triplets", "--progress=never", "-o", full] + inputs,
                       check=True)
    with open(full) as f:
        header = f.readline()
        lines = f.readlines()
    total = len(lines)
    sizes = [total // 4, total // 2, total]
    files = {}
    for n in sizes:
        path = os.path.join(args.work, f"train-triplets-{n}.txt")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(header)
                f.writelines(lines[:n])
        files[n] = path
    del lines

    out = os.path.join(args.work, "train-out.json")
    lo, hi = args.epochs
    rows = []
    commands = []
    for b in args.batch_sizes:
        for n in sizes:
            for t in args.threads:
                times = {}
                for e in (lo, hi):
                    cmd = [vocab_tool, "train", files[n], "-o", out, "--dim",
                           str(args.dim), "--epochs", str(e), "--batch-size", str(b),
                           "-j", str(t), "--quiet"]
                    commands.append(" ".join(shlex.quote(c) for c in cmd))
                    times[e] = statistics.median(run_timed(cmd)
                                                 for _ in range(args.runs))
                per_epoch = (times[hi] - times[lo]) / (hi - lo)
                rows.append((b, n, t, per_epoch))
                print(f"batch {b}, {n} triplets, {t} thread(s): "
                      f"{per_epoch:.3f} s/epoch", file=sys.stderr)

    by = {(b, n, t): s for b, n, t, s in rows}
    md = [f"TransE, dimension {args.dim}, other hyper-parameters default; time per epoch "
          f"= (t({hi} epochs) - t({lo} epoch{'s' if lo > 1 else ''})) / {hi - lo}, "
          f"median of {args.runs} runs; load average before: "
          f"{os.getloadavg()[0]:.2f}", "",
          "| batch | triplets | threads | s/epoch | Mtriplets/s | "
          "speed-up vs 1 thread | s/epoch per Mtriplet |",
          "|---|---|---|---|---|---|---|"]
    for b, n, t, s in rows:
        base = by.get((b, n, args.threads[0]))
        md.append(f"| {b} | {n} | {t} | {s:.3f} | {n / s / 1e6:.2f} | "
                  f"{base / s:.2f}x | {s / (n / 1e6):.3f} |")
    md += ["", "Commands:", "```"] + sorted(set(commands)) + ["```"]
    text = "\n".join(md) + "\n"
    print(text)
    with open(os.path.join(args.work, "train-results.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
