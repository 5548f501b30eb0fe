# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""MLGO corpora: read, filter, sample, combine and write them.

An MLGO corpus (mlgo-utils' layout, which vocab/recipe/build-corpus.sh
writes) is a directory with ``corpus_description.json``::

    {"has_thinlto": false, "modules": ["Oz-preopt/zlib/deflate", ...]}

and, for each module name ``M``, ``M.bc`` (the bitcode) and ``M.cmd`` (its
compile flags, NUL-separated). irtk's corpora name modules
``<level>/<package>/<file>``; ``package()`` reads that, and a corpus of
another layout counts every module as its own package.
"""

import json
import os
import random
import subprocess

DESCRIPTION = "corpus_description.json"


class CorpusError(ValueError):
    """A corpus that cannot be read or written as asked."""


class Corpus:
    """An MLGO corpus at ``root``: ``modules`` (names, in name order)."""

    def __init__(self, root, modules=None):
        self.root = os.path.abspath(root)
        if modules is None:
            modules = self._read()
        self.modules = sorted(modules)

    def _read(self):
        path = os.path.join(self.root, DESCRIPTION)
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except OSError as e:
            raise CorpusError(f"{path}: cannot read it: {e.strerror}") from e
        except ValueError as e:
            raise CorpusError(f"{path}: not JSON: {e}") from e
        mods = doc.get("modules") if isinstance(doc, dict) else None
        if not isinstance(mods, list) or not all(
                isinstance(m, str) and m for m in mods):
            raise CorpusError(f"{path}: 'modules' is not a list of names")
        if doc.get("has_thinlto"):
            raise CorpusError(f"{path}: ThinLTO corpora are not supported")
        return mods

    def __len__(self):
        return len(self.modules)

    def __iter__(self):
        return iter(self.modules)

    def bitcode(self, module):
        """The path of a module's bitcode."""
        return os.path.join(self.root, module + ".bc")

    def command(self, module):
        """A module's compile flags (its .cmd), or [] without one."""
        try:
            with open(os.path.join(self.root, module + ".cmd"), "rb") as f:
                return [a.decode() for a in f.read().split(b"\0") if a]
        except FileNotFoundError:
            return []

    def source_filename(self, module, llvm_dis=None):
        """The module's source_filename (what clang names the module after:
        the key of a replay choices file), read from the start of
        ``llvm-dis``'s output."""
        return source_filename(self.bitcode(module), llvm_dis)

    @staticmethod
    def package(module):
        """The package of an irtk module name (<level>/<package>/<file>)."""
        parts = module.split("/")
        return parts[1] if len(parts) >= 3 else module

    @staticmethod
    def level(module):
        parts = module.split("/")
        return parts[0] if len(parts) >= 3 else ""

    def packages(self):
        """{package: [module]}."""
        out = {}
        for m in self.modules:
            out.setdefault(self.package(m), []).append(m)
        return out

    def select(self, levels=None, packages=(), exclude=(), sample=1):
        """Another Corpus of the same root: the modules of those levels and
        packages (all when empty), without the excluded packages, then
        every sample-th."""
        if sample < 1:
            raise CorpusError("the sample step must be positive")
        keep, drop = set(filter(None, packages)), set(filter(None, exclude))
        lv = set(levels) if levels else None
        mods = [m for m in self.modules
                if (lv is None or self.level(m) in lv)
                and (not keep or self.package(m) in keep)
                and self.package(m) not in drop]
        return Corpus(self.root, mods[::sample])

    def stratified(self, count, seed=0, size=os.path.getsize):
        """Another Corpus of at most ``count`` modules: each package's
        modules sorted by size and cut in equal strata, one module drawn
        from each (with ``seed``), so that small and large packages, and
        small and large modules, are all in the sample."""
        if count >= len(self.modules):
            return Corpus(self.root, self.modules)
        rng = random.Random(seed)
        groups = self.packages()
        share = {p: max(1, round(count * len(ms) / len(self.modules)))
                 for p, ms in groups.items()}
        while sum(share.values()) > count:
            big = max(share, key=lambda p: (share[p], p))
            share[big] -= 1
        chosen = []
        for p in sorted(groups):
            ms = sorted(groups[p], key=lambda m: (size(self.bitcode(m)), m))
            k = min(share[p], len(ms))
            if k <= 0:
                continue
            for i in range(k):
                stratum = ms[i * len(ms) // k:(i + 1) * len(ms) // k]
                chosen.append(rng.choice(stratum))
        return Corpus(self.root, chosen)

    def write(self, out, link=True):
        """Writes this selection as a corpus at ``out``: its description, and
        each module's .bc and .cmd as symbolic links to these (or copies with
        link=False). Refuses an ``out`` that already holds a corpus."""
        return write_corpus(out, [(self, m) for m in self.modules], link)


def source_filename(bitcode, llvm_dis=None):
    """The source_filename of a bitcode file (llvm-dis's header line)."""
    from .toolchain import LLVM_BIN
    argv = [llvm_dis or os.path.join(LLVM_BIN, "llvm-dis"), "-o", "-",
            bitcode]
    with subprocess.Popen(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True) as p:
        try:
            for i, line in enumerate(p.stdout):
                if line.startswith("source_filename = "):
                    return json.loads(line.split("=", 1)[1].strip())
                if i > 5:
                    break
        finally:
            p.kill()
    raise CorpusError(f"{bitcode}: no source_filename (not bitcode?)")


def combine(corpora):
    """[(corpus, module)] of several corpora, refusing a module name that
    two of them hold."""
    seen, out = {}, []
    for c in corpora:
        for m in c.modules:
            if m in seen:
                raise CorpusError(f"module {m} is in both {seen[m]} and "
                                  f"{c.root}")
            seen[m] = c.root
            out.append((c, m))
    return out


def write_corpus(out, items, link=True):
    """Writes a corpus of [(corpus, module)] at ``out``; the path of its
    description. The description is written last: a corpus directory is
    complete when it has one."""
    desc = os.path.join(out, DESCRIPTION)
    if os.path.exists(desc):
        raise CorpusError(f"{desc}: a corpus is already there; choose "
                          "another directory")
    for corpus, m in items:
        if os.path.abspath(out) == corpus.root:
            raise CorpusError(f"{out}: is the corpus being read")
        for ext in (".bc", ".cmd"):
            src = os.path.join(corpus.root, m + ext)
            if not os.path.exists(src):
                if ext == ".bc":
                    raise CorpusError(f"{src}: no such module")
                continue
            dst = os.path.join(out, m + ext)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if os.path.lexists(dst):
                os.remove(dst)
            if link:
                os.symlink(src, dst)
            else:
                with open(src, "rb") as f, open(dst, "wb") as g:
                    g.write(f.read())
    from .engine import write_atomically
    write_atomically(desc, json.dumps(
        {"has_thinlto": False,
         "modules": sorted(m for _, m in items)}, indent=1) + "\n")
    return desc


# --- Whole-package modules -------------------------------------------------

STRONG = set("TDBRS")  # llvm-nm's strong definitions


def disjoint_groups(items):
    """[[item]]: the (item, set) pairs in order, each in the first group
    whose items' sets it does not meet, else in a new group."""
    groups = []  # (items, the union of their sets)
    for item, keys in items:
        for g in groups:
            if not (g[1] & keys):
                g[0].append(item)
                g[1].update(keys)
                break
        else:
            groups.append(([item], set(keys)))
    return [g[0] for g in groups]


def _strong_symbols(bc, llvm_nm, warn):
    done = subprocess.run([llvm_nm, "--defined-only", "--extern-only", bc],
                          capture_output=True, text=True)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["failed"])[0]
        warn(f"{bc}: not a module llvm-nm reads, left out: {first}")
        return None
    return {f[-1] for f in (ln.split() for ln in done.stdout.splitlines())
            if len(f) >= 2 and f[-2] in STRONG}


