#!/usr/bin/python3
# ===- build-corpus.py - The Python half of build-corpus.sh ----------------=== #
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------=== #
"""What vocab/recipe/build-corpus.sh does in Python (standard library only).

The packages' recipes are corpus-recipes.txt next to this file (its header has the format):
  build-corpus.py list                     the packages that have a recipe
  build-corpus.py prep PACKAGE             its prep steps: "STAMP<TAB>COMMAND"
  build-corpus.py jobs PACKAGE DIR GEN SRC
      writes the generated headers of the package (sources in DIR) into GEN and prints
      "PACKAGE<TAB>FILE<TAB>FLAGS", FLAGS shell-quoted, for each file to compile; SRC
      holds the sources of all packages.
  build-corpus.py manifest WORK STATE K SPLIT...
      writes the splits' corpus_description.json and WORK/corpus-manifest.json from
      the tables in STATE (K: --levels-per-file), logs a summary, prints how many
      training packages have modules.
"""

import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from fnmatch import fnmatchcase

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus-recipes.txt")
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
        """Writes the package's generated headers anew, then prints its job lines."""
        shutil.rmtree(self.gen, ignore_errors=True)
        written = set()
        for name, kind, *args in (words for verb, words in steps if verb == "gen"):
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


def manifest(work, state, k, *splits):
    """The `manifest` command (see above)."""
    k = int(k)
    policy = {
        "train": {"levels": ["O0", "O1", "O2", "O3", "Os", "Oz"], "levels_per_file": k,
                  "sampling": "the first levels_per_file of the permutation number "
                              "cksum('<package>/<file>') mod 720 of the levels"},
        "heldout": {"levels": ["O0", "O2", "Oz"], "levels_per_file": 3},
        "bench": {"levels": ["O2"], "levels_per_file": 1},
    }
    for s, of in (("inline-train", "train or inline-train, except inline-valid"),
                  ("inline-valid", "inline-valid"),
                  ("inline-heldout", "heldout or inline-heldout")):
        policy[s] = {"levels": ["Oz-preopt"], "levels_per_file": 1,
                     "flags": {"Oz-preopt": "-Oz -Xclang -disable-llvm-passes"},
                     "packages": f"those whose splits include {of}"}
    packages = {}
    with open(os.path.join(state, "packages.tsv")) as f:
        for line in f:
            name, lang, version, psplits, _ = line.rstrip("\n").split("\t")
            packages[name] = {"name": name, "language": lang, "version": version}
    table = {s: [] for s in splits}
    with open(os.path.join(state, "modules.tsv")) as f:
        for line in f:
            s, mod, pkg, level, path = line.split("\t")[:5]
            table[s].append((mod, pkg, level, path))
    with open(os.path.join(state, "clang-version")) as f:
        compiler = f.read().strip()

    manifest_path = os.path.join(work, "corpus-manifest.json")
    previous = {}
    if os.path.isfile(manifest_path):
        with open(manifest_path) as f:
            previous = json.load(f).get("splits", {})
    manifest = {"generator": "vocab/recipe/build-corpus.sh", "compiler": compiler,
                "splits": {}}
    train_packages = 0
    for s in splits:
        root = os.path.join(work, s)
        built = sorted(m for m, *_ in table[s] if os.path.isfile(
            os.path.join(root, m + ".bc")))
        desc = {"has_thinlto": False, "modules": built}
        tmp = os.path.join(root, "corpus_description.json.tmp")
        with open(tmp, "w") as f:
            json.dump(desc, f, indent=2)
            f.write("\n")
        os.replace(tmp, os.path.join(root, "corpus_description.json"))
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
        pkgs = []
        for name in sorted(per_pkg):
            info = dict(packages[name])
            info["files"] = len(per_pkg[name]["files"])
            info["modules"] = per_pkg[name]["modules"]
            pkgs.append(info)
        order = ["O0", "O1", "O2", "O3", "Os", "Oz", "Oz-preopt"]
        entry = dict(policy[s])
        entry.update({
            "corpus": s + "/corpus_description.json",
            "packages": pkgs,
            "files": sum(p["files"] for p in pkgs),
            "modules": len(built),
            "modules_per_level": {l: per_level[l] for l in order if l in per_level},
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
        print(f"[build-corpus] {s}: {len(built)} modules from {entry['files']} files "
              f"of {with_modules} packages "
              f"({', '.join(f'{n} {l}' for l, n in sorted(langs.items()))}); "
              f"{len(failed)} failed; per level "
              f"{' '.join(f'{l}={n}' for l, n in entry['modules_per_level'].items())}",
              file=sys.stderr)
        for p in pkgs:
            print(f"[build-corpus]   {p['name']:<18} {p['version']:<26} {p['language']:<4}"
                  f"{p['files']:>5} files {p['modules']:>6} modules", file=sys.stderr)

    # Splits built by earlier runs keep their entries while their corpus exists.
    for s, entry in previous.items():
        if s not in splits and os.path.isfile(os.path.join(work, s, "corpus_description.json")):
            manifest["splits"][s] = entry
    order = ["train", "heldout", "bench", "inline-train", "inline-valid", "inline-heldout"]
    manifest["splits"] = {s: manifest["splits"][s] for s in order if s in manifest["splits"]}
    tmp = manifest_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    os.replace(tmp, manifest_path)
    print(train_packages)


def main(cmd, *args):
    if cmd == "manifest":
        return manifest(*args)
    table = parse(TABLE)
    if cmd == "list":
        print("\n".join(table))
    elif args[0] not in table:
        sys.exit(f"{TABLE}: no recipe for {args[0]}")
    elif cmd == "prep":
        for verb, words in table[args[0]]:
            if verb == "prep":
                print(f"{words[0]}\t{' '.join(words[1:])}")
    elif cmd == "jobs":
        try:
            Package(*args).jobs(table[args[0]])
        except (OSError, IndexError, subprocess.CalledProcessError) as e:
            sys.exit(f"{TABLE}: {args[0]}: {e}")


if __name__ == "__main__":
    if len(sys.argv) < {"list": 2, "prep": 3, "jobs": 6, "manifest": 5}.get((sys.argv + [""])[1], 99):
        sys.exit(__doc__)
    main(*sys.argv[1:])
