//===- irtk-train.cpp - Training the advisors' models from logs -----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// irtk-train dump LOG...                      print training logs
/// irtk-train fit --advisor A -o MODEL LOG...  train the model policy's MLP
/// irtk-train eval --model MODEL LOG...        agreement with the logs
/// irtk-train features --advisor A              the advisor's feature table
/// irtk-train es-start|es-candidates|es-update   evolution strategies steps
/// Logs are LLVM training logs, as -irtk-inline-log writes them; a
/// --logs-from file lists one log a line (relative to the list's
/// directory), optionally followed by a weight and a label feature.
/// Exit status: 0 success, 1 a file failed, 2 usage error (ToolMain.h).
///
//===----------------------------------------------------------------------===//

#include "irtk/advisors/Features.h"
#include "irtk/advisors/MLP.h"
#include "irtk/support/OutputFile.h"
#include "irtk/support/ReadFile.h"
#include "irtk/training/Evolution.h"
#include "irtk/training/Trainer.h"
#include "irtk/training/TrainingLog.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include "BoostCommandLine.h"
#include "ToolMain.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>

namespace po = boost::program_options;
using namespace llvm;
using namespace irtk::advisors;
using namespace irtk::training;

static constexpr const char *ToolName = "irtk-train";

/// The advisors' names as the usage line writes them: "inline|evict".
static std::string advisorChoices(StringRef Separator) {
  std::string Out;
  for (const AdvisorInfo &A : advisors())
    Out += (Out.empty() ? "" : Separator.str()) + A.Name.str();
  return Out;
}

static std::string usage() {
  std::string Advisors = advisorChoices("|");
  return "USAGE: irtk-train dump [--observations] <log> ...\n"
         "       irtk-train fit --advisor " +
         Advisors +
         " -o <model.json> <log> ...\n"
         "                  [--logs-from FILE] [--exclude F,...] [--include "
         "F,...]\n"
         "                  [--no-embeddings] [--hidden N,...] [--activation "
         "relu|tanh]\n"
         "                  [--epochs N] [--batch-size N] [--lr X] [--l2 X] "
         "[--seed N]\n"
         "                  [--label F] [--balance] [--departure-weight X]\n"
         "                  [--positional] [--support] [--ensemble K]\n"
         "                  [--default-margin X] [--quiet]\n"
         "       irtk-train eval --model <model.json> <log> ... [--logs-from "
         "FILE]\n"
         "                  [--default-margin X]\n"
         "       irtk-train features --advisor " +
         Advisors +
         "\n"
         "       irtk-train pack <model.json> [-o <model.json.bin>] "
         "[--quiet]\n"
         "       irtk-train es-start --model <model.json> -o "
         "<checkpoint.json>\n"
         "                  [--perturbations N] [--sigma X] [--step-size X]\n"
         "                  [--seed N] [--relative-noise] [--layers L,...]\n"
         "       irtk-train es-candidates --model <model.json> --checkpoint "
         "<checkpoint.json>\n"
         "                  -o <dir>\n"
         "       irtk-train es-update --checkpoint <checkpoint.json> "
         "--rewards <file>\n"
         "                  [--model <model.json>] [--quiet]\n"
         "Each command's options: irtk-train <command> --help.\n";
}

namespace {
enum class CommandKind {
  Dump,
  Fit,
  Eval,
  Features,
  Pack,
  ESStart,
  ESCandidates,
  ESUpdate
};

struct TrainOptions {
  CommandKind Command = CommandKind::Dump;
  std::vector<std::string> Logs;
  std::vector<double> Weights;
  /// Per log: the feature to learn as the label ("": the decision).
  std::vector<std::string> Labels;
  /// Read by run (a file that fails is exit status 1, not a usage error).
  std::string LogsFrom;
  std::string Output, Model, Advisor;
  bool Observations = false, Quiet = false, Support = false;
  DatasetOptions Data;
  TrainerOptions Train;
  std::optional<double> DefaultMargin;
  /// fit: the models fitted (seeds Seed, Seed + 1, ...) and averaged.
  unsigned Ensemble = 1;
  /// The evolution-strategies commands.
  std::string Checkpoint, Rewards;
  EvolutionOptions ES;
  /// es-start: the layers perturbed (indices; -1: the last); none: all.
  std::vector<int> ESLayers;
};
using ParseResult = irtk::tools::ParseResult<TrainOptions>;
} // namespace

/// The decision and output of each advisor's model.
static bool advisorDecision(StringRef Advisor, DatasetOptions &D) {
  const AdvisorInfo *A = findAdvisor(Advisor);
  if (!A)
    return false;
  D.Decision = A->Decision.str();
  D.Default = A->Default.str();
  D.Output = A->Output;
  D.Mask = A->Mask.str();
  return true;
}

static std::vector<std::string> splitList(StringRef S) {
  SmallVector<StringRef> Parts;
  S.split(Parts, ',', -1, /*KeepEmpty=*/false);
  std::vector<std::string> Out;
  for (StringRef P : Parts)
    Out.push_back(P.trim().str());
  return Out;
}

