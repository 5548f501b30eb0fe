//===- ApproxIndexModule.h - ir2vec._ir2vec.ApproxIndex ---------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_PYTHON_APPROXINDEXMODULE_H
#define IRTK_TOOLS_PYTHON_APPROXINDEXMODULE_H

#include <pybind11/pybind11.h>

namespace irtk::python {
/// Adds ApproxIndex and matrixChecksum to the module \p M.
void bindApproxIndex(pybind11::module_ &M);
} // namespace irtk::python

#endif // IRTK_TOOLS_PYTHON_APPROXINDEXMODULE_H
