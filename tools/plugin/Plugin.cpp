//===- Plugin.cpp - irtk pass plugin for opt and clang --------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Maps the plugin's -irtk-* options onto the option structs of the
/// libraries and lets each component register its passes:
///   opt -load-pass-plugin=IRTKPlugin.so -passes='print<irtk-ir2vec>' ...
///   clang -O2 -fpass-plugin=IRTKPlugin.so -mllvm -irtk-vocab-path=V
///         -mllvm -irtk-record-embeddings=out.jsonl
///   llc -load-pass-plugin=IRTKPlugin.so -irtk-mir-after=virtregrewriter
///       -irtk-mir-print ...
/// (clang-22 loads pass plugins before it parses -mllvm options.) Machine
/// IR passes join the legacy code generation pipeline through a
/// TargetPassConfig callback, registered when the plugin is loaded.
///
//===----------------------------------------------------------------------===//

#include "irtk/advisors/EvictionAdvisor.h"
#include "irtk/advisors/InlineAdvisor.h"
#include "irtk/advisors/MLP.h"
#include "irtk/advisors/PipelineAdvisor.h"
#include "irtk/advisors/PipelineModel.h"
#include "irtk/ir2vec/PassRegistration.h"
#include "irtk/mir2vec/Passes.h"
#include "irtk/support/Version.h"
#include "irtk/vocab/Layout.h"
#include "irtk/vocab/Vocabulary.h"
#include "irtk/vocab/VocabularyPath.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/RegisterTargetPassConfigCallback.h"

#include <dlfcn.h>

using namespace llvm;
using namespace irtk::ir2vec;
using irtk::advisors::PolicyKind;
using irtk::advisors::PolicyOptions;

static cl::OptionCategory IRTKCategory("IR2Vec Toolkit (irtk) options");

static cl::opt<std::string> VocabPath("irtk-vocab-path",
                                      cl::desc("Path to the IR2Vec vocabulary"),
                                      cl::value_desc("file"),
                                      cl::cat(IRTKCategory));
namespace {
/// cl::opt<float>'s parser, refusing what is not a finite float (nan, inf,
/// 1e300) as llvm-ir2vec and the Python module do: such a weight would
/// record every embedding as [null, ...].
class WeightParser : public cl::parser<float> {
public:
  using cl::parser<float>::parser;
  bool parse(cl::Option &O, StringRef ArgName, StringRef Arg, float &Val) {
    std::optional<float> W = irtk::vocab::parseWeight(Arg);
    if (!W)
      return O.error("invalid value '" + Arg + "'; expected a finite number");
    Val = *W;
    return false;
  }
};
} // namespace

static cl::opt<float, false, WeightParser>
    OpcWeight("irtk-opc-weight", cl::init(1.0f),
              cl::desc("Weight for opcode embeddings"), cl::cat(IRTKCategory));
static cl::opt<float, false, WeightParser>
    TypeWeight("irtk-type-weight", cl::init(0.5f),
               cl::desc("Weight for type embeddings"), cl::cat(IRTKCategory));
static cl::opt<float, false, WeightParser>
    ArgWeight("irtk-arg-weight", cl::init(0.2f),
              cl::desc("Weight for argument embeddings"),
              cl::cat(IRTKCategory));
static cl::opt<EmbeddingKind>
    Kind("irtk-kind", cl::init(EmbeddingKind::Symbolic),
         cl::desc("IR2Vec embedding kind"),
         cl::values(clEnumValN(EmbeddingKind::Symbolic, "symbolic",
                               "Symbolic embeddings"),
                    clEnumValN(EmbeddingKind::FlowAware, "flow-aware",
                               "Flow-aware embeddings")),
         cl::cat(IRTKCategory));
static cl::opt<std::string> RecordFile(
    "irtk-record-embeddings",
    cl::desc("Append every defined function's embedding to this JSON-lines "
             "file while compiling"),
    cl::value_desc("file"), cl::cat(IRTKCategory));
static cl::opt<bool> RecordMetadata(
    "irtk-record-metadata",
    cl::desc("Attach every defined function's embedding as !irtk.embedding "
             "metadata while compiling"),
    cl::cat(IRTKCategory));

