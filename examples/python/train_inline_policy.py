#!/usr/bin/env python3
# ===- train_inline_policy.py - A PyTorch inliner for a CMake project ----===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===-----------------------------------------------------------------------===#
"""Train an inline policy in PyTorch on a C project built with CMake, and
build the project with it in clang, through ir2vec.mlgo:

1. configure the project with clang-22 and -Oz (WORK/Oz) and extract its
   corpus from the build's compile_commands.json (WORK/corpus);
2. compile every module with irtk's inline advisor under the default
   policy (LLVM's decisions), its training log on (WORK/logs);
3. train a PyTorch policy to take the logged decisions (float64);
4. export it as an irtk model file (WORK/inline-model.json);
5. build the project with -Oz (WORK/Oz) and with -Oz and the model
   (WORK/model: CMAKE_C_FLAGS gets -fpass-plugin=IRTKPlugin.so -mllvm
   -irtk-inline-policy=model -mllvm -irtk-inline-model=FILE; a C++ project
   would set CMAKE_CXX_COMPILER and CMAKE_CXX_FLAGS the same way),

and print the .text bytes of PROGRAM (its path in a build directory) in
both builds. WORK must not exist yet.

The policy reads every feature of the log, LLVM's own decision
(inlining_default) among them, as irtk's models do. Learned from the
default policy's logs, it takes the default's decisions, so the two builds
come out alike: a better policy needs a better teacher (InlineTraining.md).
From the repository root:

  PYTHONPATH=build/python /usr/bin/python3 \\
      examples/python/train_inline_policy.py \\
      examples/python/inline-demo /tmp/inline-work demo

See docs/Training.md ("An example: train_inline_policy.py").
"""

import subprocess
import sys

from ir2vec.mlgo import extract, log, objective, torchmodel
from ir2vec.mlgo.engine import Engine, Job
from ir2vec.mlgo.policy import Default
from ir2vec.mlgo.toolchain import Toolchain

project, work, program = sys.argv[1:4]
tools = Toolchain()
cmake = ["cmake", "-S", project, "-DCMAKE_C_COMPILER=" + tools.clang,
         "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
subprocess.run(cmake + ["-B", f"{work}/Oz", "-DCMAKE_C_FLAGS=-Oz"], check=True)
units = extract.from_compile_commands(f"{work}/Oz/compile_commands.json")
s = extract.extract(units, f"{work}/corpus", tools)
engine = Engine(f"{work}/logs", {"example": "inline"}, tools)
jobs = [Job(m, f"{work}/corpus/{m}.bc", Default("inline")) for m in s.modules]
logs = [log.read(engine.path(r["products"]["log"])) for r in engine.run(jobs)]
trained = torchmodel.train_imitation(logs, "inline", epochs=200)
print(f"imitation: {trained.training['agreement']:.0%} of the decisions")
model = trained.export(f"{work}/inline-model.json")
plugin = (f"-fpass-plugin={tools.plugin} -mllvm -irtk-inline-policy=model "
          f"-mllvm -irtk-inline-model={model}")
for name, flags in (("Oz", "-Oz"), ("model", "-Oz " + plugin)):
    subprocess.run(cmake + ["-B", f"{work}/{name}",
                            "-DCMAKE_C_FLAGS=" + flags], check=True)
    subprocess.run(["cmake", "--build", f"{work}/{name}"], check=True)
    size = objective.text_size(f"{work}/{name}/{program}", tools)
    print(f"{program} .text with {name}: {size} bytes")
