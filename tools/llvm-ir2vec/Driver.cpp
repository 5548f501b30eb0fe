//===- Driver.cpp - llvm-ir2vec run loop ----------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Inputs are parsed and embedded in parallel (one LLVMContext each) and
/// written in input order as they complete; threads run at most a few inputs
/// ahead of the output, so few results wait in memory. A named output file is
/// written to a temporary beside it and renamed at the end: a failed run leaves
/// none. --format=npy does the same with a store directory (StoreWriter).
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Progress.h"

#include "irtk/ir2vec/Corpus.h"
#include "irtk/ir2vec/ModuleLoader.h"
#include "irtk/ir2vec/Output.h"
#include "irtk/store/Store.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <omp.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

using namespace llvm;

namespace irtk::cli {

static constexpr const char *ToolName = "llvm-ir2vec";

namespace {

/// What processing one input produced.
struct InputResult {
  std::string Output;
  /// embeddings --format=npy: the module's rows.
  store::RowBatch Rows;
  /// triplets with --dedup: the module's triplets, deduplicated when written.
  std::vector<ir2vec::Triplet> Triplets;
  std::string Error;
  std::string Warnings;
  unsigned Matched = 0;
  /// triplets: how many the module gave.
  size_t TripletCount = 0;
  unsigned MaxRelation = 1;
};

/// Writes results in input order as they complete. The thread that finishes
/// the next result in order writes it and every ready one after it; a thread
/// that would run more than Window inputs ahead of the output waits (asleep,
/// not spinning), which bounds the results held in memory.
class OrderedEmitter {
public:
  OrderedEmitter(size_t Window, std::function<void(InputResult &)> Emit)
      : Window(Window), Emit(std::move(Emit)) {}

  void waitForTurnWithin(int Index) {
    std::unique_lock<std::mutex> Lock(M);
    Advanced.wait(Lock, [&] { return size_t(Index - Next) < Window; });
  }

  void submit(int Index, InputResult R) {
    std::lock_guard<std::mutex> Lock(M);
    Pending.emplace(Index, std::move(R));
    bool Moved = false;
    for (auto It = Pending.find(Next); It != Pending.end();
         It = Pending.find(Next)) {
      Emit(It->second);
      Pending.erase(It);
      ++Next;
      Moved = true;
    }
    if (Moved)
      Advanced.notify_all();
  }

private:
  const size_t Window;
  std::function<void(InputResult &)> Emit;
  std::mutex M;
  std::condition_variable Advanced;
  std::map<int, InputResult> Pending;
  int Next = 0;
};

/// The final output: standard output, or a temporary file renamed over the
/// named path on commit.
class OutputTarget {
public:
  Error open(StringRef Path) {
    this->Path = Path.str();
    if (Path == "-")
      return Error::success();
    // Devices, pipes and the like (-o /dev/null) are written in place:
    // renaming a temporary over them would replace them with a file.
    sys::fs::file_status Status;
    if (!sys::fs::status(Path, Status) && sys::fs::exists(Status) &&
        !sys::fs::is_regular_file(Status)) {
      std::error_code EC;
      File = std::make_unique<raw_fd_ostream>(Path, EC);
      if (EC)
        return createStringError(inconvertibleErrorCode(),
                                 "cannot open output file '" + Path +
                                     "': " + EC.message());
      return Error::success();
    }
    Expected<sys::fs::TempFile> T =
        sys::fs::TempFile::create(Path + "-%%%%%%.tmp");
    if (!T)
      return createStringError(inconvertibleErrorCode(),
                               "cannot open output file '" + Path +
                                   "': " + toString(T.takeError()));
    Temp.emplace(std::move(*T));
    File = std::make_unique<raw_fd_ostream>(Temp->FD, /*shouldClose=*/false);
    return Error::success();
  }
  raw_ostream &os() { return File ? *File : outs(); }
  Error commit() {
    if (!Temp) {
      raw_fd_ostream &OS = File ? *File : outs();
      OS.flush();
      if (OS.has_error()) {
        std::error_code EC = OS.error();
        OS.clear_error();
        return createStringError(inconvertibleErrorCode(),
                                 "cannot write output file '" +
                                     (Path == "-" ? "<stdout>" : Path) +
                                     "': " + EC.message());
      }
      return Error::success();
    }
    File->flush();
    std::error_code EC = File->error();
    File->clear_error();
    File.reset();
    if (EC) {
      consumeError(Temp->discard());
      return createFileError(Path, EC);
    }
    if (Error E = Temp->keep(Path))
      return createFileError(Path, std::move(E));
    return Error::success();
  }
  void discard() {
    File.reset();
    if (Temp)
      consumeError(Temp->discard());
  }

private:
  std::string Path;
  std::optional<sys::fs::TempFile> Temp;
  std::unique_ptr<raw_fd_ostream> File;
};

} // namespace

/// Parses, verifies and writes one input. Output goes to \p Direct when given
/// (a single input needs no buffering), else to the result's buffer.
static InputResult processInput(const std::string &Path, const Options &O,
                                const vocab::Vocabulary *V,
                                raw_ostream *Direct = nullptr) {
  InputResult R;
  std::string Name = Path == "-" ? "<stdin>" : Path;
  LLVMContext Ctx;
  ir2vec::LoadedModule L = ir2vec::loadModule(Path, Ctx);
  for (const std::string &W : L.Warnings)
    R.Warnings += Name + ": " + W + "\n";
  if (!L.M) {
    R.Error = L.describe(Name);
    return R;
  }
  Module *M = L.M.get();

  raw_string_ostream Buffer(R.Output);
  raw_ostream &OS = Direct ? *Direct : Buffer;
  switch (O.Subcommand) {
  case SubcommandKind::Triplets: {
    ir2vec::TripletSummary S =
        O.Dedup ? ir2vec::collectModuleTriplets(*M, R.Triplets, O.FunctionName)
                : ir2vec::writeTriplets(*M, OS, O.FunctionName);
    R.MaxRelation = S.MaxRelation;
    R.Matched = S.Functions;
    R.TripletCount = S.Triplets;
  } break;
  case SubcommandKind::Embeddings: {
    ir2vec::EmbeddingOutputOptions EO;
    EO.Kind = O.Kind;
    EO.Level = O.Level;
    EO.Format = O.Format;
    EO.FunctionName = O.FunctionName;
    EO.ModuleName = Name;
    R.Matched = O.WriteStore ? store::collectModuleRows(*M, *V, EO, R.Rows)
                             : ir2vec::writeEmbeddings(*M, *V, EO, OS);
    break;
  }
  case SubcommandKind::Entities:
    llvm_unreachable("entities reads no input");
  }
  return R;
}

/// A spool for triplet lines: the MAX_RELATION header must come first but
/// depends on every input, so the body waits in a temporary file.
static Expected<std::unique_ptr<raw_fd_ostream>>
createSpool(SmallVectorImpl<char> &SpoolPath) {
  int FD;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("irtk-triplets", "txt", FD, SpoolPath))
    return createStringError(EC,
                             "cannot create temporary file: " + EC.message());
  return std::make_unique<raw_fd_ostream>(FD, /*shouldClose=*/true);
}

