# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A first learned size-pipeline policy (docs/Pipeline.md, "A first
policy"): a module's k nearest training modules, by their module-level
embeddings, vote for one of a few candidate configurations.

The candidates are the stock size settings (``data/stock-settings.json``,
table ``size``), then either the clang-space configurations the training
search (``tune``) found best most often, or (``around``) the clang-space
analogue of the best fixed setting and its most frequent single moves.
Every candidate is compiled on every training module. A module's choice
is the candidate with the largest mean relative gain over the best fixed
setting among its k nearest training modules (cosine similarity of the
standardised state: the module vector, cheap IR counts, or both), if
that gain exceeds a margin; otherwise the best fixed setting. Validation
chooses the state, k and the margin; held-out code only reports.
"""

import collections
import json
import os

from .pipeline import Config, Pipeline, space, stock_policies
from .tune import start_config, neighbours


def candidates(results, n):
    """[(name, policy)]: the stock size settings, then the n clang-space
    configurations most often best in a search's results (ties in the
    configurations' order), without plain -Oz again."""
    out = list(stock_policies("size"))
    counts = collections.Counter(
        json.dumps(r["best"]["config"], sort_keys=True) for r in results
        if r and r["best"]["text"] is not None)
    oz = Config.oz()
    picked = 0
    for key, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        cfg = Config.from_key(json.loads(key))
        if cfg == oz:
            continue
        if picked == n:
            break
        out.append((cfg.describe(), Pipeline(cfg)))
        picked += 1
    return out


def scaling(train):
    """(mean, deviation) of each feature of train's rows; a constant
    feature's deviation is 1 (what standardise and the networks' input
    normalisation divide by)."""
    dev = train.std(axis=0)
    dev[dev == 0] = 1.0
    return train.mean(axis=0), dev


def relative_gains(text, base, unit=1.0):
    """Each row's relative gain of every column of text over column base,
    in units of unit (100: percent): unit * (text[base] - text) /
    text[base], in that order (a base of 0 or less divides by 1)."""
    import numpy as np
    ref = text[:, [base]]
    return unit * (ref - text) / np.where(ref > 0, ref, 1.0)


def standardise(train, *others):
    """The rows of train and others, each feature centred and scaled by
    train's mean and deviation, then each row scaled to unit length."""
    import numpy as np
    mean, dev = scaling(train)

    def norm(x):
        z = (x - mean) / dev
        length = np.linalg.norm(z, axis=1, keepdims=True)
        length[length == 0] = 1.0
        return z / length
    return [norm(train)] + [norm(o) for o in others]


def choose(train_x, train_text, x, k, base, margin=0.0):
    """Each row of x's candidate (a column index of train_text): the one
    with the largest mean relative gain over column base, (base - c) /
    base, among the row's k nearest rows of train_x (unit rows: cosine
    similarity), when that gain exceeds margin; else base. Ties go to the
    lower index."""
    import numpy as np
    k = min(k, len(train_x))
    gain = relative_gains(train_text, base)
    sim = x @ train_x.T
    near = np.argsort(-sim, axis=1, kind="stable")[:, :k]
    mean = gain[near].mean(axis=1)
    best = np.argmax(mean, axis=1)
    return np.where(mean[np.arange(len(x)), best] > margin, best, base)


def around(fixed, results, n):
    """[(name, policy)]: the stock size settings, the clang-space analogue
    of the stock setting named fixed (its flags as appended passes), and
    that analogue's n single additions (a veto, or an appended
    sub-pipeline) most often part of the results' best configurations
    (ties in the moves' order). Removals are left out: the stock settings
    hold the analogue without each of its flags."""
    base = start_config(fixed, space())
    return list(stock_policies("size")) + [(base.describe(), Pipeline(base))] \
        + additions(base, results, n)


