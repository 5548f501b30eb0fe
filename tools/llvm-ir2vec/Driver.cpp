//===- Driver.cpp - llvm-ir2vec run loop ----------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One run loop for every subcommand and IR kind: inputs (files and MLGO
/// corpora) are processed in parallel by the mode handler and their results
/// taken in input order by the subcommand's job, which writes them. Threads
/// run at most a few inputs ahead of the output (support::orderedParallelMap),
/// so few results wait in memory. A named output file is written to a
/// temporary beside it and renamed at the end (support::OutputFile), and a
/// store directory likewise (store::StoreWriter): a failed run leaves none.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Mode.h"
#include "Progress.h"

#include "irtk/support/InputList.h"
#include "irtk/support/OutputFile.h"
#include "irtk/support/ParallelMap.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::cli {

static constexpr const char *ToolName = "llvm-ir2vec";

namespace {

/// A subcommand's side of the run loop: what each input yields (computed on
/// a worker thread by the mode handler) and what is done with the results,
/// in input order.
class Job {
public:
  virtual ~Job() = default;
  /// On a worker thread. \p Direct, when given, is the job's own output
  /// stream (a single input needs no buffering).
  virtual std::unique_ptr<InputResult> process(const std::string &Path,
                                               raw_ostream *Direct) = 0;
  /// The stream process() may write to directly, if any.
  virtual raw_ostream *directStream() { return nullptr; }
  /// Takes one successful input's result, in input order.
  virtual void accept(InputResult &R) = 0;
  /// The number the progress line shows beside the inputs (triplets).
  virtual size_t progressCount() const { return 0; }
  /// After the last input: completes the output.
  virtual Error commit() = 0;
  /// After a failed run: leaves no output behind.
  virtual void discard() = 0;
};

/// embeddings in text or JSON lines.
class EmbeddingsJob : public Job {
public:
  /// \p MarkModules: several inputs, whose text output then says which
  /// module each function comes from.
  EmbeddingsJob(const Options &O, ModeHandler &H,
                std::unique_ptr<support::OutputFile> Out, bool MarkModules)
      : O(O), H(H), Out(std::move(Out)),
        MarkModules(MarkModules && O.Format == FormatKind::Text) {}
  std::unique_ptr<InputResult> process(const std::string &Path,
                                       raw_ostream *Direct) override {
    auto R = std::make_unique<TextResult>();
    H.embeddings(Path, O, *R, Direct);
    // Upstream's text names functions only, and a name can occur in many
    // modules: a "Module: <path>" line precedes each input's output. A
    // single input has none, so its output stays upstream's byte for byte
    // (JSON lines carry the module in every record).
    if (MarkModules && !R->Text.empty())
      R->Text.insert(0, "Module: " + displayName(Path) + "\n");
    return R;
  }
  raw_ostream *directStream() override { return &Out->os(); }
  void accept(InputResult &R) override {
    Out->os() << static_cast<TextResult &>(R).Text;
  }
  Error commit() override { return Out->commit(); }
  void discard() override { Out->discard(); }

private:
  const Options &O;
  ModeHandler &H;
  std::unique_ptr<support::OutputFile> Out;
  bool MarkModules;
};

/// embeddings --format=npy: a store directory.
class StoreJob : public Job {
public:
  StoreJob(const Options &O, ModeHandler &H,
           std::unique_ptr<store::StoreWriter> W)
      : O(O), H(H), W(std::move(W)) {}
  std::unique_ptr<InputResult> process(const std::string &Path,
                                       raw_ostream *) override {
    auto R = std::make_unique<RowsResult>();
    H.rows(Path, O, *R);
    return R;
  }
  void accept(InputResult &R) override {
    W->append(static_cast<RowsResult &>(R).Rows);
  }
  Error commit() override { return W->commit(); }
  void discard() override { W->discard(); }

private:
  const Options &O;
  ModeHandler &H;
  std::unique_ptr<store::StoreWriter> W;
};

/// triplets: the MAX_RELATION header (or OpenKE's count) comes first but
/// depends on every input, so the lines wait in a spool file.
class TripletsJob : public Job {
public:
  TripletsJob(const Options &O, ModeHandler &H)
      : O(O), H(H), MaxRelation(H.minMaxRelation()) {}
  ~TripletsJob() override {
    Spool.reset();
    if (!SpoolPath.empty())
      sys::fs::remove(SpoolPath);
  }

  Error open() {
    int FD;
    if (std::error_code EC =
            sys::fs::createTemporaryFile("irtk-triplets", "txt", FD, SpoolPath))
      return createStringError(EC,
                               "cannot create temporary file: " + EC.message());
    Spool = std::make_unique<raw_fd_ostream>(FD, /*shouldClose=*/true);
    return Error::success();
  }

