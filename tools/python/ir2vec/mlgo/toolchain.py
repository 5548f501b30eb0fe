# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Where the compilers, LLVM's tools and irtk's own pieces are.

``find()`` gives a ``Toolchain``: clang, opt, llc (the eviction
environment), llvm-size, llvm-nm and ld (for the linked measure),
llvm-objcopy (bitcode embedded in objects), irtk's pass plugin,
``irtk-train`` and the bundled vocabulary. irtk's pieces are looked for,
in this order:

1. the options (``--plugin``, ``--irtk-train``), or ``IRTK_PLUGIN`` and
   ``IRTK_TRAIN``;
2. a build tree named by ``--irtk-build`` or ``IRTK_BUILD_DIR``
   (``<build>/lib/IRTKPlugin.so``, ``<build>/bin/irtk-train``);
3. the build tree this package was built in (``<build>/python/ir2vec``);
4. the install prefix this package was installed under
   (``<prefix>/lib/pythonX.Y/dist-packages/ir2vec``), then ``irtk-train`` on
   ``PATH`` and its prefix, then ``/usr`` and ``/usr/local`` (the .deb and
   ``cmake --install``).

A piece that is asked for and found nowhere raises ``MissingTool``, whose
message lists the places looked at and how to name the piece.
"""

import os
import shutil
import subprocess

LLVM_BIN = "/usr/lib/llvm-22/bin"
PLUGIN_NAME = "IRTKPlugin.so"


class MissingTool(RuntimeError):
    """A tool this run needs and that is nowhere to be found."""


def _package_dir():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _prefixes(build):
    """(kind, directory) candidates for irtk's build tree or prefix."""
    out = []
    if build:
        out.append(("build", build))
    pkg = _package_dir()  # <build>/python/ir2vec or <prefix>/lib/pyX/.../ir2vec
    parent = os.path.dirname(pkg)
    if os.path.basename(parent) == "python":
        out.append(("build", os.path.dirname(parent)))
    if os.path.basename(parent) in ("dist-packages", "site-packages"):
        out.append(("prefix", os.path.dirname(os.path.dirname(
            os.path.dirname(parent)))))
    train = shutil.which("irtk-train")
    if train:
        out.append(("prefix", os.path.dirname(os.path.dirname(
            os.path.realpath(train)))))
    out += [("prefix", "/usr"), ("prefix", "/usr/local")]
    return out


def _llvm_tool(name, env):
    given = os.environ.get(env) if env else None
    if given:
        return given
    bindir = os.environ.get("LLVM_BIN", LLVM_BIN)
    path = os.path.join(bindir, name)
    if os.path.exists(path):
        return path
    return shutil.which(name + "-22") or shutil.which(name) or path


class Toolchain:
    """The programs a compile job runs. Every attribute is a path; the irtk
    pieces (``plugin``, ``irtk_train``, ``vocab``) are found on first use
    and raise ``MissingTool`` then, so a run that needs none of them works
    with LLVM alone."""

    def __init__(self, clang=None, plugin=None, irtk_train=None, build=None):
        self.clang = clang or os.environ.get("CLANG") or _llvm_tool(
            "clang", None)
        self.opt = _llvm_tool("opt", "OPT")
        self.llc = _llvm_tool("llc", "LLC")
        self.llvm_size = _llvm_tool("llvm-size", None)
        self.llvm_nm = _llvm_tool("llvm-nm", None)
        self.llvm_objcopy = _llvm_tool("llvm-objcopy", None)
        self.llvm_ar = _llvm_tool("llvm-ar", None)
        self.ld = os.environ.get("LD_R", "ld")
        self._build = build or os.environ.get("IRTK_BUILD_DIR")
        self._plugin = plugin or os.environ.get("IRTK_PLUGIN")
        self._train = irtk_train or os.environ.get("IRTK_TRAIN")

    def _find(self, what, given, build_rel, prefix_rel, option, env):
        if given:
            if not os.path.exists(given):
                raise MissingTool(f"{what}: {given} does not exist")
            return os.path.abspath(given)
        looked = []
        for kind, root in _prefixes(self._build):
            path = os.path.join(root, build_rel if kind == "build"
                                else prefix_rel)
            looked.append(path)
            if os.path.exists(path):
                return path
        raise MissingTool(
            f"{what} not found (looked at {', '.join(looked)}); name it with "
            f"{option} or {env}, or name an irtk build tree with --irtk-build "
            "or IRTK_BUILD_DIR (an install: the .deb, or cmake --install)")

    @property
    def plugin(self):
        self._plugin = self._find("irtk's pass plugin", self._plugin,
                                  os.path.join("lib", PLUGIN_NAME),
                                  os.path.join("lib", PLUGIN_NAME),
                                  "--plugin", "IRTK_PLUGIN")
        return self._plugin

    @property
    def irtk_train(self):
        self._train = self._find("irtk-train", self._train,
                                 os.path.join("bin", "irtk-train"),
                                 os.path.join("bin", "irtk-train"),
                                 "--irtk-train", "IRTK_TRAIN")
        return self._train

    def identity(self):
        """What the records of a run depend on: the compiler's version line
        (records made with another clang are not replayed)."""
        try:
            out = subprocess.run([self.clang, "--version"],
                                 capture_output=True, text=True,
                                 timeout=60).stdout
        except (OSError, subprocess.SubprocessError) as e:
            raise MissingTool(f"{self.clang}: cannot run it: {e}") from e
        return {"clang": (out.splitlines() or [""])[0]}

    def describe(self):
        """{piece: path or the reason it is missing}, for ``toolchain``."""
        out = {"clang": self.clang, "opt": self.opt, "llc": self.llc,
               "llvm-size": self.llvm_size, "llvm-nm": self.llvm_nm,
               "llvm-objcopy": self.llvm_objcopy,
               "ld": shutil.which(self.ld) or f"missing: {self.ld}"}
        for name in ("plugin", "irtk_train"):
            try:
                out[name.replace("_", "-")] = getattr(self, name)
            except MissingTool as e:
                out[name.replace("_", "-")] = f"missing: {e}"
        return out
