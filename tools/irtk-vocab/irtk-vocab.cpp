//===- irtk-vocab.cpp - Vocabulary validation and statistics --------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// irtk-vocab validate [--strict] FILE...   check vocabularies
/// irtk-vocab stats FILE                    dimension, coverage, norms
/// irtk-vocab diff A B                       per-entity cosine and distance
/// irtk-vocab train TRIPLETS -o OUT          TransE training
/// irtk-vocab convert LEGACY -o OUT          IITH .txt / flat JSON to JSON
/// Exit status: 0 valid, 1 a file failed, 2 usage error (ToolMain.h).
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Entities.h"
#include "irtk/ir2vec/Legacy.h"
#include "irtk/mir2vec/Loader.h"
#include "irtk/support/OutputFile.h"
#include "irtk/support/ReadFile.h"
#include "irtk/vocab/TransE.h"
#include "irtk/vocab/Validation.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include "BoostCommandLine.h"
#include "StatusLine.h"
#include "ToolMain.h"

#include <cmath>
#include <sstream>
#include <tuple>

namespace po = boost::program_options;
using namespace llvm;
using namespace irtk::vocab;
using namespace irtk::ir2vec;

static constexpr const char *ToolName = "irtk-vocab";

static const char *const Usage =
    "USAGE: irtk-vocab validate [--strict] <vocab.json|-> ...\n"
    "       irtk-vocab stats <vocab.json|->\n"
    "       irtk-vocab diff <a.json> <b.json>\n"
    "       irtk-vocab train <triplets|-> -o <vocab.json> [--dim N] [--epochs "
    "N]\n"
    "                  [--lr X] [--margin X] [--batch-size N] [--distance "
    "L1|L2]\n"
    "                  [--seed N] [-j N] [--trained-only] [--quiet]\n"
    "                  [--progress=auto|always|never]\n"
    "       irtk-vocab convert <legacy.txt|legacy.json|-> -o <vocab.json> "
    "[--strict]\n"
    "       irtk-vocab pack <vocab.json> [-o <vocab.json.bin>]\n"
    "validate, stats, diff, train and pack take --mode=mir [--mtriple=T] for "
    "a\n"
    "machine IR vocabulary of target T (default: the host's), as\n"
    "`llvm-ir2vec --mode=mir` reads it and writes its triplets\n\n"
    "validate  load each vocabulary with LLVM 22's rules and report problems\n"
    "          (--strict: also require all 110 entities)\n"
    "stats     print dimension, coverage per entity group, missing entities "
    "and\n"
    "          vector norms (weights applied, as the embedders see them)\n"
    "diff      per entity: cosine similarity and distance of the weighted\n"
    "          vectors of two vocabularies of one dimension, as tab-separated\n"
    "          lines, then a summary line\n"
    "train     learn a vocabulary with TransE from `llvm-ir2vec triplets`\n"
    "          output (ours or upstream's) or OpenKE's train2id.txt; writes\n"
    "          all 110 entities in upstream's JSON format (defaults: dim 75,\n"
    "          100 epochs, lr 0.5, margin 1, batch 1024, L1, seed 1)\n"
    "pack      write the binary form of a vocabulary (default: beside it, as\n"
    "          <vocab.json>.bin), which compilers and llvm-ir2vec then read\n"
    "          instead of parsing the JSON; it records the JSON's hash and\n"
    "          the layout, and is refused once either changes\n";

enum class CommandKind { Validate, Stats, Diff, Train, Convert, Pack };

struct VocabOptions {
  CommandKind Command = CommandKind::Validate;
  bool Strict = false, Quiet = false;
  /// train: write only the entities the triplets name.
  bool TrainedOnly = false;
  /// train: the status line (epoch, loss, time); --quiet is never.
  irtk::tools::ProgressModeKind Progress = irtk::tools::ProgressModeKind::Auto;
  /// --mode=mir: the MIR layout of this target, not the IR layout.
  bool MIR = false;
  std::string MTriple;
  std::vector<std::string> Files;
  std::string Output;
  TransEOptions Train;
};
using ParseResult = irtk::tools::ParseResult<VocabOptions>;