static cl::opt<RecordPointKind> RecordPoint(
    "irtk-record-point", cl::init(RecordPointKind::OptimizerLast),
    cl::desc("Where in the default pipeline embeddings are recorded"),
    cl::values(clEnumValN(RecordPointKind::PipelineStart, "pipeline-start",
                          "Before any optimization"),
               clEnumValN(RecordPointKind::OptimizerEarly, "optimizer-early",
                          "After simplification, before the optimizer"),
               clEnumValN(RecordPointKind::OptimizerLast, "optimizer-last",
                          "At the end of the optimizer")),
    cl::cat(IRTKCategory));

static cl::OptionCategory
    MIRCategory("IR2Vec Toolkit (irtk) machine IR options");

static cl::opt<std::string> MIRAfter(
    "irtk-mir-after",
    cl::desc("Embed machine functions after this pass of code generation "
             "(<pass>[,<instance>], as llc's -stop-after takes it)"),
    cl::value_desc("pass"), cl::cat(MIRCategory));
static cl::opt<bool>
    MIRPrint("irtk-mir-print",
             cl::desc("Print MIR2Vec embeddings to standard error (the text "
                      "of llvm-ir2vec embeddings --mode=mir)"),
             cl::cat(MIRCategory));
static cl::opt<std::string> MIRRecordFile(
    "irtk-mir-record-embeddings",
    cl::desc("Append MIR2Vec embeddings to this JSON-lines file (the lines "
             "of llvm-ir2vec embeddings --mode=mir --format=jsonl)"),
    cl::value_desc("file"), cl::cat(MIRCategory));
static cl::opt<irtk::support::LevelKind> MIRLevel(
    "irtk-mir-level", cl::init(irtk::support::LevelKind::Function),
    cl::desc("What -irtk-mir-print and -irtk-mir-record-embeddings embed"),
    cl::values(clEnumValN(irtk::support::LevelKind::Function, "func",
                          "Machine functions"),
               clEnumValN(irtk::support::LevelKind::BasicBlock, "bb",
                          "Machine basic blocks"),
               clEnumValN(irtk::support::LevelKind::Instruction, "inst",
                          "Machine instructions")),
    cl::cat(MIRCategory));
static cl::opt<std::string>
    MIRVocabPath("irtk-mir-vocab-path",
                 cl::desc("Path to the MIR2Vec vocabulary of the target"),
                 cl::value_desc("file"), cl::cat(MIRCategory));
static cl::opt<float, false, WeightParser>
    MIROpcWeight("irtk-mir-opc-weight", cl::init(1.0f),
                 cl::desc("Weight for machine opcodes"), cl::cat(MIRCategory));
static cl::opt<float, false, WeightParser>
    MIRCommonWeight("irtk-mir-common-operand-weight", cl::init(1.0f),
                    cl::desc("Weight for common machine operands"),
                    cl::cat(MIRCategory));
static cl::opt<float, false, WeightParser>
    MIRRegWeight("irtk-mir-reg-operand-weight", cl::init(1.0f),
                 cl::desc("Weight for register operands"),
                 cl::cat(MIRCategory));

static cl::OptionCategory
    InlineCategory("IR2Vec Toolkit (irtk) inline advisor options");

/// The options every advisor has, for advisor <name>: -irtk-<name>-policy,
/// -irtk-<name>-model, -irtk-<name>-channel, -irtk-<name>-channel-timeout
/// and -irtk-<name>-log.
class PolicyFlags {
public:
  /// \p What names what the advisor replaces ("the inliner's advisor").
  PolicyFlags(StringRef Name, StringRef What, cl::OptionCategory &Category)
      : Prefix(("irtk-" + Name + "-").str()), PolicyName(Prefix + "policy"),
        ModelName(Prefix + "model"), ChannelName(Prefix + "channel"),
        TimeoutName(Prefix + "channel-timeout"), LogName(Prefix + "log"),
        PolicyDesc(("Replace " + What +
                    " by irtk's, deciding by this policy "
                    "(without the option, it is stock)")
                       .str()),
        LogHelp("LLVM's heuristic decides (log it with -" + LogName + ")"),
        ModelHelp("The MLP of -" + ModelName + " decides"),
        ChannelHelp("A process at the pipes of -" + ChannelName + " decides"),
        Policy(StringRef(PolicyName), cl::desc(PolicyDesc),
               cl::values(clEnumValN(PolicyKind::Default, "default", LogHelp),
                          clEnumValN(PolicyKind::Model, "model", ModelHelp),
                          clEnumValN(PolicyKind::Interactive, "interactive",
                                     ChannelHelp)),
               cl::cat(Category)),
        Model(StringRef(ModelName),
              cl::desc("The model file of the model policy (irtk-mlp JSON; "
                       "required: irtk ships no default model)"),
              cl::value_desc("file"), cl::cat(Category)),
        Channel(StringRef(ChannelName),
                cl::desc("The interactive policy's pipes: <base>.in "
                         "(decisions) and <base>.out (features)"),
                cl::value_desc("base"), cl::cat(Category)),
        Timeout(StringRef(TimeoutName), cl::init(60),
                cl::desc("How long the interactive policy waits for its host "
                         "(to open the pipes, to read, to answer) before it "
                         "gives up with an error"),
                cl::value_desc("seconds"), cl::cat(Category)),
        Log(StringRef(LogName),
            cl::desc("Write every decision to this training log (LLVM's "
                     "format)"),
            cl::value_desc("file"), cl::cat(Category)) {}

