//===- MLP.cpp - The embedded model: a small MLP read from JSON -----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/advisors/MLP.h"
#include "irtk/support/Format.h"
#include "irtk/support/JSON.h"
#include "irtk/support/ReadFile.h"

#include "irtk/advisors/Network.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <Eigen/Dense>

#include <cctype>
#include <cmath>
#include <limits>

using namespace llvm;

namespace irtk::advisors {

std::optional<ActivationKind> parseActivationKind(StringRef Name) {
  if (Name == "linear")
    return ActivationKind::Linear;
  if (Name == "relu")
    return ActivationKind::ReLU;
  if (Name == "tanh")
    return ActivationKind::Tanh;
  return std::nullopt;
}

StringRef activationKindName(ActivationKind K) {
  switch (K) {
  case ActivationKind::Linear:
    return "linear";
  case ActivationKind::ReLU:
    return "relu";
  case ActivationKind::Tanh:
    return "tanh";
  }
  return "linear";
}

std::vector<double> MLPDescription::parameters() const {
  Eigen::VectorXd P = Network::of(*this).parameters();
  return std::vector<double>(P.data(), P.data() + P.size());
}

void MLPDescription::setParameters(ArrayRef<double> P) {
  Network N = Network::of(*this);
  N.setParameters(Eigen::Map<const Eigen::VectorXd>(P.data(), P.size()));
  N.store(*this);
}

size_t MLPDescription::inputSize() const {
  size_t N = 0;
  for (const Input &In : Inputs)
    N += In.Mean.size();
  return N;
}

/// \p X with 3 significant digits, for messages.
static std::string shortNumber(double X) {
  std::string S;
  raw_string_ostream(S) << format("%.3g", X);
  return S;
}

Error MLPDescription::checkNumbers(StringRef Name) const {
  auto Fail = [&](const Twine &Where, const Twine &Msg) -> Error {
    return createStringError(inconvertibleErrorCode(),
                             Name + ": " + Where + ": " + Msg);
  };
  auto CheckSize = [&](const Twine &Where, size_t Size, size_t Want) {
    return Size == Want ? Error::success()
                        : Fail(Where, "has " + Twine(Size) +
                                          " elements; expected " + Twine(Want));
  };
  // Bounds are summed in another order than Eigen sums; half the largest
  // double leaves rounding far more room than it can take.
  const double Limit = std::numeric_limits<double>::max() / 2;
  // The largest magnitude each input of the current layer can have, from
  // features of up to LargestFeatureValue.
  std::vector<double> Bound;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    const Input &In = Inputs[I];
    std::string Where = "inputs[" + std::to_string(I) + "]";
    if (Error E = CheckSize(Where + ".scale", In.Scale.size(), In.Mean.size()))
      return E;
    for (size_t E = 0; E < In.Mean.size(); ++E) {
      std::string At = "[" + std::to_string(E) + "]";
      if (!std::isfinite(In.Mean[E]))
        return Fail(Where + ".mean" + At, "expected a finite number");
      if (!std::isfinite(In.Scale[E]))
        return Fail(Where + ".scale" + At, "expected a finite number");
      if (In.Scale[E] == 0)
        return Fail(Where + ".scale" + At, "is zero");
      double B =
          (LargestFeatureValue + std::abs(In.Mean[E])) / std::abs(In.Scale[E]);
      if (!(B <= Limit))
        return Fail(Where + ".scale" + At,
                    shortNumber(In.Scale[E]) + " makes features of up to " +
                        shortNumber(LargestFeatureValue) +
                        " overflow double when normalised");
      Bound.push_back(B);
    }
  }
  for (size_t L = 0; L < Layers.size(); ++L) {
    const Layer &Lay = Layers[L];
    std::string Where = "layers[" + std::to_string(L) + "]";
    if (Error E =
            CheckSize(Where + ".bias", Lay.Bias.size(), Lay.Weights.size()))
      return E;
    std::vector<double> Next(Lay.Weights.size());
    for (size_t R = 0; R < Lay.Weights.size(); ++R) {
      const std::vector<double> &Row = Lay.Weights[R];
      std::string RowWhere = Where + ".weights[" + std::to_string(R) + "]";
      if (Error E = CheckSize(RowWhere, Row.size(), Bound.size()))
        return E;
      double Sum = std::abs(Lay.Bias[R]);
      if (!std::isfinite(Lay.Bias[R]))
        return Fail(Where + ".bias[" + Twine(R) + "]",
                    "expected a finite number");
      for (size_t C = 0; C < Row.size(); ++C) {
        if (!std::isfinite(Row[C]))
          return Fail(RowWhere + "[" + Twine(C) + "]",
                      "expected a finite number");
        double Term = std::abs(Row[C]) * Bound[C];
        if (!(Term <= Limit))
          return Fail(RowWhere + "[" + Twine(C) + "]",
                      shortNumber(Row[C]) + " overflows double: its input " +
                          "reaches " + shortNumber(Bound[C]) +
                          " for features of up to " +
                          shortNumber(LargestFeatureValue));
        Sum += Term;
      }
      if (!(Sum <= Limit))
        return Fail(RowWhere, "this row's output can overflow double for "
                              "features of up to " +
                                  shortNumber(LargestFeatureValue));
      Next[R] = Lay.Activation == ActivationKind::Tanh ? 1.0 : Sum;
    }
    Bound = std::move(Next);
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
/// What stands for an array of numbers read ahead (NumberArrayCompactor):
/// a string no model file has, "\u0001" and the array's index.
constexpr StringLiteral PlaceholderPrefix = "\x01";

/// Reads one model file, keeping the file name and the place for errors.
class Reader {
public:
  /// \p Arrays: the number arrays compactNumberArrays took out of the text.
  explicit Reader(StringRef Name,
                  const std::vector<std::vector<double>> *Arrays = nullptr)
      : Name(Name), Arrays(Arrays) {}

  Error error(const Twine &Where, const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(),
                             Name + ": " + Where + ": " + Msg);
  }

  Expected<const json::Object *> object(const json::Value *V,
                                        const Twine &Where) const {
    if (!V)
      return error(Where, "missing");
    if (const json::Object *O = V->getAsObject())
      return O;
    return error(Where, "expected an object");
  }

  /// Fails on the first key of \p O (in sorted order) not in \p Known.
  Error onlyKeys(const json::Object &O, ArrayRef<StringRef> Known,
                 const Twine &Where) const {
    std::optional<StringRef> Unknown;
    for (const auto &KV : O) {
      StringRef Key = KV.first;
      if (!is_contained(Known, Key) && (!Unknown || Key < *Unknown))
        Unknown = Key;
    }
    if (!Unknown)
      return Error::success();
    std::string Shown;
    raw_string_ostream(Shown).write_escaped(*Unknown);
    return error(Where, "unknown key '" + Shown + "' (expected " +
                            join(Known, ", ") + ")");
  }

  Expected<StringRef> string(const json::Object &O, StringRef Key,
                             const Twine &Where) const {
    const json::Value *V = O.get(Key);
    if (!V)
      return error(Where + "." + Key, "missing");
    if (std::optional<StringRef> S = V->getAsString())
      return *S;
    return error(Where + "." + Key, "expected a string");
  }

  /// An array of finite numbers, of \p Size elements unless Size is 0.
  Expected<std::vector<double>>
  numbers(const json::Value *V, const Twine &Where, size_t Size = 0) const {
    if (!V)
      return error(Where, "missing");
    if (std::optional<size_t> Idx = compacted(*V)) {
      const std::vector<double> &Out = (*Arrays)[*Idx];
      if (Size && Out.size() != Size)
        return error(Where, "has " + Twine(Out.size()) +
                                " elements; expected " + Twine(Size));
      return Out;
    }
    const json::Array *A = V->getAsArray();
    if (!A)
      return error(Where, "expected an array of numbers");
    if (Size && A->size() != Size)
      return error(Where, "has " + Twine(A->size()) + " elements; expected " +
                              Twine(Size));
    std::vector<double> Out;
    Out.reserve(A->size());
    for (size_t I = 0; I < A->size(); ++I) {
      std::optional<double> D = (*A)[I].getAsNumber();
      if (!D || !std::isfinite(*D))
        return error(Where + "[" + Twine(I) + "]", "expected a finite number");
      Out.push_back(*D);
    }
    return Out;
  }

private:
  /// The index of the array a placeholder stands for.
  std::optional<size_t> compacted(const json::Value &V) const {
    std::optional<StringRef> S = V.getAsString();
    if (!Arrays || !S || !S->consume_front(PlaceholderPrefix))
      return std::nullopt;
    size_t Idx;
    if (S->getAsInteger(10, Idx) || Idx >= Arrays->size())
      return std::nullopt;
    return Idx;
  }

  StringRef Name;
  const std::vector<std::vector<double>> *Arrays;
};

/// The weights of a large model are most of its file, and llvm::json reads
/// each number through strtod and a json::Value: an 8 MB model took a
/// billion instructions to read, in every compiler process. This pass
/// reads the number arrays of the places that hold them (inputs[i].mean,
/// .scale, layers[i].bias, layers[i].weights[j]) with support::readJSONNumber
/// (correctly rounded, as strtod) and leaves a short placeholder string
/// in their place. Arrays it does not recognise as plain numbers stay in
/// the text. Parsing stays llvm::json's; a file it finds any fault in is
/// read again the plain way, so every error message is the plain reading's.
class NumberArrayCompactor {
public:
  explicit NumberArrayCompactor(StringRef Text) : Text(Text) {}

