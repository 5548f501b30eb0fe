//===- StatusLine.h - One updating status line on stderr --------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The status line every irtk tool shows while it works (llvm-ir2vec over
/// many inputs, irtk-vocab train over its epochs, irtk-similarity loading a
/// store), chosen by --progress=auto|always|never:
///   <tool>: <text>
/// On a terminal it is redrawn in place at most ten times a second and
/// erased before any other message; elsewhere (always) it is printed as
/// whole lines, at most one a second, and once at the end, which suits a
/// log file.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_COMMON_STATUSLINE_H
#define IRTK_TOOLS_COMMON_STATUSLINE_H

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::tools {

enum class ProgressModeKind { Auto, Always, Never };

/// Parses the value of --progress, "auto", "always" or "never", into
/// \p Out. Returns the usage error message ("invalid --progress '<Text>';
/// expected auto, always or never"), or an empty string.
std::string parseProgressOption(llvm::StringRef Text, ProgressModeKind &Out);

class StatusLine {
public:
  /// Shown for Always; for Auto, when \p OS is a terminal and \p AutoWanted
  /// (the caller's condition, such as more than one input).
  StatusLine(llvm::raw_ostream &OS, llvm::StringRef ToolName,
             ProgressModeKind Mode, bool AutoWanted = true);

  bool enabled() const { return Enabled; }
  /// Whether update() would draw now: enabled, and the last drawing is
  /// older than the interval. Lets a caller skip formatting the text.
  bool due() const;
  /// Draws \p Text if due().
  void update(llvm::StringRef Text);
  /// Erases the line (terminal) so that another message can be printed.
  void clear();
  /// Draws \p Text whatever the interval and ends the line.
  void finish(llvm::StringRef Text);
  /// Seconds since construction.
  double elapsed() const;

private:
  void draw(llvm::StringRef Text);

  llvm::raw_ostream &OS;
  std::string ToolName;
  bool InPlace;
  bool Enabled;
  bool Drawn = false;
  std::chrono::steady_clock::time_point Start;
  std::optional<std::chrono::steady_clock::time_point> LastDraw;
};

/// "12.3 s", "4 min 05 s", "2 h 03 min": a duration for a status line.
std::string formatDuration(double Seconds);

} // namespace irtk::tools

#endif // IRTK_TOOLS_COMMON_STATUSLINE_H
