#!/usr/bin/env python3
# ===- traininglog.py - Contexts and decisions of LLVM training logs ------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Splits training logs in LLVM's format (llvm/Analysis/Utils/
TrainingLogger.h) into contexts and decisions, as bytes, for the recipes
that cut and relabel logs (evict.py, evict-search.py, inline-search.py,
inline-caller-search.py); recipelib writes what they cut, atomically."""

import json
import os
import struct
import sys

# The tensor specs of the example host, which reads the same tensors.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "examples", "advisors"))
from interactive_host import Spec  # noqa: E402


def read_contexts(path):
    """(header bytes, [(name, bytes of its records, decisions, reward)]):
    each context's records, and the reward after its last decision."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"\n") + 1
    header = json.loads(data[:end])
    obs = sum(Spec(s).size for s in header["features"])
    reward = Spec(header["score"]).size
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
            contexts[-1][3] = struct.unpack(
                "<f", data[nl + 1:nl + 1 + reward])[0]
            pos = nl + 1 + reward + 1
        else:
            raise ValueError(f"{path}: unexpected record {event}")
        if contexts:
            contexts[-1][4] = pos
    return data[:end], [(name, data[start:stop], n, r)
                        for name, start, n, r, stop in contexts]


def observations(header, block):
    """A context's records (as read_contexts gives them) split into its
    context line and its decisions, each an observation with its outcome."""
    spec = json.loads(header)
    obs = sum(Spec(s).size for s in spec["features"])
    reward = Spec(spec["score"]).size
    nl = block.index(b"\n") + 1
    head, pos, decisions = block[:nl], nl, []
    while pos < len(block):
        start = pos
        pos = block.index(b"\n", pos) + 1 + obs + 1
        pos = block.index(b"\n", pos) + 1 + reward + 1
        decisions.append(block[start:pos])
    return head, decisions


def features(header, record, names):
    """The values of the named features in one decision record (as
    observations gives them): {name: [values]}."""
    specs = json.loads(header)["features"]
    pos = record.index(b"\n") + 1
    out = {}
    for s in specs:
        t = Spec(s)
        if s["name"] in names:
            out[s["name"]] = t.decode(record[pos:pos + t.size])
        pos += t.size
    missing = set(names) - set(out)
    if missing:
        raise ValueError(f"no feature {', '.join(sorted(missing))} in the log")
    return out
