#!/usr/bin/env python3
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The size pipeline's compile time: every module of a corpus compiled
with clang -Oz -c three ways, in turn, N rounds:

  oz      stock -Oz;
  fixed   -Oz -Xclang -fmerge-functions -mllvm -enable-machine-outliner
          -mllvm -ir-outliner (the best fixed configuration of
          docs/Pipeline.md);
  replay  -Oz with the plugin replaying a choices file
          (-irtk-pipeline-policy=replay) and -enable-machine-outliner;
  model   with --model, -Oz with the plugin's model policy deciding in
          clang (-irtk-pipeline-policy=model: the state computed there).

Usage: PYTHONPATH=<build>/python /usr/bin/python3 \\
           bench/pipeline-compile-time.py --corpus DIR --choices FILE \\
           [--model FILE] [--plugin SO] [--runs N]

CPU seconds of the compilers (getrusage of the children), summed over the
corpus per round; prints one JSON line: each way's median over the rounds
and the ratios replay/oz, fixed/oz and replay/fixed. CPU time rather than
wall time, so that the figure holds on a busy machine; run it alone all
the same.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile

from ir2vec.mlgo.corpus import Corpus
from ir2vec.mlgo.toolchain import Toolchain


def cpu_seconds(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + \
        (after.ru_stime - before.ru_stime)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--choices", required=True,
                   help="the plugin's choices file (nearest --replay)")
    p.add_argument("--model", help="the plugin's model (nearest --save)")
    p.add_argument("--plugin", help="IRTKPlugin.so (default: found)")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    tools = Toolchain(plugin=args.plugin)
    corpus = Corpus(args.corpus)
    ways = {
        "oz": [],
        "fixed": ["-Xclang", "-fmerge-functions", "-mllvm",
                  "-enable-machine-outliner", "-mllvm", "-ir-outliner"],
        "replay": ["-fpass-plugin=" + tools.plugin, "-mllvm",
                   "-irtk-pipeline-policy=replay", "-mllvm",
                   "-irtk-pipeline-choices=" + args.choices, "-mllvm",
                   "-enable-machine-outliner"]}
    if args.model:
        ways["model"] = ["-fpass-plugin=" + tools.plugin, "-mllvm",
                         "-irtk-pipeline-policy=model", "-mllvm",
                         "-irtk-pipeline-model=" + args.model, "-mllvm",
                         "-enable-machine-outliner"]
    totals = {w: [] for w in ways}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "m.o")
        for _ in range(args.runs):
            round_ = dict.fromkeys(ways, 0.0)
            for m in corpus:
                for w, flags in ways.items():
                    round_[w] += cpu_seconds([tools.clang, "-Oz", "-c",
                                              corpus.bitcode(m), "-o", out]
                                             + flags)
            for w in ways:
                totals[w].append(round_[w])
    med = {w: statistics.median(v) for w, v in totals.items()}
    ratios = {f"{w}/oz": round(med[w] / med["oz"], 3) for w in ways
              if w != "oz"}
    ratios["replay/fixed"] = round(med["replay"] / med["fixed"], 3)
    print(json.dumps({"modules": len(corpus), "runs": args.runs,
                      "cpu_seconds": {w: round(v, 2) for w, v in med.items()},
                      **ratios}))


if __name__ == "__main__":
    main()
