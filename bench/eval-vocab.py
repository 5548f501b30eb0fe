#!/usr/bin/env python3
# ===- eval-vocab.py - Quality evaluation of IR2Vec vocabularies ------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===-----------------------------------------------------------------------===#
"""Measure whether an IR2Vec vocabulary is better than random vectors.

A function's symbolic embedding is the vocabulary matrix applied to the
function's entity histogram. With random vectors that is a random projection,
which preserves distances, so tasks that only need "functions with similar
histograms are close" (retrieval, clone search) cannot tell a trained
vocabulary from noise. This script uses two kinds of task meant to:

1. Intrinsic: nearest-neighbour purity of the opcode vectors over the
   semantic groups in GROUPS. For each opcode in a group, purity@k is the
   fraction of its k nearest other opcodes (cosine) that are in the same
   group, with k capped at the group's size minus one so that perfect
   clustering scores 1.0; the table gives the mean over opcodes. Only the
   grouped opcodes that every evaluated vocabulary has (non-zero) take part,
   so all rows use the same set and the same chance level, which is printed
   (analytic) next to the random vocabularies' measured value.

2. Downstream: how much a function shrinks at -Oz. From the function's -O0
   symbolic embedding e and its -O0 instruction count n0, a ridge regression
   (numpy; the penalty chosen by exact leave-one-out on the training set
   only) predicts y = log(nOz / n0); the predicted -Oz size is n0 * exp(y).
   Features are [log n0, e / n0]: the embedding has to describe what the
   function is made of, not how big it is. The embedding block is centred
   and scaled by one number, not per dimension, so the ridge prior over
   entity weights is the vocabulary's own similarity kernel V V^T: a
   vocabulary in which similar opcodes have similar vectors shares
   evidence between them, which matters most when there are few training
   functions. Cross-validation leaves one package out: the model is never
   trained and tested on the same package. Reported: R^2 of log -Oz size,
   R^2 and Spearman's rho of the shrink ratio, MAE of log size (natural log;
   equal for both targets), with all training functions and in a low-data
   regime (--small functions drawn at random from the training packages,
   --repeats times, the same draws for every vocabulary). Baseline rows:
   "size only" (features [log n0]) and "one-hot" (the exact weighted
   110-entity histogram, computed by the same tool with an identity
   vocabulary): all a symbolic embedding can carry, since any
   embedding is this histogram times the vocabulary.

   With enough training functions every vocabulary of full enough rank
   ties with the one-hot row (the same linear model, reparametrised); only
   the low-data columns can show a semantic prior at work. On a
   development corpus (8 C packages, 3.4k functions) they did not: trained,
   upstream-seed, shuffled and random vocabularies all fell within the
   spread of the random ones, while purity told them apart.

3. Downstream, opcode transfer ("xfer" columns, symbolic only): the same
   shrink regression, but the model must use an opcode it never saw. For
   each opcode used by at least XFER_MIN_USERS functions and unused by at
   least XFER_MIN_NONUSERS (the rule picks them; no hand choice), and each
   held-out package: train on the other packages' functions that do NOT
   use it, test on the package's functions that DO. The trained model is
   the same whether the opcode's vector is its own or zero, so each test
   function is predicted twice: with the vocabulary (the opcode acts
   through its vector, i.e. like the opcodes whose vectors it resembles)
   and with that vector zeroed (the opcode ignored). Delta = R^2 (or
   Spearman's rho) of the shrink on the pooled test functions, with minus
   without; reported as the mean and median over held-out opcodes, and
   "wins", the fraction of opcodes where the vector helps. The one-hot row
   has Delta exactly 0 (an unseen column gets weight 0); random vectors
   inject noise; a vocabulary whose similar opcodes have similar vectors
   should transfer. The oracle row is the ceiling: one-hot trained with the
   opcode's users included, against one-hot without them, on the same test
   functions. On the development corpus that ceiling was about zero (mean
   Delta R^2 +0.02, median -0.01, Delta rho -0.03): at -O0 knowing an
   opcode's own weight barely helps predict -Oz shrink of its users across
   packages, so there is little for a vocabulary to transfer; the mean
   Delta R^2 is dominated by a few opcodes present in most functions (Br,
   GetElementPtr, ICmp, Unreachable, ExtractValue), where extrapolation
   moves R^2 by up to +-2.

Control rows ("shuffled"): each given vocabulary with its vectors permuted
among the entities of each section (--shuffles times). They keep the
vocabulary's norms, spread and rank and lose only which entity has which
vector, so a gap between a vocabulary and its shuffled rows is what its
semantics buy. Their symbolic embeddings are computed as histogram x
vocabulary in numpy; the script checks that this equals the tool's output
for every vocabulary it runs.

Instruction counts come from the one-hot vocabulary's function embeddings
(the sum of the opcode components; unreachable blocks are not counted, as in
every embedding). A function is used when it is defined in both the O0 and
the Oz module of the same file (functions inlined away at Oz are dropped).

The held-out corpus is an MLGO corpus (corpus_description.json) whose
modules are named <level>/<package>/<file> (or <package>/<level>/<file>); only levels O0 and Oz are read.
"""

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
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
FEATURE_LEVELS = ("O0", "Oz")
ALPHAS = np.logspace(-4, 4, 17)
PURITY_KS = (1, 3)
# Opcode transfer: held-out opcodes need this many users and non-users.
XFER_MIN_USERS = 100
XFER_MIN_NONUSERS = 500

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