def additions(base, results, n):
    """[(name, policy)]: the n single additions to the clang-space config
    base (a veto, or an appended sub-pipeline) most often part of the
    results' best configurations (ties in the moves' order)."""
    sp = space()
    best = [Config.from_key(r["best"]["config"]) for r in results
            if r and r["best"]["text"] is not None]
    counts = []
    for m in neighbours(base, sp, "clang"):
        change = _addition(base, m, sp)
        if change:
            counts.append((sum(1 for b in best if _has(b, change, sp)), m))
    ranked = sorted(enumerate(counts), key=lambda ic: (-ic[1][0], ic[0]))
    return [(m.describe(), Pipeline(m)) for _, (c, m) in ranked[:n] if c]


def _addition(base, move, sp):
    """("veto", pass) or ("extra", name, times) that move adds to base, or
    None for any other move."""
    if move.outline != base.outline:
        return None
    added = set(move.veto) - set(base.veto)
    if added:
        return ("veto", added.pop())
    extra = collections.Counter(move.appended(sp))
    extra.subtract(base.appended(sp))
    more = [e for e, c in extra.items() if c > 0]
    return ("extra", more[0], move.appended(sp).count(more[0])) \
        if more else None


def _has(config, change, sp):
    if change[0] == "veto":
        return change[1] in config.veto
    return config.appended(sp).count(change[1]) >= change[2]


POLICY_FORMAT = "irtk-pipeline-nearest"
# Version 1: the nearest-neighbour vote. Version 2 adds "rule": "knn" (the
# vote) or "values" (a network's predicted gains, pipelinelearn.fit_values).
POLICY_VERSION = 2
RULES = ("knn", "values")


def policy_doc(state_kind, k, margin, fixed, cands, train_state, train_text):
    """The trained vote as a document: what `choose`, and the plugin's
    -irtk-pipeline-policy=model, need to decide for new modules without
    compiling them: the state's kind, k, the margin, the candidates as
    clang-space configurations and as the plugin applies them (``choice``),
    the training states (raw) and their candidates' .text."""
    return dict(_doc_head("knn", state_kind, margin, fixed, cands), k=k,
                train_state=[list(map(float, r)) for r in train_state],
                train_text=[list(map(float, r)) for r in train_text])


def values_doc(state_kind, margin, fixed, cands, network):
    """A values policy as a document: the network (``pipelinelearn.
    layers_doc``) predicts each candidate's relative gain over the fixed
    setting; the best one is taken when it exceeds the margin."""
    return dict(_doc_head("values", state_kind, margin, fixed, cands),
                network=network)


def _doc_head(rule, state_kind, margin, fixed, cands):
    configs = [(n, config_of(n, p)) for n, p in cands]
    return {"format": POLICY_FORMAT, "version": POLICY_VERSION, "rule": rule,
            "state": state_kind, "margin": margin, "fixed": fixed,
            "candidates": [{"name": n, "config": c.key(),
                            "choice": c.plugin_choice()} for n, c in configs]}


def read_policy(path):
    """A policy document written by `nearest --save` or `learn --save`
    (a values policy); ValueError naming
    the file and the problem otherwise (a FIFO or device too: it is not
    read)."""
    from ..store import checkNotAStream
    checkNotAStream(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: cannot read it: {e}") from e
    if not isinstance(doc, dict) or doc.get("format") != POLICY_FORMAT:
        raise ValueError(f"{path}: not a nearest policy (format "
                         f"\"{POLICY_FORMAT}\")")
    if doc.get("version") not in (1, POLICY_VERSION):
        raise ValueError(f"{path}: versions 1 and {POLICY_VERSION} are the "
                         "ones this irtk reads")
    try:
        _check_policy(path, doc)
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"{path}: inconsistent policy (no or a wrong "
                         f"{e})") from e
    return doc


def _check_policy(path, doc):
    rule = doc.setdefault("rule", "knn")
    names = [c["name"] for c in doc["candidates"]]
    if rule not in RULES or doc["fixed"] not in names or \
            doc["state"] not in STATES or doc["state"] == "random":
        raise ValueError(f"{path}: inconsistent policy (rule, candidates, "
                         "fixed setting or state)")
    if rule == "knn":
        rows, text = doc["train_state"], doc["train_text"]
        if not rows or len(rows) != len(text) or \
                any(len(t) != len(names) for t in text) or \
                len({len(r) for r in rows}) != 1:
            raise ValueError(f"{path}: inconsistent policy (training rows)")
    elif not _network_fits(doc["network"], len(names)):
        raise ValueError(f"{path}: inconsistent policy (the network's "
                         "layers, or its outputs and the candidates)")


