#!/usr/bin/env python3
# ===- gen_vocab.py - Random IR2Vec vocabulary for benchmarking -------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===-----------------------------------------------------------------------===#
"""Write a random IR2Vec vocabulary covering every entity.

The entity names come from `llvm-ir2vec entities` (first line: the count,
then `<name>\\t<id>` lines). Ids 0-67 are opcodes, 68-79 canonical types and
80-109 operand kinds and comparison predicates, which the JSON format keeps in
the "Opcodes", "Types" and "Arguments" sections. The values are uniform in
[-1, 1) from a fixed seed, so every run benchmarks the same vocabulary.
"""

import argparse
import json
import random
import subprocess
import sys

NUM_OPCODES = 68
NUM_TYPES = 12
NUM_ARGUMENTS = 30


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True,
                    help="an llvm-ir2vec binary that lists entities")
    ap.add_argument("--dim", type=int, default=75)
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()

    lines = subprocess.run([args.tool, "entities"], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    names = [l.split("\t")[0] for l in lines[1:] if l.strip()]
    expected = NUM_OPCODES + NUM_TYPES + NUM_ARGUMENTS
    if len(names) != expected or int(lines[0]) != expected:
        sys.exit(f"gen_vocab.py: expected {expected} entities, got {len(names)}")

    rng = random.Random(args.seed)

    def section(keys):
        return {k: [round(rng.uniform(-1.0, 1.0), 6) for _ in range(args.dim)]
                for k in keys}

    vocab = {
        "Opcodes": section(names[:NUM_OPCODES]),
        "Types": section(names[NUM_OPCODES:NUM_OPCODES + NUM_TYPES]),
        "Arguments": section(names[NUM_OPCODES + NUM_TYPES:]),
    }
    with open(args.output, "w") as f:
        json.dump(vocab, f)
        f.write("\n")


if __name__ == "__main__":
    main()