def write_onehot(path, names):
    """Entity k is the k-th unit vector: embeddings become histograms."""
    n = len(names)
    vocab, k = {}, 0
    for sec, size in zip(SECTIONS, SECTION_SIZES):
        vocab[sec] = {}
        for name in names[k:k + size]:
            vec = [0] * n
            vec[k] = 1
            vocab[sec][name] = vec
            k += 1
    with open(path, "w") as f:
        json.dump(vocab, f)


def file_digest(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


# --- Intrinsic: nearest-neighbour purity -----------------------------------
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


# --- Statistics ------------------------------------------------------------
def rankdata(x):
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(len(x), dtype=float)
    xs = x[order]
    i = 0
    while i < len(xs):  # average ranks of ties
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[i]:
            j += 1
        if j > i:
            ranks[order[i:j + 1]] = (i + j) / 2.0
        i = j + 1
    return ranks


def spearman(a, b):
    ra, rb = rankdata(np.asarray(a)), rankdata(np.asarray(b))
    ra -= ra.mean()
    rb -= rb.mean()
    den = math.sqrt(float(ra @ ra) * float(rb @ rb))
    return float(ra @ rb) / den if den > 0 else 0.0


def r2(y, p):
    y, p = np.asarray(y), np.asarray(p)
    ss = float(((y - y.mean()) ** 2).sum())
    return 1.0 - float(((y - p) ** 2).sum()) / ss if ss > 0 else 0.0


def ridge_fit(x, y, alphas=ALPHAS):
    """Ridge with intercept; alpha by exact leave-one-out on (x, y).

    Returns a predict function. x is assumed already scaled.
    """
    mx, my = x.mean(axis=0), y.mean()
    xc, yc = x - mx, y - my
    n = len(y)
    u, s, vt = np.linalg.svd(xc, full_matrices=False)
    uty = u.T @ yc
    best = None
    for a in alphas:
        f = s * s / (s * s + a)
        fitted = u @ (f * uty)
        h = (u * u) @ f + 1.0 / n  # leverage, intercept included
        loo = (yc - fitted) / np.maximum(1.0 - h, 1e-12)
        err = float((loo ** 2).mean())
        if best is None or err < best[0]:
            best = (err, a)
    a = best[1]
    beta = vt.T @ ((s / (s * s + a)) * uty)
    return lambda z: (z - mx) @ beta + my


class Features:
    """Scaling fitted on training rows only: log n0 standardised, embedding
    block centred and divided by one number (its total standard deviation)."""

    def __init__(self, logn, emb, rows):
        self.logn, self.emb = logn, emb
        self.ml, self.sl = logn[rows].mean(), logn[rows].std() or 1.0
        if emb is not None:
            self.me = emb[rows].mean(axis=0)
            tot = math.sqrt(float(((emb[rows] - self.me) ** 2).sum(axis=1)
                                  .mean()))
            self.se = tot or 1.0

    def __call__(self, rows):
        cols = [((self.logn[rows] - self.ml) / self.sl)[:, None]]
        if self.emb is not None:
            cols.append((self.emb[rows] - self.me) / self.se)
        return np.hstack(cols)


def lopo_predict(logn, emb, y, pkg_ids, train_subset=None):
    """Leave-one-package-out predictions of y for every row."""
    pred = np.empty_like(y)
    for p in np.unique(pkg_ids):
        test = np.flatnonzero(pkg_ids == p)
        train = np.flatnonzero(pkg_ids != p)
        if train_subset is not None:
            train = train_subset[p]
        feats = Features(logn, emb, train)
        model = ridge_fit(feats(train), y[train])
        pred[test] = model(feats(test))
    return pred


def downstream_metrics(logn0, lognz, pred_ratio):
    y = lognz - logn0
    return {
        "r2_size": r2(lognz, logn0 + pred_ratio),
        "r2_shrink": r2(y, pred_ratio),
        "rho_shrink": spearman(y, pred_ratio),
        "mae": float(np.abs(y - pred_ratio).mean()),
    }


def small_subsets(pkg_ids, small, repeats, seed):
    """Per repeat, per held-out package: `small` training rows drawn from the
    other packages. Depends only on the data and the seed, never on the
    vocabulary, so every vocabulary sees the same draws."""
    out = []
    for r in range(repeats):
        subs = {}
        for p in np.unique(pkg_ids):
            rng = np.random.default_rng([seed, r, int(p)])
            train = np.flatnonzero(pkg_ids != p)
            subs[p] = np.sort(rng.choice(train, size=min(small, len(train)),
                                         replace=False))
        out.append(subs)
    return out


def evaluate_downstream(data, emb, subsets):
    logn0, lognz, pkg = data["logn0"], data["lognz"], data["pkg"]
    y = lognz - logn0
    full = downstream_metrics(logn0, lognz, lopo_predict(logn0, emb, y, pkg))
    lows = [downstream_metrics(logn0, lognz,
                               lopo_predict(logn0, emb, y, pkg, s))
            for s in subsets]
    low = {k: float(np.mean([m[k] for m in lows])) for k in lows[0]}
    return {"full": full, "small": low}


# --- Downstream: opcode transfer --------------------------------------------
def ridge_fit_gram(x, y, alphas=ALPHAS):
    """ridge_fit computed from the (d x d) Gram matrix instead of a thin SVD
    of the (n x d) data: the same model (directions with singular value below
    1e-6 of the largest are dropped; every penalty tried makes their weight
    negligible), several times faster for n >> d."""
    mx, my = x.mean(axis=0), y.mean()
    xc, yc = x - mx, y - my
    n = len(y)
    ev_, v = np.linalg.eigh(xc.T @ xc)
    keep = ev_ > 1e-12 * max(float(ev_[-1]), 1e-300)
    s, v = np.sqrt(ev_[keep]), v[:, keep]
    u = (xc @ v) / s
    uty = u.T @ yc
    uu = u * u
    best = None
    for a in alphas:
        f = s * s / (s * s + a)
        fitted = u @ (f * uty)
        h = uu @ f + 1.0 / n
        loo = (yc - fitted) / np.maximum(1.0 - h, 1e-12)
        err = float((loo ** 2).mean())
        if best is None or err < best[0]:
            best = (err, a)
    beta = v @ ((s / (s * s + best[1])) * uty)
    return lambda z: (z - mx) @ beta + my


def transfer_splits(data, min_users=XFER_MIN_USERS,
                    min_nonusers=XFER_MIN_NONUSERS):
    """The held-out opcodes and, per opcode, per held-out package, the
    (train, test) rows: train = functions of the other packages that do not
    use the opcode at -O0, test = functions of the package that use it.
    Depends only on the data, never on a vocabulary."""
    use = data["hist"][:, :NUM_OPCODES] > 0
    pkg = data["pkg"]
    out = []
    for o in range(NUM_OPCODES):
        if use[:, o].sum() < min_users or (~use[:, o]).sum() < min_nonusers:
            continue
        folds = []
        for p in np.unique(pkg):
            test = np.flatnonzero((pkg == p) & use[:, o])
            train = np.flatnonzero((pkg != p) & ~use[:, o])
            if len(test) and len(train) > 1:
                folds.append((train, test))
        if folds:
            out.append((o, folds))
    return out


def evaluate_transfer(data, hist, w, splits, oracle=False):
    """Opcode transfer for the vocabulary w (symbolic embedding = hist @ w).

    Per held-out opcode o: one model per fold, trained on functions without
    o, so identical whether o's vector is w[o] or zero; the test functions
    are predicted twice, with w (o enters through its vector) and with w[o]
    zeroed (o ignored). The scores are pooled over the folds of o, then
    averaged over the held-out opcodes. With oracle=True (and w the identity)
    the first prediction instead comes from a one-hot model trained on all
    the other packages' functions, o's users included: what seeing the
    opcode in training would buy."""
    logn0, y = data["logn0"], data["lognz"] - data["logn0"]
    pkg, use = data["pkg"], data["hist"][:, :NUM_OPCODES] > 0
    emb = hist @ w
    per = []
    for o, folds in splits:
        wz = w.copy()
        wz[o] = 0.0
        embz = hist @ wz
        ys, pw, pz = [], [], []
        for train, test in folds:
            fz = Features(logn0, embz, train)
            mz = ridge_fit_gram(fz(train), y[train])
            pz.append(mz(fz(test)))
            if oracle:
                tr = np.flatnonzero(pkg != pkg[test[0]])
                f = Features(logn0, emb, tr)
                pw.append(ridge_fit_gram(f(tr), y[tr])(f(test)))
            else:
                # Training rows have no o: its vector cannot change the model.
                f = Features(logn0, emb, train)
                pw.append(mz(f(test)))
            ys.append(y[test])
        yy, pw, pz = map(np.concatenate, (ys, pw, pz))
        per.append({"opcode": int(o), "n_test": int(len(yy)),
                    "r2": r2(yy, pw), "r2_ignore": r2(yy, pz),
                    "rho": spearman(yy, pw), "rho_ignore": spearman(yy, pz)})
    dr2 = np.array([m["r2"] - m["r2_ignore"] for m in per])
    drho = np.array([m["rho"] - m["rho_ignore"] for m in per])
    return {"xfer": {"r2": float(np.mean([m["r2"] for m in per])),
                     "dr2": float(dr2.mean()), "dr2_median": float(np.median(dr2)),
                     "drho": float(drho.mean()),
                     # Ties (e.g. one-hot, where o's weight is 0) are losses.
                     "wins": float((dr2 > 1e-9).mean())},
            "xfer_per_opcode": per}


# --- Corpus -----------------------------------------------------------------
def corpus_pairs(root):
    desc = os.path.join(root, "corpus_description.json")
    try:
        with open(desc) as f:
            modules = json.load(f)["modules"]
    except (OSError, ValueError, KeyError) as e:
        die(f"{desc}: cannot read the module list ({e})")
    by = {}
    for m in modules:
        # <level>/<package>/<file> (vocab/recipe/build-corpus.sh) or
        # <package>/<level>/<file>.
        parts = m.split("/")
        if len(parts) < 3:
            continue
        if parts[0] in FEATURE_LEVELS:
            level, pkg = parts[0], parts[1]
        elif parts[1] in FEATURE_LEVELS:
            level, pkg = parts[1], parts[0]
        else:
            continue
        by.setdefault((pkg, "/".join(parts[2:])), {})[level] = \
            os.path.join(root, m + ".bc")
    pairs = [(pkg, f, lv["O0"], lv["Oz"]) for (pkg, f), lv in sorted(by.items())
             if "O0" in lv and "Oz" in lv and os.path.exists(lv["O0"])
             and os.path.exists(lv["Oz"])]
    if not pairs:
        die(f"{root}: no module with both an O0 and an Oz version "
            "(expected names <level>/<package>/<file> or "
            "<package>/<level>/<file>)")
    return pairs


def run_embeddings(tool, vocab, kind, inputs, out, jobs):
    if os.path.exists(out):
        return
    listfile = out + ".cmd"
    cmd = [tool, "embeddings", "--level=func", "--format=jsonl",
           f"--ir2vec-kind={kind}", f"--ir2vec-vocab-path={vocab}",
           "-j", str(jobs), "-o", out] + inputs
    with open(listfile, "w") as f:
        f.write(" ".join(cmd[:-len(inputs)]) + " <inputs>\n")
    for attempt in range(12):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True)
            break
        except OSError as e:  # the tool is being rebuilt
            if attempt == 11:
                die(f"cannot run {tool}: {e}")
            time.sleep(5)
    if r.returncode != 0:
        # Some inputs failed: the tool still wrote the others. Say so.
        log(f"warning: {os.path.basename(tool)} exit {r.returncode}: "
            f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''}")
        if not os.path.exists(out):
            die(f"embedding run failed for {vocab}: {r.stderr.strip()}")


