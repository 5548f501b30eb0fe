#!/usr/bin/python3
# ===- summarize-baselines.py - Sizes of a corpus under inliner settings -===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===---------------------------------------------------------------------===#
"""Summarise the results of advisors/recipe/size-baselines.sh.

Usage: summarize-baselines.py RESULTS_DIR... [--json FILE] [--functions]
           [--baseline NAME] [--packages]

Each RESULTS_DIR is one split (its name is the directory's basename), as
written by size-baselines.sh --out. Prints, per split, a Markdown table:
total native .text per setting over the modules that every setting compiled,
its change against the baseline setting (default Oz; negative is smaller),
on how many modules the setting is best (ties included) and sole best, and
the per-module oracle (the smallest setting of each module) total and
change. With --packages, also per package: the baseline total, the best
single setting and the oracle.

--json FILE writes, per split and module, the .text size per setting, the
failed settings and the best setting (ties broken towards the baseline, then
in table order), for a trainer to pick per-module targets; --functions adds
the per-function sizes of every setting. Python 3 standard library only.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipelib  # noqa: E402


def read_result(path):
    """The fields of one results file: status, text, sections, functions."""
    res = {"sections": {}, "functions": {}}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            key = parts[0]
            if key == "section":
                res["sections"][parts[1]] = int(parts[2])
            elif key == "function":
                res["functions"][parts[2]] = int(parts[1])
            elif key == "text":
                res["text"] = int(parts[1])
            elif key == "seconds":
                res["seconds"] = float(parts[1])
            elif len(parts) == 2:
                res[key] = parts[1]
    return res


def load_split(root, with_functions):
    settings = []  # (name, flags) in table order
    with open(os.path.join(root, "settings.tsv")) as f:
        for line in f:
            name, flags = line.rstrip("\n").split("\t")
            if os.path.isdir(os.path.join(root, name)):
                settings.append((name, flags))
    compiler = ""
    if os.path.isfile(os.path.join(root, "compiler")):
        with open(os.path.join(root, "compiler")) as f:
            compiler = f.read().strip()
    modules = {}
    for name, flags in settings:
        base = os.path.join(root, name)
        for dirpath, _, files in os.walk(base):
            for fn in files:
                if not fn.endswith(".txt"):
                    continue
                path = os.path.join(dirpath, fn)
                mod = os.path.relpath(path, base)[: -len(".txt")]
                res = read_result(path)
                if res.get("flags") != flags:
                    continue  # from an older definition of the setting
                m = modules.setdefault(mod, {"text": {}, "failed": [], "seconds": {}})
                if res.get("status") == "ok" and "text" in res:
                    m["text"][name] = res["text"]
                    m["seconds"][name] = res.get("seconds", 0.0)
                    if with_functions:
                        m.setdefault("functions", {})[name] = res["functions"]
                else:
                    m["failed"].append(name)
    return settings, compiler, modules


def package_of(mod):
    parts = mod.split("/")
    return parts[1] if len(parts) >= 3 else parts[0]


def pct(x, base):
    return 100.0 * (x - base) / base if base else 0.0


def summarize(split, root, args, out):
    settings, compiler, modules = load_split(root, args.functions)
    names = [n for n, _ in settings]
    if args.baseline not in names:
        sys.exit(f"summarize-baselines: {root}: no results for the baseline {args.baseline}")
    order = [args.baseline] + [n for n in names if n != args.baseline]
    rank = {n: i for i, n in enumerate(order)}
    complete = []
    for mod, m in sorted(modules.items()):
        ok = m["text"]
        if ok:
            least = min(ok.values())
            ties = sorted((n for n, v in ok.items() if v == least), key=rank.get)
            m["best"], m["best_ties"] = ties[0], ties
        m["package"] = package_of(mod)
        m["complete"] = all(n in ok for n in names)
        if m["complete"]:
            complete.append(mod)
    failures = sum(len(m["failed"]) for m in modules.values())
    missing = sum(1 for m in modules.values() for n in names
                  if n not in m["text"] and n not in m["failed"])

    total = {n: sum(modules[m]["text"][n] for m in complete) for n in names}
    seconds = {n: sum(modules[m]["seconds"][n] for m in complete) for n in names}
    best = {n: sum(1 for m in complete if n in modules[m]["best_ties"]) for n in names}
    sole = {n: sum(1 for m in complete if modules[m]["best_ties"] == [n]) for n in names}
    oracle = sum(min(modules[m]["text"].values()) for m in complete)
    flags = dict(settings)
    base = total[args.baseline]
    pkgs = sorted({modules[m]["package"] for m in complete})

    w = out.write
    w(f"### {split}\n\n")
    w(f"{len(modules)} modules of {len(pkgs)} packages; {len(complete)} compiled by every "
      f"setting ({failures} failed compiles, {missing} not run yet); {compiler}.\n\n")
    w("| setting | -mllvm flags | .text bytes | vs " + args.baseline +
      " | best (ties incl.) | sole best | compile s |\n")
    w("|---|---|---:|---:|---:|---:|---:|\n")
    for n in names:
        f = flags[n] if flags[n] != "-" else "(stock -Oz)"
        w(f"| {n} | `{f}` | {total[n]} | {pct(total[n], base):+.2f}% | {best[n]} | "
          f"{sole[n]} | {seconds[n]:.0f} |\n")
    w(f"| **oracle** | smallest setting per module | {oracle} | "
      f"**{pct(oracle, base):+.2f}%** | | | |\n\n")
    single = min(names, key=lambda n: (total[n], rank[n]))
    w(f"Best single setting: {single} ({pct(total[single], base):+.2f}%). "
      f"Modules where {args.baseline} is not among the best: "
      f"{len(complete) - best[args.baseline]} of {len(complete)}.\n\n")

    if args.packages:
        w(f"| package | modules | {args.baseline} .text | best single setting | oracle |\n")
        w("|---|---:|---:|---|---:|\n")
        for p in pkgs:
            ms = [m for m in complete if modules[m]["package"] == p]
            t = {n: sum(modules[m]["text"][n] for m in ms) for n in names}
            o = sum(min(modules[m]["text"].values()) for m in ms)
            b = min(names, key=lambda n: (t[n], rank[n]))
            w(f"| {p} | {len(ms)} | {t[args.baseline]} | {b} "
              f"{pct(t[b], t[args.baseline]):+.2f}% | {pct(o, t[args.baseline]):+.2f}% |\n")
        w("\n")

    return {
        "results": os.path.abspath(root),
        "compiler": compiler,
        "baseline": args.baseline,
        "settings": [{"name": n, "mllvm_flags": [] if flags[n] == "-" else flags[n].split()}
                     for n in names],
        "modules_complete": len(complete),
        "total_text": total,
        "oracle_text": oracle,
        "modules": {mod: {k: m[k] for k in ("package", "text", "failed", "best", "best_ties",
                                            "complete", "functions") if k in m}
                    for mod, m in sorted(modules.items())},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+", help="size-baselines.sh --out directories")
    ap.add_argument("--json", help="write the per-module sizes and best settings here")
    ap.add_argument("--functions", action="store_true",
                    help="include per-function sizes in the JSON")
    ap.add_argument("--baseline", default="Oz", help="the reference setting (default Oz)")
    ap.add_argument("--packages", action="store_true", help="add a per-package table")
    args = ap.parse_args()
    doc = {"generator": "advisors/recipe/summarize-baselines.py", "splits": {}}
    for root in args.results:
        split = os.path.basename(os.path.normpath(root))
        doc["splits"][split] = summarize(split, root, args, sys.stdout)
    if args.json:
        recipelib.write_file(args.json, json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
