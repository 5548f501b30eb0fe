#!/usr/bin/env python3
# ===- recipelib.py - What the remaining recipes share ---------------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""What the recipes that read collections share (evict.py,
train-inline.py, train-steps.sh, summarize-inline.py,
summarize-baselines.py, link-packages.py), until they move into the
package: every compile now runs on ir2vec.mlgo's engine
(`python3 -m ir2vec.mlgo collect --runs`, `search`, `bcmax`, `es`).

  corpus_modules(corpus, sample, levels, packages, exclude)
      An MLGO corpus's modules, in name order, filtered by level and
      package, every sample-th.
  write_file(path, data), write_list(path, paths)
      Written whole under a temporary name and renamed, or not at all; a
      list of logs for `irtk-train fit --logs-from`.
  read_record(path), collected(data, run), collected_text(data, runs)
      The tab-separated records of a collection (<run>/<module>.txt).
  training_log, objective, disjoint_groups
      From the package: training logs cut as bytes (ir2vec.mlgo.log), the
      objectives (linked .text), the first-fit grouping.
"""

import importlib.util
import json
import os
import sys

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
RECIPE_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(RECIPE_DIR))

# The package, from the Python path or else from this checkout's build.
if importlib.util.find_spec("ir2vec") is None:
    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
from ir2vec.mlgo import edgesearch as _edgesearch  # noqa: E402
from ir2vec.mlgo import log as training_log  # noqa: E402
from ir2vec.mlgo import objective  # noqa: E402

disjoint_groups = _edgesearch.disjoint_groups
__all__ = ["training_log", "objective", "disjoint_groups"]


def corpus_modules(corpus, sample=1, levels=None, packages=(), exclude=()):
    """Every sample-th module of an MLGO corpus, in name order; with levels,
    packages or exclude, only the modules <level>/<package>/... of those
    levels, of those packages (all when empty) and not of the excluded
    ones."""
    with open(os.path.join(corpus, "corpus_description.json")) as f:
        mods = json.load(f)["modules"]
    keep, drop = set(filter(None, packages)), set(filter(None, exclude))
    if levels is not None or keep or drop:
        levels = set(levels) if levels is not None else None
        mods = [m for m in mods
                if (levels is None or m.split("/")[0] in levels)
                and (not keep or m.split("/")[1] in keep)
                and m.split("/")[1] not in drop]
    return sorted(mods)[::sample]


def write_file(path, data):
    """Writes data (bytes or str) to path whole or not at all, creating its
    directory: a failure leaves neither a partial path nor its temporary
    file."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def write_list(path, paths):
    """A list of logs for `irtk-train fit --logs-from`: their absolute
    paths, a line each."""
    write_file(path, "".join(os.path.abspath(p) + "\n" for p in paths))


def read_record(path):
    """The fields of a collection's record (<run>/<module>.txt: a
    tab-separated key and value a line), {key: value}."""
    with open(path) as f:
        return dict(line.rstrip("\n").split("\t", 1) for line in f
                    if "\t" in line)


def collected(data, run):
    """{module: record fields} of every record a collection wrote for run
    under data (data/<run>/<module>.txt)."""
    root = os.path.join(data, run)
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith(".txt"):
                path = os.path.join(dirpath, name)
                out[os.path.relpath(path, root)[:-len(".txt")]] = \
                    read_record(path)
    return out


def collected_text(data, runs):
    """{module: {run: .text bytes}} of the modules every run compiled."""
    table = {}
    for run in runs:
        for m, f in collected(data, run).items():
            if f.get("status") == "ok" and "text" in f:
                table.setdefault(m, {})[run] = int(f["text"])
    return {m: r for m, r in table.items() if all(x in r for x in runs)}
