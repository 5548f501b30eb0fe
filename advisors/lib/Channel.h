//===- Channel.h - The interactive policy's two named pipes -----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The compiler's end of LLVM's interactive protocol (the one
/// llvm::InteractiveModelRunner speaks, byte for byte): a header and one
/// observation per decision written to <base>.out in the training log's
/// format, the decision's raw bytes read back from <base>.in. Unlike LLVM's
/// runner it never waits forever or dies with the host: both ends must be
/// named pipes, every wait (for the host to attach, for room to write, for
/// an answer) ends after a timeout, a host that closes its end is an error,
/// and SIGPIPE is kept from killing the compiler.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_LIB_CHANNEL_H
#define IRTK_ADVISORS_LIB_CHANNEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/TensorSpec.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Logger;
} // namespace llvm

namespace irtk::advisors {

class ChannelStream;

class InteractiveChannel {
public:
  /// Checks that <Base>.in and <Base>.out are named pipes, waits up to
  /// \p TimeoutSeconds for a host at both and sends the header. Errors name
  /// the pipe and the problem; a timeout's names \p TimeoutFlag, the option
  /// that sets it.
  static llvm::Expected<std::unique_ptr<InteractiveChannel>>
  open(llvm::StringRef Base, const std::vector<llvm::TensorSpec> &Inputs,
       const llvm::TensorSpec &Advice, unsigned TimeoutSeconds,
       llvm::StringRef TimeoutFlag);
  ~InteractiveChannel();

  /// Starts a context (a module or a function) of the observations.
  llvm::Error switchContext(llvm::StringRef Name);

  /// Sends one observation, the inputs' buffers in header order, and reads
  /// back the answer: the advice's raw bytes (an int64 scalar).
  llvm::Expected<int64_t> ask(llvm::ArrayRef<const void *> Buffers);

private:
  InteractiveChannel(std::string InPath, int InFD, unsigned TimeoutSeconds,
                     llvm::StringRef TimeoutFlag);
  llvm::Error sent();

  std::string InPath;
  int InFD;
  unsigned TimeoutSeconds;
  /// " s (<flag>)", ending every timeout's message.
  std::string TimeoutNote;
  size_t AdviceSize = 0;
  ChannelStream *Out = nullptr; // Owned by Log.
  std::unique_ptr<llvm::Logger> Log;
};

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_LIB_CHANNEL_H
