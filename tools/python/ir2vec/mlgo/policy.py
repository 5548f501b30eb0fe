# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What decides in a compile job: a policy turns a module into optimised IR
(the engine's first stage) and may add flags to code generation.

- ``Stock(flags)``: clang's own pipeline at the job's level, with stock
  flags (``-Xclang -fmerge-functions``, ``-mllvm -ir-outliner``, ...);
- ``Model(advisor, path)``: irtk's advisor deciding by a model file;
- ``Replay(advisor, path)``: the default policy taking the decisions a file
  gives (``-irtk-inline-decisions``);
- ``Pipeline`` (``ir2vec.mlgo.pipeline``): an ``opt`` pass pipeline.

The eviction advisor decides in code generation: its policies' jobs are
``llc`` jobs (``stage == "llc"``) on optimised bitcode, one stage that
writes the object.

Every policy is plain data (it pickles to Dask workers) with ``key()``, the
JSON that identifies it in a record. ``logged=True`` asks the advisor for
its training log and its trace (products ``.log`` and ``.trace``),
``trace=True`` for its trace alone; ``extra`` adds the advisor's own options
(``-irtk-inline-flip-at=3``, ``-irtk-inline-embedding=none``, ...).
"""

import json
import os

ADVISORS = ("inline", "evict")
ADVISORS_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "data", "advisors.json")


def advisor_info(advisor):
    """The registry entry of ``advisor`` (data/advisors.json): decision,
    default, output and, for an argmax, mask."""
    with open(ADVISORS_DATA, encoding="utf-8") as f:
        table = json.load(f)["advisors"]
    if advisor not in table:
        raise ValueError(f"unknown advisor '{advisor}' (expected "
                         f"{' or '.join(table)})")
    return table[advisor]


class Policy:
    """The default: stock clang at the job's level, no flags."""

    kind = "stock"
    products = ()

    def key(self):
        return {"kind": self.kind}

    def optimize(self, tools, job, src, dst, out):
        """The first stage's argv: src (pre-optimisation bitcode) to dst
        (optimised bitcode); ``out`` maps each product suffix to the path
        the compile writes it at."""
        return ([tools.clang, "-" + job.level, "-c", "-emit-llvm", src, "-o",
                 dst] + _target(job) + list(job.flags) +
                self.optimize_flags(tools, out))

    def optimize_flags(self, tools, out):
        return []

    def codegen_flags(self):
        """Flags of the second stage (code generation), part of the cache
        key: two jobs share an object only when these agree."""
        return []

    def __eq__(self, other):
        return type(self) is type(other) and self.key() == other.key()

    def __hash__(self):
        return hash(json.dumps(self.key(), sort_keys=True))

    def __repr__(self):
        return f"{type(self).__name__}({self.key()})"


def _target(job):
    return ["--target=" + job.target] if job.target else []


class Stock(Policy):
    """Stock clang with flags: ``optimize`` flags for the pipeline
    (``-Xclang -fmerge-functions``), ``codegen`` flags for code generation
    (``-mllvm -enable-machine-outliner``)."""

    kind = "stock"

    def __init__(self, optimize=(), codegen=()):
        self.opt_flags, self.cg_flags = tuple(optimize), tuple(codegen)

    def key(self):
        k = {"kind": self.kind}
        if self.opt_flags:
            k["optimize"] = list(self.opt_flags)
        if self.cg_flags:
            k["codegen"] = list(self.cg_flags)
        return k

    def optimize_flags(self, tools, out):
        return list(self.opt_flags)

    def codegen_flags(self):
        return list(self.cg_flags)


class _Advisor(Policy):
    def __init__(self, advisor, path, logged=False, trace=False, extra=()):
        if advisor not in ADVISORS:
            raise ValueError(f"unknown advisor '{advisor}' "
                             f"({', '.join(ADVISORS)})")
        self.advisor, self.path, self.logged = advisor, path, logged
        self.trace, self.extra = trace and advisor == "inline", tuple(extra)
        if logged:
            self.products = (".log", ".trace") if advisor == "inline" \
                else (".log",)
        elif self.trace:
            self.products = (".trace",)

    def key(self):
        k = {"kind": self.kind, "advisor": self.advisor, "path": self.path,
             "logged": self.logged}
        if self.trace:  # absent when off: older records keep their ids
            k["trace"] = True
        if self.extra:
            k["extra"] = list(self.extra)
        return k

    @property
    def stage(self):
        """Where the advisor decides: the eviction advisor in code
        generation (an ``llc`` job on optimised bitcode), the inliner in
        clang's pipeline."""
        return "llc" if self.advisor == "evict" else "clang"

    def llc_argv(self, tools, job, src, dst, out):
        """An llc job's one stage: optimised bitcode to the object, with
        the plugin's eviction advisor (``policy`` default or model)."""
        argv = [tools.llc, "-" + job.level, "-filetype=obj", src, "-o", dst]
        if job.target:
            argv.append("-mtriple=" + job.target)
        if self.kind == "replay":
            raise ValueError("replay is for the inline advisor")
        argv += ["-load-pass-plugin=" + tools.plugin,
                 "-irtk-evict-policy=" + ("model" if self.kind == "model"
                                          else "default")]
        if self.kind == "model":
            argv.append("-irtk-evict-model=" + self.path)
        argv += list(self.extra)
        if ".log" in out:
            argv.append("-irtk-evict-log=" + out[".log"])
        return argv

    def _plugin(self, tools, policy, extra, out):
        flags = ["-fpass-plugin=" + tools.plugin, "-mllvm",
                 f"-irtk-{self.advisor}-policy={policy}"]
        for e in list(extra) + list(self.extra):
            flags += ["-mllvm", e]
        if ".log" in out:
            flags += ["-mllvm", f"-irtk-{self.advisor}-log={out['.log']}"]
        if ".trace" in out:
            flags += ["-mllvm", f"-irtk-{self.advisor}-trace={out['.trace']}"]
        return flags


class Model(_Advisor):
    """irtk's advisor deciding by the model file at ``path``."""

    kind = "model"

    def optimize_flags(self, tools, out):
        if self.advisor != "inline":
            return []
        return self._plugin(tools, "model", [f"-irtk-inline-model={self.path}"],
                            out)


class Replay(_Advisor):
    """The default policy taking the decisions the file at ``path`` gives
    (inline: lines ``<0|1> <caller> <callee>``)."""

    kind = "replay"

    def optimize_flags(self, tools, out):
        if self.advisor != "inline":
            raise ValueError("replay is for the inline advisor")
        return self._plugin(tools, "default",
                            [f"-irtk-inline-decisions={self.path}"], out)


class Default(_Advisor):
    """irtk's advisor with the default policy (stock decisions), logged."""

    kind = "default"

    def __init__(self, advisor, logged=True, trace=False, extra=()):
        super().__init__(advisor, None, logged, trace, extra)

    def optimize_flags(self, tools, out):
        if self.advisor != "inline":
            return []
        return self._plugin(tools, "default", [], out)
