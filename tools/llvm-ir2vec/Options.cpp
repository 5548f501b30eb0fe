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

#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

static bool parseWeight(const std::string &S, float &Out) {
  const char *Begin = S.c_str();
  char *End = nullptr;
  double D = std::strtod(Begin, &End);
  if (S.empty() || *End != '\0' || !std::isfinite(D))
    return false;
  // As cl::opt<float>: parsed as double, stored as float.
  Out = static_cast<float>(D);
  return std::isfinite(Out);
}

ParseResult parseCommandLine(int Argc, const char *const *Argv) {
  po::options_description Common("Options");
  std::string Mode = "llvm", Level = "func", Kind = "symbolic", Format = "text";
  std::string OpcW, TypeW, ArgW;
  Options O;
  // clang-format off
  Common.add_options()
    ("help,h", "Display available options")
    ("version", "Display the version of this program")
    ("output,o", po::value<std::string>(&O.Output)->default_value("-"),
     "Output filename ('-' for standard output)")
    ("mode", po::value<std::string>(&Mode)->default_value("llvm"),
     "Tool operation mode: llvm (LLVM IR); mir is not supported yet")
    ("level", po::value<std::string>(&Level)->default_value("func"),
     "Embedding generation level: inst, bb or func")
    ("function", po::value<std::string>(&O.FunctionName),
     "Process this function only (symbol or demangled name)")
    ("format", po::value<std::string>(&Format)->default_value("text"),
     "Output format of embeddings: text (upstream's) or jsonl")
    ("threads,j", po::value<unsigned>(&O.Threads)->default_value(0),
     "Threads for several inputs (0: all cores)")
    ("ir2vec-vocab-path", po::value<std::string>(&O.VocabPath),
     "Path to the vocabulary file for IR2Vec")
    ("vocab", po::value<std::string>(&O.VocabPath),
     "Same as --ir2vec-vocab-path")
    ("ir2vec-kind", po::value<std::string>(&Kind)->default_value("symbolic"),
     "IR2Vec embedding kind: symbolic or flow-aware")
    ("ir2vec-opc-weight", po::value<std::string>(&OpcW),
     "Weight for opcode embeddings (default 1.0)")
    ("ir2vec-type-weight", po::value<std::string>(&TypeW),
     "Weight for type embeddings (default 0.5)")
    ("ir2vec-arg-weight", po::value<std::string>(&ArgW),
     "Weight for argument embeddings (default 0.2)")
    ("input", po::value<std::vector<std::string>>(&O.Inputs),
     "Input files");
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
    return ParseResult::print("llvm-ir2vec (IR2Vec Toolkit) 0.1.0, "
                              "compatible with LLVM 22\n");
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

  try {
    po::variables_map VM;
    std::vector<std::string> Args(Argv + 2, Argv + Argc);
    po::store(po::command_line_parser(Args)
                  .options(Common)
                  .positional(Positional)
                  .style(po::command_line_style::unix_style |
                         po::command_line_style::allow_long_disguise)
                  .run(),
              VM);
    if (VM.count("help"))
      return Help();
    po::notify(VM);
  } catch (const std::exception &E) {
    return ParseResult::usageError(E.what());
  }

  if (Mode == "mir")
    return ParseResult::usageError(
        "--mode=mir is not supported yet; only LLVM IR (--mode=llvm)");
  if (Mode != "llvm")
    return ParseResult::usageError("invalid --mode '" + Mode +
                                   "'; expected llvm or mir");
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
    O.Format = ir2vec::OutputFormatKind::Text;
  else if (Format == "jsonl")
    O.Format = ir2vec::OutputFormatKind::JSONL;
  else
    return ParseResult::usageError("invalid --format '" + Format +
                                   "'; expected text or jsonl");
  for (auto [Name, Text, Slot] :
       {std::tuple<const char *, std::string *, float *>{
            "--ir2vec-opc-weight", &OpcW, &O.Weights.Opcode},
        {"--ir2vec-type-weight", &TypeW, &O.Weights.Type},
        {"--ir2vec-arg-weight", &ArgW, &O.Weights.Argument}})
    if (!Text->empty() && !parseWeight(*Text, *Slot))
      return ParseResult::usageError("invalid " + std::string(Name) + " '" +
                                     *Text + "'; expected a finite number");

  if (O.Inputs.empty())
    O.Inputs.push_back("-");
  if (std::count(O.Inputs.begin(), O.Inputs.end(), "-") > 1)
    return ParseResult::usageError("standard input ('-') given more than once");
  if (O.Subcommand == SubcommandKind::Embeddings && O.VocabPath.empty())
    return ParseResult::usageError(
        "IR2Vec vocabulary file path not specified; You may need to set it "
        "using --ir2vec-vocab-path");
  return ParseResult::run(std::move(O));
}

} // namespace irtk::cli
