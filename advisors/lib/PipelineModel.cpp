//===- PipelineModel.cpp - The size pipeline's nearest-neighbour vote -----===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/advisors/PipelineModel.h"
#include "irtk/ir2vec/Embedder.h"
#include "irtk/support/JSON.h"
#include "irtk/support/ReadFile.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace llvm;

namespace irtk::advisors {

/// The opcodes counted, in ir2vec.mlgo.nearest.COUNTED's order.
static constexpr const char *Counted[] = {
    "call", "load",   "store",  "br",  "icmp", "getelementptr", "phi", "alloca",
    "ret",  "switch", "select", "add", "mul"};
static constexpr size_t NumCounts = PipelineModel::NumCounts;
static_assert(NumCounts == 3 + std::size(Counted));

std::string shippedPipelineModelPath(StringRef BinaryPath) {
  SmallString<256> P(
      sys::path::parent_path(sys::path::parent_path(BinaryPath)));
  sys::path::append(P, "share", "irtk", "models", "pipeline-oz.json");
  return std::string(P);
}

static Error modelError(StringRef Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Path + ": " + Msg.str());
}

/// A non-empty JSON array of finite numbers.
static bool readVector(const json::Value *V, std::vector<double> &Out) {
  const json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A || A->empty())
    return false;
  for (const json::Value &X : *A) {
    std::optional<double> D = X.getAsNumber();
    if (!D || !std::isfinite(*D))
      return false;
    Out.push_back(*D);
  }
  return true;
}

/// A JSON array of arrays of numbers, all rows \p Width wide (0: any, the
/// first row's).
static bool readMatrix(const json::Value *V, std::vector<double> &Out,
                       size_t &Rows, size_t &Width) {
  const json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A || A->empty())
    return false;
  Rows = A->size();
  for (const json::Value &Row : *A) {
    size_t Before = Out.size();
    if (!readVector(&Row, Out) || (Width && Out.size() - Before != Width))
      return false;
    Width = Out.size() - Before;
  }
  return true;
}