static Error inputError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// Writes \p Vectors to \p Output ("-": standard output), beside the
/// destination first and renamed: no half-written vocabulary.
static Error writeVocabulary(const std::string &Output, const Layout &L,
                             const std::vector<std::vector<double>> &Vectors) {
  return irtk::support::writeOutputFile(Output, [&](raw_ostream &OS) {
    writeVocabularyJSON(L, Vectors, OS);
    return Error::success();
  });
}

/// The layout vocabularies and triplets are read with: LLVM IR's, or with
/// --mode=mir the machine IR layout of the chosen target.
struct LayoutChoice {
  std::shared_ptr<const irtk::mir2vec::TargetLayout> Target;

  static Expected<LayoutChoice> make(const VocabOptions &O) {
    LayoutChoice C;
    if (!O.MIR)
      return C;
    irtk::mir2vec::initializeTargets();
    std::string Triple =
        O.MTriple.empty() ? sys::getDefaultTargetTriple() : O.MTriple;
    Expected<std::unique_ptr<TargetMachine>> TM =
        irtk::mir2vec::createTargetMachine(Triple);
    if (!TM)
      return inputError("--mtriple=" + Triple + ": " +
                        toString(TM.takeError()));
    C.Target = irtk::mir2vec::layoutOf(**TM);
    return C;
  }
  const Layout &layout() const {
    return Target ? *Target->layout() : *irLayout();
  }
  std::shared_ptr<const Layout> layoutPtr() const {
    return Target ? Target->layout() : irLayout();
  }
  /// The JSON file itself, not its binary form: what validate, stats and
  /// diff report on is the source of truth.
  Expected<Vocabulary> load(const std::string &File) const {
    return Vocabulary::loadFromFile(File, layoutPtr(), weights());
  }
  /// The binary form beside \p File, read as a compiler reads it.
  Expected<Vocabulary> loadWithBinaryForm(const std::string &File) const {
    return Vocabulary::load(File, layoutPtr(), weights());
  }
  SectionWeights weights() const {
    return Target ? irtk::mir2vec::Weights().sections()
                  : irtk::ir2vec::Weights().sections();
  }
};

/// \p B, read from the binary form \p BName, has the vectors of \p V,
/// read from its JSON \p VName, bit for bit.
static Error checkSameVectors(const Vocabulary &B, const Vocabulary &V,
                              StringRef BName, StringRef VName) {
  bool Same = B.dimension() == V.dimension() && B.size() == V.size() &&
              B.unknownKeys() == V.unknownKeys();
  for (EntityId Id = 0; Same && Id < V.size(); ++Id) {
    Same = B.isPresent(Id) == V.isPresent(Id);
    for (unsigned I = 0; Same && I < V.dimension(); ++I)
      Same = bit_cast<uint64_t>(B.vector(Id)[I]) ==
             bit_cast<uint64_t>(V.vector(Id)[I]);
  }
  if (Same)
    return Error::success();
  return inputError(BName + ": does not hold the vectors of " + VName +
                    "; remake it with `irtk-vocab pack " + VName + "`");
}