/// Appends the logs listed in \p Path: "<log> [<weight> [<label>]]" a
/// line, a relative <log> relative to the list's directory (to the working
/// directory for "-", standard input); blank lines and lines starting with
/// '#' are skipped.
static Error readLogList(StringRef Path, std::vector<std::string> &Logs,
                         std::vector<double> &Weights,
                         std::vector<std::string> &Labels) {
  auto Fail = [&](const Twine &Where, const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Path + Where + ": " + Msg);
  };
  // "-" is standard input (ReadOptions' default).
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      irtk::support::readFile(Path, "log list");
  if (!Buf)
    return Buf.takeError();
  StringRef Dir = Path == "-" ? "" : sys::path::parent_path(Path);
  SmallVector<StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].trim();
    if (L.empty() || L.starts_with("#"))
      continue;
    SmallVector<StringRef> Fields;
    L.split(Fields, ' ', -1, /*KeepEmpty=*/false);
    double W = 1.0;
    if (Fields.size() > 3)
      return Fail(":" + Twine(I + 1), "expected '<log> [<weight> [<label>]]'");
    if (Fields.size() > 1 &&
        (Fields[1].getAsDouble(W) || !std::isfinite(W) || W < 0))
      return Fail(":" + Twine(I + 1),
                  "bad weight '" + Fields[1] + "'; expected a number from 0");
    SmallString<256> Log(Fields[0]);
    if (sys::path::is_relative(Fields[0])) {
      Log = Dir;
      sys::path::append(Log, Fields[0]);
    }
    Logs.push_back(Log.str().str());
    Weights.push_back(W);
    Labels.push_back(Fields.size() > 2 ? Fields[2].str() : "");
  }
  return Error::success();
}

namespace {
/// The raw text of the options that are checked after parsing.
struct RawOptions {
  std::string Perturbations, Sigma, StepSize, Layers;
  std::string LogsFrom, Exclude, Include, Hidden, Activation = "relu", Label;
  std::string Epochs, BatchSize, Seed, Ensemble, DefaultMargin, LearningRate,
      L2;
  std::string DepartureWeight;
  bool NoEmbeddings = false;
  std::vector<std::string> Files;
};

/// The subcommands, by name.
const std::pair<StringRef, CommandKind> Commands[] = {
    {"dump", CommandKind::Dump},
    {"fit", CommandKind::Fit},
    {"eval", CommandKind::Eval},
    {"features", CommandKind::Features},
    {"pack", CommandKind::Pack},
    {"es-start", CommandKind::ESStart},
    {"es-candidates", CommandKind::ESCandidates},
    {"es-update", CommandKind::ESUpdate}};
} // namespace

static StringRef commandName(CommandKind K) {
  for (const auto &[Name, Kind] : Commands)
    if (Kind == K)
      return Name;
  return "";
}

/// The option table of command \p K: only its own options, stored into
/// \p O and \p R.
static po::options_description optionsOf(CommandKind K, TrainOptions &O,
                                         RawOptions &R) {
  using CK = CommandKind;
  auto In = [K](std::initializer_list<CK> Kinds) {
    return llvm::is_contained(Kinds, K);
  };
  TrainerOptions &T = O.Train;
  po::options_description Desc(("Options of " + commandName(K)).str());
  auto Add = Desc.add_options();
  Add("help,h", "Display usage");
  if (In({CK::Fit, CK::Pack, CK::ESStart, CK::ESCandidates}))
    Add("output,o", po::value<std::string>(&O.Output),
        K == CK::Fit       ? "Model to write"
        : K == CK::Pack    ? "Binary form to write (default: beside the model)"
        : K == CK::ESStart ? "Checkpoint to write"
                           : "Directory of the candidate models");
  if (In({CK::Eval, CK::ESStart, CK::ESCandidates, CK::ESUpdate}))
    Add("model", po::value<std::string>(&O.Model),
        K == CK::Eval       ? "Model to evaluate"
        : K == CK::ESUpdate ? "Model to check the next candidates against"
                            : "Model to search from");
  if (In({CK::Fit, CK::Features}))
    Add("advisor", po::value<std::string>(&O.Advisor),
        ("The advisor: " + advisorChoices(" or ")).c_str());
  if (In({CK::Dump, CK::Fit, CK::Eval})) {
    Add("logs-from", po::value<std::string>(&R.LogsFrom),
        "File listing logs, one '<log> [<weight> [<label>]]' a line (a "
        "relative <log> is relative to the file's directory)");
  }
  if (K == CK::Fit) {
    Add("exclude", po::value<std::string>(&R.Exclude),
        "Features not to learn from");
    Add("include", po::value<std::string>(&R.Include),
        "The only features to learn from");
    Add("label", po::value<std::string>(&R.Label),
        "Learn this feature (a teacher's decision) rather than the decision, "
        "for the logs on the command line");
    Add("no-embeddings", po::bool_switch(&R.NoEmbeddings),
        "Exclude the advisor's embedding features");
    Add("hidden", po::value<std::string>(&R.Hidden),
        "Hidden layer sizes, e.g. 64,32 (default 64,32)");
    Add("activation", po::value<std::string>(&R.Activation), "relu or tanh");
    Add("epochs", po::value<std::string>(&R.Epochs), "Epochs (default 20)");
    Add("batch-size", po::value<std::string>(&R.BatchSize),
        "Examples per step (default 128)");
    Add("lr", po::value<std::string>(&R.LearningRate), "Adam's step size");
    Add("l2", po::value<std::string>(&R.L2), "Weight decay");
    Add("balance", po::bool_switch(&T.BalanceClasses),
        "Weigh yes and no decisions equally (a yes/no advisor)");
    Add("departure-weight", po::value<std::string>(&R.DepartureWeight),
        "Weigh the decisions that depart from the default one X times the "
        "others (default 1)");
    Add("support", po::bool_switch(&O.Support),
        "Let the model depart from the default decision only in states "
        "within the ranges of the training departures' one-element features "
        "(needs --default-margin)");
    Add("ensemble", po::value<std::string>(&R.Ensemble),
        "Fit K models, with seeds N to N + K - 1, and write their average "
        "as one network (default 1)");
    Add("positional", po::bool_switch(&T.Positional),
        "Score each candidate position with the same network (a choice "
        "among positions)");
  }
  if (In({CK::Fit, CK::ESStart}))
    Add("seed", po::value<std::string>(&R.Seed), "Random seed");
  if (In({CK::Fit, CK::Eval}))
    Add("default-margin", po::value<std::string>(&R.DefaultMargin),
        K == CK::Fit ? "Keep the default choice unless another scores more "
                       "than X above it (written in the model)"
                     : "The margin to decide with, instead of the model's");
  if (K == CK::Dump)
    Add("observations", po::bool_switch(&O.Observations),
        "Print every observation");
  if (In({CK::Fit, CK::Pack, CK::ESUpdate}))
    Add("quiet,q", po::bool_switch(&O.Quiet), "No progress lines");
  if (In({CK::ESCandidates, CK::ESUpdate}))
    Add("checkpoint", po::value<std::string>(&O.Checkpoint),
        "Evolution strategies' state");
  if (K == CK::ESUpdate)
    Add("rewards", po::value<std::string>(&O.Rewards),
        "One reward a line, in the candidates' order");
  if (K == CK::ESStart) {
    Add("perturbations", po::value<std::string>(&R.Perturbations),
        "Perturbed models per step, even (default 100)");
    Add("sigma", po::value<std::string>(&R.Sigma),
        "The perturbations' standard deviation (default 0.025, for a warm "
        "start; MLGO's cold start: 0.5)");
    Add("step-size", po::value<std::string>(&R.StepSize),
        "Adam's step size on the estimated gradient (default 0.01; MLGO's "
        "cold start: 0.5)");
    Add("relative-noise", po::bool_switch(&O.ES.RelativeNoise),
        "Scale each weight's noise by its magnitude");
    Add("layers", po::value<std::string>(&R.Layers),
        "Perturb only these layers' weights and biases: indices from 0, or "
        "'last' (default all)");
  }
  // Every command has the positional inputs, so that one given inputs it
  // does not take says so (the es-* commands, features).
  Add("input", po::value<std::vector<std::string>>(&R.Files),
      K == CK::Pack ? "Model" : "Logs");
  return Desc;
}

