//===- Options.cpp - llvm-ir2vec command line -----------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// llvm-ir2vec parses its command line with llvm::cl, as upstream's tool
/// does, so that every command line upstream takes means the same here:
/// response files, the generic options (--help-hidden, --help-list,
/// --print-all-options, ...), upstream's subcommands with their own options,
/// and every option libLLVM itself registers (the --ir2vec-* and --mir2vec-*
/// options among them, which are libLLVM's and are read from it here).
/// Errors found by llvm::cl print its messages and exit 1, as upstream.
///
/// The cl objects are the tool's only globals: they live in one
/// function-local static, read once by parseCommandLine into an Options
/// struct, which is all the rest of the tool sees.
///
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "irtk/support/Version.h"
#include "irtk/vocab/VocabularyPath.h"

#include "llvm/Analysis/IR2Vec.h"
#include "llvm/CodeGen/MIR2Vec.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

using namespace llvm;

namespace irtk::cli {

static const char *const Overview =
    "IR2Vec Toolkit - embeddings of LLVM IR and machine IR, a drop-in for "
    "LLVM 22's llvm-ir2vec\n"
    "Generates embeddings for LLVM IR or MIR, and triplets and entity maps "
    "for vocabulary training. Several inputs are processed in parallel; the "
    "output keeps input order.\n";

const char *const VersionText =
    "llvm-ir2vec (IR2Vec Toolkit) " IRTK_VERSION ", compatible with LLVM 22\n";

/// libLLVM's own string option \p Name (a cl::opt<std::string> there:
/// -ir2vec-vocab-path, -mir2vec-vocab-path, -stop-after, -stop-before).
static cl::opt<std::string> &libLLVMStringOption(StringRef Name) {
  cl::Option *O = cl::getRegisteredOptions().lookup(Name);
  if (!O)
    report_fatal_error("libLLVM has no -" + Name + " option");
  return *static_cast<cl::opt<std::string> *>(O);
}

namespace {

/// Upstream's subcommands and options, and ours. Upstream's -o and --mode
/// are top-level (every subcommand takes them), --level and --function
/// belong to embeddings; the options this toolkit adds belong to the
/// subcommands they serve, so that `<subcommand> --help` lists them there.
struct CommandLine {
  // Upstream's category and description, so --help groups as upstream's.
  cl::OptionCategory Common{"Common Options",
                            "Options applicable to both IR2Vec and MIR2Vec "
                            "modes"};
  cl::OptionCategory Toolkit{"IR2Vec Toolkit Options",
                             "Options this toolkit adds to upstream's"};

  cl::SubCommand Triplets{"triplets",
                          "Generate triplets for vocabulary training"};
  cl::SubCommand Entities{"entities",
                          "Generate entity mappings for vocabulary training"};
  cl::SubCommand Embeddings{"embeddings",
                            "Generate embeddings using trained vocabulary"};

  cl::list<std::string> Inputs{
      cl::Positional,
      cl::desc("<input bitcode/MIR file or '-' for stdin> ..."),
      cl::sub(Triplets),
      cl::sub(Entities),
      cl::sub(Embeddings),
      cl::cat(Common)};
  cl::list<std::string> InputOption{
      "input",
      cl::desc("Same as a positional input; may be repeated"),
      cl::value_desc("file"),
      cl::sub(Triplets),
      cl::sub(Entities),
      cl::sub(Embeddings),
      cl::cat(Toolkit)};

  cl::opt<std::string> Output{"o", cl::desc("Output filename"),
                              cl::value_desc("filename"), cl::init("-"),
                              cl::cat(Common)};
  cl::alias OutputLong{"output", cl::desc("Alias for -o"),
                       cl::aliasopt(Output)};
  cl::opt<ModeKind> Mode{
      "mode", cl::desc("Tool operation mode:"),
      cl::values(clEnumValN(ModeKind::LLVM, "llvm", "Process LLVM IR"),
                 clEnumValN(ModeKind::MIR, "mir", "Process Machine IR")),
      cl::init(ModeKind::LLVM), cl::cat(Common)};
  cl::alias Vocab{"vocab", cl::desc("Alias for --ir2vec-vocab-path"),
                  cl::aliasopt(libLLVMStringOption("ir2vec-vocab-path"))};