/// Each file's problem is reported as it is met; the others are still
/// checked.
static Error runValidate(const LayoutChoice &C,
                         const std::vector<std::string> &Files, bool Strict) {
  bool Failed = false;
  auto Report = [&](Error E) {
    WithColor::error(errs(), ToolName) << toString(std::move(E)) << '\n';
    Failed = true;
  };
  for (const std::string &F : Files) {
    Expected<Vocabulary> V = C.load(F);
    if (!V) {
      Report(V.takeError());
      continue;
    }
    std::string Name = F == "-" ? "<stdin>" : F;
    // Before its keys are reported one by one: another target's
    // vocabulary has thousands that name nothing here.
    if (C.Target)
      if (Error E = irtk::mir2vec::checkOpcodesOfTarget(*V, Name)) {
        Report(std::move(E));
        continue;
      }
    for (const std::string &K : V->unknownKeys())
      WithColor::warning(errs(), ToolName)
          << Name << ": unknown key '" << K << "' (ignored)\n";
    if (V->missingEntities().size() == V->size())
      WithColor::warning(errs(), ToolName)
          << Name << ": no key names "
          << (C.Target ? "an entity of the " + C.layout().description().str()
                       : std::string("an LLVM 22 entity"))
          << "; every vector is zero\n";
    if (Strict) {
      if (Error E = checkComplete(*V, Name)) {
        Report(std::move(E));
        continue;
      }
    }
    // The binary form beside it, if any, must be this file's, and hold
    // its vectors bit for bit.
    if (F != "-" && sys::fs::exists(Vocabulary::binaryPath(F))) {
      Expected<Vocabulary> B = C.loadWithBinaryForm(F);
      if (!B) {
        Report(B.takeError());
        continue;
      }
      if (Error E = checkSameVectors(*B, *V, Vocabulary::binaryPath(F), F)) {
        Report(std::move(E));
        continue;
      }
    }
    outs() << Name << ": OK, dimension " << V->dimension() << ", "
           << (V->size() - V->missingEntities().size()) << "/" << V->size()
           << " entities\n";
  }
  return Failed ? irtk::tools::reportedError() : Error::success();
}

/// Names past this many are counted, not listed: a MIR layout has
/// thousands of entities, most of them absent from any vocabulary.
static constexpr size_t MaxListedNames = 20;

/// "<Label>: a b c" (or "none"); a longer list: "<Label>: <n>, the first
/// 20: a b ... and <n - 20> more".
static void printNameList(raw_ostream &OS, StringRef Label,
                          ArrayRef<std::string> Names) {
  OS << Label << ":";
  if (Names.empty()) {
    OS << " none\n";
    return;
  }
  bool Long = Names.size() > MaxListedNames;
  if (Long)
    OS << ' ' << Names.size() << ", the first " << MaxListedNames << ":";
  for (const std::string &N : Names.take_front(MaxListedNames))
    OS << ' ' << N;
  if (Long)
    OS << " and " << Names.size() - MaxListedNames << " more";
  OS << '\n';
}

static Error runStats(const LayoutChoice &C, const std::string &File) {
  Expected<Vocabulary> V = C.load(File);
  if (!V)
    return V.takeError();
  VocabStats S = computeStats(*V);
  raw_ostream &OS = outs();
  OS << "file: " << (File == "-" ? "<stdin>" : File) << '\n';
  OS << "dimension: " << S.Dimension << '\n';
  OS << "entities: " << S.Present << "/" << V->size() << '\n';
  for (unsigned G = 0; G < V->layout().numGroups(); ++G)
    OS << "  " << V->layout().groupName(G) << ": " << S.GroupPresent[G] << "/"
       << S.GroupTotal[G] << '\n';
  std::vector<EntityId> Missing = V->missingEntities();
  std::vector<std::string> MissingNames;
  for (EntityId Id : Missing)
    MissingNames.push_back(V->layout().entityName(Id).str());
  printNameList(OS, "missing", MissingNames);
  printNameList(OS, "unknown keys", V->unknownKeys());
  if (S.Present) {
    OS << "norm min: " << format("%.6g", S.MinNorm) << " ("
       << V->layout().entityName(S.MinNormEntity) << ")\n";
    OS << "norm max: " << format("%.6g", S.MaxNorm) << " ("
       << V->layout().entityName(S.MaxNormEntity) << ")\n";
    OS << "norm mean: " << format("%.6g", S.MeanNorm) << '\n';
  }
  return Error::success();
}

