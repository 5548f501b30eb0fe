#!/usr/bin/env python3
# ===- pca_by_package.py - PCA picture of function embeddings by package --===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===-----------------------------------------------------------------------===#
"""Draw a 2-D PCA projection of IR2Vec function embeddings, by package.

Embeds every defined function of a corpus with ir2vec.embedFiles (symbolic
by default, function level), L2-normalises each function's vector, projects
the vectors on their first two principal components (numpy SVD of the
centred matrix) and draws them coloured by package, with each package's
centroid marked. Writes a PNG and prints the counts and centroids.

Symbolic embeddings are sums over instructions, so a vector's length grows
with the function's size; without normalisation the first component mostly
measures size. After it, a point's position reflects the function's mix of
opcodes, types and operand kinds (--no-normalize shows the raw picture).

Inputs (positional, default: the benchmark corpus of bench/build-corpus.sh):
  DIR              an MLGO corpus (DIR/corpus_description.json; a module's
                   package is its directory's name), or a directory with
                   one subdirectory of .bc/.ll files per package
  PACKAGE=PATH     PATH is a directory (its .bc/.ll files, recursively) or
                   a glob (quote it), e.g. 'zlib=bench/work/corpus/zlib/*.bc'

Without -o the picture is pca-functions.png in the current directory.
docs/images/pca-functions.png was made, from the repository root, with
  PYTHONPATH=build/python /usr/bin/python3 examples/python/pca_by_package.py \
      -o docs/images/pca-functions.png
(the default vocabulary, ir2vec.vocab.seedEmbedding75D). See docs/Examples.md.
"""

import argparse
import glob
import json
import pathlib
import sys

import numpy as np

import ir2vec

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "work"
IR_SUFFIXES = (".bc", ".ll")


def ir_files(directory):
    return sorted(str(p) for p in pathlib.Path(directory).rglob("*")
                  if p.suffix in IR_SUFFIXES and p.is_file())


def corpus_groups(root):
    """[(package, [file, ...]), ...] for a corpus directory."""
    root = pathlib.Path(root)
    groups = {}
    if (root / "corpus_description.json").is_file():
        with open(root / "corpus_description.json") as f:
            modules = json.load(f).get("modules", [])
        for module in modules:
            package = pathlib.PurePosixPath(module).parent.name or root.name
            groups.setdefault(package, []).append(str(root / (module + ".bc")))
    elif root.is_dir():
        for sub in sorted(p for p in root.iterdir() if p.is_dir()):
            if ir_files(sub):
                groups[sub.name] = ir_files(sub)
    if not groups:
        raise ValueError(f"no modules found in corpus directory '{root}'")
    return sorted((name, sorted(files)) for name, files in groups.items())


def input_groups(specs):
    if not specs:
        mlgo = BENCH / "bench"  # bench/build-corpus.sh's MLGO layout
        if not mlgo.is_dir() and not (BENCH / "corpus").is_dir():
            raise ValueError("no default corpus: run bench/build-corpus.sh")
        return corpus_groups(mlgo if mlgo.is_dir() else BENCH / "corpus")
    if len(specs) == 1 and "=" not in specs[0]:
        return corpus_groups(specs[0])
    groups = {}  # a package named twice gets both inputs
    for spec in specs:
        package, sep, path = spec.partition("=")
        if not sep or not package or not path:
            raise ValueError(f"'{spec}' is not PACKAGE=DIR-OR-GLOB")
        files = (ir_files(path) if pathlib.Path(path).is_dir()
                 else sorted(glob.glob(path, recursive=True)))
        if not files:
            raise ValueError(f"'{path}' matches no .bc or .ll file")
        groups.setdefault(package, []).extend(files)
    return list(groups.items())


def embed(groups, vocab, mode, threads):
    """Package labels and the matrix of function vectors, in input order."""
    files = [f for _, fs in groups for f in fs]
    packages = [p for p, fs in groups for _ in fs]
    labels, rows = [], []
    results = ir2vec.embedFiles(files, mode=mode, vocab=vocab, level="func",
                                threads=threads)
    for package, result in zip(packages, results):
        for warning in result["warnings"]:
            print(f"warning: {result['filename']}: {warning}", file=sys.stderr)
        if result["error"]:
            print(f"warning: skipped: {result['error']}", file=sys.stderr)
            continue
        for vector in result["embeddings"].values():
            labels.append(package)
            rows.append(vector)
    if len(rows) < 2:
        raise ValueError("need at least two defined functions to project")
    return np.array(labels), np.array(rows)