  std::unique_ptr<InputResult> process(const std::string &Path,
                                       raw_ostream *) override {
    auto R = std::make_unique<TripletsResult>();
    H.triplets(Path, O, *R);
    return R;
  }
  void accept(InputResult &Base) override {
    auto &R = static_cast<TripletsResult &>(Base);
    for (const vocab::Triplet &T : R.Triplets)
      if (!O.Dedup || Dedup.insert(T)) {
        vocab::writeTripletLine(T, *Spool);
        ++Lines;
      }
    MaxRelation = std::max(MaxRelation, R.MaxRelation);
  }
  size_t progressCount() const override { return Lines; }

  Error commit() override {
    if (Error E = support::takeWriteError(*Spool, SpoolPath))
      return E;
    Spool.reset();
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
        MemoryBuffer::getFile(SpoolPath, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!Buf)
      return createStringError(Buf.getError(),
                               "cannot read temporary file " + SpoolPath);
    auto WriteBody = [&](raw_ostream &OS, bool OpenKE) {
      if (OpenKE)
        OS << Lines << '\n'; // OpenKE: the count comes first.
      else
        vocab::writeTripletHeader(MaxRelation, OS);
      OS << (*Buf)->getBuffer();
      return Error::success();
    };
    if (O.OpenKEDir.empty())
      return support::writeOutputFile(
          O.Output, [&](raw_ostream &OS) { return WriteBody(OS, false); });
    return writeOpenKE(WriteBody);
  }
  void discard() override {}

private:
  /// OpenKE's three files go into one directory, together or not at all:
  /// all three are written to temporaries first, then renamed; a directory
  /// this run created is removed again when that fails.
  Error writeOpenKE(function_ref<Error(raw_ostream &, bool)> WriteBody) {
    bool Existed = sys::fs::is_directory(O.OpenKEDir);
    if (std::error_code EC = sys::fs::create_directories(O.OpenKEDir))
      return createStringError(EC, "cannot create directory '" + O.OpenKEDir +
                                       "': " + EC.message());
    Error E = writeOpenKEFiles(WriteBody);
    if (E && !Existed)
      sys::fs::remove(O.OpenKEDir); // only if empty
    return E;
  }

  Error writeOpenKEFiles(function_ref<Error(raw_ostream &, bool)> WriteBody) {
    std::unique_ptr<support::OutputFile> Files[3];
    const char *Names[3] = {"train2id.txt", "entity2id.txt", "relation2id.txt"};
    for (unsigned I = 0; I < 3; ++I) {
      Expected<std::unique_ptr<support::OutputFile>> F =
          support::OutputFile::open(openKEFile(Names[I]));
      if (!F)
        return F.takeError(); // the ones opened are discarded
      Files[I] = std::move(*F);
    }
    if (Error E = WriteBody(Files[0]->os(), /*OpenKE=*/true))
      return E;
    H.writeEntities(Files[1]->os());
    H.writeRelations(MaxRelation, Files[2]->os());
    return support::OutputFile::commitAll(
        {Files[0].get(), Files[1].get(), Files[2].get()});
  }

  std::string openKEFile(StringRef Name) const {
    SmallString<128> P(O.OpenKEDir);
    sys::path::append(P, Name);
    return std::string(P);
  }

  const Options &O;
  ModeHandler &H;
  SmallString<128> SpoolPath;
  std::unique_ptr<raw_fd_ostream> Spool;
  vocab::TripletDeduplicator Dedup;
  size_t Lines = 0;
  unsigned MaxRelation;
};

} // namespace

/// \p SeveralInputs: the run has more than one input.
static Expected<std::unique_ptr<Job>>
createJob(const Options &O, ModeHandler &H, bool SeveralInputs) {
  if (O.Subcommand == SubcommandKind::Triplets) {
    auto J = std::make_unique<TripletsJob>(O, H);
    if (Error E = J->open())
      return E;
    return std::unique_ptr<Job>(std::move(J));
  }
  if (O.Format == FormatKind::Store) {
    Expected<std::unique_ptr<store::StoreWriter>> W =
        store::StoreWriter::create(O.Output, H.storeInfo(O));
    if (!W)
      return W.takeError();
    return std::unique_ptr<Job>(
        std::make_unique<StoreJob>(O, H, std::move(*W)));
  }
  Expected<std::unique_ptr<support::OutputFile>> Out =
      support::OutputFile::open(O.Output);
  if (!Out)
    return Out.takeError();
  return std::unique_ptr<Job>(
      std::make_unique<EmbeddingsJob>(O, H, std::move(*Out), SeveralInputs));
}