  /// False when the text may hold a placeholder of its own.
  bool run() {
    if (Text.contains("\\u0001"))
      return false;
    Out.reserve(Text.size() / 4);
    size_t Copied = 0;
    for (size_t I = 0; I < Text.size(); ++I) {
      char C = Text[I];
      if (C == '"') {
        size_t End = skipString(I);
        StringRef Str = Text.slice(I + 1, End);
        I = End;
        Last = Token::String;
        LastString = Str;
        continue;
      }
      if (C == ' ' || C == '\t' || C == '\n' || C == '\r')
        continue;
      if (C == ':') {
        PendingKey = Last == Token::String ? LastString : StringRef();
        Last = Token::Colon;
        continue;
      }
      if (C == '{' || C == '[') {
        StringRef Key = Last == Token::Colon ? PendingKey : StringRef();
        if (C == '[' && wanted(Key)) {
          size_t End;
          if (readNumbers(I, End)) {
            Out.append(Text.begin() + Copied, Text.begin() + I);
            Out += "\"";
            Out += "\\u0001"; // PlaceholderPrefix, escaped
            Out += std::to_string(Arrays.size() - 1);
            Out += "\"";
            Copied = End + 1;
            I = End;
            Last = Token::Other;
            continue;
          }
        }
        Stack.push_back({C, Key});
        Last = Token::Other;
        continue;
      }
      if ((C == '}' || C == ']') && !Stack.empty())
        Stack.pop_back();
      Last = Token::Other;
    }
    Out.append(Text.begin() + Copied, Text.end());
    return true;
  }

