//===- Diagnostics.h - LLVM diagnostics collected, never printed -*- C++
//-*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_DIAGNOSTICS_H
#define IRTK_IR2VEC_DIAGNOSTICS_H

#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
} // namespace llvm

namespace irtk::ir2vec {

/// While alive, takes the diagnostics of a context: the first error and
/// every warning, one line each. Afterwards the context drops them. Used
/// wherever LLVM reads or compiles a module (IR, machine IR, code
/// generation), so that its messages become irtk's one-line errors.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(llvm::LLVMContext &Ctx);
  ~DiagnosticCollector();
  DiagnosticCollector(const DiagnosticCollector &) = delete;
  DiagnosticCollector &operator=(const DiagnosticCollector &) = delete;

  std::string FirstError;
  std::vector<std::string> Warnings;

private:
  llvm::LLVMContext &Ctx;
};

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_DIAGNOSTICS_H
