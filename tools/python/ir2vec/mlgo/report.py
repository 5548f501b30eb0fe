# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Totals a size policy is judged on: module ``.text`` and linked ``.text``
per package, against stock -Oz, for any per-module choice of records.

A *choice* is {module: Record}: the compile each module ships with. Its
``module`` total is the sum of the records' ``.text``; its ``linked`` total
the sum over packages of ``objective.linked_text`` of the package's chosen
objects (GNU ``ld -r``), what a link keeps.
"""

from . import objective
from .corpus import Corpus
from .engine import Job
from .pipeline import Config, Pipeline, stock_policies


def run_table(engine, corpus, modules, table):
    """{setting: {module: Record}} of every module under every setting of a
    stock-settings table, through the engine (replayed when recorded)."""
    return policy_table(engine, corpus, modules, stock_policies(table))


def policy_table(engine, corpus, modules, settings):
    """{name: {module: Record}} of every module under every (name, policy)
    of settings, through the engine (replayed when recorded)."""
    jobs = [Job(m, corpus.bitcode(m), policy)
            for _, policy in settings for m in modules]
    records = engine.run(jobs)
    out, i = {}, 0
    for name, _ in settings:
        out[name] = dict(zip(modules, records[i:i + len(modules)]))
        i += len(modules)
    return out


def oracle(tables):
    """The per-module best of several {module: Record} (smallest .text,
    the first listed on a tie); modules every table has measured."""
    first = tables[0]
    out = {}
    for m in first:
        recs = [t[m] for t in tables if t.get(m) is not None and t[m].ok]
        if recs:
            out[m] = min(recs, key=lambda r: r.text)
    return out


def tuned(engine, corpus, results):
    """{module: Record} of each search's best config (replayed)."""
    jobs, names = [], []
    for r in results:
        if r and r["best"]["text"] is not None:
            cfg = Config.from_key(r["best"]["config"])
            jobs.append(Job(r["module"], corpus.bitcode(r["module"]),
                            Pipeline(cfg)))
            names.append(r["module"])
    return dict(zip(names, engine.run(jobs)))


def totals(engine, choice, modules):
    """(module .text, linked .text) of a choice over modules."""
    module = sum(choice[m].text for m in modules)
    linked = 0
    groups = {}
    for m in modules:
        groups.setdefault(Corpus.package(m), []).append(
            engine.path(choice[m]["object"]))
    for objs in groups.values():
        linked += objective.linked_text(objs, engine.tools)
    return module, linked


def compare(engine, choices, base="Oz"):
    """[(name, modules, module .text, change, linked .text, change)] of
    choices {name: {module: Record}} over the modules every one of them
    has, against choices[base]."""
    common = set.intersection(*(set(m for m, r in c.items()
                                    if r is not None and r.ok)
                                for c in choices.values()))
    modules = sorted(common)
    rows = []
    b_mod, b_link = totals(engine, choices[base], modules)
    for name, c in choices.items():
        mod, link = totals(engine, c, modules)
        rows.append((name, len(modules), mod, (mod - b_mod) / b_mod,
                     link, (link - b_link) / b_link))
    return rows


def best_counts(table, modules):
    """{name: (modules where its .text is the smallest, ties included;
    modules where it alone is)} of a table {name: {module: Record}}."""
    counts = {n: [0, 0] for n in table}
    for m in modules:
        text = {n: t[m].text for n, t in table.items()}
        least = min(text.values())
        ties = [n for n, v in text.items() if v == least]
        for n in ties:
            counts[n][0] += 1
            counts[n][1] += len(ties) == 1
    return {n: tuple(c) for n, c in counts.items()}


def per_module(table, modules):
    """{module: {"text": {name: .text}, "best": the smallest (ties: the
    first in the table's order)}}, for a trainer's per-module targets."""
    out = {}
    for m in modules:
        text = {n: t[m].text for n, t in table.items()}
        out[m] = {"text": text, "best": min(text, key=text.get)}
    return out


def markdown(rows, counts=None):
    """A table of compare()'s rows; with counts (best_counts), how many
    modules each configuration is smallest on."""
    head = "| configuration | modules | module .text | vs -Oz | " \
        "linked .text | vs -Oz |"
    rule = "|---|---:|---:|---:|---:|---:|"
    if counts:
        head += " smallest on (ties incl.) | alone |"
        rule += "---:|---:|"
    lines = [head, rule]
    for name, n, mod, dm, link, dl in rows:
        line = f"| {name} | {n} | {mod:,} | {dm:+.2%} | {link:,} | {dl:+.2%} |"
        if counts:
            best, sole = counts.get(name, ("", ""))
            line += f" {best} | {sole} |"
        lines.append(line)
    return "\n".join(lines)