def link_packages(corpus, out, tools, warn):
    """Writes at ``out`` a corpus of whole-package modules: each package's
    modules of ``corpus`` (in name order) linked into as few modules as can
    be (llvm-link), each module in the first part of its package that
    defines none of its strong symbols, so that two mains never share one.
    ``<level>/<package>/whole-<k>.bc`` is part k and ``whole-<k>.txt`` its
    modules; a rerun relinks only the parts whose lists changed. A module
    llvm-nm cannot read, and a part that fails to link, are left out with a
    warning; the others are made. The list of parts written."""
    from .engine import write_atomically
    by_pkg = {}
    for m in corpus:
        by_pkg.setdefault(os.path.dirname(m), []).append(m)
    listed, llvm_link = [], os.path.join(os.path.dirname(tools.llvm_nm),
                                         "llvm-link")
    for pkg, mods in sorted(by_pkg.items()):
        syms = {m: _strong_symbols(corpus.bitcode(m), tools.llvm_nm, warn)
                for m in sorted(mods)}
        groups = disjoint_groups((m, s) for m, s in syms.items()
                                 if s is not None)
        for k, group in enumerate(groups):
            name = f"{pkg}/whole-{k}"
            if _link_part(corpus, out, name, group, llvm_link, warn,
                          write_atomically):
                listed.append(name)
    write_atomically(os.path.join(out, DESCRIPTION), json.dumps(
        {"has_thinlto": False, "modules": listed}, indent=2) + "\n")
    return listed


def _link_part(corpus, out, name, group, llvm_link, warn, write_atomically):
    bc = os.path.join(out, name + ".bc")
    lst = os.path.join(out, name + ".txt")
    want = "".join(m + "\n" for m in group)
    if os.path.exists(bc) and os.path.exists(lst):
        with open(lst, encoding="utf-8") as f:
            if f.read() == want:
                return True
    for path in (bc, lst):
        if os.path.exists(path):
            os.remove(path)
    os.makedirs(os.path.dirname(bc), exist_ok=True)
    done = subprocess.run([llvm_link, "-o", bc + ".tmp"] +
                          [corpus.bitcode(m) for m in group],
                          stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["failed"])[0]
        warn(f"{name}: llvm-link of {len(group)} modules failed, left out: "
             f"{first}")
        if os.path.exists(bc + ".tmp"):
            os.remove(bc + ".tmp")
        return False
    os.replace(bc + ".tmp", bc)
    write_atomically(lst, want)
    return True
