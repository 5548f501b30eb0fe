# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The size pipeline's action space (docs/Pipeline.md).

The space is data (``data/pipeline-oz.json``): clang-22 -Oz's middle-end
pipeline cut into named groups (``early``, ``ipo-early``, ``inline``,
``ipo-cleanup``, ``optimize``, ``final``, ``remarks``), sub-pipelines that
may run again or be added (the reusable groups and the extras:
``mergefunc``, ``iroutliner``, ``simplify``, ...), optional passes that may
be vetoed everywhere they occur, and the machine outliner at code
generation.

A ``Config`` is a sequence of group and extra names, a set of vetoes and
the outliner switch. ``Config.oz()`` is exactly clang -Oz: ``opt
-passes=<its text>`` writes the bitcode ``clang -Oz -c -emit-llvm`` does.
A config is **clang-reachable** when a pass plugin can apply it inside
clang's own -Oz pipeline: the Oz groups unchanged, extras only at the
optimizer-last extension point (before ``remarks``), vetoes of optional
passes (pass instrumentation), and the outliner (on globally, with
``nooutline`` on the functions of a module that should not be outlined).

``Pipeline(config)`` is the engine's policy that compiles a config;
``stock_policies()`` are the fixed configurations a user gets with stock
clang flags (``data/stock-settings.json``).
"""

import functools
import json
import os

from .policy import Policy, Stock

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                    "pipeline-oz.json")

STOCK = os.path.join(os.path.dirname(DATA), "stock-settings.json")


class PipelineError(ValueError):
    """A config the space does not have."""


@functools.lru_cache(maxsize=None)
def space(path=DATA):
    with open(path, encoding="utf-8") as f:
        return Space(json.load(f))


class Space:
    def __init__(self, doc):
        self.doc = doc
        self.groups = doc["groups"]
        self.extras = doc["extras"]
        self.oz = tuple(doc["oz"])
        self.reusable = tuple(doc["reusable"])
        self.vetoes = tuple(doc["vetoes"])
        self.removable = tuple(doc["removable"])
        self.last_point = self.oz.index(doc["optimizer_last_before"])

    def text(self, name):
        if name in self.groups:
            return self.groups[name]
        if name in self.extras:
            return self.extras[name]
        raise PipelineError(f"no sub-pipeline '{name}' in the space")

    def addable(self):
        """Names that may be added to a sequence: reusable groups, extras."""
        return tuple(self.reusable) + tuple(sorted(self.extras))


class Config:
    """passes: names of groups and extras, in order; veto: pass names
    skipped everywhere; outline: the machine outliner on."""

    def __init__(self, passes, veto=(), outline=False):
        self.passes = tuple(passes)
        self.veto = tuple(sorted(set(veto)))
        self.outline = bool(outline)

    @classmethod
    def oz(cls, sp=None):
        return cls((sp or space()).oz)

    @classmethod
    def from_key(cls, key):
        return cls(key["passes"], key.get("veto", ()),
                   key.get("outline", False))

    def key(self):
        return {"passes": list(self.passes), "veto": list(self.veto),
                "outline": self.outline}

    def __eq__(self, other):
        return isinstance(other, Config) and self.key() == other.key()

    def __hash__(self):
        return hash((self.passes, self.veto, self.outline))

    def __repr__(self):
        return f"Config({self.describe()})"

    def describe(self, sp=None):
        """A short name: the changes from Oz."""
        sp = sp or space()
        words = []
        if self.passes != sp.oz:
            if self.passes[:len(sp.oz) - 1] == sp.oz[:-1] and \
                    self.passes[-1] == sp.oz[-1]:
                words.append("+" + "+".join(self.passes[len(sp.oz) - 1:-1]))
            else:
                words.append("[" + ",".join(self.passes) + "]")
        words += ["-" + v for v in self.veto]
        if self.outline:
            words.append("+outline")
        return "Oz" + ("" if not words else " " + " ".join(words))

    def text(self, sp=None):
        """The opt -passes= text."""
        sp = sp or space()
        text = ",".join(sp.text(n) for n in self.passes)
        if self.veto:
            for v in self.veto:
                if v not in sp.vetoes:
                    raise PipelineError(f"'{v}' is not a vetoable pass")
            text = render(drop(parse(text), set(self.veto)))
        return text

    def clang_reachable(self, sp=None):
        """Whether a pass plugin can apply this config inside clang -Oz:
        the Oz groups as they are, extras only before ``remarks``."""
        sp = sp or space()
        p, last = self.passes, sp.last_point
        return (len(p) >= len(sp.oz) and p[:last] == sp.oz[:last] and
                p[-(len(sp.oz) - last):] == sp.oz[last:])

    def plugin_choice(self, sp=None):
        """What the pipeline advisor applies for a clang-reachable config
        (a choices file's entry, a model's candidate): the appended
        sub-pipelines' text, the vetoes and the outliner."""
        sp = sp or space()
        return {"append": ",".join(sp.text(n) for n in self.appended(sp)),
                "veto": list(self.veto), "outline": self.outline}

    def appended(self, sp=None):
        """The sub-pipelines a clang-reachable config adds at the
        optimizer-last point."""
        sp = sp or space()
        return self.passes[sp.last_point:len(self.passes) -
                           (len(sp.oz) - sp.last_point)]


# --- The pipeline text as a tree -------------------------------------------

def parse(text):
    """[(name, children or None)] of an -passes= text."""
    nodes, pos = _parse(text, 0)
    if pos != len(text):
        raise PipelineError(f"unbalanced pipeline text at {pos}")
    return nodes


def _parse(text, pos):
    nodes = []
    while pos < len(text):
        start, depth = pos, 0
        while pos < len(text) and (depth or text[pos] not in ",()"):
            depth += text[pos] == "<"
            depth -= text[pos] == ">"
            pos += 1
        name, children = text[start:pos], None
        if pos < len(text) and text[pos] == "(":
            children, pos = _parse(text, pos + 1)
            if pos >= len(text) or text[pos] != ")":
                raise PipelineError("unbalanced '(' in the pipeline text")
            pos += 1
        nodes.append((name, children))
        if pos < len(text) and text[pos] == ",":
            pos += 1
            continue
        break
    return nodes, pos


def _base(name):
    return name.split("<", 1)[0]


def drop(nodes, names):
    """The tree without the passes named (any parameters), and without the
    adaptors left empty."""
    out = []
    for name, children in nodes:
        if children is None:
            if _base(name) not in names:
                out.append((name, None))
            continue
        kept = drop(children, names)
        if kept:
            out.append((name, kept))
    return out


def render(nodes):
    return ",".join(n if c is None else f"{n}({render(c)})" for n, c in nodes)


# --- The engine's policy ------------------------------------------------------

class Pipeline(Policy):
    """Compiles a Config: ``opt -passes=<text>``, then code generation with
    the outliner when the config has it."""

    kind = "pipeline"

    def __init__(self, config):
        self.config = config

    def key(self):
        return {"kind": self.kind, "config": self.config.key()}

    def optimize(self, tools, job, src, dst, out):
        return [tools.opt, "-passes=" + self.config.text(), src, "-o", dst]

    def codegen_flags(self):
        return list(space().doc["codegen"]["outline"]) \
            if self.config.outline else []


def stock_policies(table="size", path=STOCK):
    """[(name, Stock policy)] of a table of data/stock-settings.json:
    ``size`` (the size transforms: the candidates for the best fixed
    configuration) or ``inliner`` (the nine inliner settings)."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)[table]
    return [(r["name"], Stock(r["optimize"], r["codegen"])) for r in rows]