  /// The options, or none when the advisor stays stock.
  std::optional<PolicyOptions> get() const {
    if (Policy.getNumOccurrences() == 0)
      return std::nullopt;
    PolicyOptions O;
    O.Kind = Policy;
    O.ModelPath = Model;
    O.InteractiveBase = Channel;
    O.ChannelTimeout = Timeout;
    O.LogPath = Log;
    O.OptionPrefix = "-" + Prefix;
    return O;
  }
  const std::string &model() const { return Model.getValue(); }

private:
  // The option machinery keeps references to names and descriptions.
  std::string Prefix, PolicyName, ModelName, ChannelName, TimeoutName, LogName,
      PolicyDesc, LogHelp, ModelHelp, ChannelHelp;
  cl::opt<PolicyKind> Policy;
  cl::opt<std::string> Model, Channel;
  cl::opt<unsigned> Timeout;
  cl::opt<std::string> Log;
};

static PolicyFlags InlineFlags("inline", "the inliner's advisor",
                               InlineCategory);
static cl::list<int> InlineTeachers(
    "irtk-inline-teachers", cl::CommaSeparated,
    cl::desc("Also log the decision of the stock heuristic under each of "
             "these -inline-threshold values (teacher_thr<N> features), for "
             "training by imitation of several baselines"),
    cl::value_desc("N,..."), cl::cat(InlineCategory));
static cl::opt<int> InlineFollow(
    "irtk-inline-follow",
    cl::desc("With the default policy, decide as the teacher of this "
             "threshold does (one of -irtk-inline-teachers)"),
    cl::value_desc("N"), cl::cat(InlineCategory));

static cl::opt<unsigned> InlineFlipAt(
    "irtk-inline-flip-at",
    cl::desc("With -irtk-inline-policy=default, take the opposite of the "
             "decision it would take (the default's, or the caller's teacher's "
             "under -irtk-inline-follow-callers) at the module's K-th decision "
             "(from 0) the policy is asked (for a search of better "
             "decisions)"),
    cl::value_desc("K"), cl::cat(InlineCategory));

static cl::opt<bool> InlineIncrementalEmbeddings(
    "irtk-inline-incremental-embeddings", cl::init(true), cl::Hidden,
    cl::desc("After an inlining, embed again only the caller's blocks it "
             "changed (symbolic; the same numbers as from scratch, which "
             "=false computes, for checking)"),
    cl::cat(InlineCategory));

static cl::opt<std::string> InlineFollowCallers(
    "irtk-inline-follow-callers",
    cl::desc("With -irtk-inline-policy=default, decide at the call sites in "
             "each caller a line of this file names (\"<threshold> "
             "<function>\") as that teacher does (for a search of better "
             "decisions)"),
    cl::value_desc("file"), cl::cat(InlineCategory));
static cl::opt<std::string> InlineDecisions(
    "irtk-inline-decisions",
    cl::desc("With -irtk-inline-policy=default, take the decision a line of "
             "this file gives (\"<0|1> <caller> <callee>\") at every call "
             "site from that caller to that callee (for a search of better "
             "decisions)"),
    cl::value_desc("file"), cl::cat(InlineCategory));
