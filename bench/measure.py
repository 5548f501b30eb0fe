#!/usr/bin/env python3
# ===- measure.py - Time our llvm-ir2vec against upstream and parse-only ----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===-----------------------------------------------------------------------===#
"""Time our llvm-ir2vec against upstream's and against parsing alone.

Called by bench/run.sh, which builds the corpus and the vocabulary first.
Every benchmark is a shell command with its output sent to /dev/null; its
time is the median wall-clock time of several runs after one warm-up run,
measured by hyperfine when it is installed and by time.perf_counter
otherwise. Before timing, our output for the largest module is compared with
upstream's at func and bb level (a mismatch stops the run: there is no point
timing a wrong answer) and at inst level (reported only, see below).

Prints a table of times and ratios and the exact commands, and writes them to
<workdir>/results.md and <workdir>/results.json.
"""

import argparse
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
import time

# Goals from the project issue: (label, benchmark ids of the ratio, bound,
# "max" when the ratio must stay at or below the bound, "min" for at least).
GOALS = [
    ("whole corpus at func level: upstream (one process per file, "
     "sequential) / ours >= 5x", ("corpus-upstream-seq", "corpus-ours"), 5.0,
     "min"),
    ("func level, largest module: ours / parse-only <= 1.1x",
     ("big-ours-func", "big-parse"), 1.1, "max"),
    ("bb level, largest module: ours / parse-only <= 1.1x",
     ("big-ours-bb", "big-parse"), 1.1, "max"),
    ("inst level, largest module: ours / parse-only <= 1.5x",
     ("big-ours-inst", "big-parse"), 1.5, "max"),
]

# Further ratios shown in the table, numerator and denominator.
RATIOS = [
    ("corpus-upstream-par", "corpus-ours"),
    ("corpus-upstream-seq", "corpus-ours-j1"),
    ("corpus-ours", "corpus-parse-par"),
    ("corpus-ours-j1", "corpus-parse-seq"),
    ("corpus-ours-j1", "corpus-ours"),
    ("big-parse", "big-parse-verify1"),
    ("big-parse", "big-parse-noverify"),
    ("big-ours-func", "big-parse-verify1"),
    ("big-ours-bb", "big-parse-verify1"),
    ("big-ours-inst", "big-parse-verify1"),
    ("big-ours-func", "big-parse-noverify"),
    ("big-upstream-func", "big-parse-noverify"),
    ("big-upstream-func", "big-parse"),
    ("big-upstream-bb", "big-parse"),
    ("big-upstream-inst", "big-parse"),
    ("big-upstream-func", "big-ours-func"),
    ("big-upstream-bb", "big-ours-bb"),
    ("big-upstream-inst", "big-ours-inst"),
]


def log(msg):
    print(f"[measure] {msg}", file=sys.stderr, flush=True)


