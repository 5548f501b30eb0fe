# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""An MLGO corpus from a user's build, as mlgo-utils' ``extract_ir`` makes
one, in two ways:

- ``from_compile_commands(path)``: every command of a
  ``compile_commands.json`` (CMake's ``CMAKE_EXPORT_COMPILE_COMMANDS``,
  Bear, ...) compiled again to pre-optimisation bitcode: its action and
  output replaced by ``-c -emit-llvm -Xclang -disable-llvm-passes``, its
  flags kept, in its ``directory``;
- ``from_objects(paths)``: objects built with ``-Xclang
  -fembed-bitcode=all``: their ``.llvmbc`` (the module) and ``.llvmcmd``
  (its cc1 command line) sections, read with ``llvm-objcopy``.

Which flag embeds which bitcode (checked with clang-22): the driver's
``-fembed-bitcode=all`` splits the compile in two and embeds the bitcode
*after* the optimisation pipeline (what the second, code-generating cc1
reads; its ``.llvmcmd`` is that cc1's short command line, with
``-disable-llvm-passes``); ``-Xclang -fembed-bitcode=all`` embeds the module
*before* optimisation, the same IR as ``-c -emit-llvm -Xclang
-disable-llvm-passes`` gives, and the full cc1 command line. Only the
second is what an advisor trains on; an object whose command line says it
was made the first way is extracted with a warning.

