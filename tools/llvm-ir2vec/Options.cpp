//===- Options.cpp - llvm-ir2vec command line -----------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Boost.Program_options throws on bad input; every exception is caught here
/// and becomes a usage error, so none crosses into LLVM code.
///
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "irtk/support/Version.h"

#include "llvm/Support/FileSystem.h"

#include "BoostCommandLine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

namespace po = boost::program_options;

namespace irtk::cli {

static const char *const Overview =
    "OVERVIEW: IR2Vec Toolkit - embeddings of LLVM IR, drop-in for LLVM 22's "
    "llvm-ir2vec\n\n"
    "USAGE: llvm-ir2vec <triplets|entities|embeddings> [options] "
    "<input.ll|input.bc|-> ...\n\n"
    "SUBCOMMANDS:\n"
    "  embeddings  Generate embeddings using trained vocabulary\n"
    "  entities    Generate entity mappings for vocabulary training\n"
    "  triplets    Generate triplets for vocabulary training\n\n"
    "Several inputs are processed in parallel; output keeps input order.\n";

const char *const VersionText =
    "llvm-ir2vec (IR2Vec Toolkit) " IRTK_VERSION ", compatible with LLVM 22\n";

ParseResult parseCommandLine(int Argc, const char *const *Argv) {
  po::options_description Common("Options");
  // Every value is taken as text and checked below; an option given twice
  // keeps its last value, as LLVM's cl::opt does.
  auto Text = [] { return po::value<std::string>(); };
  // clang-format off
  Common.add_options()
    ("help,h", "Display available options")
    ("version", "Display the version of this program")
    ("output,o", Text(), "Output filename ('-' for standard output, the default)")
    ("mode", Text(), "Tool operation mode: llvm (LLVM IR, the default) or mir (machine IR, .mir files)")
    ("level", Text(), "Embedding generation level: inst, bb or func (default)")
    ("function", Text(), "Process this function only (symbol or demangled name)")
    ("format", Text(), "Output format of embeddings: text (upstream's, the default), jsonl, or npy (a store directory named by -o)")
    ("threads,j", Text(), "Threads for several inputs (default 0: all cores)")
    ("dedup", "triplets: drop triplets already written, across all inputs")
    ("progress", Text(), "Status line on standard error: auto (on a terminal, for several inputs; the default), always or never")
    ("openke-dir", Text(), "triplets: write OpenKE's train2id.txt, entity2id.txt and relation2id.txt into this directory (implies --dedup)")
    ("ir2vec-vocab-path", Text(), "Path to the vocabulary file for IR2Vec")
    ("vocab", Text(), "Same as --ir2vec-vocab-path")
    ("ir2vec-kind", Text(), "IR2Vec embedding kind: symbolic (default) or flow-aware")
    ("ir2vec-opc-weight", Text(), "Weight for opcode embeddings (default 1.0)")
    ("ir2vec-type-weight", Text(), "Weight for type embeddings (default 0.5)")
    ("ir2vec-arg-weight", Text(), "Weight for argument embeddings (default 0.2)")
    ("mir2vec-vocab-path", Text(), "Path to the vocabulary file for MIR2Vec")
    ("mir2vec-kind", Text(), "MIR2Vec embedding kind: symbolic (the only one)")
    ("mir2vec-opc-weight", Text(), "Weight for machine opcode embeddings (default 1.0)")
    ("mir2vec-common-operand-weight", Text(), "Weight for common operand embeddings (default 1.0)")
    ("mir2vec-reg-operand-weight", Text(), "Weight for register operand embeddings (default 1.0)")
    ("mtriple", Text(), "--mode=mir: the target triple, instead of the inputs' own")
    ("stop-after", Text(), "--mode=mir, LLVM IR inputs: lower through code generation up to and including this pass (<pass>[,<instance>], as llc takes it)")
    ("stop-before", Text(), "--mode=mir, LLVM IR inputs: lower through code generation up to this pass, excluded")
    ("opt-level,O", Text(), "--mode=mir, LLVM IR inputs: code generation level 0 to 3 (default 2, as llc)")
    ("input", po::value<std::vector<std::string>>(), "Input files ('-' for standard input, the default)");
  // clang-format on
  po::positional_options_description Positional;
  Positional.add("input", -1);

  auto Help = [&]() {
    std::ostringstream SS;
    SS << Overview << '\n' << Common;
    return ParseResult::print(SS.str());
  };

  if (Argc < 2)
    return ParseResult::usageError(
        "please specify a subcommand: triplets, entities, or embeddings");
  std::string Sub = Argv[1];
  if (Sub == "--help" || Sub == "-help" || Sub == "-h")
    return Help();
  if (Sub == "--version" || Sub == "-version")
    return ParseResult::print(VersionText);
  Options O;
  if (Sub == "triplets")
    O.Subcommand = SubcommandKind::Triplets;
  else if (Sub == "entities")
    O.Subcommand = SubcommandKind::Entities;
  else if (Sub == "embeddings")
    O.Subcommand = SubcommandKind::Embeddings;
  else
    return ParseResult::usageError(
        "unknown subcommand '" + Sub +
        "'; expected triplets, entities, or embeddings");

  std::map<std::string, std::string> Values;
  try {
    std::vector<std::string> Args(Argv + 2, Argv + Argc);
    po::parsed_options Parsed = tools::parseArguments(Args, Common, Positional);
    for (const po::option &Opt : Parsed.options) {
      if (Opt.string_key == "help")
        return Help();
      if (Opt.string_key == "version")
        return ParseResult::print(VersionText);
      if (Opt.string_key == "dedup")
        Values["dedup"] = "1";
      else if (Opt.string_key == "input")
        O.Inputs.insert(O.Inputs.end(), Opt.value.begin(), Opt.value.end());
      else if (!Opt.value.empty())
        Values[Opt.string_key == "vocab" ? "ir2vec-vocab-path"
                                         : Opt.string_key] = Opt.value.back();
    }
  } catch (const std::exception &E) {
    return ParseResult::usageError(E.what());
  }
  auto Get = [&](const char *Key, const char *Default) {
    auto It = Values.find(Key);
    return It == Values.end() ? std::string(Default) : It->second;
  };
  std::string Mode = Get("mode", "llvm"), Level = Get("level", "func"),
              Kind = Get("ir2vec-kind", "symbolic"),
              Format = Get("format", "text"), Threads = Get("threads", "0"),
              Progress = Get("progress", "auto");
  std::string OpcW = Get("ir2vec-opc-weight", ""),
              TypeW = Get("ir2vec-type-weight", ""),
              ArgW = Get("ir2vec-arg-weight", "");
  O.Output = Get("output", "-");
  O.FunctionName = Get("function", "");
  O.VocabPath = Get("ir2vec-vocab-path", "");
  O.OpenKEDir = Get("openke-dir", "");
  O.Dedup = Values.count("dedup") || !O.OpenKEDir.empty();
  if (O.Dedup && O.Subcommand != SubcommandKind::Triplets)
    return ParseResult::usageError(
        "--dedup and --openke-dir apply to the triplets subcommand only");
  if (!O.OpenKEDir.empty() && Values.count("output"))
    return ParseResult::usageError(
        "--openke-dir writes its own files; do not combine it with -o");
  if (std::string Msg =
          tools::parseCountOption("--threads", Threads, 0, 4096, O.Threads);
      !Msg.empty())
    return ParseResult::usageError(Msg);

  if (Mode == "mir")
    O.Mode = ModeKind::MIR;
  else if (Mode != "llvm")
    return ParseResult::usageError("invalid --mode '" + Mode +
                                   "'; expected llvm or mir");
  O.MIRVocabPath = Get("mir2vec-vocab-path", "");
  O.MTriple = Get("mtriple", "");
  if (std::string MK = Get("mir2vec-kind", "symbolic"); MK != "symbolic")
    return ParseResult::usageError("invalid --mir2vec-kind '" + MK +
                                   "'; expected symbolic");
  if (!O.MTriple.empty() && O.Mode != ModeKind::MIR)
    return ParseResult::usageError("--mtriple applies to --mode=mir only");
  O.Lowering.StopAfter = Get("stop-after", "");
  O.Lowering.StopBefore = Get("stop-before", "");
  for (const char *Name : {"stop-after", "stop-before", "opt-level"})
    if (Values.count(Name) && O.Mode != ModeKind::MIR)
      return ParseResult::usageError("--" + std::string(Name) +
                                     " applies to --mode=mir only");
  if (Values.count("stop-after") && Values.count("stop-before"))
    return ParseResult::usageError(
        "--stop-after and --stop-before exclude each other");
  if (std::string OL = Get("opt-level", "2");
      OL.size() == 1 && OL[0] >= '0' && OL[0] <= '3')
    O.Lowering.OptLevel = static_cast<llvm::CodeGenOptLevel>(OL[0] - '0');
  else
    return ParseResult::usageError("invalid -O '" + OL +
                                   "'; expected 0, 1, 2 or 3");
  std::optional<ir2vec::LevelKind> L = ir2vec::parseLevel(Level);
  if (!L)
    return ParseResult::usageError("invalid --level '" + Level +
                                   "'; expected inst, bb or func");
  O.Level = *L;
  std::optional<ir2vec::EmbeddingKind> K = ir2vec::parseEmbeddingKind(Kind);
  if (!K)
    return ParseResult::usageError("invalid --ir2vec-kind '" + Kind +
                                   "'; expected symbolic or flow-aware");
  O.Kind = *K;
  if (Format == "text")
    O.Format = FormatKind::Text;
  else if (Format == "jsonl")
    O.Format = FormatKind::JSONL;
  else if (Format == "npy")
    O.Format = FormatKind::Store;
  else
    return ParseResult::usageError("invalid --format '" + Format +
                                   "'; expected text, jsonl or npy");
  if (O.Format == FormatKind::Store &&
      O.Subcommand == SubcommandKind::Embeddings && O.Output == "-")
    return ParseResult::usageError(
        "--format=npy writes a store directory; name it with -o <dir>");
  if (Progress == "auto")
    O.Progress = ProgressModeKind::Auto;
  else if (Progress == "always")
    O.Progress = ProgressModeKind::Always;
  else if (Progress == "never")
    O.Progress = ProgressModeKind::Never;
  else
    return ParseResult::usageError("invalid --progress '" + Progress +
                                   "'; expected auto, always or never");
  std::string MOpcW = Get("mir2vec-opc-weight", ""),
              MCommonW = Get("mir2vec-common-operand-weight", ""),
              MRegW = Get("mir2vec-reg-operand-weight", "");
  for (auto [Name, Text, Slot] :
       {std::tuple<const char *, std::string *, float *>{
            "--ir2vec-opc-weight", &OpcW, &O.Weights.Opcode},
        {"--ir2vec-type-weight", &TypeW, &O.Weights.Type},
        {"--ir2vec-arg-weight", &ArgW, &O.Weights.Argument},
        {"--mir2vec-opc-weight", &MOpcW, &O.MIRWeights.Opcode},
        {"--mir2vec-common-operand-weight", &MCommonW,
         &O.MIRWeights.CommonOperand},
        {"--mir2vec-reg-operand-weight", &MRegW, &O.MIRWeights.Register}})
    if (!Text->empty()) {
      std::optional<float> W = vocab::parseWeight(*Text);
      if (!W)
        return ParseResult::usageError("invalid " + std::string(Name) + " '" +
                                       *Text + "'; expected a finite number");
      *Slot = *W;
    }

  if (O.Inputs.empty())
    O.Inputs.push_back("-");
  unsigned StdinUses = std::count(O.Inputs.begin(), O.Inputs.end(), "-");
  if (O.Subcommand == SubcommandKind::Embeddings &&
      (O.Mode == ModeKind::MIR ? O.MIRVocabPath : O.VocabPath) == "-")
    ++StdinUses;
  if (O.Subcommand != SubcommandKind::Entities && StdinUses > 1)
    return ParseResult::usageError("standard input ('-') given more than once");
  // --mode=mir without a vocabulary: the target's bundled one, once the
  // target is known.
  O.ExecutablePath = llvm::sys::fs::getMainExecutable(
      Argv[0], reinterpret_cast<void *>(&parseCommandLine));
  if (O.Mode == ModeKind::LLVM && O.Subcommand == SubcommandKind::Embeddings &&
      O.VocabPath.empty()) {
    // Without the option, the vocabulary bundled beside this binary.
    std::string Default = ir2vec::defaultVocabularyPath(O.ExecutablePath);
    if (!llvm::sys::fs::exists(Default))
      return ParseResult::usageError(
          "IR2Vec vocabulary file path not specified; You may need to set it "
          "using --ir2vec-vocab-path (no default vocabulary at '" +
          Default + "')");
    O.VocabPath = std::move(Default);
  }
  return ParseResult::run(std::move(O));
}

} // namespace irtk::cli
