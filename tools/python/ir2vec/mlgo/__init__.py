# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""irtk's training library: everything that turns compiles into policies.

- ``corpus``: MLGO corpora (read, filter, sample, combine, write);
- ``engine``: the one compile engine (jobs in, records out; timeouts;
  atomic resumable records that keep their parameters; a cache keyed by
  the optimised IR; local processes or Dask);
- ``objective``: module ``.text``, linked ``.text``, RegAllocScore;
- ``policy``: stock (with flags), a model file, a decisions file (replay);
- ``env``: environments (gymnasium's interface, without gymnasium) where a
  Python policy decides inside a compile over the interactive channel:
  ``InlineEnv`` (clang's inliner), ``EvictionEnv`` (llc's register
  eviction);
- ``pipeline`` and ``tune``: the size pipeline's action space and its
  per-module search;
- ``report``: totals against -Oz, module and linked;
- ``log``: LLVM's training logs;
- ``extract``: an MLGO corpus from a user's build (compile commands, or
  objects with embedded bitcode);
- ``torchmodel``: PyTorch models (imitation from logs, export to irtk's
  model format); needs PyTorch, imported only when used;
- ``toolchain``: where clang, opt, llvm-objcopy, the plugin and irtk-train
  are.

Entry point: ``python3 -m ir2vec.mlgo <command>`` (``cli``). See
docs/Training.md.
"""