/// The commands other than \p K that have option \p Name ("--x" or "-x").
static std::vector<StringRef> commandsWith(StringRef Name, CommandKind K) {
  std::vector<StringRef> Out;
  Name = Name.ltrim('-');
  for (const auto &[CmdName, Kind] : Commands) {
    TrainOptions O;
    RawOptions R;
    if (Kind != K && optionsOf(Kind, O, R).find_nothrow(Name.str(), false))
      Out.push_back(CmdName);
  }
  return Out;
}

static ParseResult parseCommandLine(int Argc, char **Argv) {
  auto UsageError = [](const std::string &Msg) {
    return ParseResult::usageError(Msg);
  };
  TrainOptions O;
  std::string Usage = usage();
  if (std::optional<ParseResult> R =
          irtk::tools::readSubcommand<TrainOptions, CommandKind>(
              Argc, Argv, Usage, Commands, O.Command))
    return *R;

  RawOptions Raw;
  auto &[Perturbations, Sigma, StepSize, Layers, LogsFrom, Exclude, Include,
         Hidden, Activation, Label, Epochs, BatchSize, Seed, Ensemble,
         DefaultMargin, LearningRate, L2, DepartureWeight, NoEmbeddings,
         Files] = Raw;
  TrainerOptions &T = O.Train;
  po::options_description Desc = optionsOf(O.Command, O, Raw);
  po::positional_options_description Pos;
  Pos.add("input", -1);
  bool Help = false;
  if (std::string Msg =
          irtk::tools::storeSubcommandArguments(Argc, Argv, Desc, Pos, Help,
                                                /*RefuseEmptyValues=*/true);
      !Msg.empty()) {
    // An option of another command says whose it is.
    StringRef Unknown = StringRef(Msg);
    if (Unknown.consume_front("unrecognised option '") &&
        Unknown.consume_back("'"))
      if (std::vector<StringRef> Owners = commandsWith(Unknown, O.Command);
          !Owners.empty())
        return UsageError(Unknown.str() + " is not an option of " +
                          commandName(O.Command).str() + " (it is of " +
                          join(Owners, ", ") + ")");
    return UsageError(Msg);
  }
  if (Help) {
    std::ostringstream OS;
    OS << Desc;
    return ParseResult::print(Usage + "\n" + OS.str());
  }
  if (!DefaultMargin.empty()) {
    double X = 0;
    if (StringRef(DefaultMargin).getAsDouble(X) || !std::isfinite(X) || X < 0)
      return UsageError("invalid --default-margin '" + DefaultMargin +
                        "'; expected a number from 0");
    O.DefaultMargin = X;
  }
  if (!DepartureWeight.empty() &&
      (StringRef(DepartureWeight).getAsDouble(T.DepartureWeight) ||
       !std::isfinite(T.DepartureWeight) || !(T.DepartureWeight > 0)))
    return UsageError("invalid --departure-weight '" + DepartureWeight +
                      "'; expected a positive number");
  for (const std::string &F : Files) {
    O.Logs.push_back(F);
    O.Weights.push_back(1.0);
    O.Labels.push_back(Label);
  }
  O.LogsFrom = LogsFrom;
  for (const std::string &L : splitList(Layers)) {
    unsigned N = 0;
    if (L == "last")
      O.ESLayers.push_back(-1);
    else if (std::string Msg =
                 irtk::tools::parseCountOption("--layers", L, 0, 1023, N);
             !Msg.empty())
      return UsageError(Msg + " (or 'last')");
    else
      O.ESLayers.push_back(static_cast<int>(N));
  }
  if (!Layers.empty() && O.ESLayers.empty())
    return UsageError("invalid --layers '" + Layers +
                      "'; expected layer indices or 'last'");
  if (O.Command == CommandKind::ESStart ||
      O.Command == CommandKind::ESCandidates ||
      O.Command == CommandKind::ESUpdate) {
    if (!Files.empty() || !LogsFrom.empty())
      return UsageError("the es-* commands take no training log");
    auto Positive = [&](const std::string &Name, const std::string &Text,
                        double &Out) -> std::string {
      if (!Text.empty() && (StringRef(Text).getAsDouble(Out) ||
                            !std::isfinite(Out) || !(Out > 0)))
        return "invalid " + Name + " '" + Text +
               "'; expected a positive number";
      return "";
    };
    if (std::string Msg = Positive("--sigma", Sigma, O.ES.Sigma); !Msg.empty())
      return UsageError(Msg);
    if (std::string Msg = Positive("--step-size", StepSize, O.ES.StepSize);
        !Msg.empty())
      return UsageError(Msg);
    if (!Perturbations.empty()) {
      unsigned N = 0;
      if (std::string Msg = irtk::tools::parseCountOption(
              "--perturbations", Perturbations, 2, 1 << 20, N);
          !Msg.empty())
        return UsageError(Msg);
      if (N % 2)
        return UsageError("invalid --perturbations '" + Perturbations +
                          "'; expected an even number (each direction is "
                          "tried both ways)");
      O.ES.Perturbations = N;
    }
    if (!Seed.empty())
      if (std::string Msg = irtk::tools::parseCountOption(
              "--seed", Seed, 0, std::numeric_limits<int64_t>::max(),
              O.ES.Seed);
          !Msg.empty())
        return UsageError(Msg);
    if (O.Command == CommandKind::ESStart &&
        (O.Model.empty() || O.Output.empty()))
      return UsageError("es-start needs --model <model.json> and -o "
                        "<checkpoint.json>");
    if (O.Command == CommandKind::ESCandidates &&
        (O.Model.empty() || O.Checkpoint.empty() || O.Output.empty()))
      return UsageError("es-candidates needs --model <model.json>, "
                        "--checkpoint <checkpoint.json> and -o <dir>");
    if (O.Command == CommandKind::ESUpdate &&
        (O.Checkpoint.empty() || O.Rewards.empty()))
      return UsageError("es-update needs --checkpoint <checkpoint.json> and "
                        "--rewards <file>");
    return ParseResult::run(std::move(O));
  }
  if (O.Command == CommandKind::Features) {
    if (!findAdvisor(O.Advisor))
      return UsageError("features needs --advisor " +
                        advisorChoices(" or --advisor "));
    if (!O.Logs.empty() || !O.LogsFrom.empty())
      return UsageError("features takes no training log");
    return ParseResult::run(std::move(O));
  }
  if (O.Command == CommandKind::Pack) {
    if (Files.size() != 1 || !LogsFrom.empty())
      return UsageError("pack takes exactly one model file (not " +
                        std::to_string(Files.size() + !LogsFrom.empty()) + ")");
    O.Model = Files.front();
    return ParseResult::run(std::move(O));
  }
  if (O.Logs.empty() && O.LogsFrom.empty())
    return UsageError("no training log given");

  if (O.Command == CommandKind::Dump)
    return ParseResult::run(std::move(O));
  if (O.Command == CommandKind::Eval) {
    if (O.Model.empty())
      return UsageError("eval needs --model <model.json>");
    return ParseResult::run(std::move(O));
  }
  if (O.Output.empty())
    return UsageError("fit needs -o <model.json>");
  if (!advisorDecision(O.Advisor, O.Data))
    return UsageError("fit needs --advisor " +
                      advisorChoices(" or --advisor "));
  if (T.Positional && O.Data.Output != OutputKind::ArgMax)
    return UsageError("--positional needs a choice among positions "
                      "(--advisor evict)");
  if (O.Support && DefaultMargin.empty())
    return UsageError("--support needs --default-margin (it says where the "
                      "model may depart from the default decision)");
  if (O.Support && T.Positional)
    return UsageError("--support and --positional do not mix");
  O.Data.Exclude = splitList(Exclude);
  O.Data.Include = splitList(Include);
  // A model that reads what it learns only copies it (and agrees 100%).
  for (const std::string &F : O.Data.Include)
    if (F == O.Data.Decision || F == Label)
      return UsageError("invalid --include: '" + F + "' is the " +
                        (F == Label ? "--label" : "decision") +
                        " the model learns, not an input");
  if (NoEmbeddings)
    for (StringRef F : findAdvisor(O.Advisor)->Embeddings)
      O.Data.Exclude.push_back(F.str());
  if (!O.Data.Include.empty() && !O.Data.Exclude.empty())
    return UsageError("--include and --exclude/--no-embeddings do not mix");
  if (!Hidden.empty()) {
    T.Hidden.clear();
    for (const std::string &H : splitList(Hidden)) {
      unsigned N = 0;
      if (std::string Msg =
              irtk::tools::parseCountOption("--hidden", H, 1, 4096, N);
          !Msg.empty())
        return UsageError(Msg);
      T.Hidden.push_back(N);
    }
  }
  if (Activation == "relu")
    T.Activation = ActivationKind::ReLU;
  else if (Activation == "tanh")
    T.Activation = ActivationKind::Tanh;
  else
    return UsageError("invalid --activation '" + Activation +
                      "'; expected relu or tanh");
  for (auto [Option, Text, Min, Max, Slot] :
       {std::tuple<const char *, const std::string *, uint64_t, uint64_t,
                   unsigned *>{"--epochs", &Epochs, 1, 100000, &T.Epochs},
        {"--batch-size", &BatchSize, 1, 1 << 20, &T.BatchSize}})
    if (!Text->empty())
      if (std::string Msg =
              irtk::tools::parseCountOption(Option, *Text, Min, Max, *Slot);
          !Msg.empty())
        return UsageError(Msg);
  if (!Seed.empty())
    if (std::string Msg = irtk::tools::parseCountOption("--seed", Seed, 0,
                                                        UINT64_MAX, T.Seed);
        !Msg.empty())
      return UsageError(Msg);
  if (!Ensemble.empty())
    if (std::string Msg = irtk::tools::parseCountOption("--ensemble", Ensemble,
                                                        1, 64, O.Ensemble);
        !Msg.empty())
      return UsageError(Msg);
  // Finite: a step size of inf or a decay of nan makes every weight nan.
  if (!LearningRate.empty() &&
      (StringRef(LearningRate).getAsDouble(T.LearningRate) ||
       !std::isfinite(T.LearningRate) || !(T.LearningRate > 0)))
    return UsageError("invalid --lr '" + LearningRate +
                      "'; expected a positive number");
  if (!L2.empty() &&
      (StringRef(L2).getAsDouble(T.L2) || !std::isfinite(T.L2) || !(T.L2 >= 0)))
    return UsageError("invalid --l2 '" + L2 + "'; expected a number from 0");
  return ParseResult::run(std::move(O));
}

