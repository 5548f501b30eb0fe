#!/usr/bin/env python3
# ===- inlinecompile.py - One logged -Oz compile of a corpus module -------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""What the inlining searches (inline-search.py, inline-caller-search.py)
share on top of recipelib: one compile of a module as a user's
`clang-22 -Oz -c` would, with the inline advisor's default policy logged
and traced, recorded once so that a rerun resumes, and their options."""

import os

import recipelib


class Run:
    """A recorded compile: its log, its trace and its .text bytes."""

    def __init__(self, base, size):
        self.log, self.trace, self.size = base + ".log", base + ".trace", size

    def decisions(self):
        """[(caller, callee, decision)] in the order the policy was asked."""
        with open(self.trace) as f:
            return [(c, d, int(t)) for _, c, d, t in
                    (line.rstrip("\n").split("\t") for line in f)]


def compile_one(args, module, name, extra):
    """The Run of `module` compiled with the default policy and `extra`
    clang arguments, recorded under args.out/runs/<module>/<name>; None if
    it failed. args: corpus, out, clang, plugin, embedding."""
    base = os.path.join(args.out, "runs", module, name)

    def command(tmp):
        return [args.clang, "-Oz", "-c",
                os.path.join(args.corpus, module + ".bc"),
                "-o", tmp[".o"], "-fpass-plugin=" + args.plugin,
                "-mllvm", "-irtk-inline-policy=default",
                "-mllvm", "-irtk-inline-embedding=" + args.embedding,
                "-mllvm", "-irtk-inline-log=" + tmp[".log"],
                "-mllvm", "-irtk-inline-trace=" + tmp[".trace"]] + extra

    done = recipelib.compile_recorded(
        base, command, products=(".log", ".trace"), scratch=(".o",),
        measure=lambda tmp: recipelib.text_size(tmp[".o"]))
    return Run(base, done.value) if done.ok else None


def add_arguments(parser):
    """The options both searches take: recipelib's, and the compiler and
    the embedding features of the logs."""
    recipelib.add_arguments(parser)
    # As collect-inline.sh: $CLANG, else clang-22.
    parser.add_argument("--clang", default=os.environ.get("CLANG", "clang-22"))
    parser.add_argument("--embedding", default="symbolic",
                        choices=["none", "symbolic", "flow-aware"])
