# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""MLGO corpora from Debian source packages by a recipes table.

vocab/recipe/build-corpus.sh fetches the sources (``apt-get source``) and
runs their prep steps; this module does the rest, as ``python3 -m
ir2vec.mlgo corpus-build``:

- ``packages``: reads the package list (``NAME LANGUAGE SPLIT...``),
  checks it against the recipes table and names the packages of the
  requested splits, one a line;
- ``prep``: a package's prep steps, ``STAMP<TAB>COMMAND`` a line;
- ``build``: the module table (each source file at its levels per split;
  the train split's levels are the first K of a permutation of the six
  chosen by the file's CRC-32, as ``cksum`` computes it), pruning of what
  the corpora no longer list, the compiles (``clang -O<level> -c
  -emit-llvm``, a module whose ``.cmd`` holds its arguments is current and
  kept), each split's ``corpus_description.json`` and
  ``<work>/corpus-manifest.json``.

The recipes table's format is in its header (vocab/recipe/corpus-recipes.txt).

Each split is an MLGO corpus (mlgo-utils' layout):

  <work>/<split>/corpus_description.json
      {"has_thinlto": false, "modules": ["O2/zlib/deflate", ...]}
  <work>/<split>/<level>/<package>/<file>.bc    the module
  <work>/<split>/<level>/<package>/<file>.cmd   its compile flags

Splits (a package's splits are in packages.txt):
  train    every file at K of the six levels O0 O1 O2 O3 Os Oz (K is
           --levels-per-file, default 3). The levels are the first K of a
           permutation of the six picked by the CRC-32 (`cksum`) of
           "<package>/<path in the package>": deterministic, about
           uniform over files, and raising K only adds levels.
  heldout  every file at O0, O2 and Oz, in packages training never sees,
           so a function's -O0 and -Oz modules can be matched by name.
  bench    every file at O2; bench/build-corpus.sh builds it for
           bench/run.sh.
  inline-train, inline-valid, inline-heldout
           pre-optimisation bitcode, as MLGO collects it for inlining:
           every file once, at the level directory Oz-preopt, compiled with
           `-Oz -Xclang -disable-llvm-passes`: the functions carry -Oz's
           attributes (minsize, optsize; not -O0's noinline and optnone)
           and no LLVM pass has run. For the advisors (advisors/recipe/):
           `clang-22 -Oz -c X.bc` finishes a module as `clang-22 -Oz -c`
           of its source would. inline-train holds the packages whose
           splits include train or inline-train, except those of
           inline-valid; inline-valid (validation: it chooses checkpoints
           and margins) the packages that name it; inline-heldout those
           of heldout or inline-heldout (held-out code chooses nothing).
           Packages named only in inline-* splits are not in the
           vocabulary's corpora, so adding them leaves the vocabulary
           recipe's input unchanged.
<file> is the file's path in its package with `/` replaced by `_` and the
extension dropped (lib/at-func.c -> lib_at-func). The level comes first so
that <work>/<split>/<level>/ is a one-level slice of the corpus and each
.bc's directory names its package.

Each <file>.cmd holds the clang-22/clang++-22 arguments that made the
module, without the action (-c -emit-llvm), the input, the output and -w,
each followed by a NUL byte: the format of the .llvmcmd section that
mlgo-utils' extract_ir copies into .cmd (which holds cc1 arguments, also
without input, output and warning flags). corpus_description.json has no
"global_command_override": the modules differ in level, include paths and
macros, so one command line cannot replace their .cmd files (extract_ir
omits the key too, except for local ThinLTO).

<work>/corpus-manifest.json records, for each split in <work>, the packages
with their Debian versions and languages, the levels, the module counts
(per package and per level) and the modules that failed to compile.

A rerun reuses every module whose .cmd matches what it would compile now and
prunes files the corpus no longer lists; a file that fails to compile is
skipped, its log kept in <work>/logs/cc-<split>-*.log.
"""

import collections
import concurrent.futures
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from fnmatch import fnmatchcase

SOURCES = ("*.c", "*.cc", "*.cpp", "*.cxx")
SPLITS = ("train", "heldout", "bench", "inline-train", "inline-valid",
          "inline-heldout")
ALL_LEVELS = ("O0", "O1", "O2", "O3", "Os", "Oz")
LEVEL_ORDER = ALL_LEVELS + ("Oz-preopt",)
FIXED_LEVELS = {"heldout": ("O0", "O2", "Oz"), "bench": ("O2",)}
PREOPT_LEVELS = ("Oz-preopt",)
MIN_TRAIN_PACKAGES = 10
COMPILE_TIMEOUT = 600
# The log lines' prefix: the recipe's name, as its own lines have it.
PREFIX = "build-corpus"
GENERATOR = "vocab/recipe/build-corpus.sh"


class CorpusBuildError(Exception):
    pass


def log(msg, prefix=PREFIX):
    print(f"[{prefix} {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr,
          flush=True)


def parse(path):
    """{package: [(verb, words)]}, the table's steps in order."""
    table, line = {}, ""
    with open(path) as f:
        for n, text in enumerate(f, 1):
            if line or not text.lstrip().startswith("#"):
                line += text.rstrip("\n")
            if line.endswith("\\"):
                line = line[:-1]
                continue
            words, line = shlex.split(line), ""
            verb, args = (words + ["", ""])[1], words[2:]
            gens = (["copy"], ["sed"], ["define"], ["lines"], ["run"])
            if words and not {"srcs": ":" in args, "files": ":" in args,
                              "prep": len(args) > 1,
                              "gen": args[1:2] in gens}.get(verb):
                raise CorpusBuildError(
                    f"{path}:{n}: not a step: {shlex.join(words)}")
            if words:
                table.setdefault(words[0], []).append((verb, args))
    return table


def srcdir(src, pkg):
    """The package's directory in src, as `apt-get source` unpacks it."""
    found = sorted(glob.glob(f"{glob.escape(src)}/{glob.escape(pkg)}-[0-9]*/"))
    return found[0].rstrip("/") if found else None


def multiarch():
    try:
        return subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"],
                              check=True, capture_output=True,
                              text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "x86_64-linux-gnu"


class Package:
    """One package's recipe applied to its sources (in root), its generated
    headers in gen; src holds the sources of all packages."""

    def __init__(self, name, root, gen, src):
        self.name, self.root, self.gen, self.src = name, root, gen, src

    def subst(self, word):
        """word with $S, $G, $MULTIARCH and ${P} replaced; LookupError if P
        has no sources."""
        def value(m):
            if m[1]:
                return {"S": self.root, "G": self.gen}.get(m[1]) or multiarch()
            if found := srcdir(self.src, m[2]):
                return found
            raise LookupError(m[2])
        return re.sub(r"\$(?:(S|G|MULTIARCH)\b|\{([^}]+)\})", value, word)

    def path(self, word):
        return os.path.join(self.root, self.subst(word))

    def paths(self, pattern):
        """What pattern (relative to the source directory) matches, sorted."""
        return sorted(glob.glob(os.path.join(glob.escape(self.root),
                                             self.subst(pattern))))

    def flags(self, words):
        out = []
        for word in words:
            try:
                word = self.subst(word)
            except LookupError:
                continue
            # -I/dir/*/: one flag per directory.
            m = re.fullmatch(r"(-[^/]*)(/.*\*.*)", word)
            out += [m[1] + d for d in sorted(
                d.rstrip("/") for d in glob.glob(m[2], recursive=True))
            ] if m else [word]
        return out

    def srcs(self, words):
        """The sources of `srcs [-r] [-x GLOB]... [-xp GLOB]... DIR...`,
        sorted."""
        deep, names, paths, tops, found = False, [], [], [], []
        it = iter(words)
        for word in it:
            if word in ("-x", "-xp"):
                (names if word == "-x" else paths).append(next(it))
            elif word == "-r":
                deep = True
            else:
                tops += [self.root] if word == "." else self.paths(word)
        for top in filter(os.path.isdir, tops):
            for d, subdirs, files in os.walk(top):
                subdirs[:] = [s for s in subdirs
                              if s not in (".pc", "debian")] if deep else []
                found += [p for f in files for p in [os.path.join(d, f)]
                          if any(fnmatchcase(f, g) for g in SOURCES)
                          and not any(fnmatchcase(f, g) for g in names)
                          and not any(fnmatchcase(p, g) for g in paths)
                          and os.path.isfile(p) and not os.path.islink(p)]
        return sorted(found)

    def output(self, kind, args):
        """The bytes a `gen FILE KIND ARGS...` step writes."""
        if kind == "copy":
            with open(self.path(args[0]), "rb") as f:
                return f.read()
        if kind in ("sed", "run"):
            cmd = (["sed", *args[1:], self.path(args[0])] if kind == "sed"
                   else ["bash", "-c", self.subst(" ".join(args))])
            return subprocess.run(cmd, cwd=self.root, check=True,
                                  stdout=subprocess.PIPE).stdout
        lines = [self.subst(a) for a in args]
        if kind == "define":
            lines = [f"#define {n} {v if eq else 1}".rstrip()
                     for n, eq, v in (d.partition("=") for d in lines)]
        return "".join(f"{line}\n" for line in lines).encode()

    def jobs(self, steps):
        """Writes the package's generated headers anew; its (file, flags)
        to compile, in the recipe's order."""
        shutil.rmtree(self.gen, ignore_errors=True)
        written = set()
        for name, kind, *args in (w for verb, w in steps if verb == "gen"):
            dest = os.path.join(self.gen, name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if name.endswith("/"):  # copy into the directory
                for p in self.paths(args[0]):
                    if os.path.isdir(p):
                        shutil.copytree(p, dest + os.path.basename(p),
                                        dirs_exist_ok=True)
                    else:
                        shutil.copy(p, dest)
                continue
            with open(dest, "ab" if dest in written else "wb") as f:
                f.write(self.output(kind, args))
            written.add(dest)
        out = []
        for verb, args in steps:
            if verb in ("srcs", "files"):
                cut = args.index(":")
                files = (self.srcs(args[:cut]) if verb == "srcs" else
                         [p for w in args[:cut] for p in self.paths(w)
                          if os.path.isfile(p)])
                flags = self.flags(args[cut + 1:])
                out += [(f, flags) for f in files]
        return out


def read_packages(path, table, splits):
    """The packages of the list at path that the requested splits hold, in
    list order, as (name, language, [splits])."""
    recipes = "corpus-recipes.txt"
    out = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            name, lang, ps = words[0], (words + [""])[1], words[2:]
            if not ps:
                raise CorpusBuildError(f"{path}: {name} has no split")
            for s in ps:
                if s not in SPLITS:
                    raise CorpusBuildError(
                        f"{path}: {name}: unknown split '{s}'")
            if (set(ps) & {"train", "inline-train", "inline-valid"}
                    and set(ps) & {"heldout", "inline-heldout"}):
                raise CorpusBuildError(f"{path}: {name} is on both the "
                                       "training and the held-out side")
            if {"inline-valid", "inline-train"} <= set(ps):
                raise CorpusBuildError(f"{path}: {name} is in both "
                                       "inline-train and inline-valid")
            if lang not in ("C", "C++"):
                raise CorpusBuildError(f"{path}: {name}: language '{lang}' "
                                       "is neither C nor C++")
            if name not in table:
                raise CorpusBuildError(f"{path} lists {name}, but {recipes} "
                                       "has no recipe for it")
            # The pre-optimisation splits follow train and heldout, but a
            # validation package is never in inline-train.
            implied = set(ps)
            if "train" in ps and "inline-valid" not in ps:
                implied.add("inline-train")
            if "heldout" in ps:
                implied.add("inline-heldout")
            wanted = [s for s in splits if s in implied]
            if wanted:
                out.append((name, lang, wanted))
    if not out:
        raise CorpusBuildError(f"{path} lists no package for "
                               f"{' '.join(splits)}")
    return out


def _crc_table():
    table = []
    for i in range(256):
        c = i << 24
        for _ in range(8):
            c = ((c << 1) ^ 0x04C11DB7 if c & 0x80000000 else c << 1)
        table.append(c & 0xFFFFFFFF)
    return table


CRC_TABLE = _crc_table()


def cksum(data):
    """POSIX cksum's CRC-32 of data (bytes)."""
    crc = 0
    n = len(data)
    tail = bytearray()
    while n:
        tail.append(n & 0xFF)
        n >>= 8
    for b in bytes(data) + bytes(tail):
        crc = ((crc << 8) & 0xFFFFFFFF) ^ CRC_TABLE[(crc >> 24) ^ b]
    return ~crc & 0xFFFFFFFF


def levels_of(split, key, k):
    """The levels of the file key ("<package>/<path>") in split."""
    if split in FIXED_LEVELS:
        return FIXED_LEVELS[split]
    if split != "train":
        return PREOPT_LEVELS
    # Permutation number CRC mod 6! in the factorial number system; its
    # first k levels.
    n, pool, pick = cksum(os.fsencode(key)) % 720, list(ALL_LEVELS), []
    for i in range(5, -1, -1):
        fact = [1, 1, 2, 6, 24, 120][i]
        pick.append(pool.pop(n // fact))
        n %= fact
    return pick[:k]


def level_flags(level):
    """The clang arguments of a level directory: -<level>, or for
    <level>-preopt the level's front end without LLVM's passes."""
    if level.endswith("-preopt"):
        return [f"-{level[:-len('-preopt')]}", "-Xclang",
                "-disable-llvm-passes"]
    return [f"-{level}"]


def version(root):
    try:
        return subprocess.run(
            ["dpkg-parsechangelog", "-l", os.path.join(root, "debian",
                                                       "changelog"),
             "-S", "Version"], check=True, capture_output=True,
            text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


class Builder:
    """A build of the requested splits in work (see build())."""

    def __init__(self, work, src, recipes, k, splits, clang, clangxx, jobs):
        self.work, self.src, self.k, self.splits = work, src, k, splits
        self.clang, self.clangxx, self.jobs = clang, clangxx, jobs
        self.recipes = recipes
        self.table = parse(recipes)
        self.logs = os.path.join(work, "logs")
        self.gen = os.path.join(work, "gen")
        self.state = os.path.join(work, "state")

    def module_table(self, packages):
        """[(split, module, package, level, file, flags)] and the packages'
        [(name, language, version)]; writes state/modules.tsv and
        state/packages.tsv (flags shell-quoted)."""
        rows, infos = [], []
        for name, lang, wanted in packages:
            root = srcdir(self.src, name)
            if not root:
                continue
            infos.append((name, lang, version(root)))
            try:
                files = Package(name, root, os.path.join(self.gen, name),
                                self.src).jobs(self.table[name])
            except (OSError, IndexError, subprocess.CalledProcessError) as e:
                raise CorpusBuildError(f"{self.recipes}: {name}: {e}")
            for path, flags in files:
                rel = path[len(root) + 1:] if path.startswith(root + "/") \
                    else path
                flat = rel.replace("/", "_")
                flat = flat.rsplit(".", 1)[0] if "." in flat else flat
                for s in wanted:
                    for level in levels_of(s, f"{name}/{rel}", self.k):
                        rows.append((s, f"{level}/{name}/{flat}", name, level,
                                     path, flags))
            if not files:
                log(f"warning: {name}: no source files found in {root}")
        keys = collections.Counter(r[:2] for r in rows)
        dups = sorted(key for key, n in keys.items() if n > 1)
        if dups:
            raise CorpusBuildError("two files of a package map to the same "
                                   f"module: {' '.join(dups[0])}")
        with open(os.path.join(self.state, "packages.tsv"), "w") as f:
            wanted = {n: " ".join(ws) for n, _, ws in packages}
            for name, lang, ver in infos:
                f.write(f"{name}\t{lang}\t{ver}\t{wanted[name]}\t"
                        f"{srcdir(self.src, name)}\n")
        with open(os.path.join(self.state, "modules.tsv"), "w") as f:
            for *head, flags in rows:
                f.write("\t".join(head + [shlex.join(flags)]) + "\n")
        return rows, infos

    def prune(self, rows):
        """Deletes the files of each split that the corpus no longer lists."""
        for s in self.splits:
            root = os.path.join(self.work, s)
            os.makedirs(root, exist_ok=True)
            expected = {os.path.join(root, r[1] + ext) for r in rows
                        if r[0] == s for ext in (".bc", ".cmd")}
            stale = sorted(p for d, _, fs in os.walk(root) for f in fs
                           for p in [os.path.join(d, f)]
                           if f != "corpus_description.json"
                           and p not in expected)
            if not stale:
                continue
            log(f"{s}: removing {len(stale)} files the corpus no longer "
                "lists")
            for p in stale:
                os.remove(p)
            for d, subdirs, fs in os.walk(root, topdown=False):
                if d != root and not os.listdir(d):
                    os.rmdir(d)

    def compile_one(self, row):
        """Compiles one module; False when it fails (its log kept)."""
        s, mod, _, level, path, flags = row
        args = level_flags(level) + flags
        dest = os.path.join(self.work, s, mod)
        log_path = os.path.join(self.logs,
                                f"cc-{s}-{mod.replace('/', '-')}.log")
        cc = self.clang if path.endswith(".c") else self.clangxx
        for p in (dest + ".bc", dest + ".cmd"):
            if os.path.lexists(p):
                os.remove(p)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(log_path, "wb") as out:
            try:
                ok = subprocess.run(
                    [cc, "-c", "-emit-llvm", "-w", *args, path, "-o",
                     dest + ".bc.tmp"], stdout=out, stderr=out,
                    stdin=subprocess.DEVNULL,
                    timeout=COMPILE_TIMEOUT).returncode == 0
            except (OSError, subprocess.TimeoutExpired) as e:
                out.write(f"{e}\n".encode())
                ok = False
        if ok:
            # The .cmd first: a .cmd without its .bc is compiled again.
            with open(dest + ".cmd", "wb") as f:
                f.write(cmd_bytes(args))
            os.replace(dest + ".bc.tmp", dest + ".bc")
            os.remove(log_path)
        elif os.path.lexists(dest + ".bc.tmp"):
            os.remove(dest + ".bc.tmp")
        return ok

    def compile(self, todo):
        """Compiles todo on self.jobs processes; logs progress once a
        minute; returns the failed rows."""
        failed, done, lock = [], [0], threading.Lock()

        def one(row):
            ok = self.compile_one(row)
            with lock:
                done[0] += 1
                if not ok:
                    failed.append(row)

        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            futures = [pool.submit(one, r) for r in todo]
            while concurrent.futures.wait(futures, timeout=60).not_done:
                with lock:
                    msg = f"compiled {done[0]} of {len(todo)}"
                    if failed:
                        msg += f" ({len(failed)} failed)"
                log(msg)
            for f in futures:
                f.result()
        return failed

    def build(self, packages):
        start = time.monotonic()
        for d in (self.logs, self.gen, self.state):
            os.makedirs(d, exist_ok=True)
        for s in self.splits:
            for p in glob.glob(os.path.join(glob.escape(self.logs),
                                            f"cc-{s}-*.log")):
                os.remove(p)
        rows, infos = self.module_table(packages)
        self.prune(rows)
        names = " ".join(self.splits)
        if not rows:
            raise CorpusBuildError(f"nothing to compile for {names}")
        # The biggest files first, so that no big file finishes last alone.
        size = {}
        for r in rows:
            if r[4] not in size:
                try:
                    size[r[4]] = os.stat(r[4]).st_size
                except OSError:
                    size[r[4]] = 0
        todo = sorted((r for r in rows if not is_current(
            os.path.join(self.work, r[0], r[1]), level_flags(r[3]) + r[5])),
            key=lambda r: -size[r[4]])
        log(f"{len(rows)} modules in {names}: {len(rows) - len(todo)} "
            f"current, compiling {len(todo)} ({self.jobs} jobs)")
        failed = self.compile(todo) if todo else []
        with open(os.path.join(self.state, "failed"), "w") as f:
            f.write("".join(f"{r[0]} {r[1]}\n" for r in failed))
        compiler = subprocess.run([self.clang, "--version"], check=True,
                                  capture_output=True, text=True
                                  ).stdout.split("\n")[0]
        train_packages = write_manifest(self.work, self.splits, self.k, rows,
                                        infos, compiler)
        if failed:
            log(f"{len(failed)} modules failed to compile this run; logs in "
                f"{self.logs}/cc-*.log")
        took = int(time.monotonic() - start)
        log(f"wrote {self.work}/corpus-manifest.json; took {took // 60} min "
            f"{took % 60} s")
        if "train" in self.splits and train_packages < MIN_TRAIN_PACKAGES:
            raise CorpusBuildError(
                f"only {train_packages} training packages produced modules "
                f"(want at least {MIN_TRAIN_PACKAGES})")


def cmd_bytes(args):
    """A .cmd file's bytes: each argument followed by a NUL byte."""
    return b"".join(a.encode() + b"\0" for a in args)


def is_current(dest, args):
    """A module is current when its .bc exists and its .cmd holds the
    arguments it would be compiled with now."""
    try:
        if os.path.getsize(dest + ".bc") == 0:
            return False
        with open(dest + ".cmd", "rb") as f:
            return f.read() == cmd_bytes(args)
    except OSError:
        return False


def _write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def _policy(k):
    policy = {
        "train": {"levels": list(ALL_LEVELS), "levels_per_file": k,
                  "sampling": "the first levels_per_file of the permutation "
                              "number cksum('<package>/<file>') mod 720 of "
                              "the levels"},
        "heldout": {"levels": ["O0", "O2", "Oz"], "levels_per_file": 3},
        "bench": {"levels": ["O2"], "levels_per_file": 1},
    }
    for s, of in (("inline-train", "train or inline-train, except "
                   "inline-valid"),
                  ("inline-valid", "inline-valid"),
                  ("inline-heldout", "heldout or inline-heldout")):
        policy[s] = {"levels": ["Oz-preopt"], "levels_per_file": 1,
                     "flags": {"Oz-preopt": "-Oz -Xclang "
                               "-disable-llvm-passes"},
                     "packages": f"those whose splits include {of}"}
    return policy


def write_manifest(work, splits, k, rows, infos, compiler):
    """Writes the splits' corpus_description.json and
    work/corpus-manifest.json, logs a summary; how many training packages
    have modules."""
    policy = _policy(k)
    packages = {n: {"name": n, "language": lang, "version": v}
                for n, lang, v in infos}
    table = {s: [] for s in splits}
    for s, mod, pkg, level, path, _ in rows:
        table[s].append((mod, pkg, level, path))
    manifest_path = os.path.join(work, "corpus-manifest.json")
    previous = {}
    if os.path.isfile(manifest_path):
        with open(manifest_path) as f:
            previous = json.load(f).get("splits", {})
    manifest = {"generator": GENERATOR, "compiler": compiler, "splits": {}}
    train_packages = 0
    for s in splits:
        root = os.path.join(work, s)
        built = sorted(m for m, *_ in table[s] if os.path.isfile(
            os.path.join(root, m + ".bc")))
        _write_json(os.path.join(root, "corpus_description.json"),
                    {"has_thinlto": False, "modules": built})
        ok = set(built)
        per_pkg, per_level, failed = {}, {}, []
        for mod, pkg, level, path in table[s]:
            p = per_pkg.setdefault(pkg, {"files": set(), "modules": 0})
            p["files"].add(path)
            if mod in ok:
                p["modules"] += 1
                per_level[level] = per_level.get(level, 0) + 1
            else:
                failed.append(mod)
        pkgs = [dict(packages[n], files=len(per_pkg[n]["files"]),
                     modules=per_pkg[n]["modules"]) for n in sorted(per_pkg)]
        entry = dict(policy[s])
        entry.update({
            "corpus": s + "/corpus_description.json",
            "packages": pkgs,
            "files": sum(p["files"] for p in pkgs),
            "modules": len(built),
            "modules_per_level": {lv: per_level[lv] for lv in LEVEL_ORDER
                                  if lv in per_level},
            "failed_modules": sorted(failed),
        })
        manifest["splits"][s] = entry
        with_modules = sum(1 for p in pkgs if p["modules"])
        if s == "train":
            train_packages = with_modules
        langs = {}
        for p in pkgs:
            if p["modules"]:
                langs[p["language"]] = langs.get(p["language"], 0) + 1
        per_level_text = " ".join(
            f"{lv}={n}" for lv, n in entry["modules_per_level"].items())
        print(f"[{PREFIX}] {s}: {len(built)} modules from {entry['files']} "
              f"files of {with_modules} packages "
              f"({', '.join(f'{n} {lg}' for lg, n in sorted(langs.items()))}"
              f"); {len(failed)} failed; per level {per_level_text}",
              file=sys.stderr)
        for p in pkgs:
            print(f"[{PREFIX}]   {p['name']:<18} {p['version']:<26} "
                  f"{p['language']:<4}{p['files']:>5} files "
                  f"{p['modules']:>6} modules", file=sys.stderr)
    # Splits built by earlier runs keep their entries while their corpus
    # exists.
    for s, entry in previous.items():
        if s not in splits and os.path.isfile(
                os.path.join(work, s, "corpus_description.json")):
            manifest["splits"][s] = entry
    manifest["splits"] = {s: manifest["splits"][s] for s in SPLITS
                          if s in manifest["splits"]}
    _write_json(manifest_path, manifest)
    return train_packages


def run(args):
    """The corpus-build command: args.action is packages, prep or build."""
    want = {"packages": ["packages"], "prep": ["package"],
            "build": ["packages", "work", "src"]}[args.action]
    for opt in want:
        if not getattr(args, opt):
            raise CorpusBuildError(f"{args.action} needs --{opt}")
    table = parse(args.recipes)
    splits = args.splits.split(",")
    if args.action == "prep":
        if args.package not in table:
            raise CorpusBuildError(f"{args.recipes}: no recipe for "
                                   f"{args.package}")
        for verb, words in table[args.package]:
            if verb == "prep":
                print(f"{words[0]}\t{' '.join(words[1:])}")
        return 0
    packages = read_packages(args.packages, table, splits)
    if args.action == "packages":
        print("".join(f"{n}\n" for n, _, _ in packages), end="")
        return 0
    work, src = os.path.abspath(args.work), os.path.abspath(args.src)
    Builder(work, src, args.recipes, args.levels_per_file, splits,
            args.clang, args.clangxx, args.jobs).build(packages)
    return 0