static void dumpLog(const TrainingLog &L, StringRef Name, bool Observations) {
  outs() << "log: " << Name << "\n";
  for (const TensorSpec &S : L.features()) {
    outs() << "feature: " << S.name() << " "
           << (S.isElementType<float>()     ? "float"
               : S.isElementType<double>()  ? "double"
               : S.isElementType<int64_t>() ? "int64_t"
               : S.isElementType<int32_t>() ? "int32_t"
                                            : "other")
           << " [";
    ListSeparator LS(",");
    for (int64_t D : S.shape())
      outs() << LS << D;
    outs() << "]\n";
  }
  if (L.score())
    outs() << "score: " << L.score()->name() << "\n";
  outs() << "contexts: " << L.contexts().size()
         << "\nobservations: " << L.observations().size() << "\n";
  if (!Observations)
    return;
  size_t Last = SIZE_MAX;
  for (size_t I = 0; I < L.observations().size(); ++I) {
    const TrainingLog::Observation &O = L.observations()[I];
    if (O.Context != Last)
      outs() << "context: " << L.contexts()[O.Context] << "\n";
    Last = O.Context;
    outs() << "observation: " << I << "\n";
    for (size_t F = 0; F < L.features().size(); ++F) {
      outs() << "  " << L.features()[F].name() << ":";
      for (size_t E = 0; E < L.features()[F].getElementCount(); ++E)
        outs() << (E ? "," : " ") << L.value(O, F, E);
      outs() << "\n";
    }
    if (O.Score)
      outs() << "  " << L.score()->name() << ": " << *O.Score << "\n";
  }
}