def _network_fits(net, outputs):
    width = len(net["mean"])
    if width == 0 or len(net["scale"]) != width or not net["layers"]:
        return False
    for layer in net["layers"]:
        w = layer["weight"]
        if not w or any(len(r) != width for r in w) or \
                len(layer["bias"]) != len(w) or \
                layer["activation"] not in ("relu", "linear"):
            return False
        width = len(w)
    return width == outputs


def values(network, x):
    """The network's predicted gains for the rows of x (numpy, float64, in
    the order of operations the plugin uses)."""
    import numpy as np
    z = (np.asarray(x, dtype=np.float64) - np.array(network["mean"])) / \
        np.array(network["scale"])
    for layer in network["layers"]:
        w = np.array(layer["weight"], dtype=np.float64)
        z = np.array([[_dot(row, r) for r in w]
                      for row in z]) + np.array(layer["bias"])
        if layer["activation"] == "relu":
            z = np.maximum(z, 0.0)
    return z


def _dot(a, b):
    """a . b summed left to right, as the plugin's loop does."""
    total = 0.0
    for p, q in zip(a.tolist(), b.tolist()):
        total += p * q
    return total


def choose_values(pred, base, margin):
    """Each row's best candidate (the first on a tie) when its predicted
    gain exceeds margin; else base."""
    import numpy as np
    best = np.argmax(pred, axis=1)
    return np.where(pred[np.arange(len(pred)), best] > margin, best, base)


def decide(doc, paths):
    """The policy's candidate name for each bitcode file."""
    import numpy as np
    names = [c["name"] for c in doc["candidates"]]
    x = state(paths, doc["state"])
    base = names.index(doc["fixed"])
    if doc["rule"] == "values":
        width = len(doc["network"]["mean"])
        if x.shape[1] != width:
            raise ValueError(f"the policy's state has {width} numbers, "
                             f"these modules' {x.shape[1]}")
        picks = choose_values(values(doc["network"], x), base, doc["margin"])
        return [names[c] for c in picks]
    train = np.array(doc["train_state"], dtype=np.float64)
    text = np.array(doc["train_text"], dtype=np.float64)
    if x.shape[1] != train.shape[1]:
        raise ValueError(f"the policy's state has {train.shape[1]} numbers, "
                         f"these modules' {x.shape[1]}")
    ts, xs = standardise(train, x)
    picks = choose(ts, text, xs, doc["k"], base, doc["margin"])
    return [names[c] for c in picks]


def config_of(name, policy):
    """The clang-space Config of a candidate: its own, or a stock size
    setting's analogue (its flags as appended passes)."""
    return policy.config if isinstance(policy, Pipeline) else \
        start_config(name, space())


def replay_file(choices, cands, corpus):
    """The plugin's choices file (-irtk-pipeline-choices) of {module:
    candidate name}: every module is listed (with nooutline where its
    choice has no outliner), to be built with -enable-machine-outliner.
    cands: [(name, policy)], or {name: Config}."""
    configs = cands if isinstance(cands, dict) else \
        {n: config_of(n, p) for n, p in cands}
    modules = {}
    for m, name in sorted(choices.items()):
        modules[corpus.source_filename(m)] = dict(
            configs[name].plugin_choice(), module=m, describe=name)
    return {"format": "irtk-pipeline-choices", "version": 1,
            "modules": modules}


# The opcodes whose counts are a state of their own (with the functions,
# blocks and instructions): a cheap, Autophase-like description of a module.
COUNTED = ("call", "load", "store", "br", "icmp", "getelementptr", "phi",
           "alloca", "ret", "switch", "select", "add", "mul")

STATES = ("embedding", "counts", "both", "random")
# The ablation's control: the module vector under a vocabulary of random
# numbers (random_vocabulary), seeded so that every run draws the same.
RANDOM_SEED = 1


