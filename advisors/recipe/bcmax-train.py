#!/usr/bin/env python3
# ===- bcmax-train.py - Inlining for size by imitating the best baseline --===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Trains the inline advisor's model by iterative imitation of the best of
several baselines (BC-Max, the seed paper's "Offline Imitation Learning from
Multiple Baselines"): each round imitates, per module, the smallest of the
trajectories so far, among the baselines (-Oz, a search's decisions, ...)
and the previous rounds' policies.

  bcmax-train.py --train-corpus T --valid-corpus V --out O
                 --baselines Oz,searched:DIR,... [--rounds 3]
                 [--margins 0,1,2,4] [--sample K] [--jobs N]
                 [--workers N | --scheduler ADDR] [--plugin SO]
                 [--embedding KIND] [--vocab FILE] [--shared DIR]
                 [-- FIT-OPTIONS...]

--baselines are runs of collect-inline.sh (Oz, thr<N>, NAME:DIR for a
search's per-edge decisions, NAME@DIR for per-caller teachers); Oz must be
one. Round k:

  1. The training modules (every --sample-th of T) are compiled under every
     baseline once, and under the policies of the earlier rounds
     (collect-inline.sh into O/train: each run's .text, object and log).
  2. Per module, the run with the smallest .text (ties: the earliest in the
     order baselines, then rounds) is the teacher; with --shared DIR, the
     smallest linked objective instead: the .text less the C++ inline
     functions that the link keeps from another object of the package
     (DIR/<package>.json, a `search --kind edge --linked` search's
     counts). The teacher's log (every decision it took, with the features
     of its own states) is a training example list, O/rounds/<k>/fit.txt.
  3. A model is fitted on them (irtk-train fit, FIT-OPTIONS), one copy per
     default margin (--margins; the logit must pass it to depart from
     -Oz), and each is compiled on every validation module (O/valid);
     validation chooses the margin with the smallest linked .text (each
     package's objects linked, summarize-inline.py --linked):
     O/rounds/<k>/model.json.
  4. Exploration: the chosen model, and the same model at margin 0 (which
     departs from -Oz wherever the model leans the other way, also where it
     is least confident), are compiled on the training modules as runs
     p<k> and p<k>-explore, candidates for the next rounds' teachers.
A round whose examples are the last round's (no new teacher won a module)
ends the run: its model would be the same, and so would every later round.

One line per round on stderr and in O/progress.tsv: the round, the
training modules' best-of .text against -Oz (what the round imitates), the
chosen margin and the validation linked .text against -Oz. O/best.json
names the round whose model validation liked best, and its model.
Resumable: the collections skip what they compiled, a fitted model is kept,
and a finished round is not redone; the parameters are kept in
O/search.json and a rerun with others is refused (more --rounds continue).
The held-out split is not read here: judge the chosen model on it once,
with collect-inline.sh and summarize-inline.py --linked.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

import recipelib  # noqa: E402

summarize = import_module("summarize-inline")
TRAIN = os.path.join(recipelib.ROOT, "build", "bin", "irtk-train")


def run_name(run):
    for sep in "=@:":
        run = run.split(sep, 1)[0]
    return run


def collect(args, corpus, out, runs, sample=1):
    argv = [os.path.join(recipelib.RECIPE_DIR, "collect-inline.sh"),
            "--corpus", corpus, "--out", out, "--runs", ",".join(runs),
            "--sample", str(sample), "--jobs", str(args.jobs),
            "--plugin", args.plugin, "--embedding", args.embedding]
    if args.vocab:
        argv += ["--vocab", args.vocab]
    if args.scheduler:
        argv += ["--scheduler", args.scheduler]
    elif args.workers:
        argv += ["--workers", str(args.workers)]
    subprocess.run(argv, check=True, stdout=sys.stderr)


def fit(args, logs, margin, model):
    if os.path.exists(model):
        return
    subprocess.run([args.train, "fit", "--advisor", "inline",
                    "--default-margin", str(margin), "--logs-from", logs,
                    "--quiet", "-o", model] + args.fit, check=True)


def with_margin(model, margin, out):
    """A copy of `model` with another default margin."""
    with open(model) as f:
        m = json.load(f)
    m.setdefault("output", {})["default_margin"] = margin
    recipelib.write_file(out, json.dumps(m))


def linked_total(data, runs):
    """{run: linked .text summed over the packages} over the modules every
    run compiled."""
    table = recipelib.collected_text(data, runs)
    if not table:
        raise SystemExit(f"{data}: no module compiled by every run")
    links = summarize.linked_table(data, table, runs, ())
    return {r: sum(p[r] for p in links.values()) for r in runs}


def linked_objectives(args, table):
    """`table` ({module: {run: .text}}) with each run's linked objective in
    place of its .text: less the C++ inline functions that another object
    of the package carries at stock (--shared DIR/<package>.json, counted
    by search --kind edge --linked), which the link keeps whatever this
    module does."""
    counts, out = {}, {}
    for m, runs in table.items():
        pkg = os.path.dirname(m)
        if pkg not in counts:
            path = os.path.join(args.shared, pkg + ".json")
            try:
                with open(path) as f:
                    counts[pkg] = json.load(f)
            except (OSError, ValueError) as e:
                raise SystemExit(f"{path}: cannot read the shared inline "
                                 f"functions: {e}")

        def functions(run):
            return recipelib.object_functions(
                os.path.join(args.out, "train", run, m + ".o"))
        stock = functions("Oz")
        shared = recipelib.shared_inline(
            counts[pkg], recipelib.comdat(stock))
        out[m] = {r: recipelib.linked_objective(
            text, stock if r == "Oz" else functions(r), shared)
            for r, text in runs.items()}
    return out


def read_file(path):
    with open(path) as f:
        return f.read()


def do_round(args, k, teachers):
    """Round k with the teacher runs so far; returns its progress row."""
    rdir = os.path.join(args.out, "rounds", str(k))
    collect(args, args.train_corpus, os.path.join(args.out, "train"),
            teachers, args.sample)
    names = [run_name(r) for r in teachers]
    table = recipelib.collected_text(os.path.join(args.out, "train"), names)
    if not table:
        raise SystemExit("no training module compiled by every run")
    if args.shared:
        table = linked_objectives(args, table)
    lines, best_total, chosen = [], 0, {}
    for m in sorted(table):
        best = min(names, key=lambda r: (table[m][r], names.index(r)))
        chosen[best] = chosen.get(best, 0) + 1
        best_total += table[m][best]
        log = os.path.join(args.out, "train", best, m + ".log")
        if os.path.exists(log):
            lines.append(log)
    oz = sum(r["Oz"] for r in table.values())
    recipelib.write_list(os.path.join(rdir, "fit.txt"), lines)
    recipelib.write_file(os.path.join(rdir, "teachers.json"),
                         json.dumps(chosen, sort_keys=True) + "\n")
    if k > 0 and read_file(os.path.join(rdir, "fit.txt")) == read_file(
            os.path.join(args.out, "rounds", str(k - 1), "fit.txt")):
        # The same examples give the same model (the fit is deterministic),
        # and its runs are the last round's: every later round is this one.
        with open(os.path.join(args.out, "rounds", str(k - 1),
                               "result.json")) as f:
            row = json.load(f)
        row.update({"round": k, "same as round": k - 1})
        recipelib.write_file(os.path.join(rdir, "result.json"),
                             json.dumps(row) + "\n")
        return row

    # The margin does not change the fit: one model, copied per margin.
    models = {m: os.path.join(rdir, f"m{m}.json") for m in args.margins}
    first = args.margins[0]
    fit(args, os.path.join(rdir, "fit.txt"), first, models[first])
    for margin in args.margins[1:]:
        if not os.path.exists(models[margin]):
            with_margin(models[first], margin, models[margin])
    runs = ["Oz"] + [f"r{k}-m{m}={p}" for m, p in models.items()]
    collect(args, args.valid_corpus, os.path.join(args.out, "valid"), runs)
    totals = linked_total(os.path.join(args.out, "valid"),
                          ["Oz"] + [f"r{k}-m{m}" for m in models])
    margin = min(args.margins, key=lambda m: (totals[f"r{k}-m{m}"], m))
    shutil.copyfile(models[margin], os.path.join(rdir, "model.json.tmp"))
    os.replace(os.path.join(rdir, "model.json.tmp"),
               os.path.join(rdir, "model.json"))
    explore = os.path.join(rdir, "explore.json")
    with_margin(models[margin], 0, explore)
    valid_change = totals[f"r{k}-m{margin}"] / totals["Oz"] - 1
    row = {"round": k, "train best-of vs Oz": best_total / oz - 1,
           "margin": margin, "valid linked vs Oz": valid_change,
           "valid linked": totals[f"r{k}-m{margin}"],
           "valid linked Oz": totals["Oz"]}
    recipelib.write_file(os.path.join(rdir, "result.json"),
                         json.dumps(row) + "\n")
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--train-corpus", required=True)
    p.add_argument("--valid-corpus", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--baselines", required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--margins", default="0,1,2,4")
    p.add_argument("--sample", type=int, default=1)
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    p.add_argument("--workers", type=int)
    p.add_argument("--scheduler")
    p.add_argument("--plugin", default=os.path.join(
        recipelib.ROOT, "build", "lib", "IRTKPlugin.so"))
    p.add_argument("--embedding", default="symbolic",
                   choices=["none", "symbolic", "flow-aware"])
    p.add_argument("--vocab")
    p.add_argument("--shared", help="the teachers are chosen by what the "
                   "package's link keeps: the inline functions shared at "
                   "stock (OUT/shared of `python3 -m ir2vec.mlgo search "
                   "--kind edge --linked`)")
    p.add_argument("--train", default=TRAIN,
                   help="the irtk-train to run (default: this checkout's)")
    p.add_argument("fit", nargs=argparse.REMAINDER,
                   help="-- then options for irtk-train fit")
    args = p.parse_args()
    args.fit = [a for a in args.fit if a != "--"]
    baselines = [b for b in args.baselines.split(",") if b]
    if "Oz" not in baselines:
        p.error("--baselines must include Oz")
    try:
        args.margins = [float(m) for m in args.margins.split(",")]
    except ValueError:
        p.error(f"--margins: expected numbers, got '{args.margins}'")
    args.margins = [int(m) if m == int(m) else m for m in args.margins]
    if args.rounds < 0 or args.sample < 1 or args.jobs < 1:
        p.error("--rounds must not be negative, --sample and --jobs positive")
    for a in ("out", "train_corpus", "valid_corpus", "plugin"):
        setattr(args, a, os.path.abspath(getattr(args, a)))
    for a in ("vocab", "shared"):
        if getattr(args, a):
            setattr(args, a, os.path.abspath(getattr(args, a)))
    recipelib.check_parameters(args.out, {
        "train corpus": args.train_corpus, "valid corpus": args.valid_corpus,
        "baselines": baselines, "margins": args.margins,
        "sample": args.sample, "embedding": args.embedding,
        "vocab": args.vocab, "fit": args.fit,
        # Only with --shared: the records of earlier runs stay valid.
        **({"shared": args.shared} if args.shared else {})})

    rows = []
    teachers = list(baselines)
    for k in range(args.rounds):
        result = os.path.join(args.out, "rounds", str(k), "result.json")
        if os.path.exists(result):
            with open(result) as f:
                row = json.load(f)
        else:
            row = do_round(args, k, teachers)
        rows.append(row)
        if "same as round" in row:
            print(f"round {k + 1}/{args.rounds}: train best-of "
                  f"{100 * row['train best-of vs Oz']:+.3f}% vs Oz, the "
                  f"teachers of round {row['same as round'] + 1} again: "
                  "its model stands, no more rounds", file=sys.stderr,
                  flush=True)
            break
        print(f"round {k + 1}/{args.rounds}: train best-of "
              f"{100 * row['train best-of vs Oz']:+.3f}% vs Oz, margin "
              f"{row['margin']}, valid linked "
              f"{100 * row['valid linked vs Oz']:+.3f}% vs Oz",
              file=sys.stderr, flush=True)
        rdir = os.path.join(args.out, "rounds", str(k))
        teachers += [f"p{k}={rdir}/model.json",
                     f"p{k}-explore={rdir}/explore.json"]
    recipelib.write_file(os.path.join(args.out, "progress.tsv"), "".join(
        "\t".join(map(str, r)) + "\n" for r in
        [("round", "train best-of vs Oz", "margin", "valid linked vs Oz")] +
        [(r["round"] + 1, f"{100 * r['train best-of vs Oz']:+.3f}%",
          r["margin"], f"{100 * r['valid linked vs Oz']:+.3f}%")
         for r in rows if "same as round" not in r]))
    if rows:
        best = min((r for r in rows if "same as round" not in r),
                   key=lambda r: (r["valid linked"], r["round"]))
        model = os.path.join(args.out, "rounds", str(best["round"]),
                             "model.json")
        recipelib.write_file(os.path.join(args.out, "best.json"), json.dumps(
            {"round": best["round"] + 1, "model": model,
             "valid linked vs Oz": best["valid linked vs Oz"]}) + "\n")
        print(model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
