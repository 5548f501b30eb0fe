# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Judging the runs of a collection (``python3 -m ir2vec.mlgo judge``):
what ``collect --runs`` laid out under a directory, compared run by run.

- Inline advisor (``inline_table``): total ``.text`` per run over the
  modules every run compiled, against ``Oz``; on how many modules each run
  is smallest (ties included); the per-module oracles of the baselines and
  of every run; with ``linked``, what a link of each package's objects
  keeps (``ld -r``: one copy of each C++ inline function), the measure size
  policies are judged on; with ``packages``, the same per package. Linked
  sizes are kept in ``<data>/linked/`` and reused while the objects are
  unchanged.
- Eviction advisor (``evict_scores``): each run's total RegAllocScore over
  the functions with decisions (a function scores the same under every
  policy where none was asked), on how many functions each is strictly
  best, and the per-function oracle.
"""

import collections
import hashlib
import os

from . import log, objective, runs
from .engine import write_atomically


class JudgeError(ValueError):
    """A collection that cannot be judged as asked."""


def package_of(module):
    return module.split("/")[-2]


def _linked(data, name, objects):
    """The linked .text of ``objects``, kept in data/linked/<name>.txt
    under a key of the objects' paths, sizes and times."""
    key = hashlib.sha256()
    for o in objects:
        st = os.stat(o)
        key.update(f"{o}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    key = key.hexdigest()
    path = os.path.join(data, "linked", name + ".txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = f.read().split()
        if len(old) == 2 and old[0] == key:
            return int(old[1])
    try:
        text = objective.linked_text(objects)
    except objective.MeasureError as e:
        raise JudgeError(f"{name}: {e}") from None
    write_atomically(path, f"{key} {text}\n")
    return text


def linked_table(data, table, names, oracles):
    """{package: {run or oracle name: linked .text}}: each run's objects of
    the package's modules, and for each oracle (name, runs) the smallest
    object of those runs per module."""
    per = collections.defaultdict(list)
    for m in table:
        per[package_of(m)].append(m)
    out = {}
    for pkg, mods in sorted(per.items()):
        row = {}
        for run in names:
            row[run] = _linked(data, f"{run}/{pkg}", [
                os.path.join(data, run, m + ".o") for m in sorted(mods)])
        for name, among in oracles:
            picks = [os.path.join(data, min(among, key=lambda x: (
                table[m][x], among.index(x))), m + ".o") for m in sorted(mods)]
            row[name] = _linked(data, f"{name.replace(' ', '-')}/{pkg}",
                                picks)
        out[pkg] = row
    return out


def inline_table(data, baselines, extra=(), packages=False, linked=False):
    """The markdown summary of the inline runs under ``data``."""
    allruns = list(baselines) + [r for r in extra if r not in baselines]
    table = runs.texts(data, allruns)
    if not table or "Oz" not in baselines:
        raise JudgeError(f"{data}: no module compiled by every run (and Oz "
                         "must be a baseline)")
    oz = sum(r["Oz"] for r in table.values())
    oracles = (("oracle of the baselines", list(baselines)),
               ("oracle of all runs", allruns))
    links = None
    if linked:
        missing = [os.path.join(data, run, m + ".o") for m in table
                   for run in allruns
                   if not os.path.exists(os.path.join(data, run, m + ".o"))]
        if missing:
            raise JudgeError(f"{missing[0]}: no object ({len(missing)} "
                             "missing)")
        links = linked_table(data, table, allruns, oracles)
        loz = sum(r["Oz"] for r in links.values())

    def linked_cells(name):
        if links is None:
            return ""
        tot = sum(r[name] for r in links.values())
        return f" {tot} | {100 * (tot / loz - 1):+.2f}% |"

    out = [f"{len(table)} modules compiled by every run; .text bytes:\n"]
    if links is None:
        out += ["| run | .text | vs Oz | smallest on |", "|---|---:|---:|---:|"]
    else:
        out += [f"| run | .text | vs Oz | smallest on | linked .text "
                f"({len(links)} packages) | vs Oz |",
                "|---|---:|---:|---:|---:|---:|"]
    for run in allruns:
        tot = sum(r[run] for r in table.values())
        best = sum(1 for r in table.values()
                   if r[run] == min(r[x] for x in allruns))
        out.append(f"| {run} | {tot} | {100 * (tot / oz - 1):+.2f}% | {best} |"
                   + linked_cells(run))
    for name, among in oracles:
        tot = sum(min(r[x] for x in among) for r in table.values())
        out.append(f"| {name} | {tot} | {100 * (tot / oz - 1):+.2f}% | |"
                   + linked_cells(name))
    if packages:
        out += _package_rows(table, allruns, oracles, links)
    return "\n".join(out)


def _package_rows(table, allruns, oracles, links):
    cols = allruns + ([n for n, _ in oracles] if links else [])
    what = "linked .text" if links else ".text"
    out = [f"\n{what} vs Oz per package:\n",
           "| package | modules | " + " | ".join(cols) + " |",
           "|---|---:|" + "---:|" * len(cols)]
    per = collections.defaultdict(list)
    for m, r in table.items():
        per[package_of(m)].append(r)
    for pkg in sorted(per):
        rows = per[pkg]
        if links:
            o = links[pkg]["Oz"]
            cells = [f"{100 * (links[pkg][x] / o - 1):+.2f}%" for x in cols]
        else:
            o = sum(r["Oz"] for r in rows)
            cells = [f"{100 * (sum(r[x] for r in rows) / o - 1):+.2f}%"
                     for x in cols]
        out.append(f"| {pkg} | {len(rows)} | " + " | ".join(cells) + " |")
    if links:
        wins = [str(sum(1 for r in links.values() if r[x] < r["Oz"]))
                for x in cols]
        out.append("| packages smaller than Oz | | " + " | ".join(wins) + " |")
    return out


def evict_collected(data, names):
    """{run: {module: {function: (score, decisions)}}} and {run: {module:
    .text}} of the eviction runs under ``data``."""
    scores, text = {}, {}
    for run in names:
        scores[run] = {}
        text[run] = {m: int(f.get("text", 0))
                     for m, f in runs.records(data, run).items()
                     if f.get("status") == "ok"}
        root = os.path.join(data, run)
        for dirpath, _, files in os.walk(root):
            for fn in files:
                if fn.endswith(".log"):
                    path = os.path.join(dirpath, fn)
                    _, blocks = log.read_contexts(path)
                    scores[run][os.path.relpath(path, root)[:-4]] = {
                        name: (r, n) for name, _, n, r in blocks}
    return scores, text


def common_modules(text, names):
    mods = set(text[names[0]])
    for r in names[1:]:
        mods &= set(text[r])
    return sorted(mods)


def evict_scores(data, names):
    """The eviction runs' scores (see the module's docstring), as a dict
    for JSON."""
    scores, text = evict_collected(data, names)
    mods = common_modules(text, names)
    funcs = {(m, f) for m in mods for r in names
             for f in scores[r].get(m, {})}

    # A function without decisions under a run scored as under the others
    # there (nothing was decided differently): the first run that has it.
    def score(r, m, f):
        for rr in [r] + list(names):
            v = scores[rr].get(m, {}).get(f)
            if v is not None:
                return v[0]
        return 0.0

    total = {r: sum(score(r, m, f) for m, f in funcs) for r in names}
    best = {r: 0 for r in names}
    for m, f in funcs:
        b = min(names, key=lambda r: score(r, m, f))
        if all(score(b, m, f) == score(r, m, f) for r in names):
            continue
        best[b] += 1
    oracle = sum(min(score(r, m, f) for r in names) for m, f in funcs)
    base = total[names[0]]

    def vs(x):
        return f"{100 * (x / base - 1):+.3f}%" if base else "n/a"

    return {
        "modules": len(mods),
        "functions with decisions": len(funcs),
        "runs": {r: {"score": round(total[r], 2), "score vs first":
                     vs(total[r]),
                     "decisions": sum(n for m in mods for _, n in
                                      scores[r].get(m, {}).values()),
                     "text": sum(text[r][m] for m in mods),
                     "strictly best on": best[r]} for r in names},
        "per-function oracle": {"score": round(oracle, 2),
                                "vs first": vs(oracle)}}
