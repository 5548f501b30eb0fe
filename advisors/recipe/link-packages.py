#!/usr/bin/env python3
# ===- link-packages.py - Whole-program modules of a corpus's packages ----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""An MLGO corpus of whole-package modules, made from a corpus of
pre-optimisation bitcode: each package's modules linked into as few modules
as can be (llvm-link), for searching and judging the inlining of a package
as one program rather than file by file.

  link-packages.py --corpus C --out O [--packages P,...]

Modules that define the same strong symbol (the mains of a package's
programs, a function two tools each define) cannot be linked together:
the modules are taken in name order and each goes into the first part of
its package that defines none of its strong symbols (llvm-nm), so a
library with its programs becomes the library plus one part per program
that clashes. O/<level>/<package>/whole-<k>.bc is part k, O/.../
whole-<k>.txt lists its modules, and O/corpus_description.json lists the
parts. `clang-22 -Oz -c whole-<k>.bc` finishes one as a user's
`clang-22 -Oz` of the part's files with link-time optimisation would.
A rerun rebuilds only the parts whose module lists changed. A module
llvm-nm cannot read, and a part that fails to link, are left out with a
warning naming them; the other parts are made.
"""

import argparse
import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recipelib  # noqa: E402

# llvm-nm's types of strong definitions (not weak, common or undefined).
STRONG = set("TDBRS")


def strong_symbols(bc):
    """The strong definitions of a module, or None (with a warning naming
    it) when llvm-nm cannot read it."""
    out = subprocess.run(
        [os.path.join(recipelib.LLVM_BIN, "llvm-nm"), "--defined-only",
         "--extern-only", bc], capture_output=True, text=True)
    if out.returncode != 0:
        first = (out.stderr.strip().splitlines() or ["failed"])[0]
        print(f"warning: {bc}: not a module llvm-nm reads, left out: {first}",
              file=sys.stderr)
        return None
    syms = set()
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) >= 2 and f[-2] in STRONG:
            syms.add(f[-1])
    return syms


def read_text(path):
    with open(path) as f:
        return f.read()


def parts(corpus, modules):
    """[(package dir, [modules])]: each package's modules in parts without
    two strong definitions of a symbol."""
    by_pkg = collections.defaultdict(list)
    for m in modules:
        by_pkg[os.path.dirname(m)].append(m)
    out = []
    for pkg, mods in sorted(by_pkg.items()):
        syms = {m: strong_symbols(os.path.join(corpus, m + ".bc"))
                for m in sorted(mods)}
        out += [(pkg, g) for g in recipelib.disjoint_groups(
            (m, s) for m, s in syms.items() if s is not None)]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--packages", default="")
    args = p.parse_args()
    mods = recipelib.corpus_modules(args.corpus,
                                    packages=args.packages.split(","))
    if not mods:
        raise SystemExit(f"{args.corpus}: no modules to link")
    count = collections.Counter()
    listed = []
    for pkg, group in parts(args.corpus, mods):
        name = f"{pkg}/whole-{count[pkg]}"
        count[pkg] += 1
        bc = os.path.join(args.out, name + ".bc")
        lst = os.path.join(args.out, name + ".txt")
        want = "".join(m + "\n" for m in group)
        if not (os.path.exists(bc) and os.path.exists(lst)
                and read_text(lst) == want):
            for path in (bc, lst):
                if os.path.exists(path):
                    os.remove(path)
            os.makedirs(os.path.dirname(bc), exist_ok=True)
            done = subprocess.run(
                [os.path.join(recipelib.LLVM_BIN, "llvm-link"), "-o",
                 bc + ".tmp"] + [os.path.join(args.corpus, m + ".bc")
                                 for m in group],
                stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                first = (done.stderr.strip().splitlines() or ["failed"])[0]
                print(f"warning: {name}: llvm-link of {len(group)} modules "
                      f"failed, left out: {first}", file=sys.stderr)
                if os.path.exists(bc + ".tmp"):
                    os.remove(bc + ".tmp")
                continue
            os.replace(bc + ".tmp", bc)
            recipelib.write_file(lst, want)
        listed.append(name)
    recipelib.write_file(os.path.join(args.out, "corpus_description.json"),
                         json.dumps({"has_thinlto": False,
                                     "modules": listed}, indent=2) + "\n")
    print(f"{len(listed)} whole-package modules from {len(mods)} modules "
          f"of {len({os.path.dirname(n) for n in listed})} packages",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