  std::string Out;
  std::vector<std::vector<double>> Arrays;

private:
  enum class Token { Other, String, Colon };
  struct Frame {
    char Kind;
    StringRef Key;
  };

  /// The index of the closing quote of the string opening at \p I.
  size_t skipString(size_t I) const {
    for (++I; I < Text.size(); ++I) {
      if (Text[I] == '\\')
        ++I;
      else if (Text[I] == '"')
        return I;
    }
    return Text.size();
  }

  /// Whether an array opening here, as the value of \p Key (or an element
  /// when Key is empty), holds a model's numbers.
  bool wanted(StringRef Key) const {
    auto At = [&](size_t Depth, char Kind, StringRef K) {
      return Stack.size() > Depth && Stack[Depth].Kind == Kind &&
             Stack[Depth].Key == K;
    };
    if (Stack.size() == 3 && (Key == "mean" || Key == "scale"))
      return At(0, '{', "") && At(1, '[', "inputs") && At(2, '{', "");
    if (Stack.size() == 3 && Key == "bias")
      return At(0, '{', "") && At(1, '[', "layers") && At(2, '{', "");
    if (Stack.size() == 4 && Key.empty())
      return At(0, '{', "") && At(1, '[', "layers") && At(2, '{', "") &&
             At(3, '[', "weights");
    return false;
  }

  /// Reads "[number, ...]" at \p I into Arrays; \p End: its ']'.
  bool readNumbers(size_t I, size_t &End) {
    std::vector<double> V;
    const char *P = Text.data() + I + 1, *E = Text.data() + Text.size();
    auto SkipSpace = [&] {
      while (P < E && (*P == ' ' || *P == '\t' || *P == '\n' || *P == '\r'))
        ++P;
    };
    SkipSpace();
    if (P < E && *P == ']')
      return false; // Empty: the plain reading says what is wrong.
    while (true) {
      SkipSpace();
      double D;
      if (!support::readJSONNumber(P, E, D))
        return false;
      V.push_back(D);
      SkipSpace();
      if (P < E && *P == ',') {
        ++P;
        continue;
      }
      if (P < E && *P == ']')
        break;
      return false;
    }
    End = P - Text.data();
    Arrays.push_back(std::move(V));
    return true;
  }

  StringRef Text;
  std::vector<Frame> Stack;
  Token Last = Token::Other;
  StringRef LastString, PendingKey;
};
} // namespace

static Expected<MLPDescription::Input>
readInput(const Reader &R, const json::Value &V, const Twine &Where) {
  Expected<const json::Object *> O = R.object(&V, Where);
  if (!O)
    return O.takeError();
  if (Error E = R.onlyKeys(**O, {"name", "mean", "scale"}, Where))
    return E;
  MLPDescription::Input In;
  Expected<StringRef> Name = R.string(**O, "name", Where);
  if (!Name)
    return Name.takeError();
  In.Name = Name->str();
  Expected<std::vector<double>> Mean =
      R.numbers((*O)->get("mean"), Where + ".mean");
  if (!Mean)
    return Mean.takeError();
  if (Mean->empty())
    return R.error(Where + ".mean", "is empty");
  Expected<std::vector<double>> Scale =
      R.numbers((*O)->get("scale"), Where + ".scale", Mean->size());
  if (!Scale)
    return Scale.takeError();
  for (size_t I = 0; I < Scale->size(); ++I)
    if ((*Scale)[I] == 0)
      return R.error(Where + ".scale[" + Twine(I) + "]", "is zero");
  In.Mean = std::move(*Mean);
  In.Scale = std::move(*Scale);
  return In;
}

