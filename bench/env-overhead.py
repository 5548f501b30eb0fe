#!/usr/bin/env python3
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Python in the loop: a whole compile through ir2vec.mlgo.env's InlineEnv
against the same compile with the policy in-process.

Usage: PYTHONPATH=<build>/python /usr/bin/python3 bench/env-overhead.py \\
           --corpus DIR [--modules M,...] [--runs N] [--work DIR]

For each module (default: the median and the largest of the corpus by
bitcode size; with an even count, the upper median), one warm-up and then
N rounds (default 31) of, in turn:

  env      InlineEnv.run() with a Python policy that answers the default
           (inlining_default): the whole episode, from starting clang to
           the .text of its object;
  model    clang -Oz -c with -irtk-inline-policy=model and a model that
           answers the default, reading inlining_default and both
           embeddings (with weights 0), so that the compiler computes the
           features the environment's observations hold;
  noemb    the same model without the embeddings (the compiler then
           computes none);
  stock    clang -Oz -c without the plugin.

Each is timed from outside, the compile a subprocess either way: wall
seconds (time.perf_counter) and CPU seconds (getrusage of this process and
its children: the compiler's, and for env also Python's). Prints one JSON
line per module: the median of each, the median of the per-round ratio of
wall times env/model, the ratio of median CPU seconds, the decisions and
decisions per second through the environment. Checks that every object is
stock's, byte for byte. Run it alone on the machine.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

from ir2vec.mlgo import objective
from ir2vec.mlgo.corpus import Corpus
from ir2vec.mlgo.env import InlineEnv
from ir2vec.mlgo.toolchain import Toolchain


def default_model(path, embeddings, dim=75):
    """A logit model that answers inlining_default: 2 * default - 1, plus
    the embeddings times 0 when asked for."""
    inputs = [{"name": "inlining_default", "mean": [0], "scale": [1]}]
    weights = [2.0]
    if embeddings:
        for name in ("callee_embedding", "caller_embedding"):
            inputs.append({"name": name, "mean": [0] * dim,
                           "scale": [1] * dim})
            weights += [0.0] * dim
    doc = {"format": "irtk-mlp", "version": 1, "advisor": "inline",
           "decision": "inlining_decision", "inputs": inputs,
           "layers": [{"activation": "linear", "weights": [weights],
                       "bias": [-1.0]}],
           "output": {"kind": "logit"},
           "training": {"by": "bench/env-overhead.py: the default decision"}}
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def cpu():
    """CPU seconds of this process and its reaped children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn):
    """(fn's result, its wall seconds, its CPU seconds, children's too)."""
    wall, used = time.perf_counter(), cpu()
    out = fn()
    return out, time.perf_counter() - wall, cpu() - used


def read(path):
    with open(path, "rb") as f:
        return f.read()


def measure(args, tools, env, name, bc):
    objs = {k: os.path.join(args.work, k + ".o")
            for k in ("model", "noemb", "stock")}
    plugin = ["-fpass-plugin=" + tools.plugin, "-mllvm",
              "-irtk-inline-policy=model", "-mllvm"]
    argv = {
        "model": plugin + ["-irtk-inline-model=" + args.model],
        "noemb": plugin + ["-irtk-inline-model=" + args.model_noemb],
        "stock": []}
    argv = {k: [tools.clang, "-Oz", "-c", bc, "-o", objs[k]] + v
            for k, v in argv.items()}

    def policy(obs):
        return int(obs["inlining_default"][0])

    env.baseline(name)  # computed once, outside the timings
    kinds = ("env", "model", "noemb", "stock")
    times = {k: [] for k in kinds}
    cpus = {k: [] for k in kinds}
    for rnd in range(args.runs + 1):
        t, c = {}, {}
        ep, t["env"], c["env"] = timed(lambda: env.run(policy, name))
        for k in ("model", "noemb", "stock"):
            _, t[k], c[k] = timed(lambda: subprocess.run(
                argv[k], check=True, stdout=subprocess.DEVNULL))
        stock = read(objs["stock"])
        for k, obj in (("env", ep["object"]), ("model", objs["model"]),
                       ("noemb", objs["noemb"])):
            if read(obj) != stock:
                sys.exit(f"{name}: the {k} object is not stock's")
        if rnd:  # the first round warms the caches
            for k in kinds:
                times[k].append(t[k])
                cpus[k].append(c[k])
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpus.items()}
    ratios = [e / m for e, m in zip(times["env"], times["model"])]
    return {"module": name, "bitcode_bytes": os.path.getsize(bc),
            "decisions": ep["decisions"], "runs": args.runs,
            "seconds": {k: round(v, 4) for k, v in med.items()},
            "range": {k: [round(min(v), 4), round(max(v), 4)]
                      for k, v in times.items()},
            "cpu_seconds": {k: round(v, 4) for k, v in med_cpu.items()},
            "env_over_model": round(statistics.median(ratios), 3),
            "env_over_noemb": round(med["env"] / med["noemb"], 3),
            "cpu_env_over_model": round(med_cpu["env"] / med_cpu["model"], 3),
            "decisions_per_second": round(ep["decisions"] / med["env"], 1),
            "text": ep["text"]}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--modules", help="comma-separated module names")
    p.add_argument("--runs", type=int, default=31)
    p.add_argument("--work", default="bench/work/env-overhead")
    args = p.parse_args()
    corpus = Corpus(args.corpus)
    if args.modules:
        names = args.modules.split(",")
    else:
        by_size = sorted(corpus, key=lambda m: (
            os.path.getsize(corpus.bitcode(m)), m))
        names = [by_size[len(by_size) // 2], by_size[-1]]
    os.makedirs(args.work, exist_ok=True)
    args.work = os.path.abspath(args.work)
    args.model = default_model(os.path.join(args.work, "default.json"), True)
    args.model_noemb = default_model(
        os.path.join(args.work, "default-noemb.json"), False)
    tools = Toolchain()
    modules = [(m, corpus.bitcode(m)) for m in names]
    with InlineEnv(modules, tools=tools,
                   workdir=os.path.join(args.work, "env")) as env:
        for name, bc in modules:
            print(json.dumps(measure(args, tools, env, name, bc)),
                  flush=True)
    # The measure that ends every episode, on its own.
    obj = os.path.join(args.work, "stock.o")
    start = time.perf_counter()
    for _ in range(10):
        objective.text_size(obj, tools)
    print(json.dumps({"text_size_seconds":
                      round((time.perf_counter() - start) / 10, 4)}))


if __name__ == "__main__":
    main()