``extract(units, out)`` writes the corpus: for each module ``M``, ``M.bc``
and ``M.cmd`` (its flags, each followed by a NUL byte, as extract_ir writes
the ``.llvmcmd`` section), ``corpus_description.json`` (``{"has_thinlto":
false, "modules": [...]}``, what ``corpus.Corpus`` reads) and
``extract.json`` (the command that made it, and what failed). A module is
named as extract_ir names it: its object's path relative to the build
directory (``CMakeFiles/demo.dir/a.c.o``). The corpus is made in a
directory beside ``out`` and renamed into place: it appears whole or not at
all, and ``out`` must not exist or be empty. A module that fails is
reported and skipped; the others stay.
"""

import dataclasses
import functools
import json
import os
import shlex
import shutil
import subprocess
import tempfile

from .corpus import DESCRIPTION
from .engine import spread
from .toolchain import Toolchain

BITCODE_MAGIC = b"BC\xc0\xde"
REPORT = "extract.json"
# Compiler wrappers dropped in front of the compiler (ccache clang ...).
WRAPPERS = ("ccache", "sccache", "distcc", "icecc")
# The action and its companions: replaced by -c -emit-llvm.
ACTIONS = ("-c", "-S", "-E", "-emit-llvm", "-fsyntax-only", "-M", "-MM",
           "-MD", "-MMD", "-MG", "-MP")
# Flags whose value is the next argument, copied as a pair (so that the
# value is never taken for the input or an action).
PAIRED = ("-Xclang", "-mllvm", "-Xpreprocessor", "-Xassembler", "-Xlinker",
          "-include", "-imacros", "-I", "-D", "-U", "-isystem", "-idirafter",
          "-iquote", "-isysroot", "--sysroot", "-x", "-target", "-arch",
          "-iprefix", "-iwithprefix", "-F")
# Flags whose value is a file the compile would write beside the user's
# build (dependency files, diagnostics): dropped with their value.
DROPPED_PAIRS = ("-o", "--output", "-MF", "-MT", "-MQ", "-MJ",
                 "--serialize-diagnostics", "-dependency-file")
# Prefixes of flags dropped alone: joined forms of the above, ThinLTO and
# embedding (the corpus holds plain bitcode), -save-temps (writes into the
# build directory).
DROPPED_PREFIXES = ("--output=", "-MF", "-MT", "-MQ", "-MJ", "-flto",
                    "-fno-lto", "-fembed-bitcode", "-save-temps")
# What the recompile adds: pre-optimisation bitcode of the command's
# translation unit, quiet about link flags a -c compile leaves unused.
PREOPT = ["-c", "-emit-llvm", "-Xclang", "-disable-llvm-passes",
          "-Wno-unused-command-line-argument"]


class ExtractError(ValueError):
    """Input that cannot be read as asked (the whole run stops)."""


@dataclasses.dataclass(frozen=True)
class Unit:
    """One module to extract: ``name`` in the corpus; ``origin`` (the
    source file or the object) names it in messages. A compile command has
    ``argv`` (the compile that writes the bitcode, ``{out}`` for its path),
    ``flags`` (its .cmd) and ``directory``; an object has ``obj``."""

    name: str
    origin: str
    argv: tuple = ()
    flags: tuple = ()
    directory: str = ""
    obj: str = ""
    error: str = ""  # a command that could not be understood


# --- Reading the inputs -----------------------------------------------------

def _load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ExtractError(f"{path}: cannot read it: {e.strerror}") from e
    except ValueError as e:
        raise ExtractError(f"{path}: not JSON: {e}") from e


def _clean_name(path):
    """A module name from a relative path: normalised, without leading
    ``../`` or ``/`` (an object outside the build directory keeps the rest
    of its path)."""
    parts = [p for p in os.path.normpath(path).split(os.sep)
             if p not in ("", ".", "..")]
    return "/".join(parts)


def _split(entry):
    if isinstance(entry.get("arguments"), list) and all(
            isinstance(a, str) for a in entry["arguments"]):
        return list(entry["arguments"])
    if isinstance(entry.get("command"), str):
        return shlex.split(entry["command"])
    raise ValueError("has neither 'arguments' (a list of strings) nor "
                     "'command' (a string)")


def preopt_command(argv, source, directory):
    """(flags, output) of a compile command: ``flags`` without the compiler,
    its action, its input, its output and the files it would write beside
    the build (the .cmd), and the output it named (None without -o)."""
    args = list(argv)
    while args and os.path.basename(args[0]) in WRAPPERS:
        args = args[1:]
    args = args[1:]  # the compiler: the recompile uses clang-22
    src = os.path.normpath(os.path.join(directory, source))
    flags, output, i = [], None, 0
    while i < len(args):
        a = args[i]
        if a in PAIRED and i + 1 < len(args):
            if a == "-Xclang" and args[i + 1].startswith("-fembed-bitcode"):
                i += 2
                continue
            flags += args[i:i + 2]
            i += 2
            continue
        if a in DROPPED_PAIRS:
            if a in ("-o", "--output") and i + 1 < len(args):
                output = args[i + 1]
            i += 2
            continue
        if a.startswith("--output="):
            output = a.split("=", 1)[1]
        elif a.startswith("-o") and not a.startswith("-obj"):
            output = a[2:]
        elif a in ACTIONS or a.startswith(DROPPED_PREFIXES):
            pass
        elif not a.startswith("-") and os.path.normpath(
                os.path.join(directory, a)) == src:
            pass  # the input
        else:
            flags.append(a)
        i += 1
    return flags, output


def from_compile_commands(path, tools=None, prefix=""):
    """The Units of a compile_commands.json; ExtractError naming the file
    when it cannot be read or is not a list of commands. An entry that
    cannot be understood is a Unit with ``error`` (reported, skipped)."""
    tools = tools or Toolchain()
    doc = _load_json(path)
    if not isinstance(doc, list):
        raise ExtractError(f"{path}: expected a JSON array of compile "
                           "commands")
    units = []
    for k, entry in enumerate(doc):
        where = f"{path}: entry {k}"
        try:
            if not isinstance(entry, dict):
                raise ValueError("is not an object")
            directory, source = entry.get("directory"), entry.get("file")
            if not isinstance(directory, str) or not isinstance(source, str):
                raise ValueError("needs 'directory' and 'file' strings")
            argv = _split(entry)
            if not argv:
                raise ValueError("has an empty command")
            flags, output = preopt_command(argv, source, directory)
        except ValueError as e:
            units.append(Unit(name="", origin=where, error=f"{where}: {e}"))
            continue
        output = entry.get("output") or output or (
            os.path.splitext(os.path.basename(source))[0] + ".o")
        src = os.path.normpath(os.path.join(directory, source))
        obj = os.path.normpath(os.path.join(directory, output))
        name = _clean_name(os.path.relpath(obj, directory))
        argv = [tools.clang] + flags + PREOPT + [src, "-o", "{out}"]
        units.append(Unit(name=_prefixed(prefix, name), origin=src,
                          argv=tuple(argv), flags=tuple(flags),
                          directory=directory))
    return units


def from_objects(paths, prefix=""):
    """The Units of objects (files, or directories searched for ``*.o``),
    named by their path relative to the directory the paths share;
    ExtractError naming a path that does not exist."""
    objs = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                objs += [os.path.join(root, f) for f in sorted(files)
                         if f.endswith(".o")]
        elif os.path.exists(p):
            objs.append(p)
        else:
            raise ExtractError(f"{p}: no such file or directory")
    objs = [os.path.abspath(o) for o in objs]
    if not objs:
        return []
    dirs = [p if os.path.isdir(p) else os.path.dirname(p)
            for p in map(os.path.abspath, paths)]
    base = os.path.commonpath(dirs)
    return [Unit(name=_prefixed(prefix, _clean_name(os.path.relpath(o, base))),
                 origin=o, obj=o) for o in objs]


def _prefixed(prefix, name):
    return f"{prefix.strip('/')}/{name}" if prefix.strip("/") else name


# --- Extracting ---------------------------------------------------------------

def _first_error(text):
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln]
    return ((errors or lines or ["(no message)"])[0])[:300]


def extract_unit(stage, tools, timeout, unit):
    """Writes one module's .bc and .cmd under ``stage``; (status, message):
    ``ok``, ``warning`` (extracted, with a remark) or ``failed``. Runs in a
    worker."""
    if unit.error:
        return "failed", unit.error
    bc = os.path.join(stage, unit.name + ".bc")
    cmd = os.path.join(stage, unit.name + ".cmd")
    os.makedirs(os.path.dirname(bc), exist_ok=True)
    tmp_bc, tmp_cmd = bc + ".part", cmd + ".part"
    try:
        status, message = _extract(unit, tools, timeout, tmp_bc, tmp_cmd)
        if status != "failed":
            os.replace(tmp_cmd, cmd)
            os.replace(tmp_bc, bc)
        return status, message
    finally:
        for p in (tmp_bc, tmp_cmd):
            if os.path.exists(p):
                os.remove(p)


def _extract(unit, tools, timeout, bc, cmd):
    if unit.obj:
        argv = [tools.llvm_objcopy, f"--dump-section=.llvmbc={bc}",
                f"--dump-section=.llvmcmd={cmd}", unit.obj, "/dev/null"]
        cwd = None
    else:
        argv = [bc if a == "{out}" else a for a in unit.argv]
        cwd = unit.directory
        with open(cmd, "wb") as f:
            f.write(b"".join(a.encode() + b"\0" for a in unit.flags))
    try:
        done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True,
                              errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return "failed", f"{unit.origin}: took over {timeout} s"
    except OSError as e:
        return "failed", f"{unit.origin}: cannot run {argv[0]}: {e.strerror}"
    if done.returncode != 0:
        return "failed", f"{unit.origin}: {_first_error(done.stderr)}"
    with open(bc, "rb") as f:
        magic = f.read(4)
    if magic != BITCODE_MAGIC:
        return "failed", (f"{unit.origin}: no bitcode embedded (built with "
                          "-fembed-bitcode=marker?)" if unit.obj else
                          f"{unit.origin}: clang wrote no bitcode")
    if unit.obj:
        with open(cmd, "rb") as f:
            cc1 = f.read().split(b"\0")
        if b"-disable-llvm-passes" in cc1 and b"-O0" not in cc1:
            return "warning", (
                f"{unit.origin}: the embedded bitcode is post-optimisation "
                "(the driver's -fembed-bitcode=all); -Xclang "
                "-fembed-bitcode=all embeds it before optimisation")
    return "ok", None


@dataclasses.dataclass
class Summary:
    """What a run extracted: the modules' names, the failures and warnings
    (one line each, naming the source file, object or entry) and the number
    of modules asked for."""

    modules: list
    failed: list
    warnings: list
    total: int


def extract(units, out, tools=None, workers=1, client=None, timeout=900,
            command=None, on_result=None):
    """Extracts ``units`` into a new corpus at ``out`` (see the module's
    doc) on ``workers`` local processes or a Dask ``client``; a Summary.
    When no module could be extracted nothing is written. ExtractError
    when ``out`` exists and is not an empty directory."""
    tools = tools or Toolchain()
    out = os.path.abspath(out)
    if os.path.lexists(out) and not (os.path.isdir(out)
                                     and not os.listdir(out)):
        raise ExtractError(f"{out}: exists and is not an empty directory; "
                           "name a new one")
    units = list(units)
    total = len(units)
    units, failed = _unique(units)
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.tmp-",
                             dir=parent)
    try:
        results = [None] * len(units)
        spread(functools.partial(extract_unit, stage, tools, timeout),
               units, range(len(units)), results, on_result, workers, client)
        modules, warnings = [], []
        for unit, (status, message) in zip(units, results):
            if status == "failed":
                failed.append(message)
                continue
            modules.append(unit.name)
            if message:
                warnings.append(message)
        s = Summary(sorted(modules), failed, warnings, total)
        if not modules:
            return s
        with open(os.path.join(stage, DESCRIPTION), "w",
                  encoding="utf-8") as f:
            json.dump({"has_thinlto": False, "modules": s.modules}, f,
                      indent=1)
            f.write("\n")
        with open(os.path.join(stage, REPORT), "w", encoding="utf-8") as f:
            json.dump({"command": command, "modules": len(s.modules),
                       "failed": s.failed, "warnings": s.warnings}, f,
                      indent=1)
            f.write("\n")
        if os.path.isdir(out):
            os.rmdir(out)  # empty, checked above
        os.rename(stage, out)
        return s
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _unique(units):
    """(units, failures): a second unit of an already seen module name (a
    file compiled twice to one object) fails."""
    seen, keep, failed = set(), [], []
    for u in units:
        if not u.error and u.name in seen:
            failed.append(f"{u.origin}: a second command for module "
                          f"{u.name}; the first is kept")
            continue
        seen.add(u.name)
        keep.append(u)
    return keep, failed