/// The advisor's feature table as docs/AdvisorFeatures.md shows it.
static void printFeatures(const AdvisorInfo &A) {
  outs() << "| feature | type | shape | normalised | meaning |\n"
         << "|---|---|---|---|---|\n";
  for (const FeatureRow &F : A.Features)
    outs() << "| `" << F.Name << "` | `" << F.Type << "` | `" << F.Shape
           << "` | " << (F.Normalised ? "yes" : "no") << " | " << F.Doc
           << " |\n";
}

static Expected<EvolutionStrategies> loadCheckpoint(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      irtk::support::readFile(Path, "checkpoint");
  if (!Buf)
    return Buf.takeError();
  return EvolutionStrategies::load((*Buf)->getBuffer(), Path);
}

static Error writeCheckpoint(StringRef Path, const EvolutionStrategies &ES) {
  return irtk::support::writeOutputFile(Path, [&](raw_ostream &OS) {
    ES.save(OS);
    return Error::success();
  });
}

/// Writes the binary form of the model file whose text is \p Text (named
/// \p Name) to \p Output: the description that loading the text gives.
static Error packModel(StringRef Text, StringRef Name, StringRef Output) {
  Expected<MLPDescription> D = MLPDescription::parse(Text, Name);
  if (!D)
    return D.takeError();
  return irtk::support::writeOutputFile(Output, [&](raw_ostream &OS) {
    D->writeBinary(Text, OS);
    return Error::success();
  });
}

