#!/usr/bin/env python3
# ===- train-inline.py - Imitate the best inlining baseline per module ----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Train the inline advisor's model by imitating, per module, the best of
several baseline policies (Offline Imitation Learning from Multiple
Baselines), with the learned policies' own runs as extra states (DAgger).

Reads what advisors/recipe/collect-inline.sh wrote (<data>/<run>/<module>.txt
and .log). For each module, the teacher is the baseline run (--baselines)
with the smallest .text; ties go to the earlier run in --baselines. The
training examples are the decisions logged by the runs of --states in that
module, each labelled with what the teacher decides in that state: the
teacher's logged decision feature (teacher_thr<N> for run thr<N>,
inlining_default for Oz). The model is trained by irtk-train fit.

  train-inline.py --data DIR --out model.json \\
      --baselines Oz,thr-100000,thr0,thr25,thr50,thr100,thr225 \\
      [--states best,v1,...] [--irtk-train PATH] [-- <irtk-train fit options>]

--states: "best" is the teacher's own run (pure imitation); other names are
runs (a learned policy's) whose states are relabelled by the teacher.
--states-data DIR reads the states' logs from another collection of the same
runs (e.g. with another vocabulary), the sizes still from --data.
Writes <out> and <out>.list (the irtk-train --logs-from file), and prints
the teacher counts.
"""

import argparse
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipelib  # noqa: E402


def label_of(run):
    if run == "Oz":
        return "inlining_default"
    if run.startswith("thr"):
        return "teacher_" + run
    return ""  # a learned policy: its own decisions


def sizes(data, runs):
    """{module: {run: text}} for modules every run compiled."""
    return recipelib.collected_text(data, runs)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--baselines", required=True)
    p.add_argument("--states", default="best")
    p.add_argument("--states-data",
                   help="read the states' logs from this collection instead "
                        "of --data (the same runs with other embedding "
                        "options, for an ablation)")
    p.add_argument("--irtk-train", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "build",
        "bin", "irtk-train"))
    p.add_argument("fit", nargs=argparse.REMAINDER,
                   help="-- then options for irtk-train fit")
    a = p.parse_args()
    baselines = a.baselines.split(",")
    states = a.states.split(",")
    extra = [s for s in states if s != "best"]
    table = sizes(a.data, baselines + extra)
    if not table:
        sys.exit(f"{a.data}: no module compiled by every run of "
                 f"{baselines + extra}")
    teachers = collections.Counter()
    lines = []
    for m in sorted(table):
        best = min(baselines, key=lambda r: (table[m][r], baselines.index(r)))
        teachers[best] += 1
        label = label_of(best)
        seen = set()
        for s in states:
            run = best if s == "best" else s
            log = os.path.abspath(
                os.path.join(a.states_data or a.data, run, m + ".log"))
            if run in seen or not os.path.exists(log):
                continue
            seen.add(run)
            lines.append(f"{log} 1 {label}" if label else f"{log} 1")
    recipelib.write_file(a.out + ".list", "\n".join(lines) + "\n")
    total_oz = sum(r["Oz"] for r in table.values()) if "Oz" in baselines \
        else None
    oracle = sum(min(r[b] for b in baselines) for r in table.values())
    print(f"{len(table)} modules; teacher per module: "
          + ", ".join(f"{r} {n}" for r, n in teachers.most_common()))
    if total_oz:
        print(f"oracle over the baselines: {oracle} bytes, "
              f"{100 * (oracle / total_oz - 1):+.2f}% vs Oz")
    fit = [x for x in a.fit if x != "--"]
    cmd = [a.irtk_train, "fit", "--advisor", "inline", "-o", a.out,
           "--logs-from", a.out + ".list"] + fit
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
