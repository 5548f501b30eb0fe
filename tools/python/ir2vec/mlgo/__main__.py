# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python3 -m ir2vec.mlgo <command> (ir2vec.mlgo.cli)."""

import sys

from .cli import main

sys.exit(main())