static Error runDiff(const LayoutChoice &C, const std::string &FileA,
                     const std::string &FileB) {
  Expected<Vocabulary> A = C.load(FileA);
  if (!A)
    return A.takeError();
  Expected<Vocabulary> B = C.load(FileB);
  if (!B)
    return B.takeError();
  Expected<std::vector<EntityDiff>> Diffs =
      compareVocabularies(*A, *B, FileA, FileB);
  if (!Diffs)
    return Diffs.takeError();
  raw_ostream &OS = outs();
  OS << "entity\tid\tin_a\tin_b\tcosine\tdistance\n";
  unsigned Both = 0;
  double SumCos = 0, MinCos = 2;
  EntityId MinId = 0;
  for (const EntityDiff &D : *Diffs) {
    OS << A->layout().entityName(D.Id) << '\t' << D.Id << '\t'
       << (D.InA ? "yes" : "no") << '\t' << (D.InB ? "yes" : "no") << '\t';
    if (std::isnan(D.Cosine))
      OS << "nan";
    else
      OS << format("%.6f", D.Cosine);
    OS << '\t' << format("%.6f", D.Distance) << '\n';
    if (std::isnan(D.Cosine))
      continue;
    ++Both;
    SumCos += D.Cosine;
    if (D.Cosine < MinCos) {
      MinCos = D.Cosine;
      MinId = D.Id;
    }
  }
  OS << "# compared " << Both << " entities with non-zero vectors in both";
  if (Both)
    OS << "; mean cosine " << format("%.6f", SumCos / Both) << "; min cosine "
       << format("%.6f", MinCos) << " (" << A->layout().entityName(MinId)
       << ")";
  OS << '\n';
  return Error::success();
}

/// The text of train's status line after epoch \p R.
static std::string epochStatus(const EpochReport &R, unsigned Epochs,
                               double Seconds) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "epoch " << R.Epoch << '/' << Epochs << ", loss "
     << format("%.6f", R.MeanLoss) << ", "
     << irtk::tools::formatDuration(Seconds);
  if (R.Epoch < Epochs && R.Epoch > 0)
    OS << ", ETA "
       << irtk::tools::formatDuration(Seconds / R.Epoch * (Epochs - R.Epoch));
  return S;
}

static Error runTrain(const LayoutChoice &C, const std::string &TripletsPath,
                      const std::string &Output, const TransEOptions &Opts,
                      bool Quiet, irtk::tools::ProgressModeKind Progress,
                      bool TrainedOnly) {
  if (Error E = irtk::support::checkNotAnInput(Output, {TripletsPath}))
    return E;
  Expected<TripletSet> Data = readTriplets(TripletsPath, C.layout());
  if (!Data)
    return Data.takeError();
  if (!Quiet)
    errs() << "training on " << Data->Triplets.size() << " triplets, "
           << Data->NumRelations << " relations, dimension " << Opts.Dimension
           << '\n';
  // auto: redrawn in place on a terminal; in a log, whole lines at most
  // one a second and the last epoch's, so the loss's course stays visible.
  using irtk::tools::ProgressModeKind;
  if (Quiet)
    Progress = ProgressModeKind::Never;
  else if (Progress == ProgressModeKind::Auto && !errs().is_displayed())
    Progress = ProgressModeKind::Always;
  irtk::tools::StatusLine Line(errs(), ToolName, Progress);
  std::optional<EpochReport> Last;
  Expected<TransEModel> Model =
      trainTransE(*Data, Opts, [&](const EpochReport &R) {
        Last = R;
        // The last epoch is finish()'s to print.
        if (R.Epoch < Opts.Epochs && Line.due())
          Line.update(epochStatus(R, Opts.Epochs, Line.elapsed()));
      });
  if (Last && Line.enabled())
    Line.finish(epochStatus(*Last, Opts.Epochs, Line.elapsed()));
  if (!Model)
    return Model.takeError();
  if (TrainedOnly) {
    // Entities no triplet names keep their random start: leave them out,
    // so that they embed as zero.
    const Layout &L = C.layout();
    std::vector<bool> Named(L.size());
    for (const Triplet &T : Data->Triplets)
      Named[T.Head] = Named[T.Tail] = true;
    std::vector<bool> SectionNamed(L.numSections());
    for (EntityId Id = 0; Id < L.size(); ++Id) {
      if (Named[Id])
        SectionNamed[L.entitySection(Id)] = true;
      else
        Model->Entities[Id].clear();
    }
    for (unsigned S = 0; S < L.numSections(); ++S)
      if (!SectionNamed[S])
        return inputError(TripletsPath +
                          ": --trained-only: no triplet names an entity of "
                          "section '" +
                          L.sectionName(S) +
                          "', which would be empty (LLVM rejects that)");
  }
  return writeVocabulary(Output, C.layout(), Model->Entities);
}

