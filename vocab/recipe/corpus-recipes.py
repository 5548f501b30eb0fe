#!/usr/bin/python3
# ===- corpus-recipes.py - Interprets build-corpus.sh's package table ------=== #
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------=== #
"""Does what corpus-recipes.txt (its header has the format) says; run by build-corpus.sh.

  corpus-recipes.py TABLE list                   the packages that have a recipe
  corpus-recipes.py TABLE prep PACKAGE           its prep steps: "STAMP<TAB>COMMAND"
  corpus-recipes.py TABLE jobs PACKAGE DIR GEN SRC
      writes the generated headers of the package (sources in DIR) into GEN and prints
      "PACKAGE<TAB>FILE<TAB>FLAGS", FLAGS shell-quoted, for each file to compile; SRC
      holds the sources of all packages.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
from fnmatch import fnmatchcase

SOURCES = ("*.c", "*.cc", "*.cpp", "*.cxx")


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
            if words and not {"srcs": ":" in args, "files": ":" in args, "prep": len(args) > 1,
                              "gen": args[1:2] in (["copy"], ["sed"], ["define"], ["lines"], ["run"])
                              }.get(verb):
                sys.exit(f"{path}:{n}: not a step: {shlex.join(words)}")
            if words:
                table.setdefault(words[0], []).append((verb, args))
    return table


def srcdir(src, pkg):
    """The package's directory in src, as `apt-get source` unpacks it."""
    found = sorted(glob.glob(f"{glob.escape(src)}/{glob.escape(pkg)}-[0-9]*/"))
    return found[0].rstrip("/") if found else None


def multiarch():
    try:
        return subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "x86_64-linux-gnu"


class Package:
    def __init__(self, name, root, gen, src):
        self.name, self.root, self.gen, self.src = name, root, gen, src

    def subst(self, word):
        """word with $S, $G, $MULTIARCH and ${P} replaced; LookupError if P has no sources."""
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
        return sorted(glob.glob(os.path.join(glob.escape(self.root), self.subst(pattern))))

    def flags(self, words):
        out = []
        for word in words:
            try:
                word = self.subst(word)
            except LookupError:
                continue
            m = re.fullmatch(r"(-[^/]*)(/.*\*.*)", word)  # -I/dir/*/: one flag per directory
            out += [m[1] + d for d in sorted(d.rstrip("/") for d in glob.glob(m[2], recursive=True))
                    ] if m else [word]
        return out

    def srcs(self, words):
        """The sources of `srcs [-r] [-x GLOB]... [-xp GLOB]... DIR...`, sorted."""
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
                subdirs[:] = [s for s in subdirs if s not in (".pc", "debian")] if deep else []
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
            return subprocess.run(cmd, cwd=self.root, check=True, stdout=subprocess.PIPE).stdout
        lines = [self.subst(a) for a in args]
        if kind == "define":
            lines = [f"#define {n} {v if eq else 1}".rstrip()
                     for n, eq, v in (d.partition("=") for d in lines)]
        return "".join(f"{line}\n" for line in lines).encode()

    def jobs(self, steps):
        shutil.rmtree(self.gen, ignore_errors=True)
        written = set()
        for verb, (name, kind, *args) in ((v, a) for v, a in steps if v == "gen"):
            dest = os.path.join(self.gen, name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if name.endswith("/"):  # copy into the directory
                for p in self.paths(args[0]):
                    if os.path.isdir(p):
                        shutil.copytree(p, dest + os.path.basename(p), dirs_exist_ok=True)
                    else:
                        shutil.copy(p, dest)
                continue
            with open(dest, "ab" if dest in written else "wb") as f:
                f.write(self.output(kind, args))
            written.add(dest)
        for verb, args in steps:
            if verb in ("srcs", "files"):
                cut = args.index(":")
                files = (self.srcs(args[:cut]) if verb == "srcs" else
                         [p for w in args[:cut] for p in self.paths(w) if os.path.isfile(p)])
                flags = shlex.join(self.flags(args[cut + 1:]))
                print("".join(f"{self.name}\t{f}\t{flags}\n" for f in files), end="")


def main(table_path, cmd, *args):
    table = parse(table_path)
    if cmd == "list":
        print("\n".join(table))
    elif args[0] not in table:
        sys.exit(f"{table_path}: no recipe for {args[0]}")
    elif cmd == "prep":
        for verb, words in table[args[0]]:
            if verb == "prep":
                print(f"{words[0]}\t{' '.join(words[1:])}")
    elif cmd == "jobs":
        try:
            Package(*args).jobs(table[args[0]])
        except (OSError, IndexError, subprocess.CalledProcessError) as e:
            sys.exit(f"{table_path}: {args[0]}: {e}")


if __name__ == "__main__":
    if len(sys.argv) < (3 if sys.argv[2:3] == ["list"] else 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