static Expected<MLPDescription::Layer> readLayer(const Reader &R,
                                                 const json::Value &V,
                                                 const Twine &Where,
                                                 size_t InputSize) {
  Expected<const json::Object *> O = R.object(&V, Where);
  if (!O)
    return O.takeError();
  if (Error E = R.onlyKeys(**O, {"activation", "weights", "bias"}, Where))
    return E;
  MLPDescription::Layer L;
  Expected<StringRef> Act = R.string(**O, "activation", Where);
  if (!Act)
    return Act.takeError();
  std::optional<ActivationKind> K = parseActivationKind(*Act);
  if (!K)
    return R.error(Where + ".activation",
                   "unknown activation '" + *Act +
                       "' (expected linear, relu or tanh)");
  L.Activation = *K;
  const json::Value *W = (*O)->get("weights");
  if (!W)
    return R.error(Where + ".weights", "missing");
  const json::Array *Rows = W->getAsArray();
  if (!Rows || Rows->empty())
    return R.error(Where + ".weights",
                   "expected a non-empty array of rows (one per output)");
  for (size_t I = 0; I < Rows->size(); ++I) {
    Expected<std::vector<double>> Row =
        R.numbers(&(*Rows)[I], Where + ".weights[" + Twine(I) + "]", InputSize);
    if (!Row)
      return Row.takeError();
    L.Weights.push_back(std::move(*Row));
  }
  Expected<std::vector<double>> Bias =
      R.numbers((*O)->get("bias"), Where + ".bias", Rows->size());
  if (!Bias)
    return Bias.takeError();
  L.Bias = std::move(*Bias);
  return L;
}

Expected<MLPDescription> MLPDescription::parse(StringRef Text, StringRef Name) {
  NumberArrayCompactor C(Text);
  if (C.run() && !C.Arrays.empty()) {
    Expected<MLPDescription> D = parseWith(C.Out, Name, &C.Arrays);
    if (D)
      return D;
    consumeError(D.takeError());
  }
  return parseWith(Text, Name, nullptr);
}

/// output.support: [{"default": D, "bounds": {"<input>": [low, high], ...}},
/// ...], into \p D (whose inputs and default margin are read).
static Error parseSupport(const Reader &R, const json::Value &V,
                          MLPDescription &D) {
  const json::Array *A = V.getAsArray();
  if (!A)
    return R.error("output.support", "expected an array");
  if (!D.DefaultMargin)
    return R.error("output.support", "needs a default_margin (the support "
                                     "says where the model may depart from "
                                     "the default decision)");
  if (D.Positions)
    return R.error("output.support", "a model of positions takes none");
  std::vector<MLPDescription::SupportBox> Boxes;
  for (size_t K = 0; K < A->size(); ++K) {
    std::string Where = ("output.support[" + Twine(K) + "]").str();
    Expected<const json::Object *> O = R.object(&(*A)[K], Where);
    if (!O)
      return O.takeError();
    if (Error E = R.onlyKeys(**O, {"default", "bounds"}, Where))
      return E;
    MLPDescription::SupportBox Box;
    const json::Value *Def = (*O)->get("default");
    std::optional<int64_t> N = Def ? Def->getAsInteger() : std::nullopt;
    if (!N)
      return R.error(Where + ".default", "expected an integer");
    Box.Default = *N;
    for (const MLPDescription::SupportBox &B : Boxes)
      if (B.Default == Box.Default)
        return R.error(Where + ".default",
                       "a second box for default " + Twine(*N));
    Expected<const json::Object *> Bounds =
        R.object((*O)->get("bounds"), Where + ".bounds");
    if (!Bounds)
      return Bounds.takeError();
    for (const auto &KV : **Bounds) {
      StringRef Name = KV.first;
      std::string At = (Where + ".bounds." + Name).str();
      auto It = llvm::find_if(D.Inputs, [&](const MLPDescription::Input &In) {
        return In.Name == Name;
      });
      if (It == D.Inputs.end())
        return R.error(At, "not an input of the model");
      if (It->Mean.size() != 1)
        return R.error(At, "the input has " + Twine(It->Mean.size()) +
                               " elements; a bound needs one");
      Expected<std::vector<double>> LH = R.numbers(&KV.second, At, 2);
      if (!LH)
        return LH.takeError();
      if ((*LH)[0] > (*LH)[1])
        return R.error(At, "low is above high");
      Box.Bounds.push_back(
          {static_cast<size_t>(It - D.Inputs.begin()), (*LH)[0], (*LH)[1]});
    }
    // In input order, whatever the object's.
    llvm::sort(Box.Bounds, [](const MLPDescription::Bound &X,
                              const MLPDescription::Bound &Y) {
      return X.Input < Y.Input;
    });
    Boxes.push_back(std::move(Box));
  }
  D.Support = std::move(Boxes);
  return Error::success();
}

bool MLPDescription::mayDepart(int64_t Default,
                               function_ref<double(size_t Input)> Value) const {
  if (!Support)
    return true;
  for (const SupportBox &B : *Support)
    if (B.Default == Default)
      return llvm::all_of(B.Bounds, [&](const Bound &X) {
        double V = Value(X.Input);
        return V >= X.Low && V <= X.High;
      });
  return false;
}