static Error runConvert(const std::string &File, const std::string &Output,
                        bool Strict, bool Quiet) {
  if (Error E = irtk::support::checkNotAnInput(Output, {File}))
    return E;
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      irtk::support::readFile(File, "vocabulary");
  if (!Buf)
    return Buf.takeError();
  std::string Name = File == "-" ? "<stdin>" : File;
  Expected<LegacyVocabulary> L =
      parseLegacyVocabulary((*Buf)->getBuffer(), Name);
  if (!L)
    return L.takeError();
  if (Strict && !L->UnmappedKeys.empty())
    return inputError(Name + ": key '" + L->UnmappedKeys.front() +
                      "' names no LLVM 22 entity");
  for (const std::string &K : L->UnmappedKeys)
    WithColor::warning(errs(), ToolName)
        << Name << ": key '" << K << "' names no LLVM 22 entity (dropped)\n";
  unsigned Present = llvm::count_if(
      L->Vectors, [](const std::vector<double> &V) { return !V.empty(); });
  if (Present == 0)
    return inputError(Name + ": no key names an LLVM 22 entity");
  // LLVM 22's loaders reject an empty section: a section with no entry gets
  // explicit zero vectors, which is what its entities embed as anyway.
  for (JSONSectionKind S : {JSONSectionKind::Opcodes, JSONSectionKind::Types,
                            JSONSectionKind::Arguments}) {
    bool Any = false;
    for (EntityId Id = 0; Id < NumEntities; ++Id)
      Any |= jsonSectionOf(Id) == S && !L->Vectors[Id].empty();
    if (Any)
      continue;
    WithColor::warning(errs(), ToolName)
        << Name << ": no entry for section '" << jsonSectionName(S)
        << "'; its entities are written as zero vectors\n";
    for (EntityId Id = 0; Id < NumEntities; ++Id)
      if (jsonSectionOf(Id) == S)
        L->Vectors[Id].assign(L->Dimension, 0.0);
  }
  if (Error E = writeVocabulary(Output, *irLayout(), L->Vectors))
    return E;
  if (!Quiet)
    errs() << Name << ": converted " << Present << "/" << NumEntities
           << " entities, dimension " << L->Dimension << "; the other "
           << (NumEntities - Present) << " load as zero vectors\n";
  return Error::success();
}

/// Writes the binary form of \p File, read without weights, to \p Output
/// (default: beside it), atomically.
static Error runPack(const LayoutChoice &C, const std::string &File,
                     std::string Output, bool Quiet) {
  if (Output.empty())
    Output = Vocabulary::binaryPath(File);
  // Before anything is read: packing into the vocabulary would replace it.
  if (Error E = irtk::support::checkNotAnInput(Output, {File}))
    return E;
  Expected<std::unique_ptr<MemoryBuffer>> Buf = irtk::support::readFile(
      File, "vocabulary", irtk::support::ReadOptions::bytes());
  if (!Buf)
    return Buf.takeError();
  Expected<Vocabulary> V =
      Vocabulary::loadFromBuffer((*Buf)->getBuffer(), File, C.layoutPtr());
  if (!V)
    return V.takeError();
  if (Error E = irtk::support::writeOutputFile(Output, [&](raw_ostream &OS) {
        // A target's layout tables too: compilers loading this form then
        // check them rather than build the layout.
        // The JSON's time and id, so that a load need not hash it.
        V->writeBinary((*Buf)->getBuffer(), OS,
                       C.Target ? C.Target->tables() : std::string(),
                       Vocabulary::packStamp(File));
        return Error::success();
      }))
    return E;
  if (!Quiet)
    errs() << File << ": packed " << (V->size() - V->missingEntities().size())
           << "/" << V->size() << " entities of dimension " << V->dimension()
           << " into " << Output << "\n";
  return Error::success();
}