def q(s):
    return shlex.quote(str(s))


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def tool_version(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True,
                             text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    m = re.search(r"version\s+(\S+)", out)
    return m.group(1) if m else out.strip().splitlines()[0] if out else "?"


def check_devnull():
    """Outputs go to /dev/null; if something replaced the device with a
    regular file, they would be written to a file and skew every time."""
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        sys.exit("measure.py: /dev/null is not a character device any more; "
                 "restore it (as root: mknod -m 666 /dev/null.new c 1 3 && "
                 "mv -f /dev/null.new /dev/null) and rerun")


def time_with_hyperfine(cmd, runs, max_runs, warmup):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        path = tmp.name
    try:
        subprocess.run(["hyperfine", "--style", "none", "--warmup", str(warmup),
                        "--min-runs", str(runs), "--max-runs", str(max_runs),
                        "--shell", "bash", "--export-json", path, cmd],
                       check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            result = json.load(f)["results"][0]
        times = result["times"]
    finally:
        os.unlink(path)
    return statistics.median(times), times


def time_with_python(cmd, runs, max_runs, warmup, budget=3.0):
    def once():
        start = time.perf_counter()
        subprocess.run(cmd, shell=True, executable="/bin/bash", check=True,
                       stdout=subprocess.DEVNULL)
        return time.perf_counter() - start

    for _ in range(warmup):
        once()
    times = [once()]
    while len(times) < max_runs and (len(times) < runs or
                                     sum(times) < budget):
        times.append(once())
    return statistics.median(times), times


def compare_outputs(args, big, workdir):
    """Our output vs upstream's for the largest module. Returns notes."""
    notes = []
    checkdir = os.path.join(workdir, "check")
    os.makedirs(checkdir, exist_ok=True)
    for level in ("func", "bb", "inst"):
        outs = {}
        for who, tool in (("upstream", args.upstream), ("ours", args.ours)):
            path = os.path.join(checkdir, f"{who}.{level}.txt")
            with open(path, "w") as f:
                subprocess.run([tool, "embeddings",
                                f"--ir2vec-vocab-path={args.vocab}",
                                f"--level={level}", big], stdout=f,
                               check=True)
            outs[who] = path
        with open(outs["upstream"], "rb") as a, open(outs["ours"], "rb") as b:
            up, ours = a.read(), b.read()
        if up == ours:
            nlines = up.count(b"\n")
            msg = (f"{level}: our output equals upstream's "
                   f"({len(up)} bytes, {nlines} lines)")
            log(msg)
            notes.append(msg)
            continue
        up_lines, our_lines = up.splitlines(), ours.splitlines()
        differing = sum(1 for x, y in zip(up_lines, our_lines) if x != y)
        differing += abs(len(up_lines) - len(our_lines))
        # Instruction text names metadata nodes (!12) and attribute groups
        # (#3) by slot numbers; tell those apart from wrong vectors.
        def mask(data):
            return re.sub(rb"([!#])[0-9]+", rb"\1N", data)
        same_masked = mask(up) == mask(ours)
        msg = (f"{level}: our output DIFFERS from upstream's in {differing} of "
               f"{len(up_lines)} lines (diff {outs['upstream']} "
               f"{outs['ours']}); ")
        msg += ("identical once metadata (!N) and attribute group (#N) slot "
                "numbers are masked" if same_masked else
                "it differs even with slot numbers masked")
        log(msg)
        notes.append(msg)
        if level != "inst":
            sys.exit(f"measure.py: {level}-level output differs from "
                     "upstream's; not benchmarking a wrong answer")
    for level in ("func", "bb", "inst"):
        for who in ("upstream", "ours"):
            os.unlink(os.path.join(checkdir, f"{who}.{level}.txt"))
    return notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ours", required=True)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--opt", required=True)
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--list", required=True, help="file listing the corpus")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--runs", type=int, default=3,
                    help="minimum timed runs per benchmark (default 3)")
    ap.add_argument("--max-runs", type=int, default=10)
    ap.add_argument("--no-hyperfine", action="store_true",
                    help="time with time.perf_counter even if hyperfine exists")
    ap.add_argument("--skip-check", action="store_true",
                    help="do not compare our output with upstream's")
    args = ap.parse_args()

    with open(args.list) as f:
        corpus = [l.strip() for l in f if l.strip()]
    sizes = {p: os.path.getsize(p) for p in corpus}
    big = max(corpus, key=lambda p: sizes[p])
    nproc = os.cpu_count() or 1
    use_hyperfine = shutil.which("hyperfine") and not args.no_hyperfine
    timer = "hyperfine" if use_hyperfine else "python time.perf_counter"

    machine = {
        "nproc": nproc,
        "cpu": cpu_model(),
        "kernel": platform.release(),
        "upstream_version": tool_version(args.upstream),
        "timer": timer,
    }
    packages = sorted({os.path.basename(os.path.dirname(p)) for p in corpus})
    corpus_info = {
        "modules": len(corpus),
        "bytes": sum(sizes.values()),
        "packages": {pkg: sum(1 for p in corpus
                              if os.path.basename(os.path.dirname(p)) == pkg)
                     for pkg in packages},
        "largest": big,
        "largest_bytes": sizes[big],
    }
    with open(args.ours, "rb") as f:
        machine["ours_sha256"] = hashlib.sha256(f.read()).hexdigest()[:16]
    machine["load_before"] = os.getloadavg()
    log(f"{len(corpus)} modules, {corpus_info['bytes'] / 1e6:.1f} MB; "
        f"largest {big} ({sizes[big] / 1e6:.2f} MB); timer: {timer}")

    check_devnull()
    notes = [] if args.skip_check else compare_outputs(args, big, args.workdir)

    up, ours, opt = q(args.upstream), q(args.ours), q(args.opt)
    voc = f"--ir2vec-vocab-path={q(args.vocab)}"
    lst = q(args.list)
    bench = [
        ("corpus-upstream-seq", "corpus", "upstream, 1 process per file, "
         "sequential",
         f"xargs -a {lst} -n1 {up} embeddings {voc} --level=func >/dev/null"),
        ("corpus-upstream-par", "corpus", f"upstream, 1 process per file, "
         f"xargs -P {nproc}",
         f"xargs -a {lst} -n1 -P {nproc} {up} embeddings {voc} --level=func "
         ">/dev/null"),
        ("corpus-ours", "corpus", f"ours, 1 process, all files, default "
         f"threads ({nproc})",
         f"{ours} embeddings {voc} --level=func $(cat {lst}) >/dev/null"),
        ("corpus-ours-j1", "corpus", "ours, 1 process, all files, -j 1",
         f"{ours} embeddings {voc} --level=func -j 1 $(cat {lst}) >/dev/null"),
        ("corpus-parse-seq", "corpus", "parse-only (opt verify), 1 process "
         "per file, sequential",
         f"xargs -a {lst} -n1 {opt} -passes=verify -disable-output"),
        ("corpus-parse-par", "corpus", f"parse-only (opt verify), 1 process "
         f"per file, xargs -P {nproc}",
         f"xargs -a {lst} -n1 -P {nproc} {opt} -passes=verify "
         "-disable-output"),
        ("big-parse", "big", "parse-only (opt verify)",
         f"{opt} -passes=verify -disable-output {q(big)}"),
        # `opt -passes=verify` verifies twice: opt checks its input, then
        # the pass runs. Ours verifies once; upstream's llvm-ir2vec never.
        ("big-parse-verify1", "big", "parse + verify once (opt "
         "-disable-verify -passes=verify)",
         f"{opt} -disable-verify -passes=verify -disable-output {q(big)}"),
        ("big-parse-noverify", "big", "parse without verifier (opt no-op)",
         f"{opt} -disable-verify -passes=no-op-module -disable-output "
         f"{q(big)}"),
    ]
    for level in ("func", "bb", "inst"):
        bench.append((f"big-ours-{level}", "big", f"ours, --level={level}",
                      f"{ours} embeddings {voc} --level={level} {q(big)} "
                      ">/dev/null"))
        bench.append((f"big-upstream-{level}", "big",
                      f"upstream, --level={level}",
                      f"{up} embeddings {voc} --level={level} {q(big)} "
                      ">/dev/null"))

    # Warm the page cache once, so that the long corpus runs need no warm-up
    # run of their own.
    for p in corpus:
        with open(p, "rb") as f:
            f.read()

    results = {}
    for bid, group, desc, cmd in bench:
        # One warm-up run, except for runs that take tens of seconds.
        warmup = 0 if group == "corpus" or bid == "big-upstream-inst" else 1
        log(f"timing {bid}: {cmd}")
        check_devnull()
        if use_hyperfine:
            median, times = time_with_hyperfine(cmd, args.runs, args.max_runs,
                                                warmup)
        else:
            median, times = time_with_python(cmd, args.runs, args.max_runs,
                                             warmup)
        results[bid] = {"group": group, "what": desc, "command": cmd,
                        "median_s": median, "runs": len(times),
                        "min_s": min(times), "max_s": max(times)}
        check_devnull()
        log(f"  median {median:.3f} s over {len(times)} runs")

    machine["load_after"] = os.getloadavg()

    def ratio(a, b, key="median_s"):
        return results[a][key] / results[b][key]

    goals = []
    for label, (a, b), bound, kind in GOALS:
        r = ratio(a, b)
        met = r >= bound if kind == "min" else r <= bound
        goals.append({"goal": label, "ratio": r,
                      "ratio_of_min": ratio(a, b, "min_s"), "numerator": a,
                      "denominator": b, "met": met})

    # --- Report -------------------------------------------------------------
    lines = []
    lines.append("## Machine")
    lines.append("")
    lines.append(f"- CPU: {machine['cpu']}, nproc = {nproc}")
    lines.append(f"- Linux {machine['kernel']}; upstream LLVM "
                 f"{machine['upstream_version']}; timer: {timer} "
                 f"(median wall-clock time of {args.runs}-{args.max_runs} "
                 "runs; one warm-up run except for the corpus runs and "
                 "upstream's inst level, which follow a page-cache warm-up)")
    lines.append("- load average (1, 5, 15 min) before: "
                 + ", ".join(f"{x:.2f}" for x in machine["load_before"])
                 + "; after: "
                 + ", ".join(f"{x:.2f}" for x in machine["load_after"]))
    lines.append(f"- our llvm-ir2vec: `{args.ours}` "
                 f"(sha256 {machine['ours_sha256']}...)")
    lines.append("")
    lines.append("## Corpus")
    lines.append("")
    pk = ", ".join(f"{k} ({v})" for k, v in corpus_info["packages"].items())
    lines.append(f"- {len(corpus)} modules, "
                 f"{corpus_info['bytes'] / 1e6:.1f} MB of bitcode: {pk}")
    lines.append(f"- largest: `{os.path.relpath(big, args.workdir)}`, "
                 f"{sizes[big] / 1e6:.2f} MB")
    lines.append("")
    if notes:
        lines.append("## Output check (largest module, against upstream)")
        lines.append("")
        lines.extend(f"- {n}" for n in notes)
        lines.append("")
    lines.append("## Times")
    lines.append("")
    lines.append("| id | input | what | median (s) | min (s) | runs |")
    lines.append("|----|-------|------|-----------:|--------:|-----:|")
    for bid, group, desc, _ in bench:
        r = results[bid]
        where = (f"corpus ({len(corpus)} modules, func level)"
                 if group == "corpus" else "largest module")
        lines.append(f"| {bid} | {where} | {desc} | {r['median_s']:.3f} | "
                     f"{r['min_s']:.3f} | {r['runs']} |")
    lines.append("")
    lines.append("## Goals")
    lines.append("")
    lines.append("| goal | ratio of medians | ratio of minima | met (medians) |")
    lines.append("|------|-----------------:|----------------:|---------------|")
    for g in goals:
        lines.append(f"| {g['goal']} | {g['ratio']:.2f}x "
                     f"({g['numerator']} / {g['denominator']}) | "
                     f"{g['ratio_of_min']:.2f}x | "
                     f"{'yes' if g['met'] else '**no**'} |")
    lines.append("")
    lines.append("## Other ratios")
    lines.append("")
    lines.append("| ratio | medians | minima |")
    lines.append("|-------|--------:|-------:|")
    for a, b in RATIOS:
        lines.append(f"| {a} / {b} | {ratio(a, b):.2f}x | "
                     f"{ratio(a, b, 'min_s'):.2f}x |")
    lines.append("")
    lines.append("## Commands")
    lines.append("")
    for bid, _, _, cmd in bench:
        lines.append(f"- `{bid}`: `{cmd}`")
    lines.append("")
    report = "\n".join(lines)
    print(report)

    with open(os.path.join(args.workdir, "results.md"), "w") as f:
        f.write(report)
    with open(os.path.join(args.workdir, "results.json"), "w") as f:
        json.dump({"machine": machine, "corpus": corpus_info,
                   "checks": notes, "results": results, "goals": goals},
                  f, indent=2)
        f.write("\n")
    log(f"wrote {os.path.join(args.workdir, 'results.md')} and results.json")


if __name__ == "__main__":
    main()
