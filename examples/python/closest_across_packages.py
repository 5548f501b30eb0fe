#!/usr/bin/env python3
# ===- closest_across_packages.py - Nearest functions of another package --===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===-----------------------------------------------------------------------===#
"""For each function of package A, the k closest functions of package B.

What the score means: a symbolic IR2Vec function embedding is a weighted
histogram of the function's entities (opcodes, types, operand kinds), each
entity mapped to its vocabulary vector and summed. Cosine ignores length, so
two functions score near 1 when they use the same entities in about the same
proportions, whatever their sizes: a similar instruction mix, not a similar
algorithm, and not evidence of shared or copied code (order, control flow
and constants are gone; a 3-instruction getter matches every other getter).
Flow-aware embeddings (--flow-aware) also add the vectors of the
instructions that define operands, which keeps a little data flow, still not
semantics. Most functions are made of the same few entities (loads,
stores, branches, integers, pointers), so cosines run high in general: read
the ranking rather than the absolute score.

A and B are each: a package of the default corpus (bench/work, from
bench/build-corpus.sh), e.g. zlib; a directory (its .bc/.ll files,
recursively); a file; or a glob (quote it); optionally as NAME=PATH.
Functions are listed as FILE-STEM:FUNCTION, A's in input order (files
sorted, functions in IR order), ties in score broken by B's order.

Example, from the repository root (see docs/Examples.md):
  PYTHONPATH=build/python /usr/bin/python3 \\
      examples/python/closest_across_packages.py zlib libzstd -k 3
"""

import argparse
import glob
import json
import pathlib
import signal
import sys

import numpy as np

import ir2vec

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "work"
IR_SUFFIXES = (".bc", ".ll")


def ir_files(directory):
    return sorted(str(p) for p in pathlib.Path(directory).rglob("*")
                  if p.suffix in IR_SUFFIXES and p.is_file())


def default_corpus_files(package):
    mlgo = BENCH / "bench"  # bench/build-corpus.sh's MLGO corpus
    if (mlgo / "corpus_description.json").is_file():
        with open(mlgo / "corpus_description.json") as f:
            modules = json.load(f).get("modules", [])
        return sorted(str(mlgo / (m + ".bc")) for m in modules
                      if pathlib.PurePosixPath(m).parent.name == package)
    return ir_files(BENCH / "corpus" / package)


def resolve(spec):
    """(name, [file, ...]) for one package argument."""
    name, sep, path = spec.partition("=")
    if not sep:
        name, path = "", spec
    if not path:
        raise ValueError(f"'{spec}' names no directory, file or glob")
    p = pathlib.Path(path)
    if p.is_dir():
        files = ir_files(p)
        name = name or p.resolve().name
    elif p.is_file():
        files = [path]
        name = name or p.stem
    elif glob.has_magic(path):
        files = sorted(glob.glob(path, recursive=True))
        plain = [part for part in p.parts if not glob.has_magic(part)]
        name = name or (plain[-1] if plain else path)
    else:
        files = default_corpus_files(path)
        name = name or path
    if not files:
        raise ValueError(f"'{path}' is no directory, file, glob or package "
                         "of the default corpus with .bc or .ll files")
    return name, files


def embed(files, vocab, mode, threads):
    """Labels, files and L2-normalised function vectors, in input order."""
    labels, origins, rows = [], [], []
    for result in ir2vec.embedFiles(files, mode=mode, vocab=vocab,
                                    level="func", threads=threads):
        for warning in result["warnings"]:
            print(f"warning: {result['filename']}: {warning}", file=sys.stderr)
        if result["error"]:
            print(f"warning: skipped: {result['error']}", file=sys.stderr)
            continue
        stem = pathlib.Path(result["filename"]).stem
        for function, vector in result["embeddings"].items():
            norm = np.linalg.norm(vector)
            if norm == 0:
                print(f"note: left out {stem}:{function} (zero vector)",
                      file=sys.stderr)
                continue
            labels.append(f"{stem}:{function}")
            origins.append(result["filename"])
            rows.append(vector / norm)
    if not rows:
        raise ValueError(f"no defined function in {len(files)} file(s)")
    return labels, origins, np.array(rows)


def closest(a, b, k):
    """For each row of a, the indices and cosines of its k closest rows of
    b, best first; equal scores (to 12 decimals) keep b's order."""
    scores = a @ b.T
    keys = np.round(scores, 12)
    order = [np.lexsort((np.arange(len(b)), -row))[:k] for row in keys]
    return [(idx, scores[i, idx]) for i, idx in enumerate(order)]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", metavar="A", help="package A: [NAME=]PATH, or "
                        "a package of the default corpus")
    parser.add_argument("b", metavar="B", help="package B, the same way")
    parser.add_argument("-k", type=int, default=3,
                        help="closest functions of B per function of A "
                        "(default: 3)")
    parser.add_argument("--vocab", default=ir2vec.vocab.seedEmbedding75D,
                        help="vocabulary JSON (default: the bundled "
                        "ir2vec-75d.json)")
    parser.add_argument("--flow-aware", action="store_true",
                        help="flow-aware embeddings instead of symbolic")
    parser.add_argument("--json", action="store_true",
                        help="print JSON instead of a table")
    parser.add_argument("--threads", type=int, default=0,
                        help="embedding threads (default: one per core)")
    args = parser.parse_args()
    if args.k < 1:
        parser.error("-k must be 1 or more")

    try:
        vocab = ir2vec.loadVocab(args.vocab)
        mode = ir2vec.FlowAware if args.flow_aware else ir2vec.Symbolic
        (name_a, files_a), (name_b, files_b) = resolve(args.a), resolve(args.b)
        labels_a, origins_a, a = embed(files_a, vocab, mode, args.threads)
        labels_b, origins_b, b = embed(files_b, vocab, mode, args.threads)
    except (ValueError, OSError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    matches = closest(a, b, args.k)
    if hasattr(signal, "SIGPIPE"):  # quietly stop when piped into head
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    kind = "flow-aware" if args.flow_aware else "symbolic"

    if args.json:
        json.dump({
            "a": {"package": name_a, "functions": len(labels_a)},
            "b": {"package": name_b, "functions": len(labels_b)},
            "vocab": str(args.vocab), "kind": kind, "k": args.k,
            "results": [{
                "function": labels_a[i], "file": origins_a[i],
                "closest": [{"function": labels_b[j], "file": origins_b[j],
                             "cosine": float(s)} for j, s in zip(*match)],
            } for i, match in enumerate(matches)],
        }, sys.stdout, indent=1)
        print()
        return 0

    print(f"# {name_a} ({len(labels_a)} functions) -> {name_b} "
          f"({len(labels_b)} functions): the {args.k} closest by cosine of "
          f"{kind} embeddings, vocabulary {pathlib.Path(args.vocab).name} "
          f"({vocab.dimension}-D)")
    print("# a high cosine means a similar instruction mix, not similar "
          "semantics (see --help)")
    wa = max(len(name_a), *(len(label) for label in labels_a))
    wb = max(len(name_b), *(len(label) for label in labels_b))
    print(f"{name_a:<{wa}}  rank  {name_b:<{wb}}  cosine")
    for label, (indices, scores) in zip(labels_a, matches):
        for rank, (j, score) in enumerate(zip(indices, scores), 1):
            left = label if rank == 1 else ""
            print(f"{left:<{wa}}  {rank:>4}  {labels_b[j]:<{wb}}  {score:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
