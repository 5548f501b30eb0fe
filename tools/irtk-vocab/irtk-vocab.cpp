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
/// Exit status: 0 valid, 1 a file failed, 2 usage error.
///
//===----------------------------------------------------------------------===//

#include "irtk/vocab/Validation.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <boost/program_options.hpp>

#include <cmath>
#include <sstream>

namespace po = boost::program_options;
using namespace llvm;
using namespace irtk::vocab;

static constexpr const char *ToolName = "irtk-vocab";

static const char *const Usage =
    "USAGE: irtk-vocab validate [--strict] <vocab.json|-> ...\n"
    "       irtk-vocab stats <vocab.json|->\n"
    "       irtk-vocab diff <a.json> <b.json>\n\n"
    "validate  load each vocabulary with LLVM 22's rules and report problems\n"
    "          (--strict: also require all 110 entities)\n"
    "stats     print dimension, coverage per entity group, missing entities "
    "and\n"
    "          vector norms (weights applied, as the embedders see them)\n"
    "diff      per entity: cosine similarity and distance of the weighted\n"
    "          vectors of two vocabularies of one dimension, as tab-separated\n"
    "          lines, then a summary line\n";

static int usageError(const std::string &Msg) {
  WithColor::error(errs(), ToolName) << Msg << '\n';
  return 2;
}

static int runValidate(const std::vector<std::string> &Files, bool Strict) {
  int Status = 0;
  for (const std::string &F : Files) {
    Expected<Vocabulary> V = Vocabulary::loadFromFile(F);
    if (!V) {
      WithColor::error(errs(), ToolName) << toString(V.takeError()) << '\n';
      Status = 1;
      continue;
    }
    std::string Name = F == "-" ? "<stdin>" : F;
    for (const std::string &K : V->unknownKeys())
      WithColor::warning(errs(), ToolName)
          << Name << ": unknown key '" << K << "' (ignored)\n";
    if (V->missingEntities().size() == NumEntities)
      WithColor::warning(errs(), ToolName)
          << Name << ": no key names an LLVM 22 entity; every vector is zero\n";
    if (Strict) {
      if (Error E = checkComplete(*V, Name)) {
        WithColor::error(errs(), ToolName) << toString(std::move(E)) << '\n';
        Status = 1;
        continue;
      }
    }
    outs() << Name << ": OK, dimension " << V->dimension() << ", "
           << (NumEntities - V->missingEntities().size()) << "/" << NumEntities
           << " entities\n";
  }
  return Status;
}

static int runStats(const std::string &File) {
  Expected<Vocabulary> V = Vocabulary::loadFromFile(File);
  if (!V) {
    WithColor::error(errs(), ToolName) << toString(V.takeError()) << '\n';
    return 1;
  }
  VocabStats S = computeStats(*V);
  static const char *GroupNames[] = {"opcodes", "canonical types",
                                     "operand kinds", "predicates"};
  raw_ostream &OS = outs();
  OS << "file: " << (File == "-" ? "<stdin>" : File) << '\n';
  OS << "dimension: " << S.Dimension << '\n';
  OS << "entities: " << S.Present << "/" << NumEntities << '\n';
  for (unsigned G = 0; G < 4; ++G)
    OS << "  " << GroupNames[G] << ": " << S.GroupPresent[G] << "/"
       << S.GroupTotal[G] << '\n';
  std::vector<EntityId> Missing = V->missingEntities();
  OS << "missing:";
  for (EntityId Id : Missing)
    OS << ' ' << entityName(Id);
  OS << (Missing.empty() ? " none\n" : "\n");
  OS << "unknown keys:";
  for (const std::string &K : V->unknownKeys())
    OS << ' ' << K;
  OS << (V->unknownKeys().empty() ? " none\n" : "\n");
  if (S.Present) {
    OS << "norm min: " << format("%.6g", S.MinNorm) << " ("
       << entityName(S.MinNormEntity) << ")\n";
    OS << "norm max: " << format("%.6g", S.MaxNorm) << " ("
       << entityName(S.MaxNormEntity) << ")\n";
    OS << "norm mean: " << format("%.6g", S.MeanNorm) << '\n';
  }
  return 0;
}

static int runDiff(const std::string &FileA, const std::string &FileB) {
  Expected<Vocabulary> A = Vocabulary::loadFromFile(FileA);
  if (!A) {
    WithColor::error(errs(), ToolName) << toString(A.takeError()) << '\n';
    return 1;
  }
  Expected<Vocabulary> B = Vocabulary::loadFromFile(FileB);
  if (!B) {
    WithColor::error(errs(), ToolName) << toString(B.takeError()) << '\n';
    return 1;
  }
  Expected<std::vector<EntityDiff>> Diffs =
      compareVocabularies(*A, *B, FileA, FileB);
  if (!Diffs) {
    WithColor::error(errs(), ToolName) << toString(Diffs.takeError()) << '\n';
    return 1;
  }
  raw_ostream &OS = outs();
  OS << "entity\tid\tin_a\tin_b\tcosine\tdistance\n";
  unsigned Both = 0;
  double SumCos = 0, MinCos = 2;
  EntityId MinId = 0;
  for (const EntityDiff &D : *Diffs) {
    OS << entityName(D.Id) << '\t' << D.Id << '\t' << (D.InA ? "yes" : "no")
       << '\t' << (D.InB ? "yes" : "no") << '\t';
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
       << format("%.6f", MinCos) << " (" << entityName(MinId) << ")";
  OS << '\n';
  return 0;
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  if (Argc < 2)
    return usageError("please specify a command: validate, stats or diff");
  std::string Cmd = Argv[1];
  if (Cmd == "--help" || Cmd == "-h" || Cmd == "help") {
    outs() << Usage;
    return 0;
  }
  if (Cmd != "validate" && Cmd != "stats" && Cmd != "diff")
    return usageError("unknown command '" + Cmd +
                      "'; expected validate, stats or diff");

  bool Strict = false;
  std::vector<std::string> Files;
  po::options_description Desc("Options");
  Desc.add_options()("strict", po::bool_switch(&Strict),
                     "Require all entities (validate)")("help,h",
                                                        "Display usage")(
      "input", po::value<std::vector<std::string>>(&Files), "Vocabularies");
  po::positional_options_description Pos;
  Pos.add("input", -1);
  try {
    po::variables_map VM;
    std::vector<std::string> Args(Argv + 2, Argv + Argc);
    po::store(po::command_line_parser(Args).options(Desc).positional(Pos).run(),
              VM);
    if (VM.count("help")) {
      outs() << Usage;
      return 0;
    }
    po::notify(VM);
  } catch (const std::exception &E) {
    return usageError(E.what());
  }
  if (Files.empty())
    return usageError("no vocabulary file given");
  if (Cmd == "validate")
    return runValidate(Files, Strict);
  if (Strict)
    return usageError("--strict applies to validate only");
  if (Cmd == "diff") {
    if (Files.size() != 2)
      return usageError("diff takes exactly two vocabulary files");
    return runDiff(Files[0], Files[1]);
  }
  if (Files.size() != 1)
    return usageError("stats takes exactly one vocabulary file");
  return runStats(Files.front());
}
