#!/usr/bin/env python3
# ===- evict.py - Scores, best-of-baselines data and training for eviction -===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Reads what advisors/recipe/collect-evict.sh recorded.

  evict.py scores DIR [--runs a,b,...]
      Per run: modules compiled, decisions, the total RegAllocScore (the sum
      over functions of each function's score, the reward after its last
      decision; functions without decisions score the same under every
      policy and are left out), total .text; and, per function, which run
      scored lowest. Runs are compared on the (module, function) pairs they
      all have.

  evict.py select DIR --runs a,b,... --out DIR2 [--margin X]
      For every function, the run with the lowest score (the first listed
      wins ties and differences below --margin, relative): writes one log
      per (run, module) holding that run's contexts of the functions it won,
      and DIR2/logs.txt, the list for `irtk-train fit --logs-from`: training
      by imitation of the best of several baseline policies, per function.

The training logs are LLVM's format (llvm/Analysis/Utils/TrainingLogger.h).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipelib  # noqa: E402

tlog = recipelib.training_log


def collect(out, runs):
    """{run: {module: {function: (score, decisions)}}} and .text sizes."""
    scores, text = {}, {}
    for run in runs:
        scores[run] = {}
        text[run] = {m: int(f.get("text", 0))
                     for m, f in recipelib.collected(out, run).items()
                     if f.get("status") == "ok"}
        root = os.path.join(out, run)
        for dirpath, _, files in os.walk(root):
            for fn in files:
                if fn.endswith(".log"):
                    path = os.path.join(dirpath, fn)
                    _, blocks = tlog.read_contexts(path)
                    scores[run][os.path.relpath(path, root)[:-4]] = {
                        name: (r, n) for name, _, n, r in blocks}
    return scores, text


def common_modules(text, runs):
    mods = set(text[runs[0]])
    for r in runs[1:]:
        mods &= set(text[r])
    return sorted(mods)


def cmd_scores(args):
    runs = args.runs.split(",")
    scores, text = collect(args.dir, runs)
    mods = common_modules(text, runs)
    funcs = set()
    for m in mods:
        for r in runs:
            for f in scores[r].get(m, {}):
                funcs.add((m, f))
    # A function without decisions under a run scored as under the others
    # there (nothing was decided differently): use the first run that has it.
    def score(r, m, f):
        for rr in [r] + runs:
            v = scores[rr].get(m, {}).get(f)
            if v is not None:
                return v[0]
        return 0.0
    total = {r: sum(score(r, m, f) for m, f in funcs) for r in runs}
    best = {r: 0 for r in runs}
    for m, f in funcs:
        b = min(runs, key=lambda r: score(r, m, f))
        if all(score(b, m, f) == score(r, m, f) for r in runs):
            continue
        best[b] += 1
    oracle = sum(min(score(r, m, f) for r in runs) for m, f in funcs)
    base = total[runs[0]]
    result = {
        "modules": len(mods),
        "functions with decisions": len(funcs),
        "runs": {r: {"score": round(total[r], 2),
                     "score vs first": f"{100 * (total[r] / base - 1):+.3f}%"
                     if base else "n/a",
                     "decisions": sum(n for m in mods
                                      for _, n in scores[r].get(m, {}).values()),
                     "text": sum(text[r][m] for m in mods),
                     "strictly best on": best[r]} for r in runs},
        "per-function oracle": {
            "score": round(oracle, 2),
            "vs first": f"{100 * (oracle / base - 1):+.3f}%" if base else "n/a"},
    }
    json.dump(result, sys.stdout, indent=1)
    print()


def cmd_select(args):
    runs = args.runs.split(",")
    scores, text = collect(args.dir, runs)
    mods = common_modules(text, runs)
    os.makedirs(args.out, exist_ok=True)
    lines, chosen = [], {r: 0 for r in runs}
    for m in mods:
        winners = {}
        funcs = set()
        for r in runs:
            funcs |= set(scores[r].get(m, {}))
        for f in funcs:
            have = [r for r in runs if f in scores[r].get(m, {})]
            best = have[0]
            for r in have[1:]:
                a, b = scores[r][m][f][0], scores[best][m][f][0]
                if a < b * (1 - args.margin):
                    best = r
            winners.setdefault(best, set()).add(f)
        for r, fs in winners.items():
            header, blocks = tlog.read_contexts(
                os.path.join(args.dir, r, m + ".log"))
            keep = [b for name, b, _, _ in blocks if name in fs]
            if not keep:
                continue
            path = os.path.join(args.out, r, m + ".log")
            recipelib.write_file(path, header + b"".join(keep))
            lines.append(path)
            chosen[r] += len(fs)
    recipelib.write_list(os.path.join(args.out, "logs.txt"), lines)
    print(json.dumps({"functions won": chosen, "logs": len(lines)}))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scores")
    s.add_argument("dir")
    s.add_argument("--runs", default="default,never,last")
    s = sub.add_parser("select")
    s.add_argument("dir")
    s.add_argument("--runs", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--margin", type=float, default=0.0)
    args = p.parse_args()
    return {"scores": cmd_scores, "select": cmd_select}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