Expected<PipelineModel> PipelineModel::read(StringRef Path) {
  support::ReadOptions RO;
  RO.AllowStdin = false;
  Expected<std::unique_ptr<MemoryBuffer>> Buffer =
      support::readFile(Path, "pipeline model", RO);
  if (!Buffer)
    return Buffer.takeError();
  Expected<json::Value> Doc = support::parseJSON((*Buffer)->getBuffer(), Path);
  if (!Doc)
    return Doc.takeError();
  const json::Object *O = Doc->getAsObject();
  if (!O || O->getString("format") != PipelineModelFormat)
    return modelError(Path, "not a pipeline model (format \"" +
                                PipelineModelFormat +
                                "\", written by "
                                "python3 -m ir2vec.mlgo learn --save or "
                                "nearest --save)");
  std::optional<int64_t> Version = O->getInteger("version");
  if (Version != 1 && Version != PipelineModelVersion)
    return modelError(Path, "versions 1 and " + Twine(PipelineModelVersion) +
                                " are the ones this irtk reads");
  PipelineModel M;
  std::optional<StringRef> Rule = O->getString("rule");
  if (Version == 1 ? Rule.has_value()
                   : (!Rule || (*Rule != "knn" && *Rule != "values")))
    return modelError(Path, "'rule' is not knn or values (version 2 names "
                            "it; version 1 is knn)");
  M.Values = Rule == "values";
  std::optional<StringRef> State = O->getString("state");
  if (!State ||
      (*State != "embedding" && *State != "counts" && *State != "both"))
    return modelError(Path, "'state' is not embedding, counts or both");
  M.State = State->str();
  if (!M.Values) {
    std::optional<int64_t> K = O->getInteger("k");
    if (!K || *K < 1)
      return modelError(Path, "'k' is not a positive number");
    M.K = static_cast<unsigned>(std::min<int64_t>(*K, 1 << 30));
  }
  std::optional<double> Margin = O->getNumber("margin");
  if (!Margin || !std::isfinite(*Margin))
    return modelError(Path, "'margin' is not a number");
  M.Margin = *Margin;
  const json::Array *Cands = O->getArray("candidates");
  if (!Cands || Cands->empty())
    return modelError(Path, "no 'candidates'");
  for (const json::Value &C : *Cands) {
    const json::Object *CO = C.getAsObject();
    std::optional<StringRef> Name = CO ? CO->getString("name") : std::nullopt;
    const json::Object *Choice = CO ? CO->getObject("choice") : nullptr;
    if (!Name || !Choice)
      return modelError(Path, "a candidate without 'name' and 'choice'");
    if (!Choice->get("append") || !Choice->get("veto") ||
        !Choice->get("outline"))
      return modelError(Path, "candidate '" + *Name +
                                  "': 'choice' wants append, veto, outline");
    Expected<PipelineChoice> PC = readPipelineChoice(
        Path, "candidate '" + *Name + "'", *CO->get("choice"));
    if (!PC)
      return PC.takeError();
    M.Names.push_back(Name->str());
    M.Choices.push_back(std::move(*PC));
  }
  std::optional<StringRef> Fixed = O->getString("fixed");
  auto It = Fixed ? find(M.Names, *Fixed) : M.Names.end();
  if (It == M.Names.end())
    return modelError(Path, "'fixed' is not a candidate");
  M.Base = static_cast<unsigned>(It - M.Names.begin());
  if (M.Values) {
    if (Error E = M.readNetwork(Path, O->getObject("network")))
      return E;
    return M;
  }
  std::vector<double> States, Text;
  size_t TextRows = 0, TextWidth = M.Names.size();
  if (!readMatrix(O->get("train_state"), States, M.Rows, M.Width) ||
      !readMatrix(O->get("train_text"), Text, TextRows, TextWidth) ||
      TextRows != M.Rows)
    return modelError(Path, "'train_state' and 'train_text' are not "
                            "matrices of numbers with a row per training "
                            "module and a column per candidate");
  if (!M.widthFits())
    return modelError(Path, "'train_state' rows are " + Twine(M.Width) +
                                " numbers wide, not a " + M.State + " state");

  // Standardisation, as nearest.standardise: the mean, the population
  // deviation (1 for a constant feature), then unit rows.
  size_t W = M.Width, N = M.Rows;
  M.Mean.assign(W, 0.0);
  for (size_t R = 0; R < N; ++R)
    for (size_t J = 0; J < W; ++J)
      M.Mean[J] += States[R * W + J];
  for (double &X : M.Mean)
    X /= static_cast<double>(N);
  M.Scale.assign(W, 0.0);
  for (size_t R = 0; R < N; ++R)
    for (size_t J = 0; J < W; ++J) {
      double D = States[R * W + J] - M.Mean[J];
      M.Scale[J] += D * D;
    }
  for (double &X : M.Scale) {
    X = std::sqrt(X / static_cast<double>(N));
    if (X == 0)
      X = 1;
  }
  M.Train.resize(N * W);
  for (size_t R = 0; R < N; ++R)
    M.unitRow(&States[R * W], &M.Train[R * W]);
  size_t C = M.Names.size();
  M.Gain.resize(N * C);
  for (size_t R = 0; R < N; ++R) {
    double Ref = Text[R * C + M.Base];
    double Div = Ref > 0 ? Ref : 1.0;
    for (size_t J = 0; J < C; ++J)
      M.Gain[R * C + J] = (Ref - Text[R * C + J]) / Div;
  }
  return M;
}

bool PipelineModel::widthFits() const {
  return State == "counts" ? Width == NumCounts
         : State == "both" ? Width > NumCounts
                           : true;
}

Error PipelineModel::readNetwork(StringRef Path, const json::Object *N) {
  const json::Array *Ls = N ? N->getArray("layers") : nullptr;
  if (!N || !readVector(N->get("mean"), Mean) ||
      !readVector(N->get("scale"), Scale) || Mean.size() != Scale.size() ||
      !Ls || Ls->empty())
    return modelError(Path, "'network' wants mean and scale of one width "
                            "and layers");
  if (any_of(Scale, [](double X) { return X == 0; }))
    return modelError(Path, "'network': a scale of 0");
  Width = Mean.size();
  if (!widthFits())
    return modelError(Path, "'network' reads " + Twine(Width) +
                                " numbers, not a " + State + " state");
  size_t In = Width;
  for (const json::Value &LV : *Ls) {
    const json::Object *LO = LV.getAsObject();
    Layer L;
    L.Inputs = In;
    std::optional<StringRef> Act =
        LO ? LO->getString("activation") : std::nullopt;
    if (!LO || !Act || (*Act != "relu" && *Act != "linear") ||
        !readMatrix(LO->get("weight"), L.Weights, L.Outputs, L.Inputs) ||
        L.Inputs != In || !readVector(LO->get("bias"), L.Bias) ||
        L.Bias.size() != L.Outputs)
      return modelError(Path, "'network': layer " + Twine(Layers.size()) +
                                  " is not a weight matrix of " + Twine(In) +
                                  " columns, a bias per row and an "
                                  "activation (relu, linear)");
    L.ReLU = *Act == "relu";
    In = L.Outputs;
    Layers.push_back(std::move(L));
  }
  if (In != Names.size())
    return modelError(Path, "'network' gives " + Twine(In) + " numbers for " +
                                Twine(Names.size()) + " candidates");
  return Error::success();
}

