//===- ModuleSupport.h - What the _ir2vec module's files share --*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_PYTHON_MODULESUPPORT_H
#define IRTK_TOOLS_PYTHON_MODULESUPPORT_H

#include "irtk/store/Search.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace irtk::python {

/// Text from C++ for an exception's message: bytes that are not UTF-8 (in
/// paths and IR names) appear as \xNN escapes, so that the message can be
/// printed.
pybind11::str toMessage(const std::string &S);

/// Raises ValueError with \p Msg. py::value_error would decode \p Msg as
/// strict UTF-8 and, for a path that is not UTF-8, raise a
/// UnicodeDecodeError about the message instead.
[[noreturn]] void throwValueError(const std::string &Msg);

/// The name of \p Obj's type, for messages.
std::string typeName(pybind11::handle Obj);

/// A path argument: str, bytes or os.PathLike, as the file system spells it
/// (TypeError for another type, ValueError for a null byte; \p What names
/// the argument).
std::string toPath(pybind11::handle Obj, const std::string &What);

using FloatMatrix = pybind11::array_t<float, pybind11::array::c_style>;

/// A matrix argument: \p A's own memory when it is aligned for floats,
/// else an aligned copy. A numpy array need not be aligned (an array
/// memory-mapped from a file at an odd offset, a view into bytes), and the
/// searches load its rows as floats (Eigen, SIMD). ValueError ("<What> must
/// be a 2-d float32 array") unless \p A has 2 dimensions. Neither copied
/// nor moved: ref() points into it.
class MatrixArg {
public:
  MatrixArg(const FloatMatrix &A, const char *What);
  MatrixArg(const MatrixArg &) = delete;
  MatrixArg &operator=(const MatrixArg &) = delete;
  const irtk::store::MatrixRef &ref() const { return Ref; }

private:
  std::vector<float> Copy;
  irtk::store::MatrixRef Ref;
};

/// The metric named \p Name; ValueError for another name.
irtk::store::MetricKind metricOf(const std::string &Name);

} // namespace irtk::python

#endif // IRTK_TOOLS_PYTHON_MODULESUPPORT_H