  cl::opt<std::string> Function{
      "function",
      cl::desc("Process specific function only (symbol or demangled name; "
               "triplets too, an extension)"),
      cl::value_desc("name"),
      cl::sub(Embeddings),
      cl::sub(Triplets),
      cl::cat(Common)};
  cl::opt<ir2vec::LevelKind> Level{
      "level",
      cl::desc("Embedding generation level:"),
      cl::values(clEnumValN(ir2vec::LevelKind::Instruction, "inst",
                            "Generate instruction-level embeddings"),
                 clEnumValN(ir2vec::LevelKind::BasicBlock, "bb",
                            "Generate basic block-level embeddings"),
                 clEnumValN(ir2vec::LevelKind::Function, "func",
                            "Generate function-level embeddings"),
                 clEnumValN(ir2vec::LevelKind::Module, "module",
                            "Generate module-level embeddings: the sum of "
                            "the function vectors (an extension)")),
      cl::init(ir2vec::LevelKind::Function),
      cl::sub(Embeddings),
      cl::cat(Common)};

  cl::opt<FormatKind> Format{
      "format",
      cl::desc("Output format:"),
      cl::values(
          clEnumValN(FormatKind::Text, "text", "Upstream's text (default)"),
          clEnumValN(FormatKind::JSONL, "jsonl",
                     "JSON lines, full-precision numbers"),
          clEnumValN(FormatKind::Store, "npy",
                     "A store directory named by -o (float32 .npy matrix "
                     "and index)")),
      cl::init(FormatKind::Text),
      cl::sub(Embeddings),
      cl::cat(Toolkit)};
  cl::opt<bool> Dedup{
      "dedup", cl::desc("Write each distinct triplet once, across all inputs"),
      cl::sub(Triplets), cl::cat(Toolkit)};
  cl::opt<std::string> OpenKEDir{
      "openke-dir",
      cl::desc("Write OpenKE's train2id.txt, entity2id.txt and "
               "relation2id.txt into this directory (implies --dedup)"),
      cl::value_desc("dir"), cl::sub(Triplets), cl::cat(Toolkit)};

  cl::opt<unsigned> Threads{
      "threads",
      cl::desc("Inputs processed at a time (default 0: one per core)"),
      cl::value_desc("n"),
      cl::init(0),
      cl::sub(Triplets),
      cl::sub(Entities),
      cl::sub(Embeddings),
      cl::cat(Toolkit)};
  cl::alias ThreadsShort{"j", cl::desc("Alias for --threads"),
                         cl::aliasopt(Threads), cl::Prefix};
  cl::opt<ProgressModeKind> Progress{
      "progress",
      cl::desc("Status line on standard error:"),
      cl::values(clEnumValN(ProgressModeKind::Auto, "auto",
                            "On a terminal, for several inputs (default)"),
                 clEnumValN(ProgressModeKind::Always, "always", "Always"),
                 clEnumValN(ProgressModeKind::Never, "never", "Never")),
      cl::init(ProgressModeKind::Auto),
      cl::sub(Triplets),
      cl::sub(Entities),
      cl::sub(Embeddings),
      cl::cat(Toolkit)};

  // --mode=mir. --stop-after and --stop-before are libLLVM's own.
  cl::opt<std::string> MTriple{
      "mtriple",
      cl::desc("--mode=mir: the target triple, instead of the inputs' own"),
      cl::value_desc("triple"),
      cl::sub(Triplets),
      cl::sub(Entities),
      cl::sub(Embeddings),
      cl::cat(Toolkit)};
  cl::opt<unsigned> OptLevel{
      "O",
      cl::desc("--mode=mir, LLVM IR inputs: code generation level 0 to 3 "
               "(default 2, as llc)"),
      cl::value_desc("n"),
      cl::init(2),
      cl::Prefix,
      cl::sub(Triplets),
      cl::sub(Entities),
      cl::sub(Embeddings),
      cl::cat(Toolkit)};
  cl::alias OptLevelLong{"opt-level", cl::desc("Alias for -O"),
                         cl::aliasopt(OptLevel)};