static cl::opt<std::string> InlineTrace(
    "irtk-inline-trace",
    cl::desc("Write one line per decision the inline policy was asked: its "
             "index, caller, callee and decision, tab-separated"),
    cl::value_desc("file"), cl::cat(InlineCategory));

/// The embedding features: none, or a kind of IR2Vec embedding.
enum class InlineEmbeddingKind { None, Symbolic, FlowAware };
static cl::opt<InlineEmbeddingKind> InlineEmbedding(
    "irtk-inline-embedding", cl::init(InlineEmbeddingKind::Symbolic),
    cl::desc("The inline advisor's embedding features (of the vocabulary of "
             "-irtk-vocab-path)"),
    cl::values(clEnumValN(InlineEmbeddingKind::None, "none",
                          "No embedding features"),
               clEnumValN(InlineEmbeddingKind::Symbolic, "symbolic",
                          "Symbolic IR2Vec embeddings"),
               clEnumValN(InlineEmbeddingKind::FlowAware, "flow-aware",
                          "Flow-aware IR2Vec embeddings")),
    cl::cat(InlineCategory));

static cl::OptionCategory
    PipelineCategory("IR2Vec Toolkit (irtk) size pipeline advisor options");

/// The size pipeline's policies (docs/Pipeline.md).
enum class PipelinePolicyKind { Default, Replay, Model };
static cl::opt<PipelinePolicyKind> PipelinePolicy(
    "irtk-pipeline-policy",
    cl::desc("Change clang's optimisation pipeline per module for size "
             "(without the option, it is stock)"),
    cl::values(clEnumValN(PipelinePolicyKind::Default, "default",
                          "Stock: the pipeline as it is"),
               clEnumValN(PipelinePolicyKind::Replay, "replay",
                          "Each module's choice from -irtk-pipeline-choices"),
               clEnumValN(PipelinePolicyKind::Model, "model",
                          "Each module's choice decided from the module by "
                          "-irtk-pipeline-model, else by the shipped "
                          "model")),
    cl::cat(PipelineCategory));
static cl::opt<std::string> PipelineChoices(
    "irtk-pipeline-choices",
    cl::desc("The replay policy's choices, per source file (written by "
             "python3 -m ir2vec.mlgo tune)"),
    cl::value_desc("file"), cl::cat(PipelineCategory));
static cl::opt<std::string> PipelineModelPath(
    "irtk-pipeline-model",
    cl::desc("The model policy's file (written by python3 -m ir2vec.mlgo "
             "learn --save or nearest --save; default: the shipped "
             "<prefix>/share/irtk/models/pipeline-oz.json); its module "
             "vectors use -irtk-vocab-path, else the bundled vocabulary"),
    cl::value_desc("file"), cl::cat(PipelineCategory));

static cl::OptionCategory
    EvictCategory("IR2Vec Toolkit (irtk) register-eviction advisor options");

static PolicyFlags
    EvictFlags("evict", "the greedy register allocator's eviction advisor",
               EvictCategory);
static cl::opt<bool> EvictEmbeddings(
    "irtk-evict-embeddings", cl::init(true),
    cl::desc("Add the MIR2Vec features (of -irtk-mir-vocab-path, or the "
             "target's bundled vocabulary); =false: LLVM's features only"),
    cl::cat(EvictCategory));

static cl::opt<unsigned> EvictDeviateAt(
    "irtk-evict-deviate-at",
    cl::desc("With -irtk-evict-policy=default, depart from the stock answer "
             "at this decision (from 0) of every function, as "
             "-irtk-evict-deviate-to says (for a search of better decisions)"),
    cl::value_desc("K"), cl::cat(EvictCategory));
static cl::opt<int> EvictDeviateTo(
    "irtk-evict-deviate-to", cl::init(-1),
    cl::desc("-1: evict nothing there (where allowed); J >= 0: evict for the "
             "J-th evictable candidate other than the stock choice"),
    cl::value_desc("J"), cl::cat(EvictCategory));

/// The file this plugin was loaded from, for finding the default vocabulary
/// beside it (looked up once: dladdr searches the loaded objects' tables).
static const std::string &pluginPath() {
  static const std::string Path = [] {
    Dl_info Info;
    if (!dladdr(reinterpret_cast<void *>(&pluginPath), &Info) ||
        !Info.dli_fname)
      return std::string();
    return std::string(Info.dli_fname);
  }();
  return Path;
}