def read_jsonl(path):
    emb = {}
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            emb[(rec["module"], rec["function"])] = rec["embedding"]
    return emb


class Corpus:
    def __init__(self, root, tool, work, jobs):
        self.tool, self.work, self.jobs = tool, work, jobs
        self.pairs = corpus_pairs(root)
        self.o0 = [p[2] for p in self.pairs]
        self.oz = [p[3] for p in self.pairs]
        h = hashlib.sha1()
        st = os.stat(tool)  # a rebuilt tool recomputes the cached embeddings
        h.update(f"{tool}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        for p in self.pairs:
            for path in p[2:]:
                st = os.stat(path)
                h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        self.key = h.hexdigest()[:12]

    def embed(self, vocab, kind, inputs, tag):
        out = os.path.join(self.work, f"emb-{self.key}-{file_digest(vocab)}-"
                           f"{kind}-{tag}.jsonl")
        run_embeddings(self.tool, vocab, kind, inputs, out, self.jobs)
        return read_jsonl(out)

    def dataset(self, onehot):
        """Rows = functions defined at both O0 and Oz."""
        h0 = self.embed(onehot, "symbolic", self.o0, "O0")
        hz = self.embed(onehot, "symbolic", self.oz, "Oz")
        pkgs = sorted({p[0] for p in self.pairs})
        rows, pkg, n0, nz, hist = [], [], [], [], []
        # Index functions per module once (dicts keep the tool's order).
        per0 = {}
        for (mod, fn), v in h0.items():
            per0.setdefault(mod, []).append((fn, v))
        for p, _, f0, fz in self.pairs:
            for fn, v in per0.get(f0, []):
                vz = hz.get((fz, fn))
                if vz is None:
                    continue
                c0 = sum(v[:NUM_OPCODES])
                cz = sum(vz[:NUM_OPCODES])
                if c0 <= 0 or cz <= 0:
                    continue
                rows.append((f0, fn))
                pkg.append(pkgs.index(p))
                n0.append(c0)
                nz.append(cz)
                hist.append(v)
        if len(set(pkg)) < 2:
            die("need at least two packages for leave-one-package-out")
        return {"rows": rows, "pkg": np.array(pkg), "pkgs": pkgs,
                "logn0": np.log(np.array(n0)), "lognz": np.log(np.array(nz)),
                "n0": np.array(n0), "hist": np.array(hist, dtype=float)}

    def features(self, vocab, kind, data):
        e = self.embed(vocab, kind, self.o0, "O0")
        try:
            m = np.array([e[r] for r in data["rows"]], dtype=float)
        except KeyError as k:
            die(f"{vocab}: no {kind} embedding for {k}")
        return m / data["n0"][:, None]


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
    ("purity@1", "p1", "intrinsic"),
    ("purity@3", "p3", "intrinsic"),
    ("R² size", "full.r2_size", "down"),
    ("R² shrink", "full.r2_shrink", "down"),
    ("ρ shrink", "full.rho_shrink", "down"),
    ("MAE", "full.mae", "down"),
    ("R² shrink @small", "small.r2_shrink", "down"),
    ("ρ shrink @small", "small.rho_shrink", "down"),
    ("MAE @small", "small.mae", "down"),
]
# Symbolic only (the transfer task zeroes one vector of the vocabulary).
XFER_COLUMNS = [
    ("R² xfer", "xfer.r2", "xfer"),
    ("ΔR² xfer", "xfer.dr2", "xfer"),
    ("ΔR² xfer median", "xfer.dr2_median", "xfer"),
    ("Δρ xfer", "xfer.drho", "xfer"),
    ("wins xfer", "xfer.wins", "xfer"),
]


