# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Training logs in LLVM's format (llvm/Analysis/Utils/TrainingLogger.h),
as the advisors write them with ``-irtk-*-log``.

A log is a JSON header line (``features``: tensor specs, ``score``: the
reward's spec, ``advice``), then per context a ``{"context": name}`` line and
per decision an ``{"observation": i}`` line followed by the features' raw
bytes and a newline, and an ``{"outcome": i}`` line followed by the
reward's bytes and a newline.

``read(path)`` gives a ``Log``: its specs and its contexts, each with its
decisions' features (numpy arrays shaped as the specs say) and the reward
after its last decision.
"""

import json

import numpy as np

_DTYPES = {"float": "<f4", "double": "<f8", "int8_t": "i1", "uint8_t": "u1",
           "int16_t": "<i2", "uint16_t": "<u2", "int32_t": "<i4",
           "uint32_t": "<u4", "int64_t": "<i8", "uint64_t": "<u8"}


class LogError(ValueError):
    """A training log that does not read as LLVM's format."""


class Spec:
    """A tensor spec of the header: name, numpy dtype, shape, bytes."""

    def __init__(self, d):
        try:
            self.name = d["name"]
            self.dtype = np.dtype(_DTYPES[d["type"]])
            self.shape = tuple(int(e) for e in d["shape"])
        except (KeyError, TypeError, ValueError) as e:
            raise LogError(f"bad tensor spec {d!r}") from e
        self.count = int(np.prod(self.shape)) if self.shape else 1
        self.size = self.count * self.dtype.itemsize

    def decode(self, raw):
        return np.frombuffer(raw, dtype=self.dtype,
                             count=self.count).reshape(self.shape)


class Context:
    """One context (a function, for the eviction advisor; the module, for
    the inliner): ``decisions`` [{feature: array}] and ``reward``."""

    def __init__(self, name):
        self.name, self.decisions, self.reward = name, [], None


class Log:
    def __init__(self, header, features, score, contexts):
        self.header, self.features, self.score = header, features, score
        self.contexts = contexts

    def decisions(self):
        """Every decision's features, in log order."""
        return [d for c in self.contexts for d in c.decisions]


def read(path):
    """The Log at path; LogError naming the path and the first problem."""
    return _read(path, _parse)


def _read(path, parse):
    with open(path, "rb") as f:
        data = f.read()
    try:
        return parse(data)
    except (LogError, ValueError, KeyError, IndexError) as e:
        raise LogError(f"{path}: {e}") from None


def _parse(data):
    end = data.index(b"\n") + 1
    header = json.loads(data[:end])
    features = [Spec(s) for s in header["features"]]
    score = Spec(header["score"])
    obs = sum(s.size for s in features)
    contexts, pos = [], end
    while pos < len(data):
        nl = data.index(b"\n", pos)
        event = json.loads(data[pos:nl])
        pos = nl + 1
        if "context" in event:
            contexts.append(Context(event["context"]))
        elif "observation" in event and contexts:
            raw, at, values = data[pos:pos + obs], 0, {}
            if len(raw) != obs:
                raise LogError("an observation ends early")
            for s in features:
                values[s.name] = s.decode(raw[at:at + s.size])
                at += s.size
            contexts[-1].decisions.append(values)
            pos += obs + 1
        elif "outcome" in event and contexts:
            contexts[-1].reward = float(score.decode(
                data[pos:pos + score.size]).reshape(-1)[0])
            pos += score.size + 1
        else:
            raise LogError(f"unexpected record {event}")
    return Log(header, features, score, contexts)


# --- Logs as bytes: cut and relabelled by the searches ----------------------

def read_contexts(path):
    """(header bytes, [(name, bytes of its records, decisions, reward)]):
    each context's records as they stand in the log, for a search that
    keeps or relabels them (``observations``); LogError naming the path."""
    return _read(path, _cut)


def _sizes(header):
    spec = json.loads(header)
    return (sum(Spec(s).size for s in spec["features"]),
            Spec(spec["score"]))


def _cut(data):
    end = data.index(b"\n") + 1
    obs, score = _sizes(data[:end])
    contexts = []  # [name, start, decisions, reward, stop]
    pos = end
    while pos < len(data):
        nl = data.index(b"\n", pos)
        event = json.loads(data[pos:nl])
        if "context" in event:
            contexts.append([event["context"], pos, 0, 0.0, 0])
            pos = nl + 1
        elif "observation" in event and contexts:
            contexts[-1][2] += 1
            pos = nl + 1 + obs + 1
        elif "outcome" in event and contexts:
            contexts[-1][3] = float(score.decode(
                data[nl + 1:nl + 1 + score.size]).reshape(-1)[0])
            pos = nl + 1 + score.size + 1
        else:
            raise LogError(f"unexpected record {event}")
        if contexts:
            contexts[-1][4] = pos
    return data[:end], [(name, data[start:stop], n, r)
                        for name, start, n, r, stop in contexts]


def observations(header, block):
    """A context's records (as ``read_contexts`` gives them) split into its
    context line and its decisions, each an observation with its outcome,
    as bytes."""
    obs, score = _sizes(header)
    nl = block.index(b"\n") + 1
    head, pos, decisions = block[:nl], nl, []
    while pos < len(block):
        start = pos
        pos = block.index(b"\n", pos) + 1 + obs + 1
        pos = block.index(b"\n", pos) + 1 + score.size + 1
        decisions.append(block[start:pos])
    return head, decisions


def features(header, record, names):
    """{name: [values]} of the named features of one decision's bytes (as
    ``observations`` gives them); LogError if one is not in the log."""
    pos = record.index(b"\n") + 1
    out = {}
    for s in json.loads(header)["features"]:
        t = Spec(s)
        if t.name in names:
            out[t.name] = t.decode(record[pos:pos + t.size]).reshape(
                -1).tolist()
        pos += t.size
    missing = set(names) - set(out)
    if missing:
        raise LogError(f"no feature {', '.join(sorted(missing))} in the log")
    return out
