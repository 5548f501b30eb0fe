# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What a size policy is judged on.

- ``text_size(obj)``: bytes of an object's ``.text*`` sections (a module's
  ``.text``), read from an ELF object's section headers (llvm-size -A for
  other formats);
- ``linked_text(objects)``: bytes of ``.text*`` of objects linked together
  into one relocatable object with GNU ``ld -r`` (x86-64's reference
  linker; ``ld.lld-22 -r`` for other targets): the linker keeps one copy of
  each COMDAT group, so this is what a package's link keeps;
- ``object_functions(obj)``: each function's bytes and kind (llvm-nm);
- ``regalloc_score(log)``: the RegAllocScore an eviction log records.
"""

import os
import struct
import subprocess
import tempfile

from . import log
from .toolchain import Toolchain

# llvm-nm types of functions: local, global, weak (COMDAT).
FUNCTION_TYPES = ("t", "T", "W")


class MeasureError(ValueError):
    """An object or a link that cannot be measured."""


def _run(argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["failed"])[0]
        name = os.path.basename(argv[0])
        if not first.startswith(name + ":"):
            first = f"{name}: {first}"
        raise MeasureError(first)
    return done.stdout


def _elf_sections(data):
    """[(name, size)] of an ELF object's section headers, or None when
    data is not ELF."""
    if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or \
            data[5] not in (1, 2):
        return None
    end = "<" if data[5] == 1 else ">"
    if data[4] == 2:  # ELF64: e_shoff at 0x28; name, size, link fields
        (shoff,) = struct.unpack_from(end + "Q", data, 0x28)
        entsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3A)
        fields = end + "I28xQI"
    else:
        (shoff,) = struct.unpack_from(end + "I", data, 0x20)
        entsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x2E)
        fields = end + "I16xII"
    if not shoff:
        return []

    def header(i):  # (sh_name, sh_size, sh_link)
        return struct.unpack_from(fields, data, shoff + i * entsize)

    _, first_size, first_link = header(0)
    shnum = shnum or first_size  # more than 0xff00 sections
    if shstrndx == 0xFFFF:  # SHN_XINDEX
        shstrndx = first_link
    (strtab,) = struct.unpack_from(end + ("Q" if data[4] == 2 else "I"), data,
                                   shoff + shstrndx * entsize +
                                   (0x18 if data[4] == 2 else 0x10))
    out = []
    for i in range(shnum):
        name, size, _ = header(i)
        start = strtab + name
        out.append((data[start:data.index(b"\0", start)].decode(
            errors="replace"), size))
    return out


def text_size(obj, tools=None):
    """Bytes of the object's .text* sections, as llvm-size -A counts them:
    read from the section headers of an ELF object (no process started),
    from llvm-size -A for other formats."""
    try:
        with open(obj, "rb") as f:
            sections = _elf_sections(f.read())
    except (struct.error, ValueError, IndexError) as e:
        raise MeasureError(f"{obj}: not a readable ELF object: {e}") from e
    if sections is not None:
        return sum(size for name, size in sections
                   if name.startswith(".text"))
    tools = tools or Toolchain()
    out = _run([tools.llvm_size, "-A", obj])
    return sum(int(f[1]) for f in (line.split() for line in out.splitlines())
               if len(f) >= 2 and f[0].startswith(".text"))


def object_functions(obj, tools=None):
    """{function: (bytes, llvm-nm type)}; local functions of one name add
    up."""
    tools = tools or Toolchain()
    out = {}
    for line in _run([tools.llvm_nm, "-S", "--defined-only",
                      obj]).splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in FUNCTION_TYPES:
            size, _ = out.get(f[3], (0, None))
            out[f[3]] = (size + int(f[1], 16), f[2])
    return out


def linked_text(objects, tools=None, linker=None):
    """Bytes of .text* of ``objects`` linked with ``ld -r`` (or ``linker``,
    e.g. ld.lld-22): one copy of each COMDAT group, nothing collected, both
    of two strong definitions kept (the mains of a package's programs)."""
    tools = tools or Toolchain()
    objects = list(objects)
    if not objects:
        return 0
    with tempfile.TemporaryDirectory(prefix="irtk-link-") as tmp:
        out = os.path.join(tmp, "linked.o")
        _run([linker or tools.ld, "-r", "--allow-multiple-definition", "-o",
              out] + objects)
        return text_size(out, tools)


def comdat(functions):
    """The C++ inline functions (llvm-nm's W: COMDAT groups) of
    ``object_functions``' result."""
    return {f for f, (_, kind) in functions.items() if kind == "W"}


def shared_inline(counts, stock_comdat):
    """The C++ inline functions that another object of the package carries
    at stock, so that its link keeps a copy whatever this module does:
    ``counts`` is {function: how many of the package's stock objects carry
    it}, ``stock_comdat`` this module's stock object's."""
    return frozenset(f for f, c in counts.items()
                     if c - (f in stock_comdat) >= 1)


def linked_objective(text, functions, shared):
    """What one module adds to its package's link: its ``.text`` less the
    functions of ``shared`` it carries as COMDAT."""
    return text - sum(size for f, (size, kind) in functions.items()
                      if kind == "W" and f in shared)


def regalloc_score(log_path):
    """The RegAllocScore of an eviction log (``-irtk-evict-log``): the sum
    over its functions of the reward after each one's last decision (LLVM's
    score: lower is better). Functions without a decision have no context
    and score the same under every policy."""
    return sum(c.reward or 0.0 for c in log.read(log_path).contexts)
