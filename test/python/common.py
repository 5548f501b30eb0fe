# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Paths shared by the ir2vec Python tests.

ctest sets PYTHONPATH to <build>/python and, for the tests that run tools,
IRTK_LLVM_IR2VEC (our CLI) and IRTK_LLVM_TOOLS_DIR (LLVM 22's bin dir).
"""

import os
import pathlib

import numpy

HERE = pathlib.Path(__file__).resolve().parent
INPUTS = HERE / "Inputs"  # this suite's own inputs
SHARED_INPUTS = HERE.parent / "Inputs"  # test/Inputs, shared with lit
SOURCE_ROOT = HERE.parents[1]

# entity k -> [k, 1]: the first element sums entity ids, the second counts
# them. Ids: Ret=0 Br=1 Add=12 Mul=16 PHI=55 ICmp=53 VoidTy=69 IntegerTy=74
# Function=80 Pointer=81 Constant=82 Variable=83 ICMP_sgt=106.
IDS2D = str(SHARED_INPUTS / "ids2d.json")
# Our copy of the shape of upstream's dummy_3D_nonzero_opc_vocab.json (LLVM
# main, the revision with predicates): opcode number k (1-based, upstream's
# order without PtrToAddr) is [3k-2, 3k-1, 3k], types and operand kinds are
# zero, ICMP_sgt is [1, 1, 1] and every other predicate a distinct constant.
DUMMY3D = str(INPUTS / "dummy3d-nonzero-opc.json")
# Our copy of upstream's llvm/test/tools/llvm-ir2vec/Inputs/input.ll.
UPSTREAM_LL = str(INPUTS / "input.ll")


def env_path(name):
    value = os.environ.get(name)
    if not value:
        raise SystemExit(f"{name} is not set; run this test through ctest")
    return value


def as_list(array):
    """A float64 vector as a list of Python floats (exact)."""
    assert isinstance(array, numpy.ndarray), type(array)
    assert array.dtype == numpy.float64 and array.ndim == 1, array
    return array.tolist()
