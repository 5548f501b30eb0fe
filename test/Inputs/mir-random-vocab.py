"""A random MIR vocabulary covering every entity of a target.

As a script: prints one (3 dimensions, fixed seed) for the target named by
argv[1], from `llvm-ir2vec entities --mode=mir`. The differential suite
imports make_vocab for vocabularies of other shapes."""
import json
import random
import subprocess
import sys

COMMON = ["Immediate", "CImmediate", "FPImmediate", "MBB", "FrameIndex",
          "ConstantPoolIndex", "TargetIndex", "JumpTableIndex",
          "ExternalSymbol", "GlobalAddress", "BlockAddress", "RegisterMask",
          "RegisterLiveOut", "Metadata", "MCSymbol", "CFIIndex",
          "IntrinsicID", "Predicate", "ShuffleMask", "LaneMask"]


def make_vocab(entities_text, rng, dim, drop=0.0, digits=(3,)):
    """The vocabulary (a dict of the four sections) for `entities` output:
    each entity a vector of dim uniform numbers in [-2, 2], rounded to one
    of `digits` places; a fraction `drop` of the entities is left out
    (missing keys embed as zero)."""
    sections = {"Opcodes": {}, "CommonOperands": {}, "PhysicalRegisters": {},
                "VirtualRegisters": {}}
    for line in entities_text.splitlines()[1:]:
        name = line.split("\t")[0]
        vec = [round(rng.uniform(-2, 2), rng.choice(digits))
               for _ in range(dim)]
        if drop and rng.random() < drop:
            continue
        if name.startswith("PhyReg_"):
            sections["PhysicalRegisters"][name[7:]] = vec
        elif name.startswith("VirtReg_"):
            sections["VirtualRegisters"][name[8:]] = vec
        elif name in COMMON:
            sections["CommonOperands"][name] = vec
        else:
            sections["Opcodes"][name] = vec
    return sections


if __name__ == "__main__":
    text = subprocess.run(["llvm-ir2vec", "entities", "--mode=mir",
                           "--mtriple=" + sys.argv[1]], check=True,
                          capture_output=True, text=True).stdout
    print(json.dumps(make_vocab(text, random.Random(1), 3)))