def pca2(x):
    """The rows of x on their first two principal components, and the
    fraction of the variance each explains. Signs are fixed as in
    scikit-learn: each component's largest loading is positive."""
    centred = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    if len(s) < 2 or s[0] == 0:
        raise ValueError("the embeddings span fewer than two dimensions")
    vt = vt[:2]
    vt *= np.sign(vt[[0, 1], np.abs(vt).argmax(axis=1)])[:, None]
    return centred @ vt.T, (s[:2] ** 2) / (s ** 2).sum()


def draw(coords, labels, ratio, title, output, size, dpi=100):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted(set(labels))
    cmap = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    colour = {name: cmap(i % cmap.N) for i, name in enumerate(names)}
    fig, ax = plt.subplots(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
    # Largest packages first, so that small ones stay visible on top.
    for name in sorted(names, key=lambda n: (-(labels == n).sum(), n)):
        pts = coords[labels == name]
        ax.scatter(pts[:, 0], pts[:, 1], s=7, alpha=0.45, linewidths=0,
                   color=colour[name], zorder=2)
    handles = []
    for name in names:
        pts = coords[labels == name]
        cx, cy = pts.mean(axis=0)
        handles.append(ax.scatter(
            [cx], [cy], marker="X", s=110, color=colour[name],
            edgecolors="black", linewidths=0.8, zorder=3,
            label=f"{name} ({len(pts)})"))
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel(f"PC1 ({ratio[0]:.1%} of variance)")
    ax.set_ylabel(f"PC2 ({ratio[1]:.1%} of variance)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, linewidth=0.3, alpha=0.5)
    ax.legend(handles=handles, title="package (functions); X = centroid",
              fontsize=8, title_fontsize=8, loc="best", framealpha=0.85)
    fig.tight_layout()
    fig.savefig(output, dpi=dpi)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="*", metavar="DIR | PACKAGE=PATH",
                        help="a corpus directory, or PACKAGE=DIR-OR-GLOB "
                        "arguments (default: the benchmark corpus)")
    parser.add_argument("--vocab", default=ir2vec.vocab.seedEmbedding75D,
                        help="vocabulary JSON (default: the bundled "
                        "ir2vec-75d.json)")
    parser.add_argument("--flow-aware", action="store_true",
                        help="flow-aware embeddings instead of symbolic")
    parser.add_argument("--no-normalize", action="store_true",
                        help="project the raw vectors (size dominates)")
    # Never the documentation's own picture by default: a run for a look
    # at one's own corpus must not change the repository.
    parser.add_argument("-o", "--output", default="pca-functions.png",
                        help="PNG to write (default: pca-functions.png in "
                        "the current directory)")
    parser.add_argument("--size", type=int, nargs=2, default=(1000, 800),
                        metavar=("W", "H"), help="pixels (default: 1000 800)")
    parser.add_argument("--threads", type=int, default=0,
                        help="embedding threads (default: one per core)")
    args = parser.parse_args()
    if min(args.size) < 1:
        parser.error("--size needs two positive numbers")

    try:
        groups = input_groups(args.inputs)
        vocab = ir2vec.loadVocab(args.vocab)
        mode = ir2vec.FlowAware if args.flow_aware else ir2vec.Symbolic
        labels, x = embed(groups, vocab, mode, args.threads)
        if not args.no_normalize:
            norms = np.linalg.norm(x, axis=1)
            if (norms == 0).any():
                print(f"note: left out {(norms == 0).sum()} functions with "
                      "a zero vector", file=sys.stderr)
            keep = norms > 0
            labels, x = labels[keep], x[keep] / norms[keep, None]
        coords, ratio = pca2(x)
        vocab_name = ("irtk default " + pathlib.Path(args.vocab).name
                      if args.vocab == ir2vec.vocab.seedEmbedding75D
                      else pathlib.Path(args.vocab).name)
        kind = "flow-aware" if args.flow_aware else "symbolic"
        scaling = "raw vectors" if args.no_normalize else "rows L2-normalised"
        title = (f"IR2Vec {kind} function embeddings, PCA: {len(x)} "
                 f"functions from {len(set(labels))} packages ({scaling})\n"
                 f"vocabulary: {vocab_name} ({vocab.dimension}-D)")
        pathlib.Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        draw(coords, labels, ratio, title, args.output, args.size)
    except (ValueError, OSError, ImportError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1

    print("package       files  functions  centroid PC1  centroid PC2")
    files = dict(groups)
    for name in sorted(set(labels)):
        cx, cy = coords[labels == name].mean(axis=0)
        print(f"{name:<12} {len(files[name]):>6} {(labels == name).sum():>10}"
              f" {cx:>13.3f} {cy:>13.3f}")
    print(f"explained variance: PC1 {ratio[0]:.1%}, PC2 {ratio[1]:.1%}")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
