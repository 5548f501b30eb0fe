//===- OutputFile.cpp - Writing a whole output file or nothing ------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The temporary file is "<path>.tmp-XXXXXX", created with
/// sys::fs::TempFile, which also removes it if the process is interrupted.
///
//===----------------------------------------------------------------------===//

#include "irtk/support/OutputFile.h"

#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace irtk::support {

static Error writeError(StringRef Path, const Twine &Reason) {
  return createStringError(inconvertibleErrorCode(),
                           "cannot write '" + Path + "': " + Reason);
}

Error takeWriteError(raw_fd_ostream &OS, StringRef Name) {
  OS.flush();
  if (!OS.has_error())
    return Error::success();
  std::error_code EC = OS.error();
  OS.clear_error();
  return writeError(Name, EC.message());
}

Error takeStdoutError() { return takeWriteError(outs(), "<stdout>"); }

Expected<std::unique_ptr<OutputFile>> OutputFile::open(StringRef Path) {
  std::unique_ptr<OutputFile> F(new OutputFile());
  F->Path = Path.str();
  if (Path == "-") {
    F->Stream = &outs();
    return F;
  }
  sys::fs::file_status St;
  if (!sys::fs::status(Path, St) && sys::fs::exists(St)) {
    if (sys::fs::is_directory(St))
      return writeError(Path, "is a directory");
    if (!sys::fs::is_regular_file(St)) {
      std::error_code EC;
      F->File = std::make_unique<raw_fd_ostream>(Path, EC, sys::fs::OF_None);
      if (EC)
        return writeError(Path, EC.message());
      F->Stream = F->File.get();
      return F;
    }
  }
  Expected<sys::fs::TempFile> Temp =
      sys::fs::TempFile::create(Path + ".tmp-%%%%%%");
  if (!Temp)
    return writeError(Path, toString(Temp.takeError()));
  F->Temp.emplace(std::move(*Temp));
  F->File = std::make_unique<raw_fd_ostream>(F->Temp->FD,
                                             /*shouldClose=*/false);
  F->Stream = F->File.get();
  return F;
}

OutputFile::~OutputFile() {
  if (!Done)
    discard();
}

Error OutputFile::finishWriting() {
  Error E = takeWriteError(*Stream, Path == "-" ? "<stdout>" : Path);
  if (Temp) {
    // Closed: a later discard() (another file of commitAll failed) must
    // not flush it.
    Stream = nullptr;
    File.reset();
  }
  return E;
}

Error OutputFile::commit() { return commitAll({this}); }

Error OutputFile::commitAll(ArrayRef<OutputFile *> Files) {
  for (OutputFile *F : Files) {
    if (Error E = F->finishWriting()) {
      for (OutputFile *G : Files)
        G->discard();
      return E;
    }
  }
  // Standard output and devices were written in place: nothing to rename.
  SmallVector<StringRef, 4> Renamed;
  for (size_t I = 0; I < Files.size(); ++I) {
    OutputFile &F = *Files[I];
    F.Done = true;
    if (!F.Temp)
      continue;
    std::string TempName = F.Temp->TmpName;
    Error K = F.Temp->keep(F.Path);
    F.Temp.reset();
    if (!K) {
      Renamed.push_back(F.Path);
      continue;
    }
    sys::fs::remove(TempName);
    for (StringRef P : Renamed)
      sys::fs::remove(P);
    for (size_t J = I + 1; J < Files.size(); ++J)
      Files[J]->discard();
    return writeError(F.Path, toString(std::move(K)));
  }
  return Error::success();
}

void OutputFile::discard() {
  Done = true;
  if (Stream) {
    Stream->flush();
    Stream->clear_error();
  }
  File.reset();
  if (Temp)
    consumeError(Temp->discard());
  Temp.reset();
}

Error checkNotAnInput(StringRef Output, ArrayRef<std::string> Inputs) {
  sys::fs::file_status Out;
  if (Output == "-" || sys::fs::status(Output, Out) ||
      !sys::fs::is_regular_file(Out))
    return Error::success();
  for (const std::string &In : Inputs) {
    sys::fs::file_status S;
    if (In != "-" && !sys::fs::status(In, S) && sys::fs::equivalent(Out, S))
      return writeError(Output, "it is the input '" + In + "'");
  }
  return Error::success();
}

Error writeOutputFile(StringRef Path,
                      function_ref<Error(raw_ostream &)> Write) {
  Expected<std::unique_ptr<OutputFile>> F = OutputFile::open(Path);
  if (!F)
    return F.takeError();
  if (Error E = Write((*F)->os())) {
    (*F)->discard();
    return E;
  }
  return (*F)->commit();
}

Error appendLocked(StringRef Path, StringRef Text) {
  int FD;
  if (std::error_code EC = sys::fs::openFileForWrite(
          Path, FD, sys::fs::CD_OpenAlways, sys::fs::OF_Append))
    return createFileError(Path, EC);
  raw_fd_ostream OS(FD, /*shouldClose=*/true);
  if (std::error_code EC = sys::fs::lockFile(FD))
    return createFileError(Path, EC);
  OS << Text;
  Error E = takeWriteError(OS, Path);
  (void)sys::fs::unlockFile(FD);
  return E;
}

} // namespace irtk::support