def flatten(res):
    flat = {}
    for k, v in res.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                flat[f"{k}.{k2}"] = v2
        else:
            flat[k] = v
    return flat


def table(rows, cols):
    head = "| vocabulary | " + " | ".join(c[0] for c in cols) + " |"
    sep = "|---|" + "---:|" * len(cols)
    lines = [head, sep]
    for name, mean, sd in rows:
        cells = [fmt(mean.get(c[1]), sd.get(c[1]) if sd else None)
                 for c in cols]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


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

    check(abs(spearman([1, 2, 3, 4], [10, 20, 25, 100]) - 1.0) < 1e-12,
          "Spearman of a monotone map is 1")
    check(abs(spearman([1, 2, 2, 3], [3, 2, 2, 1]) + 1.0) < 1e-12,
          "Spearman with ties, reversed, is -1")
    x = rng.normal(size=(200, 5))
    y = x @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) + 4.0
    pr = ridge_fit(x, y)(x)
    check(r2(y, pr) > 0.999, f"ridge recovers a linear map: R²={r2(y, pr):.4f}")
    yn = rng.normal(size=200)
    pr = ridge_fit(x, yn)(x)
    check(r2(yn, pr) < 0.2,
          f"ridge on noise picks a strong penalty: R²={r2(yn, pr):.3f}")
    # Leave-one-package-out never trains on the test package: a target that
    # is a per-package constant, with a feature that identifies the package
    # and nothing else, must not be predicted.
    pkg = np.repeat(np.arange(4), 50)
    logn = rng.normal(size=200)
    emb = np.eye(4)[pkg]
    yp = np.array([0.0, 1.0, 2.0, 3.0])[pkg]
    pred = lopo_predict(logn, emb, yp, pkg)
    check(r2(yp, pred) < 0.0,
          f"LOPO cannot learn package identity: R²={r2(yp, pred):.3f}")
    # Opcode transfer. Synthetic corpus: opcodes 0-4 in every function,
    # opcode 5 in half of them, with the same effect on y as opcode 1. The
    # model never sees opcode 5 in training; a vocabulary giving it opcode
    # 1's vector transfers that effect, the one-hot vocabulary cannot (its
    # Delta is exactly 0), and random vectors do worse than the twin.
    n, nent = 800, sum(SECTION_SIZES)
    tr = np.random.default_rng(11)
    counts = np.zeros((n, nent))
    counts[:, :5] = tr.integers(1, 20, size=(n, 5))
    counts[: n // 2, 5] = tr.integers(1, 20, size=n // 2)
    n0 = counts[:, :NUM_OPCODES].sum(axis=1)
    frac = counts / n0[:, None]
    yt = (frac[:, :6] @ np.array([0.0, -2.0, 0.5, 0.0, 1.0, -2.0])
          + 0.05 * tr.normal(size=n))
    tpkg = tr.permutation(np.repeat(np.arange(4), n // 4))
    tdata = {"hist": counts, "pkg": tpkg, "logn0": np.log(n0),
             "lognz": np.log(n0) + yt}
    sp = transfer_splits(tdata, min_users=10, min_nonusers=10)
    check([o for o, _ in sp] == [5], f"transfer holds out opcode 5 only "
          f"(got {[o for o, _ in sp]})")
    check(all(not counts[tr_, 5].any() and counts[te, 5].all()
              and len(set(tpkg[te])) == 1 and tpkg[te[0]] not in tpkg[tr_]
              for _, folds in sp for tr_, te in folds),
          "transfer trains on non-users of other packages, tests on users")
    oh = evaluate_transfer(tdata, frac, np.eye(nent), sp)["xfer"]
    check(abs(oh["dr2"]) < 1e-9 and oh["wins"] == 0.0,
          f"one-hot cannot transfer: ΔR²={oh['dr2']:.2g} (want 0)")
    twin = tr.normal(size=(nent, 8))
    twin[5] = twin[1]
    tw = evaluate_transfer(tdata, frac, twin, sp)["xfer"]
    rnd = [evaluate_transfer(tdata, frac, np.random.default_rng(s_).normal(
        size=(nent, 8)), sp)["xfer"]["dr2"] for s_ in range(5)]
    check(tw["dr2"] > 0.3 and tw["dr2"] > max(rnd) + 0.1,
          f"a twin vector transfers: ΔR²={tw['dr2']:.3f}, random "
          f"{', '.join(f'{v:.3f}' for v in rnd)}")
    print("self-test " + ("FAILED" if failures else "passed"))
    return 1 if failures else 0


# --- Main -------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="See the module docstring (head of this file) for the tasks.")
    ap.add_argument("--heldout", help="held-out MLGO corpus directory "
                    "(modules <level>/<package>/<file>, levels O0 and Oz)")
    ap.add_argument("--vocab", action="append", default=[],
                    metavar="NAME=PATH", help="a vocabulary to evaluate; "
                    "repeatable; a missing file is skipped with a warning")
    ap.add_argument("--random", type=int, default=5, metavar="N",
                    help="random vocabularies (gen_vocab.py, seeds 1..N; "
                    "default 5; 0 for none)")
    ap.add_argument("--small", type=int, default=64, metavar="N",
                    help="training functions in the low-data regime "
                    "(default 64)")
    ap.add_argument("--repeats", type=int, default=20,
                    help="draws of the low-data training set (default 20)")
    ap.add_argument("--shuffles", type=int, default=3, metavar="K",
                    help="control rows: each given vocabulary with its "
                    "vectors shuffled among the entities of each section, "
                    "K times (default 3; 0 for none)")
    ap.add_argument("--flow-aware", action="store_true",
                    help="also evaluate flow-aware embeddings (second table)")
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--tool-dir", default=os.path.join(REPO, "build", "bin"),
                    help="directory holding llvm-ir2vec (default build/bin)")
    ap.add_argument("--work", default=os.path.join(SCRIPT_DIR, "work", "eval"),
                    help="work directory (default bench/work/eval)")
    ap.add_argument("-j", "--jobs", type=int, default=0,
                    help="llvm-ir2vec threads (default: all cores)")
    ap.add_argument("--out", help="also write the markdown here")
    ap.add_argument("--json", help="write all numbers as JSON here")
    ap.add_argument("--self-test", action="store_true",
                    help="run the built-in checks and exit")
    args = ap.parse_args()

    if args.self_test:
        sys.exit(self_test())
    if not args.heldout:
        ap.error("--heldout is required (or --self-test)")
    if (args.small < 2 or args.repeats < 1 or args.random < 0
            or args.shuffles < 0):
        ap.error("--small must be >= 2, --repeats >= 1, --random and "
                 "--shuffles >= 0")

    tool = os.path.join(args.tool_dir, "llvm-ir2vec")
    if not os.access(tool, os.X_OK):
        die(f"{tool} not found; build it (ninja -C build) or pass --tool-dir")
    os.makedirs(args.work, exist_ok=True)
    names = entity_names(tool)
    opcodes = names[:NUM_OPCODES]
    check_groups(opcodes)

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
    onehot = os.path.join(args.work, "onehot110.json")
    if not os.path.exists(onehot):
        write_onehot(onehot, names)

    # Intrinsic.
    mats = {name: load_matrix(path, names) for name, path, _ in vocabs}
    members = purity_members([opcode_vectors(w, names)
                              for w, _ in mats.values()])
    dropped = [o for g in GROUPS.values() for o in g
               if o not in {m for m, _ in members}]
    chance = chance_purity(members)

    def purity_of(w):
        return {f"p{k}": v for k, v in
                purity(opcode_vectors(w, names), members).items()}

    results = {name: purity_of(w) for name, (w, _) in mats.items()}

    # Downstream.
    corpus = Corpus(args.heldout, tool, args.work, args.jobs)
    log(f"{len(corpus.pairs)} O0/Oz module pairs; embedding with the one-hot "
        "vocabulary")
    data = corpus.dataset(onehot)
    log(f"{len(data['rows'])} functions in {len(data['pkgs'])} packages")
    subsets = small_subsets(data["pkg"], args.small, args.repeats, args.seed)
    kinds = ["symbolic"] + (["flow-aware"] if args.flow_aware else [])
    down = {kind: {} for kind in kinds}
    hist = data["hist"] / data["n0"][:, None]
    splits = transfer_splits(data)
    if not splits:
        die(f"no opcode has {XFER_MIN_USERS} users and {XFER_MIN_NONUSERS} "
            "non-users: corpus too small for the transfer task")
    xfer_per = {}

    def transfer(w, key=None, oracle=False):
        t = evaluate_transfer(data, hist, w, splits, oracle)
        if key is not None:
            xfer_per[key] = t["xfer_per_opcode"]
        return {"xfer": t["xfer"]}

    eye = np.eye(len(names))
    base = {"size only": evaluate_downstream(data, None, subsets),
            "one-hot (110-d histogram)":
                {**evaluate_downstream(data, hist, subsets),
                 **transfer(eye, "one-hot")},
            "one-hot, trained with the opcode (oracle)":
                transfer(eye, "oracle", oracle=True)}
    shuffled = {}
    for name, path, is_random in vocabs:
        for kind in kinds:
            log(f"{name}: {kind}")
            feats = corpus.features(path, kind, data)
            down[kind][name] = evaluate_downstream(data, feats, subsets)
            if kind != "symbolic":
                continue
            # A symbolic embedding is linear in the weighted histogram: the
            # tool's output must equal hist @ W. This checks the histogram
            # (and so the instruction counts) and licenses the shuffled
            # controls below, which are computed that way.
            w = mats[name][0]
            err = np.abs(hist @ w - feats).max() / (np.abs(feats).max() or 1)
            if err > 1e-5:
                die(f"{name}: symbolic embeddings differ from histogram x "
                    f"vocabulary (relative error {err:.2g})")
            down[kind][name].update(transfer(w, name))
        if is_random or not args.shuffles:
            continue
        w, present = mats[name]
        runs = []
        for k in range(args.shuffles):
            ws = shuffle_within_sections(
                w, present, np.random.default_rng([args.seed, k]))
            runs.append({**purity_of(ws), **flatten(
                evaluate_downstream(data, hist @ ws, subsets)),
                **flatten(transfer(ws))})
        shuffled[name] = runs

    # Tables.
    def rows_for(kind):
        out = []
        fixed = [v for v in vocabs if not v[2]]
        rand = [v for v in vocabs if v[2]]
        for name, _, _ in fixed:
            out.append((name, {**results[name],
                               **flatten(down[kind][name])}, None))
            if kind == "symbolic" and name in shuffled:
                mean, sd = aggregate(shuffled[name])
                out.append((f"{name}, shuffled (mean ± sd, "
                            f"{len(shuffled[name])})", mean, sd))
        if rand:
            mean, sd = aggregate([{**results[n], **flatten(down[kind][n])}
                                  for n, _, _ in rand])
            out.append((f"random (mean ± sd, {len(rand)} seeds)", mean, sd))
        if kind == "symbolic":
            for bname, b in base.items():
                out.append((bname, flatten(b), None))
        if kind == "symbolic":
            out.append(("chance (analytic)", {"p1": chance, "p3": chance},
                        None))
        return out

    fixed_names = [v[0] for v in vocabs if not v[2]]
    counts = np.bincount(data["pkg"], minlength=len(data["pkgs"]))
    md = ["# IR2Vec vocabulary evaluation", "",
          f"Held-out corpus: `{args.heldout}`: {len(corpus.pairs)} O0/Oz module "
          f"pairs, {len(data['rows'])} functions in {len(data['pkgs'])} "
          "packages (" + ", ".join(f"{p} {c}" for p, c in
                                   zip(data["pkgs"], counts)) + ").", "",
          f"Purity over {len(members)} opcodes in "
          f"{len({g for _, g in members})} groups"
          + (f" (not in every vocabulary, left out: {', '.join(dropped)})"
             if dropped else "") + ".",
          "Downstream: ridge on [log n0, e/n0] of the O0 function, "
          "leave-one-package-out; target log(nOz/n0); MAE in natural log "
          f"of -Oz size; @small = {args.small} training functions, mean over "
          f"{args.repeats} draws.",
          "Transfer (xfer): per held-out opcode ("
          + ", ".join(f"{names[o]} {sum(len(t) for _, t in f)}"
                      for o, f in splits)
          + " test functions), ridge trained only on other packages' "
          "functions that do not use it, tested on the package's functions "
          "that do; Δ = with the opcode's vector minus with it zeroed "
          "(ignored), mean (or median) over opcodes; wins = fraction of "
          "opcodes with ΔR² > 0. Oracle row: one-hot trained with the "
          "opcode's users, Δ against one-hot without them.", ""]
    for kind in kinds:
        cols = COLUMNS + XFER_COLUMNS if kind == "symbolic" else COLUMNS[2:]
        md += [f"## {kind}", "", table(rows_for(kind), cols), ""]
    text = "\n".join(md)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"heldout": args.heldout,
                       "vocabularies": {n: p for n, p, _ in vocabs},
                       "purity_opcodes": members, "purity_chance": chance,
                       "functions": len(data["rows"]),
                       "packages": dict(zip(data["pkgs"], counts.tolist())),
                       "small": args.small, "repeats": args.repeats,
                       "purity": results,
                       "downstream": down, "baselines": base,
                       "shuffled": shuffled,
                       "transfer_opcodes": [names[o] for o, _ in splits],
                       "transfer_per_opcode": {
                           k: [{**m, "opcode": names[m["opcode"]]}
                               for m in v] for k, v in xfer_per.items()},
                       "fixed": fixed_names}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
