#!/usr/bin/env python3
# ===- interactive_host.py - An external policy for irtk's advisors ------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Decide for an irtk advisor over LLVM's interactive protocol.

Standard library only. Start it first, then the compiler:

  interactive_host.py --channel /tmp/ch --policy default &
  opt -load-pass-plugin=IRTKPlugin.so -passes='default<Oz>' \\
      -irtk-inline-policy=interactive -irtk-inline-channel=/tmp/ch in.bc

or, for the register allocator's eviction advisor:

  interactive_host.py --channel /tmp/ch --default-feature evict_default &
  llc -load-pass-plugin=IRTKPlugin.so -irtk-evict-policy=interactive \\
      -irtk-evict-channel=/tmp/ch in.ll

The host makes the two named pipes <base>.in (decisions, host to compiler)
and <base>.out (features, compiler to host), opens <base>.in before
<base>.out as the compiler does, reads the header (one JSON line: the
features and the "advice" spec), then per decision an {"observation": N}
line, the raw feature tensors in header order and a newline, and answers
with the decision's raw bytes. {"context": name} lines name the module
(or function) the decisions that follow belong to.

Replace decide() to plug in a trainer. Policies here:
  default   answer the advisor's own default decision (the feature named by
            --default-feature): the compiler's output equals stock
  always    answer 1 (inline wherever legal)
  never     answer 0
  last      answer the last index the mask feature (--mask-feature) allows:
            for the eviction advisor, "evict nothing" where that is
            allowed, else the last candidate the stock heuristic accepts
At the end, prints one JSON line: the decisions per context and how many
were 1.
"""

import argparse
import ctypes
import json
import math
import os
import sys

_TYPES = {
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "int8_t": ctypes.c_int8,
    "uint8_t": ctypes.c_uint8,
    "int16_t": ctypes.c_int16,
    "uint16_t": ctypes.c_uint16,
    "int32_t": ctypes.c_int32,
    "uint32_t": ctypes.c_uint32,
    "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64,
}


class Spec:
    def __init__(self, d):
        self.name = d["name"]
        self.ctype = _TYPES[d["type"]]
        self.count = math.prod(int(e) for e in d["shape"])
        self.size = self.count * ctypes.sizeof(self.ctype)

    def decode(self, raw):
        return list((self.ctype * self.count).from_buffer_copy(raw))

    def encode(self, value):
        return bytes((self.ctype * 1)(value))


def read_exactly(f, n):
    data = f.read(n)
    if len(data) != n:
        raise EOFError("the compiler closed the channel mid-message")
    return data


def decide(policy, features, default_feature, mask_feature):
    if policy == "always":
        return 1
    if policy == "never":
        return 0
    if policy == "last":
        allowed = [i for i, v in enumerate(features[mask_feature]) if v]
        return allowed[-1] if allowed else 0
    return int(features[default_feature][0])


def serve(base, decide, needs=()):
    """Answers decide(context, features) until the compiler closes the
    channel, after checking that the features named in needs are there;
    returns the number of decisions and of nonzero ones per context."""
    for path in (base + ".in", base + ".out"):
        if not os.path.exists(path):
            os.mkfifo(path)
    counts = {}
    with open(base + ".in", "wb", buffering=0) as to_compiler, \
            open(base + ".out", "rb") as from_compiler:
        header = json.loads(from_compiler.readline())
        specs = [Spec(d) for d in header["features"]]
        advice = Spec(header["advice"])
        for name in needs:
            if name not in [s.name for s in specs]:
                raise SystemExit(f"no feature named {name!r}")
        context = ""
        while True:
            line = from_compiler.readline()
            if not line:
                break
            event = json.loads(line)
            if "context" in event:
                context = event["context"]
                continue
            features = {s.name: s.decode(read_exactly(from_compiler, s.size))
                        for s in specs}
            read_exactly(from_compiler, 1)  # the newline after the tensors
            answer = decide(context, features)
            to_compiler.write(advice.encode(answer))
            n, ones = counts.get(context, (0, 0))
            counts[context] = (n + 1, ones + (answer != 0))
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--channel", required=True,
                   help="base name of the pipes <base>.in and <base>.out")
    p.add_argument("--policy", choices=["default", "always", "never", "last"],
                   default="default")
    p.add_argument("--default-feature", default="inlining_default",
                   help="the feature holding the advisor's default decision")
    p.add_argument("--mask-feature", default="evictable",
                   help="the feature whose nonzero elements are the allowed "
                   "answers (policy last)")
    args = p.parse_args()
    try:
        wanted = {"default": args.default_feature, "last": args.mask_feature}
        counts = serve(
            args.channel,
            lambda context, features: decide(args.policy, features,
                                             args.default_feature,
                                             args.mask_feature),
            [wanted[args.policy]] if args.policy in wanted else [])
    except (EOFError, json.JSONDecodeError, KeyError) as e:
        print(f"interactive_host.py: {args.channel}: {e}", file=sys.stderr)
        return 1
    print(json.dumps({c: {"decisions": n, "ones": k}
                      for c, (n, k) in counts.items()}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
