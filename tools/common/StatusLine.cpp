//===- StatusLine.cpp - One updating status line on stderr ----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "StatusLine.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace llvm;

namespace irtk::tools {

std::string parseProgressOption(StringRef Text, ProgressModeKind &Out) {
  if (Text == "auto")
    Out = ProgressModeKind::Auto;
  else if (Text == "always")
    Out = ProgressModeKind::Always;
  else if (Text == "never")
    Out = ProgressModeKind::Never;
  else
    return ("invalid --progress '" + Text + "'; expected auto, always or never")
        .str();
  return "";
}

StatusLine::StatusLine(raw_ostream &OS, StringRef ToolName,
                       ProgressModeKind Mode, bool AutoWanted)
    : OS(OS), ToolName(ToolName.str()), InPlace(OS.is_displayed()),
      Start(std::chrono::steady_clock::now()) {
  switch (Mode) {
  case ProgressModeKind::Never:
    Enabled = false;
    break;
  case ProgressModeKind::Always:
    Enabled = true;
    break;
  case ProgressModeKind::Auto:
    Enabled = InPlace && AutoWanted;
    break;
  }
}

double StatusLine::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

bool StatusLine::due() const {
  if (!Enabled)
    return false;
  auto Interval = InPlace ? std::chrono::milliseconds(100)
                          : std::chrono::milliseconds(1000);
  return !LastDraw || std::chrono::steady_clock::now() - *LastDraw >= Interval;
}

void StatusLine::draw(StringRef Text) {
  if (InPlace)
    OS << "\r\x1b[K";
  OS << ToolName << ": " << Text;
  if (!InPlace)
    OS << '\n';
  OS.flush();
  Drawn = InPlace;
  LastDraw = std::chrono::steady_clock::now();
}

void StatusLine::update(StringRef Text) {
  if (due())
    draw(Text);
}

void StatusLine::clear() {
  if (!Drawn)
    return;
  OS << "\r\x1b[K";
  OS.flush();
  Drawn = false;
}

void StatusLine::finish(StringRef Text) {
  if (!Enabled)
    return;
  draw(Text);
  if (InPlace)
    OS << '\n';
  OS.flush();
  Drawn = false;
}

std::string formatDuration(double Seconds) {
  std::string S;
  raw_string_ostream SS(S);
  if (!(Seconds >= 0) || std::isinf(Seconds))
    return "?";
  if (Seconds < 60) {
    SS << format("%.1f s", Seconds);
    return S;
  }
  auto Whole = static_cast<unsigned long long>(Seconds);
  if (Whole < 3600)
    SS << Whole / 60 << " min " << format("%02llu", Whole % 60) << " s";
  else
    SS << Whole / 3600 << " h " << format("%02llu", Whole / 60 % 60) << " min";
  return S;
}

} // namespace irtk::tools
