//===- UpstreamOracle.cpp - Upstream IR2Vec embeddings as JSON lines ------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A test-only oracle for the differential suite (run.py): it embeds an IR
/// file with upstream LLVM's own llvm::ir2vec library (libLLVM-22) and prints
/// the same JSON-lines records as `llvm-ir2vec embeddings --format=jsonl`,
/// with every number at full precision (shortest round-trip form). Upstream's
/// own tool prints two decimals only; this lets the suite check that irtk
/// agrees bit for bit.
///
///   irtk-upstream-oracle --level=inst|bb|func --kind=symbolic|flow-aware
///       --vocab=V [--opc-weight=W] [--type-weight=W] [--arg-weight=W]
///       FILE...
///
/// Several files are embedded one after the other, in the order given, like
/// irtk's llvm-ir2vec does with several inputs; each record names its file.
///
/// The vocabulary is loaded through upstream's IR2VecVocabAnalysis; its path
/// and weights are upstream's -ir2vec-* cl::opts, set by feeding them to
/// cl::ParseCommandLineOptions. The traversal mirrors irtk's writer: one
/// embedder per defined function; inst level walks every instruction of each
/// block (pseudo probes included, as upstream's CLI prints them), bb level
/// every block in layout order, func level asks for the function vector (DFS
/// from the entry).
///
//===----------------------------------------------------------------------===//

#include "llvm/Analysis/IR2Vec.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

using namespace llvm;

static constexpr const char *ToolName = "irtk-upstream-oracle";

namespace {
/// What the command line asked for.
struct OracleOptions {
  std::string Level = "func";
  std::string Kind = "symbolic";
  std::string VocabPath;
  std::string OpcWeight, TypeWeight, ArgWeight;
  std::vector<std::string> Inputs;
};
} // namespace

static void printUsage(raw_ostream &OS) {
  OS << "usage: " << ToolName
     << " --level=inst|bb|func --kind=symbolic|flow-aware --vocab=V\n"
        "       [--opc-weight=W] [--type-weight=W] [--arg-weight=W] "
        "FILE...\n";
}

/// Parses the oracle's own options; returns an error message or "".
static std::string parseArgs(int Argc, char **Argv, OracleOptions &O) {
  for (int I = 1; I < Argc; ++I) {
    StringRef Arg = Argv[I];
    auto Value = [&](StringRef Name, std::string &Slot) {
      if (!Arg.consume_front(Name))
        return false;
      Slot = Arg.str();
      return true;
    };
    if (Value("--level=", O.Level) || Value("--kind=", O.Kind) ||
        Value("--vocab=", O.VocabPath) || Value("--opc-weight=", O.OpcWeight) ||
        Value("--type-weight=", O.TypeWeight) ||
        Value("--arg-weight=", O.ArgWeight))
      continue;
    if (Arg.starts_with("--"))
      return ("unexpected argument '" + Arg + "'").str();
    O.Inputs.push_back(Arg.str());
  }
  if (O.Level != "inst" && O.Level != "bb" && O.Level != "func")
    return "invalid --level '" + O.Level + "'";
  if (O.Kind != "symbolic" && O.Kind != "flow-aware")
    return "invalid --kind '" + O.Kind + "'";
  if (O.VocabPath.empty())
    return "--vocab is required";
  if (O.Inputs.empty())
    return "no input file";
  return "";
}

/// Hands the vocabulary path and weights to upstream's cl::opts.
static void setUpstreamOptions(const OracleOptions &O) {
  std::vector<std::string> Args = {ToolName,
                                   "-ir2vec-vocab-path=" + O.VocabPath};
  if (!O.OpcWeight.empty())
    Args.push_back("-ir2vec-opc-weight=" + O.OpcWeight);
  if (!O.TypeWeight.empty())
    Args.push_back("-ir2vec-type-weight=" + O.TypeWeight);
  if (!O.ArgWeight.empty())
    Args.push_back("-ir2vec-arg-weight=" + O.ArgWeight);
  std::vector<const char *> CArgs;
  for (const std::string &A : Args)
    CArgs.push_back(A.c_str());
  // Exits with a message on a bad value, like any LLVM tool would.
  cl::ParseCommandLineOptions(static_cast<int>(CArgs.size()), CArgs.data());
}

/// A JSON string literal, escaped by llvm::json (not by our own code, so
/// that the oracle shares no output code with what it checks).
static void printJSONString(raw_ostream &OS, StringRef S) {
  OS << json::Value(S.str());
}