/// The ir2vec options as the command line now sets them.
static std::vector<std::string> pluginInputs();

static PassOptions ir2vecOptions() {
  PassOptions O;
  O.Vocab.Path = VocabPath;
  if (const std::string &Self = pluginPath(); !Self.empty())
    O.Vocab.DefaultPath = defaultVocabularyPath(Self);
  O.Vocab.Weights.Opcode = OpcWeight;
  O.Vocab.Weights.Type = TypeWeight;
  O.Vocab.Weights.Argument = ArgWeight;
  O.Kind = Kind;
  O.RecordFile = RecordFile;
  O.RecordMetadata = RecordMetadata;
  O.RecordPoint = RecordPoint;
  O.Inputs = pluginInputs();
  return O;
}

/// The MIR vocabulary's weights as the command line sets them.
static irtk::mir2vec::Weights mirWeights() {
  irtk::mir2vec::Weights W;
  W.Opcode = MIROpcWeight;
  W.CommonOperand = MIRCommonWeight;
  W.Register = MIRRegWeight;
  return W;
}

/// The mir2vec options as the command line now sets them.
static irtk::mir2vec::CodeGenPassOptions mir2vecOptions() {
  irtk::mir2vec::CodeGenPassOptions O;
  O.After = MIRAfter;
  O.Print = MIRPrint;
  O.RecordFile = MIRRecordFile;
  O.Level = MIRLevel;
  O.VocabularyPath = MIRVocabPath;
  O.BinaryPath = pluginPath();
  O.VocabularyWeights = mirWeights();
  O.Inputs = pluginInputs();
  return O;
}

/// Every file the plugin's options name for reading, with the binary form
/// each model and vocabulary may have beside it: the plugin's outputs (logs,
/// the trace, recorded embeddings) must not be one of them.
static std::vector<std::string> pluginInputs() {
  std::vector<std::string> In;
  auto Add = [&](const std::string &P, const std::string &Binary) {
    if (P.empty())
      return;
    In.push_back(P);
    if (!Binary.empty())
      In.push_back(Binary);
  };
  for (const std::string &V : {VocabPath.getValue(), MIRVocabPath.getValue()})
    Add(V, irtk::vocab::Vocabulary::binaryPath(V));
  for (const std::string &M : {InlineFlags.model(), EvictFlags.model()})
    Add(M, irtk::advisors::MLPDescription::binaryPath(M));
  Add(InlineDecisions, "");
  Add(InlineFollowCallers, "");
  Add(PipelineChoices, "");
  return In;
}

/// Runs whenever llc or clang builds a code generation pipeline, after the
/// command line was parsed.
static RegisterTargetPassConfigCallback
    MIRPasses([](TargetMachine &TM, PassManagerBase &, TargetPassConfig *C) {
      if (MIRAfter.empty() && !MIRPrint && MIRRecordFile.empty())
        return;
      irtk::mir2vec::insertEmbeddingPass(TM, *C, mir2vecOptions());
    });

/// The eviction advisor's options, or none for the stock allocator.
static std::optional<irtk::advisors::EvictionAdvisorOptions> evictOptions() {
  std::optional<PolicyOptions> Policy = EvictFlags.get();
  if (!Policy)
    return std::nullopt;
  irtk::advisors::EvictionAdvisorOptions O;
  O.Policy = *Policy;
  O.Policy.Inputs = pluginInputs();
  O.Embeddings = EvictEmbeddings;
  if (EvictDeviateAt.getNumOccurrences())
    O.DeviateAt = EvictDeviateAt;
  O.DeviateTo = EvictDeviateTo;
  O.VocabularyPath = MIRVocabPath;
  O.BinaryPath = pluginPath();
  O.VocabularyWeights = mirWeights();
  return O;
}

/// Whether a code generation pipeline got the eviction advisor.
static bool EvictionAdvisorInserted = false;

/// Runs whenever llc or clang builds a code generation pipeline, before the
/// register allocator is added.
static RegisterTargetPassConfigCallback EvictionAdvisor(
    [](TargetMachine &TM, PassManagerBase &PM, TargetPassConfig *C) {
      if (std::optional<irtk::advisors::EvictionAdvisorOptions> O =
              evictOptions()) {
        irtk::advisors::insertEvictionAdvisor(TM, PM, *C, *O);
        EvictionAdvisorInserted = true;
      }
    });

