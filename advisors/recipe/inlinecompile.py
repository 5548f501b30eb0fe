#!/usr/bin/env python3
# ===- inlinecompile.py - One logged -Oz compile of a corpus module -------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""What the inlining searches (inline-search.py, inline-caller-search.py)
share: a corpus's modules, and one compile of a module as a user's
`clang-22 -Oz -c` would, with the inline advisor's default policy logged
and traced, recorded once so that a rerun resumes."""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import traininglog

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")


def modules(corpus, sample):
    """Every sample-th module of an MLGO corpus, in name order."""
    with open(os.path.join(corpus, "corpus_description.json")) as f:
        return sorted(json.load(f)["modules"])[::sample]


def text_size(obj):
    """Bytes of an object's .text* sections (llvm-size -A)."""
    out = subprocess.run([os.path.join(LLVM_BIN, "llvm-size"), "-A", obj],
                         capture_output=True, text=True, check=True).stdout
    return sum(int(f[1]) for f in (line.split() for line in out.splitlines())
               if len(f) >= 2 and f[0].startswith(".text"))


class Run:
    """A recorded compile: its log, its trace and its .text bytes."""

    def __init__(self, base, size):
        self.log, self.trace, self.size = base + ".log", base + ".trace", size

    def decisions(self):
        """[(caller, callee, decision)] in the order the policy was asked."""
        with open(self.trace) as f:
            return [(c, d, int(t)) for _, c, d, t in
                    (line.rstrip("\n").split("\t") for line in f)]


def compile_one(args, module, name, extra):
    """The Run of `module` compiled with the default policy and `extra`
    clang arguments, recorded under args.out/runs/<module>/<name>; None if
    it failed. args: corpus, out, clang, plugin, embedding."""
    base = os.path.join(args.out, "runs", module, name)
    status = base + ".status"
    if os.path.exists(status):
        words = open(status).read().split()
        return Run(base, int(words[1])) if words[0] == "ok" else None
    os.makedirs(os.path.dirname(base), exist_ok=True)
    obj, log, trace = base + ".o.tmp", base + ".log.tmp", base + ".trace.tmp"
    cmd = [args.clang, "-Oz", "-c", os.path.join(args.corpus, module + ".bc"),
           "-o", obj, "-fpass-plugin=" + args.plugin,
           "-mllvm", "-irtk-inline-policy=default",
           "-mllvm", "-irtk-inline-embedding=" + args.embedding,
           "-mllvm", "-irtk-inline-log=" + log,
           "-mllvm", "-irtk-inline-trace=" + trace] + extra
    try:
        ok = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            timeout=1800).returncode == 0
    except subprocess.TimeoutExpired:
        ok = False
    size = text_size(obj) if ok and os.path.exists(obj) else None
    ok = size is not None and os.path.exists(log) and os.path.exists(trace)
    if ok:
        os.replace(log, base + ".log")
        os.replace(trace, base + ".trace")
    for tmp in (obj, log, trace):
        if os.path.exists(tmp):
            os.remove(tmp)
    traininglog.write_file(status, f"ok {size}\n" if ok else "failed 0\n")
    return Run(base, size) if ok else None


def add_arguments(parser):
    """The options both searches take: the corpus and its sample, where the
    records go, how many compiles at once, and the compiler."""
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--sample", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--plugin", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)),
        "../../build/lib/IRTKPlugin.so"))
    parser.add_argument("--clang", default="clang-22")
    parser.add_argument("--embedding", default="symbolic",
                        choices=["none", "symbolic", "flow-aware"])


def search_all(args, search):
    """{module: search(args, module)} over the sampled modules, in
    parallel."""
    if args.sample < 1 or args.jobs < 1:
        raise SystemExit("--sample and --jobs must be positive")
    mods = modules(args.corpus, args.sample)

    def one(module):
        # A module whose records do not make sense fails alone.
        try:
            return search(args, module)
        except (ValueError, OSError) as e:
            print(f"{module}: {e}", file=sys.stderr)
            return None

    with ThreadPoolExecutor(args.jobs) as pool:
        return dict(zip(mods, pool.map(one, mods)))


def check_parameters(args, params):
    """Records the parameters a search's records depend on in
    args.out/search.json, or checks that a rerun's are the same (its
    records are replayed, so they must mean the same runs)."""
    path = os.path.join(args.out, "search.json")
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        if old != params:
            raise SystemExit(f"{path}: the records in {args.out} were made "
                             f"with {old}, not {params}; use another --out")
        return
    traininglog.write_file(path, json.dumps(params))