Error run(const Options &O) {
  OutputTarget Out;

  if (O.Subcommand == SubcommandKind::Entities) {
    if (Error E = Out.open(O.Output))
      return E;
    ir2vec::writeEntities(Out.os());
    return Out.commit();
  }

  std::optional<vocab::Vocabulary> V;
  if (O.Subcommand == SubcommandKind::Embeddings) {
    Expected<vocab::Vocabulary> VOrErr =
        vocab::Vocabulary::loadFromFile(O.VocabPath, O.Weights);
    if (!VOrErr)
      return VOrErr.takeError();
    V.emplace(std::move(*VOrErr));
  }

  // OpenKE's three files go into one directory; train2id.txt takes the place
  // of the output file.
  auto OpenKEFile = [&](StringRef Name) {
    SmallString<128> P(O.OpenKEDir);
    sys::path::append(P, Name);
    return std::string(P);
  };
  if (!O.OpenKEDir.empty())
    if (std::error_code EC = sys::fs::create_directories(O.OpenKEDir))
      return createStringError(EC, "cannot create directory '" + O.OpenKEDir +
                                       "': " + EC.message());
  // --format=npy: a store directory in place of the output file. It is
  // built beside its destination and removed again unless committed.
  std::unique_ptr<store::StoreWriter> StoreOut;
  if (O.WriteStore && O.Subcommand == SubcommandKind::Embeddings) {
    store::StoreInfo Info;
    Info.Dimension = V->dimension();
    Info.Level = O.Level;
    Info.Kind = O.Kind;
    SmallString<256> VocabPath(O.VocabPath);
    if (O.VocabPath != "-")
      sys::fs::make_absolute(VocabPath);
    Info.Vocabulary = std::string(VocabPath);
    Info.Weights = O.Weights;
    Info.Tool = StringRef(VersionText).trim().str();
    Expected<std::unique_ptr<store::StoreWriter>> W =
        store::StoreWriter::create(O.Output, std::move(Info));
    if (!W)
      return W.takeError();
    StoreOut = std::move(*W);
  } else if (Error E = Out.open(
                 O.OpenKEDir.empty() ? O.Output : OpenKEFile("train2id.txt"))) {
    return E;
  }

  SmallString<128> SpoolPath;
  std::unique_ptr<raw_fd_ostream> Spool;
  if (O.Subcommand == SubcommandKind::Triplets) {
    Expected<std::unique_ptr<raw_fd_ostream>> S = createSpool(SpoolPath);
    if (!S) {
      Out.discard();
      return S.takeError();
    }
    Spool = std::move(*S);
  }
  llvm::scope_exit RemoveSpool([&] {
    if (!SpoolPath.empty())
      sys::fs::remove(SpoolPath);
  });
  raw_ostream &Body = Spool ? static_cast<raw_ostream &>(*Spool) : Out.os();

  // MLGO corpora (a directory with corpus_description.json, or that file)
  // stand for their modules. A corpus whose description cannot be read
  // counts as one failed input.
  std::vector<std::string> Inputs;
  unsigned Failed = 0, Matched = 0, MaxRelation = 1;
  for (const std::string &In : O.Inputs) {
    if (In == "-" || !ir2vec::isCorpus(In)) {
      Inputs.push_back(In);
      continue;
    }
    Expected<std::vector<std::string>> Modules = ir2vec::readCorpusModules(In);
    if (!Modules) {
      WithColor::error(errs(), ToolName)
          << toString(Modules.takeError()) << '\n';
      ++Failed;
      continue;
    }
    Inputs.insert(Inputs.end(), Modules->begin(), Modules->end());
  }
  const int N = static_cast<int>(Inputs.size());
  const unsigned Total = N + Failed;
  int Threads = O.Threads ? static_cast<int>(O.Threads) : omp_get_max_threads();
  Threads = std::max(1, std::min(Threads, std::max(N, 1)));
  const vocab::Vocabulary *VP = V ? &*V : nullptr;

  ir2vec::TripletDeduplicator Dedup;
  size_t TripletLines = 0;
  unsigned Done = 0;
  const bool IsTriplets = O.Subcommand == SubcommandKind::Triplets;
  // A status line redrawn over output printed to the same terminal would
  // garble it: auto shows none when the results go to the terminal.
  ProgressModeKind Mode = O.Progress;
  if (Mode == ProgressModeKind::Auto && O.Output == "-" &&
      O.OpenKEDir.empty() && !O.WriteStore &&
      sys::Process::StandardOutIsDisplayed())
    Mode = ProgressModeKind::Never;
  ProgressLine Progress(errs(), Mode, Total, IsTriplets);
  auto Emit = [&](InputResult &R) {
    ++Done;
    if (!R.Warnings.empty() || !R.Error.empty())
      Progress.clear();
    if (!R.Warnings.empty())
      for (StringRef W : split(StringRef(R.Warnings).rtrim('\n'), '\n'))
        WithColor::warning(errs(), ToolName) << W << '\n';
    if (!R.Error.empty()) {
      WithColor::error(errs(), ToolName) << R.Error << '\n';
      ++Failed;
      Progress.update(Done, Failed, TripletLines);
      return;
    }
    Body << R.Output;
    if (StoreOut)
      StoreOut->append(R.Rows);
    if (!O.Dedup)
      TripletLines += R.TripletCount;
    for (const ir2vec::Triplet &T : R.Triplets)
      if (Dedup.insert(T)) {
        ir2vec::writeTripletLine(T, Body);
        ++TripletLines;
      }
    Matched += R.Matched;
    MaxRelation = std::max(MaxRelation, R.MaxRelation);
    Progress.update(Done, Failed, TripletLines);
  };
  OrderedEmitter Emitter(/*Window=*/4 * static_cast<size_t>(Threads), Emit);

#pragma omp parallel for schedule(dynamic, 1) num_threads(Threads)
  for (int I = 0; I < N; ++I) {
    Emitter.waitForTurnWithin(I);
    Emitter.submit(I, processInput(Inputs[I], O, VP, N == 1 ? &Body : nullptr));
  }
  Progress.finish(Done + (Total - N), Failed, TripletLines);

  if (Total > 0 && Failed == Total) {
    Out.discard();
    // Each failure was reported as it was met; nothing more to say.
    return createStringError(inconvertibleErrorCode(), "");
  }
  if (!O.FunctionName.empty() && Matched == 0) {
    Out.discard();
    return createStringError(inconvertibleErrorCode(),
                             "Function '" + O.FunctionName + "' not found");
  }

  if (Spool) {
    Spool->close();
    if (Spool->has_error()) {
      Spool->clear_error();
      Out.discard();
      return createStringError(inconvertibleErrorCode(),
                               "cannot write temporary file " + SpoolPath);
    }
    if (O.OpenKEDir.empty())
      ir2vec::writeTripletHeader(MaxRelation, Out.os());
    else
      Out.os() << TripletLines << '\n'; // OpenKE: the count comes first.
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
        MemoryBuffer::getFile(SpoolPath, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!Buf) {
      Out.discard();
      return createStringError(Buf.getError(),
                               "cannot read temporary file " + SpoolPath);
    }
    Out.os() << (*Buf)->getBuffer();
  }

  if (StoreOut) {
    if (Error E = StoreOut->commit())
      return E;
  } else if (Error E = Out.commit()) {
    return E;
  }
  if (!O.OpenKEDir.empty()) {
    OutputTarget Entities, Relations;
    if (Error E = Entities.open(OpenKEFile("entity2id.txt")))
      return E;
    ir2vec::writeEntities(Entities.os());
    if (Error E = Entities.commit())
      return E;
    if (Error E = Relations.open(OpenKEFile("relation2id.txt")))
      return E;
    ir2vec::writeRelations(MaxRelation, Relations.os());
    if (Error E = Relations.commit())
      return E;
  }
  if (Failed)
    return createStringError(inconvertibleErrorCode(),
                             Twine(Failed) + " of " + Twine(Total) +
                                 " inputs failed; the output holds the other " +
                                 Twine(Total - Failed));
  return Error::success();
}

} // namespace irtk::cli
