//===- Run.cpp - One run over many inputs ---------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The subcommands' jobs (text or JSON lines, store, triplets) and the loop
/// that feeds them.
///
//===----------------------------------------------------------------------===//

#include "irtk/batch/Run.h"

#include "irtk/support/OutputFile.h"
#include "irtk/support/ParallelMap.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::batch {

Job::~Job() = default;

Expected<std::unique_ptr<StoreJob>> StoreJob::create(const Options &O,
                                                     ModeHandler &H) {
  store::StoreInfo Info = H.storeInfo(O);
  Info.VocabularyHash = store::vocabularyHash(Info.Vocabulary);
  Expected<std::unique_ptr<store::StoreWriter>> W =
      store::StoreWriter::create(O.Output, std::move(Info));
  if (!W)
    return W.takeError();
  return std::unique_ptr<StoreJob>(new StoreJob(O, H, std::move(*W)));
}

StoreJob::StoreJob(const Options &O, ModeHandler &H,
                   std::unique_ptr<store::StoreWriter> W)
    : O(O), H(H), W(std::move(W)) {}

StoreJob::~StoreJob() = default;

std::unique_ptr<InputResult> StoreJob::process(const std::string &Path,
                                               raw_ostream *) {
  auto R = std::make_unique<RowsResult>();
  H.rows(Path, O, *R);
  return R;
}

void StoreJob::accept(InputResult &R) {
  W->append(static_cast<RowsResult &>(R).Rows);
}

Error StoreJob::commit() { return W->commit(); }

void StoreJob::discard() { W->discard(); }

namespace {

/// embeddings in text or JSON lines.
class EmbeddingsJob : public Job {
public:
  /// \p MarkModules: several inputs, whose text output then says which
  /// module each function comes from (the module level's text names its
  /// module already).
  EmbeddingsJob(const Options &O, ModeHandler &H,
                std::unique_ptr<support::OutputFile> Out, bool MarkModules)
      : O(O), H(H), Out(std::move(Out)),
        MarkModules(MarkModules && O.Format == FormatKind::Text &&
                    O.Level != support::LevelKind::Module) {}
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

Expected<std::unique_ptr<Job>> createJob(const Options &O, ModeHandler &H,
                                         bool SeveralInputs) {
  if (O.Subcommand == SubcommandKind::Triplets) {
    auto J = std::make_unique<TripletsJob>(O, H);
    if (Error E = J->open())
      return E;
    return std::unique_ptr<Job>(std::move(J));
  }
  if (O.Format == FormatKind::Store) {
    Expected<std::unique_ptr<StoreJob>> J = StoreJob::create(O, H);
    if (!J)
      return J.takeError();
    return std::unique_ptr<Job>(std::move(*J));
  }
  Expected<std::unique_ptr<support::OutputFile>> Out =
      support::OutputFile::open(O.Output);
  if (!Out)
    return Out.takeError();
  return std::unique_ptr<Job>(
      std::make_unique<EmbeddingsJob>(O, H, std::move(*Out), SeveralInputs));
}

void processInputs(ArrayRef<std::string> Inputs, unsigned Threads, Job &J,
                   function_ref<void(size_t, InputResult &)> Take) {
  if (Inputs.size() == 1) {
    std::unique_ptr<InputResult> R = J.process(Inputs[0], J.directStream());
    Take(0, *R);
    return;
  }
  support::ParallelMapOptions PO;
  PO.Threads = Threads;
  support::orderedParallelMap(
      Inputs.size(), PO,
      [&](size_t I) { return J.process(Inputs[I], nullptr); },
      [&](size_t I, std::unique_ptr<InputResult> &R) { Take(I, *R); });
}

} // namespace irtk::batch
