#!/usr/bin/env python3
# ===- eval-mir-vocab.py - Quality check of a MIR2Vec vocabulary ------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===-----------------------------------------------------------------------===#
"""Is an X86-64 MIR2Vec vocabulary better than random vectors?

The same intrinsic metric as eval-vocab.py for IR vocabularies:
nearest-neighbour purity (cosine) of the opcode vectors over instruction
families (FAMILIES below, by base opcode name), purity@k capped at the
family's size minus one, averaged over opcodes. Only the opcodes that occur
in the training triplets take part (TransE never moves the others from
their random start), so every row uses the same opcode set and chance level.

Rows: the vocabulary; random vocabularies (Gaussian vectors, --random seeds);
and controls that keep the vocabulary's vectors but permute them among the
evaluated opcodes (--shuffles times): the gap to those is what the learned
semantics buy.

Usage: bench/eval-mir-vocab.py VOCAB.json TRIPLETS.txt [--random N]
       [--shuffles N] [--llvm-ir2vec PATH]
"""

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "eval_vocab", os.path.join(HERE, "eval-vocab.py"))
eval_vocab = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(eval_vocab)

TRIPLE = "x86_64-unknown-linux-gnu"
# Families of X86 opcode entity names (upstream's normalisation strips
# operand sizes but keeps SSE forms: ADD32rr -> ADD, ADDSDrr -> ADDSDrr),
# first match wins. Opcodes matching none are not evaluated.
FAMILIES = [
    ("x87", r"_Fp|^Fs|^FN"),
    ("int-arith", r"^(ADD|SUB|ADC|SBB|INC|DEC|NEG|IMUL|MUL|MULX|IDIV|DIV|"
                  r"LOCK_ADD|LOCK_INC|LXADD)$"),
    ("logic-bits", r"^(AND|OR|XOR|NOT|TEST|ANDN|BT|BTC|BTR|BTS|BSF|BSR|"
                   r"LZCNT|TZCNT|BZHI|BSWAP)$"),
    ("shift-rotate", r"^(SHL|SHR|SAR|ROL|ROR|SHLD|SHRD|SHLX|SHRX|SARX|RORX)$"),
    ("int-move", r"^(MOV|MOVZX|MOVSX|MOVSXD|XCHG|CDQ|CQO|LEA)$"),
    ("flags", r"^(CMP|SETCCm|SETCCr|CMOV|JCC)$"),
    ("control", r"^(JMP|CALL|RET|TCRETURN\w*|TRAP)$"),
    ("stack", r"^(ADJCALLSTACKDOWN|ADJCALLSTACKUP|PUSH|VASTART_SAVE_XMM_REGS)$"),
    ("scalar-fp", r"^(ADD|SUB|MUL|DIV|MIN|MAX|SQRT|UCOMI|CMP)S[SD]r"),
    ("packed-fp", r"^(ADD|SUB|MUL|DIV|MIN|MAX|CMP|SHUF|UNPCKH|UNPCKL)P[SD]"),
    ("fp-convert", r"^CVT"),
    ("vector-int", r"^P(ADD|SUB|MUL|AND|OR|XOR|CMP|SHUF|UNPCK|MIN|MAX|SLL|"
                   r"SRL|SRA|INSR|EXTR|BLEND|ACK|AVG|ALIGNR|CLMUL|MOVMSK)"),
    ("vector-move", r"^MOV(AP|UP|DQ|HP|LP|SD|SS|PQI|PDI|DI|QI|MSK)"),
    ("generic", r"^(COPY|IMPLICIT_DEF|KILL|PHI|INSERT_SUBREG|EXTRACT_SUBREG|"
                r"SUBREG_TO_REG|REG_SEQUENCE)$"),
]
OPCODE_SECTION = "Opcodes"


def log(msg):
    print(f"[eval-mir-vocab] {msg}", file=sys.stderr)


def entities(tool):
    out = subprocess.run([tool, "entities", "--mode=mir", f"--mtriple={TRIPLE}"],
                         check=True, capture_output=True, text=True).stdout
    return [line.split("\t")[0] for line in out.splitlines()[1:]]


def family(name):
    for fam, rx in FAMILIES:
        if re.search(rx, name):
            return fam
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vocab")
    ap.add_argument("triplets")
    ap.add_argument("--random", type=int, default=5)
    ap.add_argument("--shuffles", type=int, default=5)
    ap.add_argument("--llvm-ir2vec",
                    default=os.path.join(os.path.dirname(HERE), "build", "bin",
                                         "llvm-ir2vec"))
    args = ap.parse_args()

    names = entities(args.llvm_ir2vec)
    with open(args.vocab) as f:
        v = json.load(f)
    opcodes = sorted(v[OPCODE_SECTION])
    ids = {n: i for i, n in enumerate(names)}
    # Opcodes that occur in training (head or tail of a triplet).
    seen = set()
    with open(args.triplets) as f:
        next(f)
        for line in f:
            h, t, _ = line.split()
            seen.add(int(h))
            seen.add(int(t))
    members = [(o, family(o)) for o in opcodes
               if family(o) and ids.get(o) in seen]
    fams = {}
    for o, g in members:
        fams.setdefault(g, []).append(o)
    log(f"{len(members)} trained opcodes in {len(fams)} families: " +
        ", ".join(f"{g} {len(os)}" for g, os in sorted(fams.items())))

    def vecs(d):
        return {o: np.asarray(d[o], dtype=float) for o, _ in members}

    rows = [("vocabulary", eval_vocab.purity(vecs(v[OPCODE_SECTION]), members))]
    dim = len(next(iter(v[OPCODE_SECTION].values())))
    rand = []
    for s in range(1, args.random + 1):
        rng = np.random.default_rng(s)
        rand.append(eval_vocab.purity(
            {o: rng.standard_normal(dim) for o, _ in members}, members))
    base = vecs(v[OPCODE_SECTION])
    shuf = []
    for s in range(1, args.shuffles + 1):
        perm = np.random.default_rng(s).permutation(len(members))
        keys = [o for o, _ in members]
        shuf.append(eval_vocab.purity(
            {keys[i]: base[keys[p]] for i, p in enumerate(perm)}, members))
    chance = eval_vocab.chance_purity(members)

    def mean_sd(rs, k):
        a = np.array([r[k] for r in rs])
        return f"{a.mean():.3f} ± {a.std():.3f}"

    print("| row | purity@1 | purity@3 |")
    print("|---|---|---|")
    print(f"| {os.path.basename(args.vocab)} | {rows[0][1][1]:.3f} | "
          f"{rows[0][1][3]:.3f} |")
    print(f"| random ({args.random} seeds) | {mean_sd(rand, 1)} | "
          f"{mean_sd(rand, 3)} |")
    print(f"| shuffled ({args.shuffles}) | {mean_sd(shuf, 1)} | "
          f"{mean_sd(shuf, 3)} |")
    print(f"| chance | {chance:.3f} | {chance:.3f} |")


if __name__ == "__main__":
    main()
