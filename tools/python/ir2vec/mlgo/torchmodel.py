# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""PyTorch models for irtk's advisors: train in PyTorch, decide in the
compiler.

- ``export_torch(model, advisor, path, features, table)`` writes an
  ``nn.Sequential`` as an irtk model file (``irtk-mlp``,
  docs/AdvisorModels.md), the file ``-irtk-inline-model`` /
  ``-irtk-evict-model`` load as they load one of ``irtk-train fit``, and its
  binary form beside it when asked or when one is there already;
- ``decisions(model, advisor, features, states)``: the decisions the
  compiler takes with that file, computed in PyTorch (in float64, as the
  model policy computes);
- ``train_imitation(logs, advisor)``: behaviour cloning of the decisions in
  advisor training logs (``ir2vec.mlgo.log``), in float64, the same model
  for the same logs, options and seed.

What the runtime runs, and so all that ``export_torch`` takes: an optional
``Normalize(mean, scale)`` first (the format's input normalisation,
``(x - mean) / scale``), then ``nn.Linear`` layers, each followed by at most
one of ``nn.ReLU``, ``nn.Tanh`` or ``nn.Identity`` (``relu``, ``tanh``,
``linear``). Anything else is refused with a ValueError saying what and
where.
"""

import copy
import dataclasses
import json
import os
import re
import subprocess
import sys

import numpy as np

try:
    import torch
    from torch import nn
except ImportError as _e:  # pragma: no cover - depends on the machine
    raise ImportError(
        "ir2vec.mlgo.torchmodel needs PyTorch: on Debian install "
        "python3-torch (scripts/setup.sh does)") from _e

from . import log as logs_lib
from .engine import write_atomically
from .policy import advisor_info
from .toolchain import Toolchain

FORMAT, VERSION = "irtk-mlp", 1
# The largest magnitude of any advisor's feature (float's largest), which
# the model policy must evaluate without overflowing a double
# (irtk::advisors::LargestFeatureValue).
LARGEST_FEATURE = float(np.finfo(np.float32).max)
ACTIVATIONS = {nn.ReLU: "relu", nn.Tanh: "tanh", nn.Identity: "linear"}


class Normalize(nn.Module):
    """``(x - mean) / scale``, element by element: the input normalisation
    of an irtk model file (its ``mean`` and ``scale``), as the first module
    of the ``nn.Sequential``."""

    def __init__(self, mean, scale):
        super().__init__()
        mean = torch.as_tensor(mean, dtype=torch.float64).reshape(-1)
        scale = torch.as_tensor(scale, dtype=torch.float64).reshape(-1)
        if mean.shape != scale.shape:
            raise ValueError(f"Normalize: mean has {mean.numel()} elements, "
                             f"scale {scale.numel()}")
        self.register_buffer("mean", mean)
        self.register_buffer("scale", scale)

    def forward(self, x):
        return (x - self.mean.to(x.dtype)) / self.scale.to(x.dtype)


# --- The feature table ----------------------------------------------------------

def feature_table(source):
    """{feature: element count} of the advisor's features as the compiler
    has them, in buffer order, from a training log it wrote (a ``log.Log``
    or its path: its header lists every feature with the shape the options
    of that compile gave, such as the embeddings' dimension) or from a
    mapping of the same."""
    if isinstance(source, (str, os.PathLike)):
        source = logs_lib.read(source)
    if isinstance(source, logs_lib.Log):
        return {s.name: s.count for s in source.features}
    try:
        return {str(k): int(v) for k, v in dict(source).items()}
    except (TypeError, ValueError) as e:
        raise ValueError("the feature table is a training log, its path or "
                         "a mapping {feature: element count}") from e


def _check_features(features, table, info, advisor):
    if isinstance(features, str) or not features:
        raise ValueError("features: a non-empty list of the advisor's "
                         "feature names, in the order the first layer reads "
                         "them")
    seen = set()
    for f in features:
        if f == info["decision"]:
            raise ValueError(f"feature '{f}' is the {advisor} advisor's "
                             "decision, not an input")
        if f not in table:
            raise ValueError(f"feature '{f}' is not one of the {advisor} "
                             f"advisor's (the table has {len(table)}: "
                             f"{', '.join(list(table)[:6])}, ...)")
        if f in seen:
            raise ValueError(f"feature '{f}' is named twice")
        seen.add(f)
    return sum(table[f] for f in features)


# --- What the runtime runs ------------------------------------------------------

def _layers(model):
    """(mean, scale or None, [(weight, bias, activation)]) of an
    nn.Sequential the runtime can run, as float64 numpy arrays; ValueError
    for anything else."""
    if not isinstance(model, nn.Sequential):
        raise ValueError(f"expected a torch.nn.Sequential of Linear layers "
                         f"and activations, not {type(model).__name__}")
    mods = list(model)
    norm = None
    if mods and isinstance(mods[0], Normalize):
        norm = (mods[0].mean.detach().double().numpy(),
                mods[0].scale.detach().double().numpy())
        mods = mods[1:]
    layers = []
    for i, m in enumerate(mods):
        what = f"module {i + (1 if norm else 0)} ({type(m).__name__})"
        if isinstance(m, nn.Linear):
            w = m.weight.detach().double().numpy()
            b = (m.bias.detach().double().numpy() if m.bias is not None
                 else np.zeros(w.shape[0]))
            if layers and layers[-1][0].shape[0] != w.shape[1]:
                raise ValueError(f"{what}: takes {w.shape[1]} inputs; the "
                                 f"layer before gives {layers[-1][0].shape[0]}")
            layers.append([w, b, "linear"])
        elif type(m) in ACTIVATIONS:
            if i == 0 or not isinstance(mods[i - 1], nn.Linear):
                raise ValueError(f"{what}: an activation must follow a "
                                 "Linear layer (one each)")
            layers[-1][2] = ACTIVATIONS[type(m)]
        elif isinstance(m, Normalize):
            raise ValueError(f"{what}: Normalize must be the first module")
        else:
            raise ValueError(
                f"{what}: the runtime runs only Linear layers, each followed "
                "by ReLU, Tanh or Identity (and a Normalize first); "
                "docs/AdvisorModels.md")
    if not layers:
        raise ValueError("the model has no Linear layer")
    return norm, [tuple(layer) for layer in layers]


def _check_numbers(norm, layers, width):
    """What the model policy checks when it loads a model
    (MLPDescription::checkNumbers): finite numbers, no zero scale, and no
    feature of up to float's largest value overflowing a double."""
    limit = sys.float_info.max / 2
    mean, scale = norm if norm else (np.zeros(width), np.ones(width))
    if mean.size != width:
        raise ValueError(f"Normalize has {mean.size} elements; the features "
                         f"have {width}")
    for name, v in (("mean", mean), ("scale", scale)):
        if not np.all(np.isfinite(v)):
            i = int(np.argmin(np.isfinite(v)))
            raise ValueError(f"Normalize.{name}[{i}] is {v[i]}; expected a "
                             "finite number")
    if np.any(scale == 0):
        raise ValueError(f"Normalize.scale[{int(np.argmax(scale == 0))}] is "
                         "zero")
    with np.errstate(over="ignore"):
        bound = (LARGEST_FEATURE + np.abs(mean)) / np.abs(scale)
    if not np.all(bound <= limit):
        i = int(np.argmin(bound <= limit))
        raise ValueError(f"Normalize.scale[{i}] = {scale[i]:.3g} makes "
                         f"features of up to {LARGEST_FEATURE:.3g} overflow "
                         "double when normalised")
    for k, (w, b, act) in enumerate(layers):
        for name, v in (("weight", w), ("bias", b)):
            if not np.all(np.isfinite(v)):
                raise ValueError(f"layer {k}: a {name} is not a finite "
                                 "number")
        with np.errstate(over="ignore"):
            sums = np.abs(b) + (np.abs(w) * bound[None, :]).sum(axis=1)
        if not np.all(sums <= limit):
            raise ValueError(f"layer {k}: row {int(np.argmin(sums <= limit))}"
                             " can overflow double for features of up to "
                             f"{LARGEST_FEATURE:.3g} (weights too large)")
        bound = np.ones_like(sums) if act == "tanh" else sums


def describe(model, advisor, features, table, training=None):
    """The model file (a dict) of ``model`` for ``advisor``, reading
    ``features`` (names, in the order the first layer reads them) of the
    advisor's feature ``table`` (see feature_table); ValueError for a model
    the runtime cannot run or that does not fit the table."""
    info = advisor_info(advisor)
    table = feature_table(table)
    width = _check_features(features, table, info, advisor)
    norm, layers = _layers(model)
    first = layers[0][0].shape[1]
    if first != width:
        raise ValueError(
            f"the first Linear layer takes {first} inputs; the features "
            f"give {width} ({', '.join(f'{f}: {table[f]}' for f in features)})")
    outputs = layers[-1][0].shape[0]
    output = {"kind": info["output"]}
    if info["output"] == "logit" and outputs != 1:
        raise ValueError(f"the last Linear layer has {outputs} outputs; the "
                         f"{advisor} advisor's decision is a logit: 1 output")
    if info["output"] == "argmax":
        mask = info["mask"]
        choices = table.get(mask)
        if choices is None:
            raise ValueError(f"the feature table has no '{mask}', the "
                             f"{advisor} advisor's mask")
        if outputs != choices:
            raise ValueError(f"the last Linear layer has {outputs} outputs; "
                             f"the {advisor} advisor chooses among {choices}"
                             f" ({mask})")
        output["mask"] = mask
    _check_numbers(norm, layers, width)
    mean, scale = norm if norm else (np.zeros(width), np.ones(width))
    inputs, at = [], 0
    for f in features:
        n = table[f]
        inputs.append({"name": f, "mean": mean[at:at + n].tolist(),
                       "scale": scale[at:at + n].tolist()})
        at += n
    doc = {"format": FORMAT, "version": VERSION, "advisor": advisor,
           "decision": info["decision"], "inputs": inputs,
           "layers": [{"activation": act, "bias": b.tolist(),
                       "weights": w.tolist()} for w, b, act in layers],
           "output": output,
           "training": dict({"tool": "ir2vec.mlgo.torchmodel",
                             "torch": torch.__version__}, **(training or {}))}
    return doc


def export_torch(model, advisor, path, features, table, binary=None,
                 training=None, tools=None):
    """Writes ``model`` as the irtk model file ``path`` (see describe), whole
    or not at all. Its binary form (``path.bin``, ``irtk-train pack``) is
    written too when ``binary`` is true, or when None and one is there
    already (a stale one would be refused by the compiler); the two are
    made together, and a model ``irtk-train pack`` refuses is not written.
    ``training`` (a dict) is kept in the file's ``training``. Returns
    ``path``."""
    doc = describe(model, advisor, features, table, training)
    # One line per input and per row of weights, as irtk-train writes (a
    # raw newline is never inside a JSON string).
    text = re.sub(r"\[(\n[-+.0-9eE,\s]*)\]",
                  lambda m: "[" + ", ".join(
                      x.strip() for x in m.group(1).split(",")) + "]",
                  json.dumps(doc, indent=1, allow_nan=False)) + "\n"
    bin_path = path + ".bin"
    if binary is None:
        binary = os.path.exists(bin_path)
    if not binary:
        write_atomically(path, text)
        return path
    tools = tools or Toolchain()
    tmp = f"{path}.tmp{os.getpid()}"
    tmp_bin = tmp + ".bin"
    try:
        write_atomically(tmp, text)
        done = subprocess.run([tools.irtk_train, "pack", tmp, "-o", tmp_bin,
                               "--quiet"], capture_output=True, text=True)
        if done.returncode != 0:
            raise ValueError(f"{path}: not written: irtk-train pack: "
                             f"{done.stderr.strip().replace(tmp, path)}")
        os.replace(tmp, path)
        os.replace(tmp_bin, bin_path)
    finally:
        for p in (tmp, tmp_bin):
            if os.path.exists(p):
                os.remove(p)
    return path


# --- Deciding as the compiler does ------------------------------------------

def inputs(states, features):
    """The model's input rows (float64, one per state) of ``states`` (a
    ``log.Log``, or a list of {feature: array} such as ``Log.decisions()``):
    the features' elements in order, NaN and infinities as 0, as the model
    policy reads them."""
    if isinstance(states, logs_lib.Log):
        states = states.decisions()
    if not states:
        return torch.zeros((0, 0), dtype=torch.float64)
    rows = np.array([np.concatenate([np.asarray(s[f], dtype=np.float64)
                                     .reshape(-1) for f in features])
                     for s in states], dtype=np.float64).reshape(
                         len(states), -1)
    rows[~np.isfinite(rows)] = 0.0
    return torch.from_numpy(rows)


def decisions(model, advisor, features, states):
    """The decision the compiler takes with ``model`` exported for
    ``advisor`` in each of ``states`` (see inputs), computed in float64 as
    the model policy computes: 1 when the logit is positive (inline), or the
    first best-scoring choice its mask allows (evict; 0 when none is)."""
    info = advisor_info(advisor)
    if isinstance(states, logs_lib.Log):
        states = states.decisions()
    if not states:
        return np.zeros(0, dtype=np.int64)
    net = copy.deepcopy(model).double().eval()
    with torch.no_grad():
        out = net(inputs(states, features))
    return _decide(info, out, states)


def _decide(info, out, states):
    if info["output"] == "logit":
        return (out[:, 0] > 0).long().numpy()
    mask = _mask(info, states)
    scores = out.masked_fill(~mask, -float("inf"))
    best = scores.argmax(dim=1)
    best[~mask.any(dim=1)] = 0
    return best.numpy()


def _mask(info, states):
    return torch.from_numpy(np.array(
        [np.asarray(s[info["mask"]]).reshape(-1) != 0 for s in states]))


# --- Imitation ------------------------------------------------------------------

@dataclasses.dataclass
class Trained:
    """What train_imitation gives: the model (``Normalize`` first), the
    advisor, the features it reads, the advisor's feature table (of the
    logs), and ``training``, what made it (the logs, the options, the
    agreement with the logged decisions)."""

    model: nn.Sequential
    advisor: str
    features: list
    table: dict
    training: dict

    def export(self, path, binary=None, tools=None):
        """export_torch of this model, with its features and table."""
        return export_torch(self.model, self.advisor, path, self.features,
                            self.table, binary, self.training, tools)

    def decisions(self, states):
        return decisions(self.model, self.advisor, self.features, states)


def _read_logs(logs, decision):
    read, names = [], []
    for item in logs:
        lg = logs_lib.read(item) if isinstance(item, (str, os.PathLike)) \
            else item
        names.append(str(item) if not isinstance(item, logs_lib.Log)
                     else f"log {len(names)}")
        read.append(lg)
    if not read:
        raise ValueError("no training log given")
    table = feature_table(read[0])
    for lg, name in zip(read, names):
        if feature_table(lg) != table:
            raise ValueError(f"{name}: its features differ from those of "
                             f"{names[0]}")
    if list(table)[-1] != decision:
        raise ValueError(f"{names[0]}: the logged decision is "
                         f"'{list(table)[-1]}', not '{decision}'")
    return read, names, table


def train_imitation(logs, advisor, features=None, hidden=(64, 32),
                    activation="relu", epochs=20, batch_size=128, lr=1e-3,
                    l2=1e-5, seed=1):
    """Learns to take the decisions the training logs record (whichever
    policy wrote them) from ``features`` (default: every feature but the
    decision and the teachers' ``teacher_*``), in float64: an MLP of
    ``hidden`` layers with ``activation`` (``relu`` or ``tanh``), the inputs
    normalised by their mean and standard deviation over the logs (scale 1
    where constant), Adam with weight decay ``l2``; binary cross-entropy of
    a logit (inline), or softmax cross-entropy over the choices the mask
    allows (evict). ``logs`` are ``log.Log``s or paths; the same logs,
    options and seed give the same weights. Returns a ``Trained``."""
    info = advisor_info(advisor)
    if activation not in ("relu", "tanh"):
        raise ValueError(f"activation '{activation}': expected relu or tanh")
    for name, v in (("epochs", epochs), ("batch_size", batch_size)):
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer")
    read, names, table = _read_logs(logs, info["decision"])
    if features is None:
        features = [f for f in table if f != info["decision"]
                    and not f.startswith("teacher_")]
    features = list(features)
    width = _check_features(features, table, info, advisor)
    states = [s for lg in read for s in lg.decisions()]
    if not states:
        raise ValueError("the logs hold no decision")
    x = inputs(states, features)
    y = torch.tensor([int(np.asarray(s[info["decision"]]).reshape(-1)[0])
                      for s in states])
    mean = x.mean(dim=0)
    std = x.std(dim=0, unbiased=False)
    std[~(std > 1e-12)] = 1.0
    outputs = 1 if info["output"] == "logit" else table[info["mask"]]
    act = nn.ReLU if activation == "relu" else nn.Tanh
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        mods, prev = [Normalize(mean, std)], width
        for h in hidden:
            mods += [nn.Linear(prev, h), act()]
            prev = h
        mods.append(nn.Linear(prev, outputs))
        net = nn.Sequential(*mods).double()
    mask = None if info["output"] == "logit" else _mask(info, states)
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=l2)
    for _ in range(epochs):
        order = torch.randperm(len(states), generator=gen)
        for start in range(0, len(states), batch_size):
            idx = order[start:start + batch_size]
            out = net(x[idx])
            if mask is None:
                loss = nn.functional.binary_cross_entropy_with_logits(
                    out[:, 0], y[idx].double())
            else:
                loss = nn.functional.cross_entropy(
                    out.masked_fill(~mask[idx], -1e30), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    net.eval()
    agree = float((torch.from_numpy(decisions(net, advisor, features, states))
                   == y).double().mean())
    training = {"tool": "ir2vec.mlgo.torchmodel.train_imitation",
                "logs": names, "decisions": len(states), "epochs": epochs,
                "hidden": list(hidden), "activation": activation,
                "batch_size": batch_size, "lr": lr, "l2": l2, "seed": seed,
                "agreement": round(agree, 6)}
    return Trained(net, advisor, features, table, training)