/// Runs \p J over \p Inputs; \p Failed inputs failed before (corpus
/// descriptions that could not be read).
static Error runInputs(const Options &O, ArrayRef<std::string> Inputs,
                       unsigned Failed, Job &J) {
  const size_t N = Inputs.size();
  const unsigned Total = N + Failed;

  // A status line redrawn over output printed to the same terminal would
  // garble it: auto shows none when the results go to the terminal.
  ProgressModeKind Mode = O.Progress;
  if (Mode == ProgressModeKind::Auto && O.Output == "-" &&
      O.OpenKEDir.empty() && O.Format != FormatKind::Store &&
      sys::Process::StandardOutIsDisplayed())
    Mode = ProgressModeKind::Never;
  ProgressLine Progress(errs(), Mode, Total,
                        O.Subcommand == SubcommandKind::Triplets);
  unsigned Done = 0, Matched = 0;
  auto Accept = [&](InputResult &R) {
    ++Done;
    if (!R.Warnings.empty() || !R.Error.empty())
      Progress.clear();
    for (const std::string &W : R.Warnings)
      WithColor::warning(errs(), ToolName) << W << '\n';
    if (!R.Error.empty()) {
      WithColor::error(errs(), ToolName) << R.Error << '\n';
      ++Failed;
    } else {
      J.accept(R);
      Matched += R.Matched;
    }
    Progress.update(Done, Failed, J.progressCount());
  };

  if (N == 1) {
    std::unique_ptr<InputResult> R = J.process(Inputs[0], J.directStream());
    Accept(*R);
  } else {
    support::ParallelMapOptions PO;
    PO.Threads = O.Threads;
    support::orderedParallelMap(
        N, PO, [&](size_t I) { return J.process(Inputs[I], nullptr); },
        [&](size_t, std::unique_ptr<InputResult> &R) { Accept(*R); });
  }
  Progress.finish(Done + (Total - N), Failed, J.progressCount());

  if (Total > 0 && Failed == Total) {
    J.discard();
    // Each failure was reported as it was met; nothing more to say.
    return tools::reportedError();
  }
  if (!O.FunctionName.empty() && Matched == 0) {
    J.discard();
    return createStringError(inconvertibleErrorCode(),
                             "Function '" + O.FunctionName + "' not found");
  }
  if (Error E = J.commit())
    return E;
  if (Failed)
    return createStringError(inconvertibleErrorCode(),
                             Twine(Failed) + " of " + Twine(Total) +
                                 " inputs failed; the output holds the other " +
                                 Twine(Total - Failed));
  return Error::success();
}

/// Refuses outputs that would replace an input: an output file that is an
/// input, an OpenKE file that is one, or a store directory holding one.
static Error checkOutputs(const Options &O, ArrayRef<std::string> Inputs) {
  std::vector<std::string> All(Inputs.begin(), Inputs.end());
  for (const std::string *V : {&O.VocabPath, &O.MIRVocabPath})
    if (!V->empty())
      All.push_back(*V);
  if (!O.OpenKEDir.empty()) {
    for (const char *Name :
         {"train2id.txt", "entity2id.txt", "relation2id.txt"}) {
      SmallString<128> P(O.OpenKEDir);
      sys::path::append(P, Name);
      if (Error E = support::checkNotAnInput(P, All))
        return E;
    }
    return Error::success();
  }
  if (O.Format == FormatKind::Store &&
      O.Subcommand == SubcommandKind::Embeddings) {
    // Replacing the store replaces everything in its directory.
    for (const std::string &In : All) {
      StringRef Dir = sys::path::parent_path(In);
      if (!Dir.empty() && sys::fs::equivalent(Dir, O.Output))
        return createStringError(inconvertibleErrorCode(),
                                 "cannot write store '" + O.Output +
                                     "': it holds the input '" + In + "'");
    }
    return Error::success();
  }
  return support::checkNotAnInput(O.Output, All);
}

Error run(const Options &O) {
  std::unique_ptr<ModeHandler> H =
      O.Mode == ModeKind::MIR ? createMIRModeHandler() : createIRModeHandler();
  // A corpus whose description cannot be read counts as one failed input.
  unsigned Failed = 0;
  std::vector<std::string> Inputs =
      support::expandInputs(O.Inputs, [&](Error E) {
        WithColor::error(errs(), ToolName) << toString(std::move(E)) << '\n';
        ++Failed;
      });
  if (Error E = checkOutputs(O, Inputs))
    return E;
  if (Error E =
          H->prepare(O, Inputs, O.Subcommand == SubcommandKind::Embeddings))
    return E;
  if (O.Subcommand == SubcommandKind::Entities)
    return support::writeOutputFile(O.Output, [&](raw_ostream &OS) {
      H->writeEntities(OS);
      return Error::success();
    });
  Expected<std::unique_ptr<Job>> J =
      createJob(O, *H, Inputs.size() + Failed > 1);
  if (!J)
    return J.takeError();
  return runInputs(O, Inputs, Failed, **J);
}

} // namespace irtk::cli
