//===- Verify.h - Machine IR verified without aborting ----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// LLVM 22's MIR parser runs the machine verifier on every function it
/// reads, with AbortOnError: machine IR that parses but breaks a rule (a
/// virtual register read before any definition, a register of the wrong
/// class, an immediate where a register belongs, a physical register read
/// that is not live in) prints a dump and aborts the process. The verifier
/// skips a function whose FailedISel property is set, and the parser sets it
/// from the document's `failedISel: true`. So the loader hands the parser a
/// copy of the file with that key set in every machine function document,
/// then clears the property and runs the verifier itself, without aborting,
/// turning its report into one line. The same pass over the text refuses
/// the slot numbers the parser itself crashes on.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_MIR2VEC_LIB_VERIFY_H
#define IRTK_MIR2VEC_LIB_VERIFY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <vector>

namespace llvm {
class MachineFunction;
} // namespace llvm

namespace irtk::mir2vec {

/// A .mir file whose machine function documents all say `failedISel: true`.
struct DeferredVerification {
  std::string Text;
  /// Lines of Text (1-based) that the file did not have: a document that
  /// ends at the next `---` or at the end of the file, without `...`,
  /// gets one. A document's `...` line, or its own `failedISel: false`,
  /// is replaced instead, which keeps the line numbers.
  std::vector<unsigned> AddedLines;
  /// Functions whose document already said `failedISel: true`: LLVM does
  /// not verify those, and neither does irtk.
  llvm::StringSet<> FailedISel;
  /// "<line>:<column>: <problem>" when the file holds a number that LLVM's
  /// parser would crash on (a block, register or stack slot numbered from
  /// 4294967294 up); then nothing else is set.
  std::string Error;

  /// \p Line of Text as a line of the original file.
  unsigned originalLine(unsigned Line) const;
  /// \p Message with a "<Prefix>:<line>:" location moved back to the
  /// original file's line.
  std::string originalLocation(std::string Message,
                               llvm::StringRef Prefix) const;
};

/// The copy of \p MIR to parse, as described in the file comment.
DeferredVerification deferVerification(llvm::StringRef MIR);

/// Clears \p MF's FailedISel property and runs the machine verifier on it,
/// without aborting: "" when it passes, else one line, e.g. "machine
/// function 'f' is invalid: Reading virtual register without a def, at
/// '%1:gr32 = COPY %0:gr32'".
std::string verifyMachineFunction(llvm::MachineFunction &MF);

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_LIB_VERIFY_H