Expected<MLPDescription>
MLPDescription::parseWith(StringRef Text, StringRef Name,
                          const std::vector<std::vector<double>> *Arrays) {
  Expected<json::Value> V = support::parseJSON(Text, Name);
  if (!V)
    return V.takeError();
  Reader R(Name, Arrays);
  Expected<const json::Object *> Top = R.object(&*V, "top level");
  if (!Top)
    return Top.takeError();
  const json::Object &O = **Top;

  Expected<StringRef> Format = R.string(O, "format", "top level");
  if (!Format)
    return Format.takeError();
  if (*Format != "irtk-mlp")
    return R.error("format", "is '" + *Format + "'; expected 'irtk-mlp'");
  std::optional<int64_t> Ver =
      O.get("version") ? O.get("version")->getAsInteger() : std::nullopt;
  if (!Ver)
    return R.error("version", "missing or not an integer");
  if (*Ver != Version)
    return R.error("version",
                   "is " + Twine(*Ver) + "; this irtk reads " + Twine(Version));
  if (Error E = R.onlyKeys(O,
                           {"format", "version", "advisor", "decision",
                            "inputs", "layers", "output", "training"},
                           "top level"))
    return E;

  MLPDescription D;
  Expected<StringRef> Advisor = R.string(O, "advisor", "top level");
  if (!Advisor)
    return Advisor.takeError();
  D.Advisor = Advisor->str();
  Expected<StringRef> Decision = R.string(O, "decision", "top level");
  if (!Decision)
    return Decision.takeError();
  D.Decision = Decision->str();

  const json::Value *Inputs = O.get("inputs");
  const json::Array *InArr = Inputs ? Inputs->getAsArray() : nullptr;
  if (!InArr || InArr->empty())
    return R.error("inputs", "expected a non-empty array");
  StringMap<size_t> Seen;
  for (size_t I = 0; I < InArr->size(); ++I) {
    Expected<Input> In = readInput(R, (*InArr)[I], "inputs[" + Twine(I) + "]");
    if (!In)
      return In.takeError();
    if (!Seen.try_emplace(In->Name, I).second)
      return R.error("inputs[" + Twine(I) + "]",
                     "'" + In->Name + "' is already inputs[" +
                         Twine(Seen[In->Name]) + "]");
    // A model reading its own decision would only copy the label.
    if (In->Name == D.Decision)
      return R.error("inputs[" + Twine(I) + "]",
                     "'" + In->Name +
                         "' is the model's decision, not an input");
    D.Inputs.push_back(std::move(*In));
  }

  const json::Value *Layers = O.get("layers");
  const json::Array *LArr = Layers ? Layers->getAsArray() : nullptr;
  if (!LArr || LArr->empty())
    return R.error("layers", "expected a non-empty array");
  size_t Width = D.inputSize();
  for (size_t I = 0; I < LArr->size(); ++I) {
    Expected<Layer> L =
        readLayer(R, (*LArr)[I], "layers[" + Twine(I) + "]", Width);
    if (!L)
      return L.takeError();
    Width = L->Bias.size();
    D.Layers.push_back(std::move(*L));
  }

  Expected<const json::Object *> Out = R.object(O.get("output"), "output");
  if (!Out)
    return Out.takeError();
  if (Error E = R.onlyKeys(
          **Out, {"kind", "mask", "positions", "default_margin", "support"},
          "output"))
    return E;
  Expected<StringRef> Kind = R.string(**Out, "kind", "output");
  if (!Kind)
    return Kind.takeError();
  if (*Kind == "logit") {
    D.Output = OutputKind::Logit;
    if (Width != 1)
      return R.error("output.kind", "'logit' needs a last layer of 1 output, "
                                    "not " +
                                        Twine(Width));
    if ((*Out)->get("mask"))
      return R.error("output.mask", "only 'argmax' takes a mask");
    if ((*Out)->get("positions"))
      return R.error("output.positions", "only 'argmax' takes positions");
  } else if (*Kind == "argmax") {
    D.Output = OutputKind::ArgMax;
    if (const json::Value *M = (*Out)->get("mask")) {
      std::optional<StringRef> S = M->getAsString();
      if (!S)
        return R.error("output.mask", "expected a string");
      D.Mask = S->str();
      // Only the advisor's own mask says which choices are legal; another
      // feature would have the model choose among the wrong ones.
      if (const AdvisorInfo *A = findAdvisor(D.Advisor); A && D.Mask != A->Mask)
        return R.error(
            "output.mask",
            "'" + D.Mask + "' is not the " + D.Advisor + " advisor's mask" +
                (A->Mask.empty()
                     ? Twine(" (it has none)")
                     : "; expected '" + A->Mask + "' (the legal choices)"));
    }
    if (const json::Value *P = (*Out)->get("positions")) {
      std::optional<int64_t> N = P->getAsInteger();
      if (!N || *N < 2 || *N > 65536)
        return R.error("output.positions",
                       "expected an integer from 2 to 65536");
      D.Positions = static_cast<unsigned>(*N);
      if (Width != 1)
        return R.error("output.positions",
                       "scoring positions needs a last layer of 1 output, "
                       "not " +
                           Twine(Width));
    }
  } else {
    return R.error("output.kind",
                   "unknown kind '" + *Kind + "' (expected logit or argmax)");
  }
  if (const json::Value *M = (*Out)->get("default_margin")) {
    std::optional<double> X = M->getAsNumber();
    if (!X || !std::isfinite(*X) || *X < 0)
      return R.error("output.default_margin", "expected a number from 0");
    D.DefaultMargin = *X;
  }
  if (const json::Value *S = (*Out)->get("support")) {
    if (Error E = parseSupport(R, *S, D))
      return E;
  }
  if (const json::Value *T = O.get("training")) {
    if (support::hasNonFiniteNumber(*T))
      return R.error("training", "holds a number too large for a double");
    std::string S;
    raw_string_ostream OS(S);
    OS << *T;
    D.TrainingJSON = std::move(S);
  }
  if (Error E = D.checkNumbers(Name))
    return E;
  return D;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static void writeNumbers(raw_ostream &OS, ArrayRef<double> V) {
  OS << '[';
  for (size_t I = 0; I < V.size(); ++I) {
    if (I)
      OS << ", ";
    support::writeJSONNumber(OS, V[I]);
  }
  OS << ']';
}

void MLPDescription::write(raw_ostream &OS) const {
  OS << "{\n  \"format\": \"irtk-mlp\",\n  \"version\": " << Version
     << ",\n  \"advisor\": " << json::Value(Advisor)
     << ",\n  \"decision\": " << json::Value(Decision) << ",\n  \"inputs\": [";
  for (size_t I = 0; I < Inputs.size(); ++I) {
    OS << (I ? ",\n" : "\n") << "    {\"name\": " << json::Value(Inputs[I].Name)
       << ", \"mean\": ";
    writeNumbers(OS, Inputs[I].Mean);
    OS << ", \"scale\": ";
    writeNumbers(OS, Inputs[I].Scale);
    OS << '}';
  }
  OS << "\n  ],\n  \"layers\": [";
  for (size_t I = 0; I < Layers.size(); ++I) {
    const Layer &L = Layers[I];
    OS << (I ? ",\n" : "\n") << "    {\"activation\": \""
       << activationKindName(L.Activation) << "\", \"bias\": ";
    writeNumbers(OS, L.Bias);
    OS << ",\n     \"weights\": [";
    for (size_t R = 0; R < L.Weights.size(); ++R) {
      OS << (R ? ",\n       " : "");
      writeNumbers(OS, L.Weights[R]);
    }
    OS << "]}";
  }
  OS << "\n  ],\n  \"output\": {\"kind\": \""
     << (Output == OutputKind::Logit ? "logit" : "argmax") << '"';
  if (!Mask.empty())
    OS << ", \"mask\": " << json::Value(Mask);
  if (Positions)
    OS << ", \"positions\": " << Positions;
  if (DefaultMargin) {
    OS << ", \"default_margin\": ";
    support::writeJSONNumber(OS, *DefaultMargin);
  }
  if (Support) {
    OS << ",\n    \"support\": [";
    for (size_t K = 0; K < Support->size(); ++K) {
      const SupportBox &B = (*Support)[K];
      OS << (K ? ",\n      " : "\n      ") << "{\"default\": " << B.Default
         << ", \"bounds\": {";
      for (size_t J = 0; J < B.Bounds.size(); ++J) {
        OS << (J ? ", " : "") << json::Value(Inputs[B.Bounds[J].Input].Name)
           << ": ";
        writeNumbers(OS, {B.Bounds[J].Low, B.Bounds[J].High});
      }
      OS << "}}";
    }
    OS << "]";
  }
  OS << '}';
  if (!TrainingJSON.empty())
    OS << ",\n  \"training\": " << TrainingJSON;
  OS << "\n}\n";
}

//===----------------------------------------------------------------------===//
// Averaging
//===----------------------------------------------------------------------===//

static bool sameSupport(const MLPDescription &A, const MLPDescription &B) {
  if (A.Support.has_value() != B.Support.has_value())
    return false;
  if (!A.Support)
    return true;
  return llvm::equal(*A.Support, *B.Support, [](const auto &X, const auto &Y) {
    return X.Default == Y.Default &&
           llvm::equal(X.Bounds, Y.Bounds, [](const auto &P, const auto &Q) {
             return P.Input == Q.Input && P.Low == Q.Low && P.High == Q.High;
           });
  });
}

Expected<MLPDescription> averageModels(ArrayRef<MLPDescription> Models) {
  auto Fail = [](size_t K, const Twine &Msg) -> Error {
    return createStringError(inconvertibleErrorCode(),
                             "cannot average model " + Twine(K) +
                                 " with model 0: " + Msg);
  };
  if (Models.empty())
    return createStringError(inconvertibleErrorCode(),
                             "cannot average no model");
  const MLPDescription &First = Models.front();
  if (First.Layers.empty() ||
      First.Layers.back().Activation != ActivationKind::Linear)
    return createStringError(inconvertibleErrorCode(),
                             "cannot average models without a linear last "
                             "layer (a mean of their outputs is no network "
                             "of theirs)");
  for (size_t K = 1; K < Models.size(); ++K) {
    const MLPDescription &M = Models[K];
    if (M.Advisor != First.Advisor || M.Decision != First.Decision ||
        M.Output != First.Output || M.Mask != First.Mask ||
        M.Positions != First.Positions)
      return Fail(K, "they decide differently (advisor, decision, output, "
                     "mask or positions)");
    if (M.DefaultMargin != First.DefaultMargin)
      return Fail(K, "their default margins differ");
    if (!sameSupport(M, First))
      return Fail(K, "their support boxes differ");
    if (M.Inputs.size() != First.Inputs.size())
      return Fail(K, "they read different inputs");
    for (size_t N = 0; N < M.Inputs.size(); ++N)
      if (M.Inputs[N].Name != First.Inputs[N].Name ||
          M.Inputs[N].Mean != First.Inputs[N].Mean ||
          M.Inputs[N].Scale != First.Inputs[N].Scale)
        return Fail(K, "input " + Twine(N) + " ('" + M.Inputs[N].Name +
                           "') differs in name or normalisation");
    if (M.Layers.size() != First.Layers.size())
      return Fail(K, "they have different numbers of layers");
    for (size_t L = 0; L < M.Layers.size(); ++L)
      if (M.Layers[L].Activation != First.Layers[L].Activation)
        return Fail(K, "layer " + Twine(L) + "'s activations differ");
    if (M.Layers.back().Bias.size() != First.Layers.back().Bias.size())
      return Fail(K, "they have different numbers of outputs");
  }

  MLPDescription Avg = First;
  double Share = 1.0 / static_cast<double>(Models.size());
  size_t Last = First.Layers.size() - 1;
  // Where model K's units of each layer start among the average's.
  std::vector<size_t> InOffset(Models.size(), 0), OutOffset(Models.size(), 0);
  for (size_t L = 0; L <= Last; ++L) {
    MLPDescription::Layer &Out = Avg.Layers[L];
    size_t Rows = 0, Cols = 0;
    for (size_t K = 0; K < Models.size(); ++K) {
      const MLPDescription::Layer &In = Models[K].Layers[L];
      OutOffset[K] = L == Last ? 0 : Rows;
      InOffset[K] = L == 0 ? 0 : Cols;
      Rows += In.Bias.size();
      Cols += In.Weights.empty() ? 0 : In.Weights.front().size();
    }
    if (L == Last)
      Rows = First.Layers[L].Bias.size();
    if (L == 0)
      Cols = First.inputSize();
    Out.Weights.assign(Rows, std::vector<double>(Cols, 0.0));
    Out.Bias.assign(Rows, 0.0);
    for (size_t K = 0; K < Models.size(); ++K) {
      const MLPDescription::Layer &In = Models[K].Layers[L];
      double Scale = L == Last ? Share : 1.0;
      for (size_t R = 0; R < In.Weights.size(); ++R) {
        for (size_t C = 0; C < In.Weights[R].size(); ++C)
          Out.Weights[OutOffset[K] + R][InOffset[K] + C] +=
              Scale * In.Weights[R][C];
        Out.Bias[OutOffset[K] + R] += Scale * In.Bias[R];
      }
    }
  }
  return Avg;
}

//===----------------------------------------------------------------------===//
// Evaluating
//===----------------------------------------------------------------------===//

struct MLPModel::Impl {
  MLPDescription D;
  /// For each described input: its index in the advisor's buffers and the
  /// TensorSpec there.
  std::vector<std::pair<size_t, TensorSpec>> Bound;
  /// Positions only: per described input, whether each position reads its
  /// own elements (or all of them).
  std::vector<bool> Split;
  std::optional<std::pair<size_t, TensorSpec>> MaskInput;
  /// DefaultMargin only: the advisor's default decision.
  std::optional<std::pair<size_t, TensorSpec>> DefaultInput;
  Network Net;

  /// Fills \p X with the normalised inputs of position \p P (of the whole
  /// state, for a model without positions).
  void fill(ArrayRef<const void *> Buffers, unsigned P,
            Eigen::VectorXd &X) const {
    size_t K = 0;
    for (size_t N = 0; N < Bound.size(); ++N) {
      const auto &[Idx, TS] = Bound[N];
      const MLPDescription::Input &In = D.Inputs[N];
      size_t First = Split[N] ? P * In.Mean.size() : 0;
      for (size_t E = 0; E < In.Mean.size(); ++E)
        X(K++) =
            (modelInput(readScalar(TS, Buffers[Idx], First + E)) - In.Mean[E]) /
            In.Scale[E];
    }
  }
  /// The score of position \p P of a model of positions; \p X is scratch.
  double score(ArrayRef<const void *> Buffers, unsigned P,
               Eigen::VectorXd &X) const {
    fill(Buffers, P, X);
    return Net.forward(X)(0);
  }
};

MLPModel::MLPModel(std::unique_ptr<Impl> I) : I(std::move(I)) {}
MLPModel::~MLPModel() = default;

const MLPDescription &MLPModel::description() const { return I->D; }

bool MLPModel::readsInput(size_t Index) const {
  if ((I->MaskInput && I->MaskInput->first == Index) ||
      (I->DefaultInput && I->DefaultInput->first == Index))
    return true;
  return llvm::any_of(I->Bound,
                      [&](const auto &B) { return B.first == Index; });
}

Expected<std::unique_ptr<MLPModel>>
MLPModel::bind(MLPDescription D, const PolicySpec &Spec, StringRef Name) {
  auto Fail = [&](const Twine &Msg) -> Error {
    return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
  };
  if (D.Advisor != Spec.Advisor)
    return Fail("the model is for the '" + D.Advisor + "' advisor, not '" +
                Spec.Advisor + "'");
  if (D.Decision != Spec.Decision.name())
    return Fail("the model decides '" + D.Decision + "'; the " + Spec.Advisor +
                " advisor asks for '" + Spec.Decision.name() + "'");
  auto Find = [&](StringRef Feature) {
    return findFeature(Spec.Inputs, Feature);
  };
  auto Impl = std::make_unique<MLPModel::Impl>();
  for (const MLPDescription::Input &In : D.Inputs) {
    std::optional<size_t> Idx = Find(In.Name);
    if (!Idx)
      return Fail("input '" + In.Name + "' is not a feature of the " +
                  Spec.Advisor +
                  " advisor (with these options; docs/AdvisorFeatures.md)");
    const TensorSpec &TS = Spec.Inputs[*Idx];
    size_t Count = TS.getElementCount();
    bool Split = D.Positions && In.Mean.size() * D.Positions == Count;
    if (!Split && Count != In.Mean.size())
      return Fail("input '" + In.Name + "' has " + Twine(In.Mean.size()) +
                  " elements; the advisor's has " + Twine(Count) +
                  (D.Positions ? " (or " + Twine(Count / D.Positions) +
                                     " per position when divisible by " +
                                     Twine(D.Positions) + ")"
                               : Twine()));
    Impl->Bound.emplace_back(*Idx, TS);
    Impl->Split.push_back(Split);
  }
  if (D.Positions && llvm::none_of(Impl->Split, [](bool S) { return S; }))
    return Fail("no input has elements per position: every one of the " +
                Twine(D.Positions) + " positions would score the same");
  size_t Outputs = D.Positions ? D.Positions : D.Layers.back().Bias.size();
  if (D.Output == OutputKind::ArgMax && !D.Mask.empty()) {
    std::optional<size_t> Idx = Find(D.Mask);
    if (!Idx)
      return Fail("mask '" + D.Mask + "' is not a feature of the " +
                  Spec.Advisor + " advisor");
    if (Spec.Inputs[*Idx].getElementCount() != Outputs)
      return Fail("mask '" + D.Mask + "' has " +
                  Twine(Spec.Inputs[*Idx].getElementCount()) +
                  " elements; the model " +
                  (D.Positions ? "scores " : "has outputs for ") +
                  Twine(Outputs) + " choices");
    Impl->MaskInput.emplace(*Idx, Spec.Inputs[*Idx]);
  }
  if (D.DefaultMargin)
    Impl->DefaultInput.emplace(Spec.DefaultIndex,
                               Spec.Inputs[Spec.DefaultIndex]);
  Impl->Net = Network::of(D);
  Impl->D = std::move(D);
  return std::unique_ptr<MLPModel>(new MLPModel(std::move(Impl)));
}

std::vector<double> MLPModel::outputs(ArrayRef<const void *> Buffers) const {
  Eigen::VectorXd X(I->D.inputSize());
  if (!I->D.Positions) {
    I->fill(Buffers, 0, X);
    Eigen::VectorXd Y = I->Net.forward(X);
    return std::vector<double>(Y.data(), Y.data() + Y.size());
  }
  std::vector<double> Out(I->D.Positions);
  for (unsigned P = 0; P < I->D.Positions; ++P)
    Out[P] = I->score(Buffers, P, X);
  return Out;
}

int64_t MLPModel::evaluate(ArrayRef<const void *> Buffers) const {
  std::vector<double> Out;
  auto Legal = [&](int64_t K) {
    return K >= 0 && static_cast<size_t>(K) < Out.size() &&
           (!I->MaskInput || readScalar(I->MaskInput->second,
                                        Buffers[I->MaskInput->first], K) != 0);
  };
  if (I->D.Positions) {
    // Only the legal positions' scores: the decision reads no other, and
    // the eviction advisor's states have a few legal positions of 33. Each
    // is the score outputs() gives it, to the bit.
    Out.assign(I->D.Positions, 0.0);
    Eigen::VectorXd X(I->D.inputSize());
    for (unsigned P = 0; P < I->D.Positions; ++P)
      if (Legal(P))
        Out[P] = I->score(Buffers, P, X);
  } else {
    Out = outputs(Buffers);
  }
  int64_t Best = -1;
  if (I->D.Output == OutputKind::Logit) {
    Best = Out[0] > 0 ? 1 : 0;
  } else {
    for (size_t K = 0; K < Out.size(); ++K)
      if (Legal(K) && (Best < 0 || Out[K] > Out[Best]))
        Best = static_cast<int64_t>(K);
    if (Best < 0)
      return 0;
  }
  if (!I->DefaultInput)
    return Best;
  auto Default = static_cast<int64_t>(
      readScalar(I->DefaultInput->second, Buffers[I->DefaultInput->first], 0));
  // A logit's decisions are 0 and 1, both always legal.
  bool DefaultLegal = I->D.Output == OutputKind::Logit
                          ? Default == 0 || Default == 1
                          : Legal(Default);
  int64_t Decision = keepDefault(
      I->D.Output, *I->D.DefaultMargin, [&](int64_t K) { return Out[K]; }, Best,
      Default, DefaultLegal);
  if (Decision != Default && DefaultLegal &&
      !I->D.mayDepart(Default, [&](size_t N) {
        const auto &[Idx, TS] = I->Bound[N];
        return modelInput(readScalar(TS, Buffers[Idx], 0));
      }))
    return Default;
  return Decision;
}

} // namespace irtk::advisors