/// Writes \p M to \p Path and, when the file there had a binary form
/// (pack), that form again: a model rewritten in place never leaves a
/// stale binary form for compilers to refuse. Both appear or neither
/// changes (a binary form that cannot be written, a directory say, leaves
/// the model as it was).
static Error writeModel(const MLPDescription &M, StringRef Path) {
  std::string Text;
  raw_string_ostream TS(Text);
  M.write(TS);
  Expected<std::unique_ptr<irtk::support::OutputFile>> Model =
      irtk::support::OutputFile::open(Path);
  if (!Model)
    return Model.takeError();
  (*Model)->os() << Text;
  std::string Binary = MLPDescription::binaryPath(Path);
  if (Path == "-" || !sys::fs::exists(Binary))
    return (*Model)->commit();
  // The description that loading the text gives.
  Expected<MLPDescription> Loaded = MLPDescription::parse(Text, Path);
  if (!Loaded)
    return Loaded.takeError();
  Expected<std::unique_ptr<irtk::support::OutputFile>> Packed =
      irtk::support::OutputFile::open(Binary);
  if (!Packed)
    return Packed.takeError();
  Loaded->writeBinary(Text, (*Packed)->os());
  return irtk::support::OutputFile::commitAll({Model->get(), Packed->get()});
}

/// Fails when one of the models \p Outputs, or the binary form beside it
/// (writeModel), would replace one of \p Inputs or is a directory: checked
/// before anything is written, so that a run that writes several models
/// stops before the first.
static Error checkModelOutputs(ArrayRef<std::string> Outputs,
                               ArrayRef<std::string> Inputs) {
  for (const std::string &Out : Outputs)
    for (const std::string &Written : {Out, MLPDescription::binaryPath(Out)}) {
      if (Error E = irtk::support::checkNotAnInput(Written, Inputs))
        return E;
      if (Written != "-" && sys::fs::is_directory(Written))
        return createStringError(inconvertibleErrorCode(),
                                 "cannot write '%s': is a directory",
                                 Written.c_str());
    }
  return Error::success();
}

/// \p Path, the model file, and its binary form: what loading it reads.
static std::vector<std::string> modelFiles(StringRef Path) {
  return {Path.str(), MLPDescription::binaryPath(Path)};
}

/// es-start --layers: one flag per parameter of \p M (in the order of
/// MLPDescription::parameters: layer by layer, weights then bias), set for
/// the layers named; none without --layers.
static Expected<SmallVector<bool, 0>> perturbedLayers(const MLPDescription &M,
                                                      const TrainOptions &O) {
  SmallVector<bool, 0> Flags;
  if (O.ESLayers.empty())
    return Flags;
  size_t Count = M.Layers.size();
  SmallVector<bool, 0> Chosen(Count);
  for (int L : O.ESLayers) {
    if (L >= static_cast<int>(Count))
      return createStringError(inconvertibleErrorCode(),
                               "%s: --layers %d: the model has %zu layers "
                               "(0 to %zu)",
                               O.Model.c_str(), L, Count, Count - 1);
    Chosen[L < 0 ? Count - 1 : L] = true;
  }
  for (size_t L = 0; L < Count; ++L) {
    const MLPDescription::Layer &Lay = M.Layers[L];
    size_t N = Lay.Bias.size() * (Lay.Weights.front().size() + 1);
    Flags.insert(Flags.end(), N, Chosen[L]);
  }
  return Flags;
}

/// pack: the binary form of O.Model, beside it unless -o names another.
static Error runPack(const TrainOptions &O) {
  std::string Output =
      O.Output.empty() ? MLPDescription::binaryPath(O.Model) : O.Output;
  if (Error E = irtk::support::checkNotAnInput(Output, {O.Model}))
    return E;
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      irtk::support::readFile(O.Model, "model");
  if (!Buf)
    return Buf.takeError();
  if (Error E = packModel((*Buf)->getBuffer(), O.Model, Output))
    return E;
  if (!O.Quiet)
    errs() << O.Model << ": packed into " << Output << "\n";
  return Error::success();
}

/// The model \p M with the parameters \p P, written to \p Path.
static Error writeModelWith(const MLPDescription &M, ArrayRef<double> P,
                            StringRef Path) {
  MLPDescription C = M;
  C.setParameters(P);
  return writeModel(C, Path);
}

/// Checks that \p ES is a run of \p M (named \p Name); a checkpoint from
/// before fingerprints were kept is used with a warning.
static Error checkRunOf(const EvolutionStrategies &ES, const MLPDescription &M,
                        StringRef Name, StringRef Checkpoint) {
  if (Error E = ES.checkModel(M, Name, Checkpoint))
    return E;
  if (ES.fingerprint().empty())
    WithColor::warning(errs(), ToolName)
        << Checkpoint
        << ": no model fingerprint (an older checkpoint): not checked "
           "against "
        << Name << "\n";
  return Error::success();
}

/// es-update: the rewards file, one number a line.
static Expected<std::vector<double>> readRewards(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      irtk::support::readFile(Path, "rewards");
  if (!Buf)
    return Buf.takeError();
  std::vector<double> Rewards;
  SmallVector<StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (size_t K = 0; K < Lines.size(); ++K) {
    double R = 0;
    if (Lines[K].trim().getAsDouble(R))
      return createStringError(inconvertibleErrorCode(),
                               "%s:%zu: expected a number", Path.str().c_str(),
                               K + 1);
    Rewards.push_back(R);
  }
  return Rewards;
}

/// What es-update reports of the step it finished (\p Step is the step the
/// checkpoint is at now), as es-train.py reports it: "step S: mean reward
/// +m, best +b, worst +w of N candidates".
static std::string rewardSummary(unsigned Step, ArrayRef<double> Rewards) {
  double Sum = 0, Best = Rewards.front(), Worst = Rewards.front();
  for (double R : Rewards) {
    Sum += R;
    Best = std::max(Best, R);
    Worst = std::min(Worst, R);
  }
  std::string S;
  raw_string_ostream OS(S);
  OS << "step " << Step << ": mean reward "
     << format("%+.5f", Sum / Rewards.size()) << ", best "
     << format("%+.5f", Best) << ", worst " << format("%+.5f", Worst) << " of "
     << Rewards.size() << " candidates";
  return S;
}