/// ir2vec.mlgo.nearest.ir_counts: log(1 + n) of the defined functions,
/// blocks, instructions and each counted opcode.
static void appendCounts(const Module &M, std::vector<double> &Out) {
  StringMap<unsigned> Index;
  for (size_t I = 0; I < std::size(Counted); ++I)
    Index[Counted[I]] = I;
  std::vector<double> N(NumCounts, 0.0);
  for (const Function &F : M) {
    if (F.isDeclaration())
      continue;
    N[0] += 1;
    for (const BasicBlock &BB : F) {
      N[1] += 1;
      for (const Instruction &I : BB) {
        N[2] += 1;
        auto It = Index.find(I.getOpcodeName());
        if (It != Index.end())
          N[3 + It->second] += 1;
      }
    }
  }
  for (double X : N)
    Out.push_back(std::log1p(X));
}

std::vector<double> PipelineModel::stateOf(const Module &M,
                                           const vocab::Vocabulary *V) const {
  std::vector<double> X;
  if (State != "counts") {
    std::vector<double> Sum(V ? V->dimension() : 0, 0.0);
    for (const Function &F : M) {
      if (F.isDeclaration() || !V)
        continue;
      ir2vec::Embedding E =
          ir2vec::Embedder::create(ir2vec::EmbeddingKind::FlowAware, F, *V)
              ->getFunctionVector();
      for (size_t J = 0; J < Sum.size(); ++J)
        Sum[J] += E[J];
    }
    X = std::move(Sum);
  }
  if (State != "embedding")
    appendCounts(M, X);
  return X;
}

void PipelineModel::unitRow(const double *X, double *Out) const {
  double Norm = 0;
  for (size_t J = 0; J < Width; ++J) {
    Out[J] = (X[J] - Mean[J]) / Scale[J];
    Norm += Out[J] * Out[J];
  }
  Norm = std::sqrt(Norm);
  if (Norm == 0)
    Norm = 1;
  for (size_t J = 0; J < Width; ++J)
    Out[J] /= Norm;
}

std::vector<double> PipelineModel::nearestGains(ArrayRef<double> X) const {
  std::vector<double> Z(Width);
  unitRow(X.data(), Z.data());
  std::vector<double> Sim(Rows);
  for (size_t R = 0; R < Rows; ++R) {
    double S = 0;
    for (size_t J = 0; J < Width; ++J)
      S += Z[J] * Train[R * Width + J];
    Sim[R] = S;
  }
  std::vector<size_t> Order(Rows);
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t A, size_t B) { return Sim[A] > Sim[B]; });
  size_t Near = std::min<size_t>(K, Rows), C = Names.size();
  std::vector<double> Mean(C, 0.0);
  for (size_t I = 0; I < Near; ++I)
    for (size_t J = 0; J < C; ++J)
      Mean[J] += Gain[Order[I] * C + J];
  for (double &G : Mean)
    G /= static_cast<double>(Near);
  return Mean;
}

/// As ir2vec.mlgo.nearest.values: each row's products summed left to
/// right, then the bias.
std::vector<double> PipelineModel::networkGains(ArrayRef<double> X) const {
  std::vector<double> Z(Width);
  for (size_t J = 0; J < Width; ++J)
    Z[J] = (X[J] - Mean[J]) / Scale[J];
  for (const Layer &L : Layers) {
    std::vector<double> Y(L.Outputs);
    for (size_t R = 0; R < L.Outputs; ++R) {
      double S = 0;
      for (size_t J = 0; J < L.Inputs; ++J)
        S += Z[J] * L.Weights[R * L.Inputs + J];
      S += L.Bias[R];
      Y[R] = L.ReLU ? std::max(S, 0.0) : S;
    }
    Z = std::move(Y);
  }
  return Z;
}

std::vector<double> PipelineModel::gains(ArrayRef<double> X) const {
  if (X.size() != Width)
    return {};
  return Values ? networkGains(X) : nearestGains(X);
}

unsigned PipelineModel::decide(ArrayRef<double> X) const {
  std::vector<double> G = gains(X);
  if (G.empty())
    return Base;
  unsigned Best = 0;
  for (unsigned J = 1; J < G.size(); ++J)
    if (G[J] > G[Best])
      Best = J;
  return G[Best] > Margin ? Best : Base;
}

} // namespace irtk::advisors
