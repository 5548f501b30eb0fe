//===- ModuleSupport.cpp - What the _ir2vec module's files share ----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "ModuleSupport.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstring>

namespace py = pybind11;

namespace irtk::python {

py::str toMessage(const std::string &S) {
  PyObject *U = PyUnicode_DecodeUTF8(
      S.data(), static_cast<Py_ssize_t>(S.size()), "backslashreplace");
  if (!U)
    throw py::error_already_set();
  return py::reinterpret_steal<py::str>(U);
}

void throwValueError(const std::string &Msg) {
  py::str M = toMessage(Msg);
  PyErr_SetObject(PyExc_ValueError, M.ptr());
  throw py::error_already_set();
}

std::string typeName(py::handle Obj) {
  return py::str(py::type::handle_of(Obj).attr("__name__"));
}

std::string toPath(py::handle Obj, const std::string &What) {
  if (!py::isinstance<py::str>(Obj) && !py::isinstance<py::bytes>(Obj) &&
      !py::hasattr(Obj, "__fspath__"))
    throw py::type_error(What + " must be a str or os.PathLike, not " +
                         typeName(Obj));
  py::bytes B = py::module_::import("os").attr("fsencode")(Obj);
  std::string Path(B);
  // The file system would see the path cut at the NUL.
  if (Path.find('\0') != std::string::npos) {
    std::string Shown;
    llvm::raw_string_ostream(Shown).write_escaped(Path,
                                                  /*UseHexEscapes=*/true);
    throwValueError(What + " contains a null byte: '" + Shown + "'");
  }
  return Path;
}

MatrixArg::MatrixArg(const FloatMatrix &A, const char *What) {
  if (A.ndim() != 2)
    throwValueError(std::string(What) + " must be a 2-d float32 array");
  const float *Data = A.data();
  uint64_t Rows = static_cast<uint64_t>(A.shape(0));
  unsigned Dim = static_cast<unsigned>(A.shape(1));
  if (reinterpret_cast<uintptr_t>(Data) % alignof(float)) {
    Copy.resize(Rows * Dim);
    if (!Copy.empty())
      std::memcpy(Copy.data(), Data, Copy.size() * sizeof(float));
    Data = Copy.data();
  }
  Ref = {Data, Rows, Dim};
}

irtk::store::MetricKind metricOf(const std::string &Name) {
  std::optional<irtk::store::MetricKind> M = irtk::store::parseMetric(Name);
  if (!M)
    throwValueError("invalid metric '" + Name +
                    "'; expected cosine or euclidean");
  return *M;
}

} // namespace irtk::python
