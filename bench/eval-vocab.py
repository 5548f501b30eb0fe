#!/usr/bin/env python3
# ===- eval-vocab.py - Quality evaluation of IR2Vec vocabularies ------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===-----------------------------------------------------------------------===#
"""Measure whether an IR2Vec vocabulary is better than random vectors.

The metric is intrinsic: nearest-neighbour purity of the opcode vectors over
the semantic groups in GROUPS. For each opcode in a group, purity@k is the
fraction of its k nearest other opcodes (cosine) that are in the same group,
with k capped at the group's size minus one so that perfect clustering
scores 1.0; the table gives the mean over opcodes. Only the grouped opcodes
that every evaluated vocabulary has (non-zero) take part, so all rows use the
same set and the same chance level, which is printed (analytic) next to the
random vocabularies' measured value. Only the vocabularies' vectors are
read: no corpus is needed.

Baseline rows: random vocabularies (gen_vocab.py, seeds 1..--random) and,
as controls ("shuffled"), each given vocabulary with its vectors permuted
among the entities of each section (--shuffles times). The shuffled rows keep
the vocabulary's norms, spread and rank and lose only which entity has which
vector, so a gap between a vocabulary and its shuffled rows is what its
semantics buy.

Downstream tasks (a ridge regression of -Oz shrink from the -O0 embedding,
its low-data and unseen-opcode variants) used to be here too; no vocabulary
beat random vectors on them, and they were removed. What they measured and
found is in docs/DefaultVocabulary.md; the code is in the git history of this
file.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

# --- Opcode groups ----------------------------------------------------------
# Every LLVM 22 opcode of the vocabulary's "Opcodes" section is in exactly one
# of GROUPS or UNGROUPED (checked against `llvm-ir2vec entities` at start-up).
GROUPS = {
    "int-arith": ["Add", "Sub", "Mul", "UDiv", "SDiv", "URem", "SRem"],
    "float-arith": ["FNeg", "FAdd", "FSub", "FMul", "FDiv", "FRem"],
    "bitwise": ["Shl", "LShr", "AShr", "And", "Or", "Xor"],
    "casts": ["Trunc", "ZExt", "SExt", "FPToUI", "FPToSI", "UIToFP", "SIToFP",
              "FPTrunc", "FPExt", "PtrToInt", "PtrToAddr", "IntToPtr",
              "BitCast", "AddrSpaceCast"],
    "memory": ["Alloca", "Load", "Store", "GetElementPtr"],
    "atomics": ["Fence", "AtomicCmpXchg", "AtomicRMW"],
    "vector": ["ExtractElement", "InsertElement", "ShuffleVector"],
    "aggregate": ["ExtractValue", "InsertValue"],
    "terminators": ["Ret", "Br", "Switch", "IndirectBr", "Unreachable"],
    "compares": ["ICmp", "FCmp"],
    "calls": ["Call", "Invoke", "CallBr"],
    "exceptions": ["Resume", "LandingPad", "CleanupRet", "CatchRet",
                   "CatchSwitch", "CatchPad", "CleanupPad"],
}
# No sensible group: value selection/SSA plumbing and placeholders.
UNGROUPED = ["PHI", "Select", "Freeze", "VAArg", "UserOp1", "UserOp2"]

NUM_OPCODES = 68
SECTIONS = ("Opcodes", "Types", "Arguments")
# Section sizes in entity-id order (see gen_vocab.py): 68, 12, 30.
SECTION_SIZES = (68, 12, 30)
PURITY_KS = (1, 3)

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(SCRIPT_DIR)


def log(msg):
    print(f"[eval-vocab {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr,
          flush=True)


def die(msg):
    print(f"eval-vocab.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


# --- Vocabularies -----------------------------------------------------------
def entity_names(tool):
    out = subprocess.run([tool, "entities"], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    names = [l.split("\t")[0] for l in out[1:] if l.strip()]
    if len(names) != sum(SECTION_SIZES):
        die(f"{tool} entities: expected {sum(SECTION_SIZES)} entities, "
            f"got {len(names)}")
    return names


def check_groups(opcodes):
    seen = {}
    for g, members in GROUPS.items():
        for m in members:
            if m in seen:
                die(f"opcode {m} is in groups {seen[m]} and {g}")
            seen[m] = g
    for m in UNGROUPED:
        if m in seen:
            die(f"opcode {m} is both grouped ({seen[m]}) and ungrouped")
        seen[m] = None
    missing = [o for o in opcodes if o not in seen]
    unknown = [o for o in seen if o not in opcodes]
    if missing or unknown:
        die(f"GROUPS/UNGROUPED out of date: missing {missing}, "
            f"unknown {unknown}")


def load_matrix(path, names):
    """All entities as rows of a matrix, in id order (absent keys are zero,
    as in the embedders), and the mask of the keys present."""
    try:
        with open(path) as f:
            v = json.load(f)
        merged = {}
        for sec in SECTIONS:
            merged.update(v[sec])
        dim = len(next(iter(v["Opcodes"].values())))
    except (OSError, ValueError, KeyError, TypeError, StopIteration) as e:
        die(f"{path}: not an IR2Vec vocabulary ({type(e).__name__}: {e})")
    w = np.zeros((len(names), dim))
    present = np.zeros(len(names), dtype=bool)
    for i, n in enumerate(names):
        if n in merged:
            w[i] = merged[n]
            present[i] = True
    return w, present


def opcode_vectors(w, names):
    return {n: w[i] for i, n in enumerate(names[:NUM_OPCODES])}


def shuffle_within_sections(w, present, rng):
    """The same vectors, given to other entities of the same section: keeps
    the vocabulary's norms, spread and rank, destroys what each entity
    means."""
    out = w.copy()
    k = 0
    for size in SECTION_SIZES:
        idx = np.flatnonzero(present[k:k + size]) + k
        out[idx] = w[rng.permutation(idx)]
        k += size
    return out


# --- Nearest-neighbour purity -----------------------------------------------
def purity(vectors, members, ks=PURITY_KS):
    """vectors: name -> vector; members: list of (name, group).

    Returns {k: mean purity@k}. k is capped at |group| - 1 per query; queries
    from groups with a single member are skipped (they can never score).
    """
    names = [n for n, _ in members]
    groups = np.array([g for _, g in members])
    m = np.stack([vectors[n] for n in names])
    m = m / np.linalg.norm(m, axis=1, keepdims=True)
    sim = m @ m.T
    np.fill_diagonal(sim, -np.inf)
    out = {}
    for k in ks:
        scores = []
        for i in range(len(names)):
            size = int((groups == groups[i]).sum())
            if size < 2:
                continue
            kk = min(k, size - 1)
            # Stable order: ties broken by position, deterministic.
            nn = np.argsort(-sim[i], kind="stable")[:kk]
            scores.append(float((groups[nn] == groups[i]).mean()))
        out[k] = float(np.mean(scores))
    return out


def chance_purity(members):
    groups = [g for _, g in members]
    n = len(groups)
    vals = [(groups.count(g) - 1) / (n - 1) for g in groups
            if groups.count(g) >= 2]
    return float(np.mean(vals))


def purity_members(vocab_vectors):
    """Grouped opcodes that are non-zero in every vocabulary."""
    members = []
    for g, ops in GROUPS.items():
        for o in ops:
            if all(np.linalg.norm(v[o]) > 0 for v in vocab_vectors):
                members.append((o, g))
    return members


def evaluate(mats, names, fixed, shuffles, seed):
    """Purity of every vocabulary in mats (name -> (matrix, present)) over
    the opcodes they all have, and of `shuffles` within-section shuffles of
    each vocabulary named in `fixed`."""
    members = purity_members([opcode_vectors(w, names)
                              for w, _ in mats.values()])
    kept = {m for m, _ in members}

    def purity_of(w):
        return {f"p{k}": v for k, v in
                purity(opcode_vectors(w, names), members).items()}

    shuffled = {}
    for name in fixed:
        if not shuffles:
            break
        w, present = mats[name]
        shuffled[name] = [purity_of(shuffle_within_sections(
            w, present, np.random.default_rng([seed, k])))
            for k in range(shuffles)]
    return {"members": members,
            "dropped": [o for g in GROUPS.values() for o in g
                        if o not in kept],
            "chance": chance_purity(members),
            "purity": {name: purity_of(w) for name, (w, _) in mats.items()},
            "shuffled": shuffled}


# --- Report -----------------------------------------------------------------
def fmt(v, sd=None, nd=3):
    if v is None:
        return "—"
    s = f"{v:.{nd}f}"
    return s + (f" ± {sd:.{nd}f}" if sd is not None else "")


def aggregate(results):
    """Mean and sd of a list of flat metric dicts."""
    keys = results[0].keys()
    return ({k: float(np.mean([r[k] for r in results])) for k in keys},
            {k: float(np.std([r[k] for r in results], ddof=1))
             if len(results) > 1 else 0.0 for k in keys})


COLUMNS = [
    ("purity@1", "p1"),
    ("purity@3", "p3"),
]


def table(rows, cols=COLUMNS):
    head = "| vocabulary | " + " | ".join(c[0] for c in cols) + " |"
    sep = "|---|" + "---:|" * len(cols)
    lines = [head, sep]
    for name, mean, sd in rows:
        cells = [fmt(mean.get(c[1]), sd.get(c[1]) if sd else None)
                 for c in cols]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report_rows(ev, fixed, rand):
    """Table rows: each fixed vocabulary (then its shuffled controls), the
    random vocabularies as one row, chance."""
    out = []
    for name in fixed:
        out.append((name, ev["purity"][name], None))
        if name in ev["shuffled"]:
            mean, sd = aggregate(ev["shuffled"][name])
            out.append((f"{name}, shuffled (mean ± sd, "
                        f"{len(ev['shuffled'][name])})", mean, sd))
    if rand:
        mean, sd = aggregate([ev["purity"][n] for n in rand])
        out.append((f"random (mean ± sd, {len(rand)} seeds)", mean, sd))
    out.append(("chance (analytic)", {"p1": ev["chance"], "p3": ev["chance"]},
                None))
    return out


# --- Self-test --------------------------------------------------------------
def self_test():
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    members = [(o, g) for g, ops in GROUPS.items() for o in ops]
    rng = np.random.default_rng(7)
    dim = 75
    centres = {g: rng.normal(size=dim) for g in GROUPS}
    tight = {o: centres[g] + 0.01 * rng.normal(size=dim) for o, g in members}
    p = purity(tight, members)
    check(p[1] == 1.0 and p[3] == 1.0,
          f"clustered vocabulary: purity@1={p[1]:.3f} purity@3={p[3]:.3f} "
          "(want 1.0)")
    chance = chance_purity(members)
    vals = {1: [], 3: []}
    for seed in range(50):
        r = np.random.default_rng(seed)
        rand = {o: r.uniform(-1, 1, size=dim) for o, _ in members}
        for k, v in purity(rand, members).items():
            vals[k].append(v)
    for k in PURITY_KS:
        m = float(np.mean(vals[k]))
        check(abs(m - chance) < 0.03,
              f"random vocabulary: mean purity@{k}={m:.3f}, "
              f"chance {chance:.3f} (want within 0.03)")
    small = [("a", "x"), ("b", "x"), ("c", "y"), ("d", "y"), ("e", "z")]
    c = chance_purity(small)
    check(abs(c - 1 / 4) < 1e-12,
          f"chance of groups 2+2+1: {c:.4f} (want 1/4; the singleton does "
          "not score)")
    # Swapping two opcodes between groups must cost purity.
    swapped = dict(tight)
    swapped["Add"], swapped["FAdd"] = tight["FAdd"], tight["Add"]
    p = purity(swapped, members)
    check(p[1] < 1.0, f"one swap: purity@1={p[1]:.3f} (want < 1.0)")

    # Shuffling within sections keeps each section's vectors and the zero
    # (absent) rows, and takes a clustered vocabulary down to chance.
    names = ([o for o, _ in members] + UNGROUPED
             + [f"T{i}" for i in range(SECTION_SIZES[1])]
             + [f"A{i}" for i in range(SECTION_SIZES[2])])
    w = np.vstack([tight[n] if n in tight else rng.normal(size=dim)
                   for n in names])
    present = np.ones(len(names), dtype=bool)
    present[NUM_OPCODES - 1] = False
    w[NUM_OPCODES - 1] = 0.0
    ws = shuffle_within_sections(w, present, np.random.default_rng(3))
    same = all(sorted(map(tuple, w[a:b])) == sorted(map(tuple, ws[a:b]))
               for a, b in ((0, 68), (68, 80), (80, 110)))
    check(same and not ws[NUM_OPCODES - 1].any(),
          "shuffle keeps each section's vectors and the absent rows")
    p = purity(opcode_vectors(ws, names), members)
    check(p[1] < 0.4, f"shuffled clustered vocabulary: purity@1={p[1]:.3f} "
          "(want near chance)")

    # A grouped opcode missing from one vocabulary leaves every row: the
    # same opcodes and the same chance level for all of them.
    wz = w.copy()
    wz[names.index("Fence")] = 0.0
    pm = purity_members([opcode_vectors(w, names), opcode_vectors(wz, names)])
    check(len(pm) == len(members) - 1 and "Fence" not in dict(pm),
          f"an opcode absent from one vocabulary is left out "
          f"({len(pm)} of {len(members)})")
    # The whole evaluation: the clustered vocabulary scores 1, its shuffled
    # controls near chance, and the shuffles depend on the seed only.
    mats = {"clustered": (w, present), "shuffled-in": (ws, present)}
    ev = evaluate(mats, names, ["clustered"], 3, 2025)
    ev2 = evaluate(mats, names, ["clustered"], 3, 2025)
    sh, _ = aggregate(ev["shuffled"]["clustered"])
    check(ev["purity"]["clustered"] == {"p1": 1.0, "p3": 1.0}
          and sh["p1"] < 0.4 and len(ev["shuffled"]["clustered"]) == 3
          and ev["shuffled"] == ev2["shuffled"],
          f"evaluate: clustered purity@1={ev['purity']['clustered']['p1']:.3f}"
          f", shuffled {sh['p1']:.3f}, reproducible")
    rows = report_rows(ev, ["clustered"], ["shuffled-in"])
    text = table(rows)
    check(len(rows) == 4 and "| clustered | 1.000 | 1.000 |" in text
          and f"| chance (analytic) | {ev['chance']:.3f} |" in text
          and "random (mean ± sd, 1 seeds) | " in text,
          "report rows: vocabulary, shuffled, random, chance")
    # Loading: entities absent from the file are zero rows, not present.
    with tempfile.NamedTemporaryFile("w", suffix=".json",
                                     delete=False) as f:
        json.dump({"Opcodes": {"Add": [1, 2], "Sub": [3, 4]},
                   "Types": {"T0": [5, 6]}, "Arguments": {}}, f)
    try:
        lw, lp = load_matrix(f.name, ["Add", "Mul", "Sub", "T0"])
    finally:
        os.unlink(f.name)
    check(lw.tolist() == [[1, 2], [0, 0], [3, 4], [5, 6]]
          and lp.tolist() == [True, False, True, True],
          "load_matrix: id order, absent entities zero and not present")
    print("self-test " + ("FAILED" if failures else "passed"))
    return 1 if failures else 0


# --- Main -------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="See the module docstring (head of this file) for the metric.")
    ap.add_argument("--vocab", action="append", default=[],
                    metavar="NAME=PATH", help="a vocabulary to evaluate; "
                    "repeatable; a missing file is skipped with a warning")
    ap.add_argument("--random", type=int, default=5, metavar="N",
                    help="random vocabularies (gen_vocab.py, seeds 1..N; "
                    "default 5; 0 for none)")
    ap.add_argument("--shuffles", type=int, default=3, metavar="K",
                    help="control rows: each given vocabulary with its "
                    "vectors shuffled among the entities of each section, "
                    "K times (default 3; 0 for none)")
    ap.add_argument("--seed", type=int, default=2025,
                    help="seed of the shuffles (default 2025)")
    ap.add_argument("--tool-dir", default=os.path.join(REPO, "build", "bin"),
                    help="directory holding llvm-ir2vec (default build/bin)")
    ap.add_argument("--work", default=os.path.join(SCRIPT_DIR, "work", "eval"),
                    help="work directory for the random vocabularies "
                    "(default bench/work/eval)")
    ap.add_argument("--out", help="also write the markdown here")
    ap.add_argument("--json", help="write all numbers as JSON here")
    ap.add_argument("--self-test", action="store_true",
                    help="run the built-in checks and exit")
    args = ap.parse_args()

    if args.self_test:
        sys.exit(self_test())
    if args.random < 0 or args.shuffles < 0:
        ap.error("--random and --shuffles must be >= 0")

    tool = os.path.join(args.tool_dir, "llvm-ir2vec")
    if not os.access(tool, os.X_OK):
        die(f"{tool} not found; build it (ninja -C build) or pass --tool-dir")
    os.makedirs(args.work, exist_ok=True)
    names = entity_names(tool)
    check_groups(names[:NUM_OPCODES])

    vocabs = []  # (name, path, is_random)
    for spec in args.vocab:
        if "=" not in spec:
            ap.error(f"--vocab {spec!r}: expected NAME=PATH")
        name, path = spec.split("=", 1)
        if not os.path.exists(path):
            log(f"warning: {path} does not exist; skipping '{name}'")
            continue
        vocabs.append((name, path, False))
    for s in range(1, args.random + 1):
        path = os.path.join(args.work, f"random-{s}.json")
        if not os.path.exists(path):
            subprocess.run([sys.executable, os.path.join(SCRIPT_DIR,
                            "gen_vocab.py"), "--tool", tool, "--seed", str(s),
                            "-o", path], check=True)
        vocabs.append((f"random-{s}", path, True))
    if not vocabs:
        die("no vocabulary to evaluate")

    fixed = [n for n, _, r in vocabs if not r]
    rand = [n for n, _, r in vocabs if r]
    mats = {name: load_matrix(path, names) for name, path, _ in vocabs}
    ev = evaluate(mats, names, fixed, args.shuffles, args.seed)
    members, dropped = ev["members"], ev["dropped"]

    md = ["# IR2Vec vocabulary evaluation", "",
          f"Purity over {len(members)} opcodes in "
          f"{len({g for _, g in members})} groups"
          + (f" (not in every vocabulary, left out: {', '.join(dropped)})"
             if dropped else "") + ".", "",
          table(report_rows(ev, fixed, rand)), ""]
    text = "\n".join(md)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"vocabularies": {n: p for n, p, _ in vocabs},
                       "purity_opcodes": members,
                       "purity_chance": ev["chance"],
                       "purity": ev["purity"],
                       "shuffled": ev["shuffled"],
                       "fixed": fixed}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