/// es-update: the next step from the rewards; with --model, a checkpoint
/// whose next candidates could not be loaded is not written.
static Error runUpdate(const TrainOptions &O) {
  std::vector<std::string> Inputs = {O.Rewards};
  if (!O.Model.empty())
    llvm::append_range(Inputs, modelFiles(O.Model));
  if (Error E = irtk::support::checkNotAnInput(O.Checkpoint, Inputs))
    return E;
  Expected<EvolutionStrategies> ES = loadCheckpoint(O.Checkpoint);
  if (!ES)
    return ES.takeError();
  std::optional<MLPDescription> M;
  if (!O.Model.empty()) {
    Expected<MLPDescription> Loaded = MLPDescription::load(O.Model);
    if (!Loaded)
      return Loaded.takeError();
    if (Error E = checkRunOf(*ES, *Loaded, O.Model, O.Checkpoint))
      return E;
    M = std::move(*Loaded);
  }
  Expected<std::vector<double>> Rewards = readRewards(O.Rewards);
  if (!Rewards)
    return Rewards.takeError();
  if (Error E = ES->update(*Rewards))
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             O.Rewards.c_str(), toString(std::move(E)).c_str());
  if (M)
    if (Error E = ES->checkModels(
            *M,
            (O.Checkpoint + ": not written: step " + Twine(ES->step())).str()))
      return E;
  if (Error E = writeCheckpoint(O.Checkpoint, *ES))
    return E;
  if (!O.Quiet)
    errs() << rewardSummary(ES->step(), *Rewards) << "\n";
  return Error::success();
}

/// es-start, es-candidates, es-update: one step of evolution strategies is
/// es-candidates (the perturbed models), the caller's compiles with each,
/// and es-update with their rewards; the checkpoint holds the whole state.
/// No command writes what the next would refuse: a model that could not be
/// loaded (its numbers overflow), or a checkpoint whose candidates could
/// not.
static Error runEvolution(const TrainOptions &O) {
  if (O.Command == CommandKind::ESUpdate)
    return runUpdate(O);
  if (O.Command == CommandKind::ESStart) {
    if (Error E = irtk::support::checkNotAnInput(O.Output, modelFiles(O.Model)))
      return E;
  }
  Expected<MLPDescription> M = MLPDescription::load(O.Model);
  if (!M)
    return M.takeError();
  if (O.Command == CommandKind::ESStart) {
    Expected<SmallVector<bool, 0>> Perturbed = perturbedLayers(*M, O);
    if (!Perturbed)
      return Perturbed.takeError();
    Expected<EvolutionStrategies> ES = EvolutionStrategies::start(
        M->parameters(), O.ES, *Perturbed, modelFingerprint(*M));
    if (!ES)
      return createStringError(inconvertibleErrorCode(), "%s: %s",
                               O.Model.c_str(),
                               toString(ES.takeError()).c_str());
    if (Error E = ES->checkModels(*M, O.Output + ": not written"))
      return E;
    return writeCheckpoint(O.Output, *ES);
  }
  Expected<EvolutionStrategies> ES = loadCheckpoint(O.Checkpoint);
  if (!ES)
    return ES.takeError();
  if (Error E = checkRunOf(*ES, *M, O.Model, O.Checkpoint))
    return E;
  std::vector<std::vector<double>> C = ES->candidates();
  std::vector<std::string> Paths;
  for (size_t K = 0; K < C.size(); ++K)
    Paths.push_back((O.Output + "/candidate-" + Twine(K) + ".json").str());
  Paths.push_back(O.Output + "/current.json");
  std::vector<std::string> Inputs = modelFiles(O.Model);
  Inputs.push_back(O.Checkpoint);
  if (Error E = checkModelOutputs(Paths, Inputs))
    return E;
  if (Error E = ES->checkModels(*M, O.Output + ": not written"))
    return E;
  if (std::error_code EC = sys::fs::create_directories(O.Output))
    return createFileError(O.Output, EC);
  C.push_back(ES->parameters());
  for (size_t K = 0; K < C.size(); ++K)
    if (Error E = writeModelWith(*M, C[K], Paths[K]))
      return E;
  return Error::success();
}