def ir_counts(path, llvm_dis=None):
    """log(1 + n) of a bitcode file's defined functions, basic blocks,
    instructions and each opcode of COUNTED, from llvm-dis's text."""
    import math
    import re
    import subprocess
    from .toolchain import LLVM_BIN
    text = subprocess.run(
        [llvm_dis or os.path.join(LLVM_BIN, "llvm-dis"), "-o", "-", path],
        capture_output=True, text=True)
    if text.returncode:
        raise ValueError(f"{path}: llvm-dis failed: "
                         f"{text.stderr.strip().splitlines()[-1:]}")
    functions = blocks = instructions = 0
    ops = dict.fromkeys(COUNTED, 0)
    label = re.compile(r"^[\w.$-]+:")
    opcode = re.compile(r"^(?:%[\w.$-]+ = )?(?:tail |musttail |notail )?(\w+)")
    inside = first = False
    for line in text.stdout.splitlines():
        if line.startswith("define "):
            functions += 1
            inside = first = True
        elif line.startswith("}"):
            inside = False
        elif inside:
            s = line.strip()
            if not s or s.startswith(";"):
                continue
            if label.match(s):
                blocks += 1
                first = False
                continue
            if first:  # an entry block without a label
                blocks += 1
                first = False
            instructions += 1
            m = opcode.match(s)
            if m and m.group(1) in ops:
                ops[m.group(1)] += 1
    return [math.log1p(n) for n in
            [functions, blocks, instructions] + [ops[o] for o in COUNTED]]


def state(paths, kind, threads=0):
    """The policy's state of each bitcode file (a matrix, one row a file):
    the module vector ("embedding"), the IR counts ("counts"), both side
    by side, or the module vector under a random vocabulary ("random": the
    ablation's control)."""
    return states(paths, [kind], threads)[kind]


def states(paths, kinds, threads=0):
    """{kind: state(paths, kind)} for several kinds, each part (the module
    vectors, the counts) computed once."""
    import numpy as np
    for kind in kinds:
        if kind not in STATES:
            raise ValueError(f"unknown state '{kind}' ({', '.join(STATES)})")
    parts = {}
    if {"embedding", "both"} & set(kinds):
        parts["embedding"] = embed(paths, threads)
    if {"counts", "both"} & set(kinds):
        parts["counts"] = np.array([ir_counts(p) for p in paths],
                                   dtype=np.float64)
    if "random" in kinds:
        parts["random"] = embed(paths, threads, random_vocabulary())
    return {kind: parts[kind] if kind != "both" else
            np.hstack([parts["embedding"], parts["counts"]])
            for kind in kinds}


def embed(paths, threads=0, vocab=None):
    """The module-level flow-aware embeddings of bitcode files (a matrix,
    one row a file) under a vocabulary (default: the bundled one); a file
    that cannot be embedded raises ValueError."""
    import numpy as np
    import ir2vec
    rows = []
    for r in ir2vec.embedFiles(paths, "fa", vocab, level="module",
                               threads=threads):
        if r["error"]:
            raise ValueError(f"{r['filename']}: {r['error']}")
        rows.append(np.asarray(r["embeddings"], dtype=np.float64))
    return np.vstack(rows)


def random_vocabulary(seed=RANDOM_SEED):
    """A loaded vocabulary with the bundled one's entities and dimension,
    each section's numbers drawn from a normal distribution of that
    section's mean and deviation (seeded): what the module vector carries
    beyond the counts of what a module holds is lost."""
    import tempfile
    import numpy as np
    import ir2vec
    with open(ir2vec.vocab.seedEmbedding75D, encoding="utf-8") as f:
        doc = json.load(f)
    rng = np.random.default_rng(seed)
    for section in sorted(doc):
        values = np.array(list(doc[section].values()), dtype=np.float64)
        mean, dev = float(values.mean()), float(values.std())
        for entity in sorted(doc[section]):
            doc[section][entity] = [
                float(v) for v in rng.normal(mean, dev, values.shape[1])]
    with tempfile.TemporaryDirectory(prefix="irtk-vocab-") as tmp:
        path = os.path.join(tmp, "random.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return ir2vec.loadVocab(path)