/// The eviction advisor joins the legacy code generation pipeline only: llc
/// -enable-new-pm builds none (and a plugin cannot replace the new pass
/// manager's advisor analysis, which LLVM registers first), and nothing
/// tells a plugin that it runs there. So when the process ends, a run that
/// asked for the advisor under -enable-new-pm and never got it is told that
/// stock decided, rather than left to believe its policy did. The option is
/// looked up when the plugin is loaded: at exit, llvm_shutdown has emptied
/// the registry, but llc's option object itself still lives.
static cl::opt<bool> *newPassManagerOption() {
  auto &Options = cl::getRegisteredOptions();
  auto It = Options.find("enable-new-pm");
  return It == Options.end() ? nullptr
                             : dynamic_cast<cl::opt<bool> *>(It->second);
}
static struct NewPassManagerCodeGenCheck {
  cl::opt<bool> *NewPM = newPassManagerOption();
  ~NewPassManagerCodeGenCheck() {
    if (EvictionAdvisorInserted || !NewPM || !*NewPM || !EvictFlags.get())
      return;
    // Plain: at exit, llvm_shutdown has destroyed WithColor's options.
    errs() << "warning: irtk: -irtk-evict-policy applies to the legacy code "
              "generation pipeline only: under -enable-new-pm the stock "
              "eviction advisor decided\n";
  }
} CheckNewPassManagerCodeGen;

/// The inline advisor's options, or none for the stock inliner. Values the
/// advisor cannot take are reported when the first module is compiled.
static std::optional<irtk::advisors::InlineAdvisorOptions> inlineOptions() {
  std::optional<PolicyOptions> Policy = InlineFlags.get();
  if (!Policy)
    return std::nullopt;
  irtk::advisors::InlineAdvisorOptions O;
  O.Policy = *Policy;
  O.Policy.Inputs = pluginInputs();
  O.Vocab = ir2vecOptions().Vocab;
  for (int T : InlineTeachers)
    O.Teachers.push_back({T});
  if (InlineFollow.getNumOccurrences())
    O.Follow = InlineFollow;
  if (InlineFlipAt.getNumOccurrences())
    O.FlipAt = InlineFlipAt;
  O.IncrementalEmbeddings = InlineIncrementalEmbeddings;
  O.FollowCallersPath = InlineFollowCallers;
  O.DecisionsPath = InlineDecisions;
  O.TracePath = InlineTrace;
  switch (InlineEmbedding) {
  case InlineEmbeddingKind::None:
    O.Embedding.reset();
    break;
  case InlineEmbeddingKind::Symbolic:
    O.Embedding = EmbeddingKind::Symbolic;
    break;
  case InlineEmbeddingKind::FlowAware:
    O.Embedding = EmbeddingKind::FlowAware;
    break;
  }
  return O;
}

/// The pipeline advisor's options, or none for the stock pipeline.
static std::optional<irtk::advisors::PipelineAdvisorOptions> pipelineOptions() {
  if (PipelinePolicy.getNumOccurrences() == 0 ||
      PipelinePolicy == PipelinePolicyKind::Default)
    return std::nullopt;
  irtk::advisors::PipelineAdvisorOptions O;
  O.ChoicesPath = PipelineChoices;
  if (PipelinePolicy == PipelinePolicyKind::Model) {
    // A model without a file says so when the choices are read.
    O.Model = true;
    O.ModelPath = PipelineModelPath;
    O.VocabPath = VocabPath;
    if (const std::string &Self = pluginPath(); !Self.empty()) {
      O.ShippedModelPath = irtk::advisors::shippedPipelineModelPath(Self);
      if (O.VocabPath.empty())
        O.VocabPath = defaultVocabularyPath(Self);
    }
  }
  return O;
}

/// Each component registers its own passes; the plugin only combines them.
static void registerCallbacks(PassBuilder &PB) {
  irtk::ir2vec::registerPasses(PB, ir2vecOptions);
  irtk::advisors::registerInlineAdvisor(PB, inlineOptions);
  irtk::advisors::registerPipelineAdvisor(PB, pipelineOptions);
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "IR2VecToolkit", IRTK_VERSION,
          registerCallbacks};
}