  cl::opt<std::string> &VocabPath = libLLVMStringOption("ir2vec-vocab-path");
  cl::opt<std::string> &MIRVocabPath =
      libLLVMStringOption("mir2vec-vocab-path");
  cl::opt<std::string> &StopAfter = libLLVMStringOption("stop-after");
  cl::opt<std::string> &StopBefore = libLLVMStringOption("stop-before");

  CommandLine() {
    cl::HideUnrelatedOptions({&Common, &Toolkit, &llvm::ir2vec::IR2VecCategory,
                              &llvm::mir2vec::MIR2VecCategory});
    cl::SetVersionPrinter([](raw_ostream &OS) { OS << VersionText; });
  }
};

} // namespace

static CommandLine &commandLine() {
  static CommandLine CL;
  return CL;
}

/// The inputs, positional or --input, in command-line order.
static std::vector<std::string> inputsInOrder(const CommandLine &CL) {
  std::vector<std::pair<unsigned, std::string>> All;
  for (size_t I = 0; I < CL.Inputs.size(); ++I)
    All.emplace_back(CL.Inputs.getPosition(I), CL.Inputs[I]);
  for (size_t I = 0; I < CL.InputOption.size(); ++I)
    All.emplace_back(CL.InputOption.getPosition(I), CL.InputOption[I]);
  llvm::stable_sort(All, llvm::less_first());
  std::vector<std::string> Paths;
  for (auto &P : All)
    Paths.push_back(std::move(P.second));
  return Paths;
}

ParseResult parseCommandLine(int Argc, const char *const *Argv) {
  CommandLine &CL = commandLine();
  // Prints llvm::cl's own errors and exits 1 on them; --help and --version
  // print and exit 0.
  cl::ParseCommandLineOptions(Argc, Argv, Overview);

  Options O;
  if (CL.Triplets)
    O.Subcommand = SubcommandKind::Triplets;
  else if (CL.Entities)
    O.Subcommand = SubcommandKind::Entities;
  else if (CL.Embeddings)
    O.Subcommand = SubcommandKind::Embeddings;
  else
    return ParseResult::usageError(
        "please specify a subcommand: triplets, entities, or embeddings");

  O.Inputs = inputsInOrder(CL);
  O.Output = CL.Output;
  O.Mode = CL.Mode;
  O.FunctionName = CL.Function;
  O.Level = CL.Level;
  O.Format = CL.Format;
  O.Threads = CL.Threads;
  O.Progress = CL.Progress;
  O.OpenKEDir = CL.OpenKEDir;
  O.Dedup = CL.Dedup || !O.OpenKEDir.empty();
  O.VocabPath = CL.VocabPath;
  O.MIRVocabPath = CL.MIRVocabPath;
  O.MTriple = CL.MTriple;
  O.Kind = llvm::ir2vec::IR2VecEmbeddingKind == IR2VecKind::FlowAware
               ? ir2vec::EmbeddingKind::FlowAware
               : ir2vec::EmbeddingKind::Symbolic;

  if (O.Level == ir2vec::LevelKind::Module && !O.FunctionName.empty())
    return ParseResult::usageError(
        "--level=module embeds whole modules; it takes no --function");
  if (!O.OpenKEDir.empty() && CL.Output.getNumOccurrences())
    return ParseResult::usageError(
        "--openke-dir writes its own files; do not combine it with -o");
  if (O.Threads > 4096)
    return ParseResult::usageError("invalid --threads '" +
                                   std::to_string(O.Threads) +
                                   "'; expected a number from 0 to 4096");

  // libLLVM's -stop-after/-stop-before: read here, and cleared so that
  // code generation stops there only once mir2vec::configureLowering has
  // checked the point (it sets them again).
  O.Lowering.StopAfter = CL.StopAfter;
  O.Lowering.StopBefore = CL.StopBefore;
  CL.StopAfter.setValue("");
  CL.StopBefore.setValue("");
  if (O.Mode != ModeKind::MIR) {
    if (!O.MTriple.empty())
      return ParseResult::usageError("--mtriple applies to --mode=mir only");
    if (CL.OptLevel.getNumOccurrences())
      return ParseResult::usageError("-O applies to --mode=mir only");
    // Upstream accepts libLLVM's options in every mode and ignores them.
    for (auto [Name, Value] : {std::pair<const char *, std::string &>{
                                   "stop-after", O.Lowering.StopAfter},
                               {"stop-before", O.Lowering.StopBefore}})
      if (!Value.empty())
        WithColor::warning(errs(), "llvm-ir2vec")
            << "--" << Name << " applies to --mode=mir only; ignored\n";
    O.Lowering.StopAfter.clear();
    O.Lowering.StopBefore.clear();
  }
  if (!O.Lowering.StopAfter.empty() && !O.Lowering.StopBefore.empty())
    return ParseResult::usageError(
        "--stop-after and --stop-before exclude each other");
  if (CL.OptLevel > 3)
    return ParseResult::usageError("invalid -O '" +
                                   std::to_string(CL.OptLevel) +
                                   "'; expected 0, 1, 2 or 3");
  O.Lowering.OptLevel = static_cast<CodeGenOptLevel>(CL.OptLevel.getValue());

  if (O.Format == FormatKind::Store &&
      O.Subcommand == SubcommandKind::Embeddings && O.Output == "-")
    return ParseResult::usageError(
        "--format=npy writes a store directory; name it with -o <dir>");

  // libLLVM's weights are cl::opt<float>: parsed as a double, stored as a
  // float, as the vocabulary applies them. What is not a finite float
  // would make every vector NaN or infinite.
  for (auto [Name, Opt, Slot] :
       {std::tuple<const char *, cl::opt<float> *, float *>{
            "--ir2vec-opc-weight", &llvm::ir2vec::OpcWeight, &O.Weights.Opcode},
        {"--ir2vec-type-weight", &llvm::ir2vec::TypeWeight, &O.Weights.Type},
        {"--ir2vec-arg-weight", &llvm::ir2vec::ArgWeight, &O.Weights.Argument},
        {"--mir2vec-opc-weight", &llvm::mir2vec::OpcWeight,
         &O.MIRWeights.Opcode},
        {"--mir2vec-common-operand-weight", &llvm::mir2vec::CommonOperandWeight,
         &O.MIRWeights.CommonOperand},
        {"--mir2vec-reg-operand-weight", &llvm::mir2vec::RegOperandWeight,
         &O.MIRWeights.Register}}) {
    float W = Opt->getValue();
    if (!std::isfinite(W))
      return ParseResult::usageError("invalid " + std::string(Name) + " '" +
                                     std::to_string(W) +
                                     "'; expected a finite number");
    *Slot = W;
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
  O.ExecutablePath = sys::fs::getMainExecutable(
      Argv[0], reinterpret_cast<void *>(&parseCommandLine));
  O.BundledVocabularyDir = vocab::bundledVocabularyDir(O.ExecutablePath);
  O.Tool = StringRef(VersionText).trim().str();
  if (O.Mode == ModeKind::LLVM && O.Subcommand == SubcommandKind::Embeddings) {
    // Without the option, the vocabulary bundled beside this binary.
    Expected<std::string> Path = vocab::resolveVocabularyPath(
        O.VocabPath, ir2vec::defaultVocabularyPath(O.ExecutablePath),
        [](StringRef Default) {
          return "IR2Vec vocabulary file path not specified; You may need to "
                 "set it using --ir2vec-vocab-path (no default vocabulary at "
                 "'" +
                 Default.str() + "')";
        });
    if (!Path)
      return ParseResult::usageError(toString(Path.takeError()));
    O.VocabPath = std::move(*Path);
  }
  return ParseResult::run(std::move(O));
}

} // namespace irtk::cli