static Error run(const TrainOptions &Opts) {
  TrainOptions O = Opts;
  if (O.Command == CommandKind::ESStart ||
      O.Command == CommandKind::ESCandidates ||
      O.Command == CommandKind::ESUpdate)
    return runEvolution(O);
  if (O.Command == CommandKind::Features) {
    printFeatures(*findAdvisor(O.Advisor));
    return Error::success();
  }
  if (O.Command == CommandKind::Pack)
    return runPack(O);
  if (!O.LogsFrom.empty()) {
    if (Error E = readLogList(O.LogsFrom, O.Logs, O.Weights, O.Labels))
      return E;
    if (O.Logs.empty())
      return createStringError(inconvertibleErrorCode(),
                               "%s: lists no training log", O.LogsFrom.c_str());
  }
  if (O.Command == CommandKind::Fit) {
    std::vector<std::string> Inputs = O.Logs;
    if (!O.LogsFrom.empty())
      Inputs.push_back(O.LogsFrom);
    if (Error E = checkModelOutputs({O.Output}, Inputs))
      return E;
  }
  if (O.Command == CommandKind::Dump) {
    for (const std::string &Path : O.Logs) {
      Expected<TrainingLog> L = TrainingLog::load(Path);
      if (!L)
        return L.takeError();
      dumpLog(*L, Path, O.Observations);
    }
    return Error::success();
  }

  std::optional<MLPDescription> Model;
  DatasetOptions DOpts = O.Data;
  if (O.Command == CommandKind::Eval) {
    Expected<MLPDescription> M = MLPDescription::load(O.Model);
    if (!M)
      return M.takeError();
    Model = std::move(*M);
    if (O.DefaultMargin)
      Model->DefaultMargin = O.DefaultMargin;
    if (!advisorDecision(Model->Advisor, DOpts))
      return createStringError(inconvertibleErrorCode(),
                               "%s: unknown advisor '%s'", O.Model.c_str(),
                               Model->Advisor.c_str());
    for (const MLPDescription::Input &In : Model->Inputs)
      DOpts.Include.push_back(In.Name);
  }

  Dataset D;
  for (size_t I = 0; I < O.Logs.size(); ++I) {
    Expected<TrainingLog> L = TrainingLog::load(O.Logs[I]);
    if (!L)
      return L.takeError();
    if (Error E =
            addToDataset(D, *L, O.Logs[I], DOpts, O.Weights[I], O.Labels[I]))
      return E;
  }
  if (D.rows() == 0)
    return createStringError(inconvertibleErrorCode(),
                             "the logs hold no decisions");
  size_t Ones = 0;
  for (int64_t Y : D.Label)
    Ones += Y != 0;

  if (O.Command == CommandKind::Eval) {
    Expected<Agreement> A = agreement(*Model, D);
    if (!A)
      return createStringError(inconvertibleErrorCode(), "%s: %s",
                               O.Model.c_str(),
                               toString(A.takeError()).c_str());
    outs() << "decisions: " << D.rows() << "\nnonzero: " << Ones
           << "\nagreement: " << format("%.4f", A->Share) << "\n";
    if (D.Default.size() == D.rows())
      outs() << "departures from the default: " << A->LabelDepartures
             << " in the logs, " << A->ModelDepartures << " by the model, "
             << A->SharedDepartures << " of them as the logs\n";
    return Error::success();
  }
  for (auto [Given, Name] :
       {std::pair(O.DefaultMargin.has_value(), "--default-margin"),
        std::pair(O.Train.DepartureWeight != 1.0, "--departure-weight")})
    if (Given && D.Default.size() != D.rows())
      return createStringError(inconvertibleErrorCode(),
                               "%s needs the default decision ('%s') in "
                               "every log",
                               Name, DOpts.Default.c_str());
  if (O.Train.Positional && D.Choices < 2)
    return createStringError(inconvertibleErrorCode(),
                             "--positional needs at least 2 choices; the mask "
                             "'%s' has %u",
                             D.Mask.c_str(), D.Choices);

  if (!O.Quiet)
    errs() << "training on " << D.rows() << " decisions (" << Ones
           << " nonzero) from " << O.Logs.size() << " logs, " << D.width()
           << " inputs\n";
  std::vector<MLPDescription> Fitted;
  for (unsigned K = 0; K < O.Ensemble; ++K) {
    TrainerOptions T = O.Train;
    T.Seed += K;
    if (!O.Quiet && O.Ensemble > 1)
      errs() << "model " << K + 1 << "/" << O.Ensemble << " (seed " << T.Seed
             << ")\n";
    Fitted.push_back(
        train(D, O.Advisor, DOpts.Decision, T, [&](const EpochReport &R) {
          if (!O.Quiet)
            errs() << "epoch " << R.Epoch << "/" << T.Epochs << ": loss "
                   << format("%.5f", R.Loss) << ", agreement "
                   << format("%.4f", R.Accuracy) << "\n";
        }));
  }
  // Fitted on the same data, the models share their inputs' normalisation.
  MLPDescription M = cantFail(averageModels(Fitted));
  M.DefaultMargin = O.DefaultMargin;
  if (O.Support)
    M.Support = departureSupport(D);
  // A step size too large for the data gives weights that are not numbers
  // (or that overflow in evaluation): the model policy could not use them.
  if (Error E = M.checkNumbers(O.Output + ": not written: training diverged "
                                          "(try a smaller --lr)"))
    return E;
  // The model fits the data it was trained on.
  double Agreement = cantFail(accuracy(M, D));
  std::string Training;
  raw_string_ostream TS(Training);
  TS << "{\"tool\": \"irtk-train fit\", \"logs\": " << O.Logs.size()
     << ", \"decisions\": " << D.rows() << ", \"epochs\": " << O.Train.Epochs
     << ", \"hidden\": [";
  ListSeparator LS(", ");
  for (unsigned H : O.Train.Hidden)
    TS << LS << H;
  TS << "]";
  if (O.Train.Positional)
    TS << ", \"positional\": true";
  if (O.Train.DepartureWeight != 1.0)
    TS << ", \"departure_weight\": " << format("%g", O.Train.DepartureWeight);
  if (O.Ensemble > 1)
    TS << ", \"ensemble\": " << O.Ensemble;
  TS << ", \"seed\": " << O.Train.Seed
     << ", \"training_agreement\": " << format("%.4f", Agreement) << "}";
  M.TrainingJSON = Training;
  return writeModel(M, O.Output);
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  return irtk::tools::runMain<TrainOptions>(ToolName,
                                            parseCommandLine(Argc, Argv), run);
}