static ParseResult parseCommandLine(int Argc, char **Argv) {
  auto UsageError = [](const std::string &Msg) {
    return ParseResult::usageError(Msg);
  };
  VocabOptions O;
  if (std::optional<ParseResult> R =
          irtk::tools::readSubcommand<VocabOptions, CommandKind>(
              Argc, Argv, Usage,
              {{"validate", CommandKind::Validate},
               {"stats", CommandKind::Stats},
               {"diff", CommandKind::Diff},
               {"train", CommandKind::Train},
               {"convert", CommandKind::Convert},
               {"pack", CommandKind::Pack}},
              O.Command))
    return *R;

  std::string Distance = "L1", Mode = "llvm", Progress = "auto";
  // Counts are taken as text and checked by parseCountOption: Boost would
  // read "-1" as 2^32 - 1.
  std::string Dim, Epochs, BatchSize, Seed, Threads;
  TransEOptions &Train = O.Train;
  po::options_description Desc("Options");
  // clang-format off
  Desc.add_options()
    ("strict", po::bool_switch(&O.Strict),
     "Require all entities (validate), every key mapped (convert)")
    ("help,h", "Display usage")
    ("output,o", po::value<std::string>(&O.Output),
     "Output vocabulary (train, convert, pack)")
    ("dim", po::value<std::string>(&Dim), "Dimension (train)")
    ("epochs", po::value<std::string>(&Epochs), "Epochs (train)")
    ("lr", po::value<double>(&Train.LearningRate), "Learning rate (train)")
    ("margin", po::value<double>(&Train.Margin), "Margin (train)")
    ("batch-size", po::value<std::string>(&BatchSize), "Batch size (train)")
    ("distance", po::value<std::string>(&Distance), "L1 or L2 (train)")
    ("seed", po::value<std::string>(&Seed), "Random seed (train)")
    ("threads,j", po::value<std::string>(&Threads), "Threads (train)")
    ("mode", po::value<std::string>(&Mode),
     "llvm (LLVM IR, the default) or mir (machine IR)")
    ("mtriple", po::value<std::string>(&O.MTriple),
     "--mode=mir: the target (default: the host's)")
    ("trained-only", po::bool_switch(&O.TrainedOnly),
     "train: write only the entities the triplets name (the others load as "
     "zero vectors)")
    ("quiet,q", po::bool_switch(&O.Quiet),
     "No progress or summary lines (train, convert, pack)")
    ("progress", po::value<std::string>(&Progress),
     "train: status line on standard error: auto (in place on a terminal, "
     "else a line a second; the default), always or never")
    ("input", po::value<std::vector<std::string>>(&O.Files), "Input files");
  // clang-format on
  po::positional_options_description Pos;
  Pos.add("input", -1);
  bool Help = false;
  if (std::string Msg =
          irtk::tools::storeSubcommandArguments(Argc, Argv, Desc, Pos, Help);
      !Msg.empty())
    return UsageError(Msg);
  if (Help)
    return ParseResult::print(Usage);
  const std::vector<std::string> &Files = O.Files;
  if (Mode != "llvm" && Mode != "mir")
    return UsageError("invalid --mode '" + Mode + "'; expected llvm or mir");
  O.MIR = Mode == "mir";
  if (!O.MTriple.empty() && !O.MIR)
    return UsageError("--mtriple applies to --mode=mir only");
  if (O.MIR && O.Command == CommandKind::Convert)
    return UsageError("convert reads IR vocabularies only");
  if (O.TrainedOnly && O.Command != CommandKind::Train)
    return UsageError("--trained-only applies to train only");
  if (std::string Msg = irtk::tools::parseProgressOption(Progress, O.Progress);
      !Msg.empty())
    return UsageError(Msg);
  switch (O.Command) {
  case CommandKind::Train:
    if (Files.size() != 1)
      return UsageError("train takes exactly one triplets file");
    if (O.Output.empty())
      return UsageError("train needs -o <vocab.json>");
    if (Distance == "L1" || Distance == "l1")
      Train.Distance = DistanceKind::L1;
    else if (Distance == "L2" || Distance == "l2")
      Train.Distance = DistanceKind::L2;
    else
      return UsageError("invalid --distance '" + Distance +
                        "'; expected L1 or L2");
    for (auto [Option, Text, Min, Max, Slot] :
         {std::tuple<const char *, const std::string *, uint64_t, uint64_t,
                     unsigned *>{"--dim", &Dim, 1, 65536, &Train.Dimension},
          {"--epochs", &Epochs, 1, UINT32_MAX, &Train.Epochs},
          {"--batch-size", &BatchSize, 1, UINT32_MAX, &Train.BatchSize},
          {"--threads", &Threads, 0, 4096, &Train.Threads}})
      if (!Text->empty())
        if (std::string Msg =
                irtk::tools::parseCountOption(Option, *Text, Min, Max, *Slot);
            !Msg.empty())
          return UsageError(Msg);
    if (!Seed.empty())
      if (std::string Msg = irtk::tools::parseCountOption(
              "--seed", Seed, 0, UINT64_MAX, Train.Seed);
          !Msg.empty())
        return UsageError(Msg);
    if (!(Train.LearningRate > 0) || !std::isfinite(Train.LearningRate))
      return UsageError("invalid --lr; expected a positive number");
    if (!(Train.Margin >= 0) || !std::isfinite(Train.Margin))
      return UsageError("invalid --margin; expected a number from 0");
    return ParseResult::run(std::move(O));
  case CommandKind::Convert:
    if (Files.size() != 1)
      return UsageError("convert takes exactly one vocabulary file");
    if (O.Output.empty())
      return UsageError("convert needs -o <vocab.json>");
    return ParseResult::run(std::move(O));
  case CommandKind::Pack:
    if (O.Strict)
      return UsageError("--strict applies to validate and convert only");
    if (Files.size() != 1 || Files.front() == "-")
      return UsageError("pack takes exactly one vocabulary file (not "
                        "standard input: its binary form sits beside it)");
    return ParseResult::run(std::move(O));
  case CommandKind::Validate:
  case CommandKind::Diff:
  case CommandKind::Stats:
    break;
  }
  if (Files.empty())
    return UsageError("no vocabulary file given");
  if (O.Command == CommandKind::Validate)
    return ParseResult::run(std::move(O));
  if (O.Strict)
    return UsageError("--strict applies to validate only");
  if (O.Command == CommandKind::Diff && Files.size() != 2)
    return UsageError("diff takes exactly two vocabulary files");
  if (O.Command == CommandKind::Stats && Files.size() != 1)
    return UsageError("stats takes exactly one vocabulary file");
  return ParseResult::run(std::move(O));
}

static Error run(const VocabOptions &O) {
  Expected<LayoutChoice> C = LayoutChoice::make(O);
  if (!C)
    return C.takeError();
  switch (O.Command) {
  case CommandKind::Validate:
    return runValidate(*C, O.Files, O.Strict);
  case CommandKind::Stats:
    return runStats(*C, O.Files.front());
  case CommandKind::Diff:
    return runDiff(*C, O.Files[0], O.Files[1]);
  case CommandKind::Train:
    return runTrain(*C, O.Files.front(), O.Output, O.Train, O.Quiet, O.Progress,
                    O.TrainedOnly);
  case CommandKind::Convert:
    return runConvert(O.Files.front(), O.Output, O.Strict, O.Quiet);
  case CommandKind::Pack:
    return runPack(*C, O.Files.front(), O.Output, O.Quiet);
  }
  llvm_unreachable("unknown command");
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  return irtk::tools::runMain<VocabOptions>(ToolName,
                                            parseCommandLine(Argc, Argv), run);
}