/// Shortest round-trip form of every element; non-finite values as null.
static void printJSONVector(raw_ostream &OS, const ir2vec::Embedding &E) {
  OS << '[';
  for (size_t I = 0; I < E.size(); ++I) {
    if (I)
      OS << ',';
    double X = E[I];
    if (!std::isfinite(X)) {
      OS << "null";
      continue;
    }
    char Buf[64];
    std::to_chars_result R = std::to_chars(Buf, Buf + sizeof(Buf), X);
    OS.write(Buf, R.ptr - Buf);
  }
  OS << ']';
}

namespace {
/// One JSON-lines record: the common fields, then the optional block and
/// instruction fields, then the vector.
struct Record {
  StringRef Module, Level, Kind;
  const Function *F = nullptr;
  const BasicBlock *BB = nullptr;
  unsigned BBIndex = 0;
  const Instruction *I = nullptr;
  unsigned InstIndex = 0;
};
} // namespace

static void writeRecord(raw_ostream &OS, const Record &R,
                        const ir2vec::Embedding &E) {
  OS << "{\"module\":";
  printJSONString(OS, R.Module);
  OS << ",\"function\":";
  printJSONString(OS, R.F->getName());
  OS << ",\"demangled\":";
  printJSONString(OS, demangle(R.F->getName()));
  OS << ",\"level\":\"" << R.Level << "\",\"kind\":\"" << R.Kind << '"';
  if (R.BB) {
    OS << ",\"block\":";
    printJSONString(OS, R.BB->getName());
    OS << ",\"block_index\":" << R.BBIndex;
  }
  if (R.I) {
    std::string Text;
    raw_string_ostream TS(Text);
    R.I->print(TS);
    OS << ",\"inst_index\":" << R.InstIndex << ",\"inst\":";
    printJSONString(OS, StringRef(Text).ltrim(' '));
  }
  OS << ",\"embedding\":";
  printJSONVector(OS, E);
  OS << "}\n";
}

static void embedFunction(raw_ostream &OS, StringRef Input, const Function &F,
                          const ir2vec::Vocabulary &Vocab,
                          const OracleOptions &O) {
  IR2VecKind Kind =
      O.Kind == "symbolic" ? IR2VecKind::Symbolic : IR2VecKind::FlowAware;
  std::unique_ptr<ir2vec::Embedder> Emb =
      ir2vec::Embedder::create(Kind, F, Vocab);
  Record R;
  R.Module = Input == "-" ? "<stdin>" : Input;
  R.Level = O.Level;
  R.Kind = O.Kind;
  R.F = &F;
  if (O.Level == "func") {
    writeRecord(OS, R, Emb->getFunctionVector());
    return;
  }
  for (const BasicBlock &BB : F) {
    R.BB = &BB;
    if (O.Level == "bb") {
      writeRecord(OS, R, Emb->getBBVector(BB));
    } else {
      R.InstIndex = 0;
      for (const Instruction &I : BB) {
        R.I = &I;
        writeRecord(OS, R, Emb->getInstVector(I));
        ++R.InstIndex;
      }
    }
    ++R.BBIndex;
  }
}

/// Embeds every defined function of one file; false if it cannot be read.
static bool embedFile(raw_ostream &OS, StringRef Input,
                      const OracleOptions &O) {
  LLVMContext Ctx;
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseIRFile(Input, Diag, Ctx);
  if (!M) {
    Diag.print(ToolName, errs());
    return false;
  }

  // Upstream's vocabulary analysis reads the file named by
  // -ir2vec-vocab-path and scales each section by its weight. Errors go to
  // the context, whose default handler prints them and exits.
  ModuleAnalysisManager MAM;
  MAM.registerPass([] { return PassInstrumentationAnalysis(); });
  MAM.registerPass([] { return IR2VecVocabAnalysis(); });
  const ir2vec::Vocabulary &Vocab = MAM.getResult<IR2VecVocabAnalysis>(*M);
  if (!Vocab.isValid()) {
    WithColor::error(errs(), ToolName) << "invalid vocabulary\n";
    return false;
  }

  for (const Function &F : *M)
    if (!F.isDeclaration())
      embedFunction(OS, Input, F, Vocab, O);
  return true;
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  OracleOptions O;
  std::string Msg = parseArgs(Argc, Argv, O);
  if (!Msg.empty()) {
    WithColor::error(errs(), ToolName) << Msg << '\n';
    printUsage(errs());
    return 2;
  }
  setUpstreamOptions(O);

  // Like irtk's llvm-ir2vec: a file that cannot be read is reported and
  // skipped, and the run then fails.
  bool Ok = true;
  for (const std::string &Input : O.Inputs)
    Ok &= embedFile(outs(), Input, O);
  return Ok ? 0 : 1;
}
