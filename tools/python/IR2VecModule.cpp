//===- IR2VecModule.cpp - The ir2vec Python extension ---------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `ir2vec._ir2vec`, the extension behind the `ir2vec` Python package. It
/// offers LLVM main's Python API for IR2Vec (loadVocab, IR2VecKind,
/// initEmbedding and the IR2VecTool queries), so that scripts written for
/// upstream's bindings run unchanged, and embedFiles (and its iterator,
/// embedFilesIter), which embeds many files on a pool of threads with the GIL
/// released. This is glue: vectors come from irtk::ir2vec::Embedder,
/// instruction text from InstructionPrinter, and the queries make the calls
/// upstream's IR2VecTool makes, in the same order, so that flow-aware results
/// agree too.
///
/// Exceptions are thrown only in this file's own frames, never through LLVM
/// code: libLLVM is built without exceptions.
///
//===----------------------------------------------------------------------===//

#include "ApproxIndexModule.h"
#include "ModuleSupport.h"

#include "irtk/batch/Mode.h"
#include "irtk/batch/Run.h"
#include "irtk/ir2vec/Embedder.h"
#include "irtk/ir2vec/Entities.h"
#include "irtk/ir2vec/StoreRows.h"
#include "irtk/ir2vec/Walk.h"
#include "irtk/ircommon/ModuleLoader.h"
#include "irtk/store/Index.h"
#include "irtk/store/Search.h"
#include "irtk/store/Store.h"
#include "irtk/support/Format.h"
#include "irtk/support/ParallelMap.h"
#include "irtk/support/ReadFile.h"
#include "irtk/support/Symbols.h"
#include "irtk/support/Version.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace py = pybind11;
using namespace llvm;
using namespace irtk::python;
using irtk::ir2vec::Embedder;
using irtk::ir2vec::EmbeddingKind;
using irtk::ir2vec::LevelKind;
using irtk::vocab::Vocabulary;

namespace {

/// ir2vec.Vocab: a loaded vocabulary. Tools share it, so it outlives the
/// Python object that made it.
struct PyVocab {
  std::shared_ptr<const Vocabulary> V;
  std::string Path;
  irtk::ir2vec::Weights W;
};

/// Embeddings with their keys (function, block or instruction), in IR order.
struct Rows {
  explicit Rows(unsigned Dim = 0) : Dim(Dim) {}
  /// Adds a row for \p Key and returns its storage, to be filled at once.
  double *append(std::string Key) {
    Keys.push_back(std::move(Key));
    Data.resize(Data.size() + Dim);
    return Data.data() + Data.size() - Dim;
  }
  const double *row(size_t I) const { return Data.data() + I * Dim; }

  unsigned Dim;
  std::vector<std::string> Keys;
  std::vector<double> Data;
};

/// A parsed and verified module in its own context, and the warnings LLVM
/// reported while reading it.
struct LoadedModule {
  std::unique_ptr<LLVMContext> Ctx;
  std::unique_ptr<Module> M;
  std::vector<std::string> Warnings;
};

/// The embeddings of one function, at the levels walked.
struct FunctionRows {
  std::string Name;
  Rows Function, Blocks, Instructions;
};

/// What embedFiles computes for one file, without touching Python.
struct FileResult {
  std::string Error;
  std::vector<std::string> Warnings;
  /// Every function walked, in module order.
  std::vector<FunctionRows> Functions;
  /// The module's vector, when the walk had the module level.
  std::vector<double> Module;
};

} // namespace

/// Parses and verifies \p Path (textual IR or bitcode). Errors are one line
/// naming the file; the parse message starts as upstream's bindings' does.
static Expected<LoadedModule> loadModule(const std::string &Path) {
  LoadedModule L;
  L.Ctx = std::make_unique<LLVMContext>();
  irtk::ircommon::LoadedModule R = irtk::ircommon::loadModule(Path, *L.Ctx);
  switch (R.Failure) {
  case irtk::ircommon::LoadFailureKind::None:
    break;
  case irtk::ircommon::LoadFailureKind::Parse:
    return createStringError(inconvertibleErrorCode(),
                             "Failed to parse IR file '" + Path +
                                 "': " + R.located());
  case irtk::ircommon::LoadFailureKind::Invalid:
    return createStringError(inconvertibleErrorCode(),
                             "Invalid module '" + Path + "': " + R.Message);
  }
  L.M = std::move(R.M);
  L.Warnings = std::move(R.Warnings);
  return L;
}

/// Appends \p E to \p R, keyed as upstream's maps key it: by the function's
/// name, the block's name, or the instruction's text; except that a block
/// is keyed by its label (the walk must be asked for labels), so that
/// unnamed blocks do not collide: a named block's name, `%N` for an unnamed
/// one, `bb.N[.name]` for a machine block.
static void appendRecord(Rows &R, const irtk::ircommon::EmbeddingRecord &E) {
  std::string Key;
  switch (E.Level) {
  case LevelKind::Function:
    Key = E.F->getName().str();
    break;
  case LevelKind::BasicBlock:
    Key = E.BlockLabel.str();
    break;
  case LevelKind::Instruction:
    Key = E.InstText.str();
    break;
  case LevelKind::Module:
    llvm_unreachable("the module's record is FunctionRowsSink's");
  }
  std::copy(E.Vector.begin(), E.Vector.end(), R.append(std::move(Key)));
}

namespace {
/// A walker sink that keeps every record as a keyed row.
class RowsSink : public irtk::ircommon::EmbeddingSink {
public:
  explicit RowsSink(Rows &R) : R(R) {}
  void record(const irtk::ircommon::EmbeddingRecord &E) override {
    appendRecord(R, E);
  }

private:
  Rows &R;
};

/// A walker sink that keeps the records of each function apart, and the
/// module's vector in \p Module (the walk must not have the module level
/// without it).
class FunctionRowsSink : public irtk::ircommon::EmbeddingSink {
public:
  explicit FunctionRowsSink(std::vector<FunctionRows> &Out,
                            std::vector<double> *Module = nullptr)
      : Out(Out), Module(Module) {}
  void beginFunction(const Function &F) override {
    Out.push_back({F.getName().str(), Rows(), Rows(), Rows()});
  }
  void record(const irtk::ircommon::EmbeddingRecord &E) override {
    if (E.Level == LevelKind::Module) {
      assert(Module && "a module record without a place for it");
      Module->assign(E.Vector.begin(), E.Vector.end());
      return;
    }
    FunctionRows &F = Out.back();
    Rows &R = E.Level == LevelKind::Function     ? F.Function
              : E.Level == LevelKind::BasicBlock ? F.Blocks
                                                 : F.Instructions;
    R.Dim = E.Vector.size();
    appendRecord(R, E);
  }

private:
  std::vector<FunctionRows> &Out;
  std::vector<double> *Module;
};
} // namespace

/// The walker's options for level \p L of kind \p K, as upstream's
/// IR2VecTool queries: a fresh embedder per function, blocks and
/// instructions in layout order (unreachable ones included), instructions
/// keyed by Instruction::print's text, blocks by their labels.
static irtk::ir2vec::WalkOptions walkOptions(EmbeddingKind K, LevelKind L) {
  irtk::ir2vec::WalkOptions O = irtk::ir2vec::WalkOptions::forLevel(K, L);
  O.InstructionText = L == LevelKind::Instruction;
  O.BlockLabels = L == LevelKind::BasicBlock;
  return O;
}

/// Upstream's IR2VecTool::getFunctionEmbeddingsMap: every defined function,
/// in IR order (upstream's map is keyed by pointer).
static Rows functionRows(const Module &M, const Vocabulary &V,
                         EmbeddingKind K) {
  Rows R(V.dimension());
  RowsSink S(R);
  irtk::ir2vec::Walker(V, walkOptions(K, LevelKind::Function)).walkModule(M, S);
  return R;
}

/// IITH IR2Vec's getProgramVector: the module level, the sum of the
/// function vectors of the defined functions in module order.
static std::vector<double> moduleVector(const Module &M, const Vocabulary &V,
                                        EmbeddingKind K) {
  std::vector<FunctionRows> None;
  std::vector<double> Sum;
  FunctionRowsSink S(None, &Sum);
  irtk::ir2vec::Walker(V, walkOptions(K, LevelKind::Module)).walkModule(M, S);
  return Sum;
}

/// Upstream's getBBEmbeddingsMap and getInstEmbeddingsMap: the blocks or
/// instructions of \p F.
static Rows functionPartRows(const Function &F, const Vocabulary &V,
                             EmbeddingKind K, LevelKind L) {
  Rows R(V.dimension());
  RowsSink S(R);
  irtk::ir2vec::Walker(V, walkOptions(K, L)).walkFunction(F, S);
  return R;
}

//===----------------------------------------------------------------------===//
// Conversions to and from Python.
//===----------------------------------------------------------------------===//

/// IR names are bytes; names that are not UTF-8 keep their bytes as
/// surrogates, as os.fsdecode does.
static py::str toStr(const std::string &S) {
  PyObject *U = PyUnicode_DecodeUTF8(
      S.data(), static_cast<Py_ssize_t>(S.size()), "surrogateescape");
  if (!U)
    throw py::error_already_set();
  return py::reinterpret_steal<py::str>(U);
}

static py::array_t<double> toArray(const double *P, unsigned Dim) {
  py::array_t<double> A(static_cast<py::ssize_t>(Dim));
  std::copy(P, P + Dim, A.mutable_data());
  return A;
}

/// {key: vector}. Rows with equal keys (unnamed blocks, identical
/// instructions) collapse into one entry; the last in IR order wins.
static py::dict toDict(const Rows &R) {
  py::dict D;
  for (size_t I = 0; I < R.Keys.size(); ++I)
    D[toStr(R.Keys[I])] = toArray(R.row(I), R.Dim);
  return D;
}

/// [(key, vector)] in IR order, every row kept.
static py::list toPairs(const Rows &R) {
  py::list L;
  for (size_t I = 0; I < R.Keys.size(); ++I)
    L.append(py::make_tuple(toStr(R.Keys[I]), toArray(R.row(I), R.Dim)));
  return L;
}

/// A function name argument: a str as getFuncNames() gives it (a name that
/// is not UTF-8 has its bytes as surrogates, as os.fsdecode does), or bytes.
static std::string toName(py::handle Obj, const char *What) {
  if (py::isinstance<py::bytes>(Obj))
    return std::string(py::reinterpret_borrow<py::bytes>(Obj));
  if (!py::isinstance<py::str>(Obj))
    throw py::type_error(std::string(What) + " must be a str, not " +
                         typeName(Obj));
  PyObject *B =
      PyUnicode_AsEncodedString(Obj.ptr(), "utf-8", "surrogateescape");
  if (!B)
    throw py::error_already_set();
  return std::string(py::reinterpret_steal<py::bytes>(B));
}

/// Accepts ir2vec.IR2VecKind (LLVM main) and the strings "sym" and "fa" of
/// its first revisions ("symbolic" and "flow-aware" too, as on the command
/// line).
static EmbeddingKind parseMode(py::handle Mode) {
  if (py::isinstance<EmbeddingKind>(Mode))
    return Mode.cast<EmbeddingKind>();
  if (!py::isinstance<py::str>(Mode))
    throw py::type_error("mode must be an ir2vec.IR2VecKind, 'sym' or 'fa', "
                         "not " +
                         typeName(Mode));
  std::string S = toName(Mode, "mode");
  if (S == "sym" || S == "symbolic")
    return EmbeddingKind::Symbolic;
  if (S == "fa" || S == "flow-aware")
    return EmbeddingKind::FlowAware;
  // Upstream raised ValueError for a bad string, then TypeError once the
  // parameter became the enum: InvalidModeError is both.
  py::object Error =
      py::module_::import("ir2vec._ir2vec").attr("InvalidModeError");
  std::string Msg = "Invalid mode. Use 'sym' or 'fa' (or ir2vec.IR2VecKind."
                    "Symbolic / FlowAware), not '" +
                    S + "'";
  PyErr_SetObject(Error.ptr(), toMessage(Msg).ptr());
  throw py::error_already_set();
}

static Expected<Vocabulary> loadVocabulary(const std::string &Path,
                                           const irtk::ir2vec::Weights &W) {
  py::gil_scoped_release NoGIL;
  return irtk::ir2vec::loadVocabulary(Path, W);
}

static float checkWeight(double W, const char *Name) {
  float F = static_cast<float>(W);
  if (!std::isfinite(F))
    throwValueError(std::string(Name) + " must be a finite number");
  return F;
}

/// The path loadVocab and loadMIRVocab take: not empty.
static std::string toVocabPath(py::handle VocabPath) {
  std::string Path = toPath(VocabPath, "vocabPath");
  if (Path.empty())
    throwValueError("Empty vocabulary path not allowed");
  return Path;
}

/// ir2vec.loadVocab. Weights are floats, as upstream's -ir2vec-*-weight.
static std::unique_ptr<PyVocab> loadVocab(py::handle VocabPath,
                                          double OpcWeight, double TypeWeight,
                                          double ArgWeight) {
  std::string Path = toVocabPath(VocabPath);
  irtk::ir2vec::Weights W;
  W.Opcode = checkWeight(OpcWeight, "opcWeight");
  W.Type = checkWeight(TypeWeight, "typeWeight");
  W.Argument = checkWeight(ArgWeight, "argWeight");
  Expected<Vocabulary> V = loadVocabulary(Path, W);
  if (!V)
    throwValueError("Failed to load vocabulary: " + toString(V.takeError()));
  return std::make_unique<PyVocab>(
      PyVocab{std::make_shared<const Vocabulary>(std::move(*V)), Path, W});
}

/// The vocabulary of \p Fn: a Vocab object (LLVM main) or, as in upstream's
/// first revisions, a path.
/// The vocabulary of a call: \p VocabObj (an ir2vec.Vocab), the file
/// \p VocabPath, or, when neither is given, the package's default
/// vocabulary (ir2vec._defaultVocab(), loaded once), as the CLI and the
/// plugin use it.
static std::shared_ptr<const Vocabulary>
resolveVocab(py::handle VocabObj, py::handle VocabPath, const char *Fn) {
  bool HasVocab = !VocabObj.is_none(), HasPath = !VocabPath.is_none();
  if (HasVocab && HasPath)
    throw py::type_error(std::string(Fn) +
                         "() takes vocab or vocabPath, not both");
  if (!HasVocab && !HasPath)
    return py::module_::import("ir2vec")
        .attr("_defaultVocab")()
        .cast<PyVocab &>()
        .V;
  if (HasVocab) {
    if (py::isinstance<py::str>(VocabObj))
      // IITH IR2Vec's pip package is also called ir2vec; its
      // initEmbedding(file, mode, level) takes a level third.
      throw py::type_error(toMessage(
          "vocab must be an ir2vec.Vocab from ir2vec.loadVocab(), not str. "
          "This ir2vec is irtk's, with LLVM's API, not IITH IR2Vec's "
          "initEmbedding(file, mode, level): use ir2vec.initEmbedding(file, "
          "'fa') (default vocabulary; vocabPath=... names a file) and then "
          "getFuncEmbMap(); see docs/Python.md"));
    if (!py::isinstance<PyVocab>(VocabObj))
      throw py::type_error(
          "vocab must be an ir2vec.Vocab from ir2vec.loadVocab(), not " +
          typeName(VocabObj));
    return VocabObj.cast<PyVocab &>().V;
  }
  std::string Path = toPath(VocabPath, "vocabPath");
  if (Path.empty())
    throwValueError("Empty Vocab Path not allowed");
  Expected<Vocabulary> V = loadVocabulary(Path, irtk::ir2vec::Weights());
  if (!V)
    throwValueError("Failed to initialize IR2Vec vocabulary: " +
                    toString(V.takeError()));
  return std::make_shared<const Vocabulary>(std::move(*V));
}

namespace {

/// ir2vec.IR2VecTool: one module, one mode, one vocabulary. Queries compute
/// with the GIL released; a mutex keeps two threads out of one module.
class PyIR2VecTool {
public:
  PyIR2VecTool(std::string Path, EmbeddingKind K,
               std::shared_ptr<const Vocabulary> V, LoadedModule L)
      : Path(std::move(Path)), Kind(K), V(std::move(V)), L(std::move(L)) {}

  const std::string &path() const { return Path; }
  EmbeddingKind kind() const { return Kind; }

  py::list getFuncNames() const {
    py::list Names;
    for (const Function &F : *L.M)
      if (!F.isDeclaration())
        Names.append(toStr(F.getName().str()));
    return Names;
  }

  py::dict getFuncEmbMap() {
    return toDict(compute([&] { return functionRows(*L.M, *V, Kind); }));
  }

  py::array_t<double> getFuncEmb(py::handle NameObj) {
    const Function &F = definedFunction(toName(NameObj, "funcName"));
    Rows R = compute(
        [&] { return functionPartRows(F, *V, Kind, LevelKind::Function); });
    return toArray(R.row(0), V->dimension());
  }

  py::dict getBBEmbMap(py::handle NameObj) {
    const Function &F = definedFunction(toName(NameObj, "funcName"));
    return toDict(compute(
        [&] { return functionPartRows(F, *V, Kind, LevelKind::BasicBlock); }));
  }

  py::dict getInstEmbMap(py::handle NameObj) {
    const Function &F = definedFunction(toName(NameObj, "funcName"));
    return toDict(compute(
        [&] { return functionPartRows(F, *V, Kind, LevelKind::Instruction); }));
  }

  py::array_t<double> getProgramVector() {
    std::vector<double> Sum =
        compute([&] { return moduleVector(*L.M, *V, Kind); });
    return toArray(Sum.data(), V->dimension());
  }

private:
  /// The function named \p Name (its IR name, else its demangled name).
  const Function &definedFunction(const std::string &Name) const {
    const Function *F = L.M->getFunction(Name);
    if (!F)
      for (const Function &G : *L.M)
        if (irtk::ir2vec::functionMatches(G, Name)) {
          F = &G;
          break;
        }
    if (!F)
      throwValueError("Function '" + Name + "' not found in module '" + Path +
                      "'");
    if (F->isDeclaration())
      throwValueError("Function '" + Name + "' is a declaration in '" + Path +
                      "'; only defined functions have embeddings");
    return *F;
  }

  /// Runs \p Fn without the GIL and with the module to itself. The mutex is
  /// taken and dropped while the GIL is released, so the two cannot deadlock.
  template <typename FnT> std::invoke_result_t<FnT> compute(FnT Fn) {
    py::gil_scoped_release NoGIL;
    std::lock_guard<std::mutex> Lock(Mu);
    return Fn();
  }

  std::string Path;
  EmbeddingKind Kind;
  std::shared_ptr<const Vocabulary> V;
  LoadedModule L;
  std::mutex Mu;
};

} // namespace

/// Reports the module's warnings as Python RuntimeWarnings.
static void warn(const std::vector<std::string> &Warnings) {
  for (const std::string &W : Warnings)
    if (PyErr_WarnEx(PyExc_RuntimeWarning, W.c_str(), 1) < 0)
      throw py::error_already_set();
}

/// ir2vec.initEmbedding and IR2VecTool(...).
static std::unique_ptr<PyIR2VecTool> initEmbedding(py::handle Filename,
                                                   py::handle Mode,
                                                   py::handle VocabObj,
                                                   py::handle VocabPath) {
  std::string Path = toPath(Filename, "filename");
  EmbeddingKind K = parseMode(Mode);
  std::shared_ptr<const Vocabulary> V =
      resolveVocab(VocabObj, VocabPath, "initEmbedding");
  if (Path.empty())
    throwValueError("Empty filename not allowed");
  Expected<LoadedModule> L = [&] {
    py::gil_scoped_release NoGIL;
    return loadModule(Path);
  }();
  if (!L)
    throwValueError(toString(L.takeError()));
  warn(L->Warnings);
  return std::make_unique<PyIR2VecTool>(Path, K, std::move(V), std::move(*L));
}

//===----------------------------------------------------------------------===//
// Machine IR: loadMIRVocab, initMIREmbedding and MIR2VecTool.
//===----------------------------------------------------------------------===//

namespace {

/// ir2vec.MIRVocab: a MIR2Vec vocabulary file and its weights. Its entities
/// are a target's opcodes and register classes, so it is loaded for the
/// target of each module it embeds.
struct PyMIRVocab {
  std::string Path;
  irtk::mir2vec::Weights W;
};

/// ir2vec.MIR2VecTool: the machine functions of one module, embedded at
/// every level when it is made (a module lowered from IR is compiled once,
/// one machine function at a time), in module order.
class PyMIR2VecTool {
public:
  PyMIR2VecTool(std::string Path, std::vector<FunctionRows> Functions,
                std::vector<double> Module)
      : Path(std::move(Path)), Functions(std::move(Functions)),
        Module(std::move(Module)) {}

  const std::string &path() const { return Path; }

  py::list getFuncNames() const {
    py::list Names;
    for (const FunctionRows &F : Functions)
      Names.append(toStr(F.Name));
    return Names;
  }

  py::dict getFuncEmbMap() const {
    py::dict D;
    for (const FunctionRows &F : Functions)
      D[toStr(F.Name)] = toArray(F.Function.row(0), F.Function.Dim);
    return D;
  }

  py::array_t<double> getFuncEmb(py::handle NameObj) const {
    const FunctionRows &F = find(toName(NameObj, "funcName"));
    return toArray(F.Function.row(0), F.Function.Dim);
  }

  py::dict getBBEmbMap(py::handle NameObj) const {
    return toDict(find(toName(NameObj, "funcName")).Blocks);
  }

  py::dict getInstEmbMap(py::handle NameObj) const {
    return toDict(find(toName(NameObj, "funcName")).Instructions);
  }

  py::array_t<double> getProgramVector() const {
    return toArray(Module.data(), Module.size());
  }

private:
  /// The machine function of the function named \p Name (its symbol, else
  /// its demangled name).
  const FunctionRows &find(const std::string &Name) const {
    for (const FunctionRows &F : Functions)
      if (F.Name == Name)
        return F;
    for (const FunctionRows &F : Functions)
      if (irtk::support::symbolMatches(F.Name, Name))
        return F;
    throwValueError("Function '" + Name +
                    "' has no machine function in module '" + Path + "'");
  }

  std::string Path;
  std::vector<FunctionRows> Functions;
  /// The sum of the machine functions' vectors.
  std::vector<double> Module;
};

} // namespace

/// ir2vec.loadMIRVocab. The file is read when a module is embedded, for
/// the module's target; here it only has to be readable.
static std::unique_ptr<PyMIRVocab> loadMIRVocab(py::handle VocabPath,
                                                double OpcWeight,
                                                double CommonOperandWeight,
                                                double RegOperandWeight) {
  std::string Path = toVocabPath(VocabPath);
  irtk::mir2vec::Weights W;
  W.Opcode = checkWeight(OpcWeight, "opcWeight");
  W.CommonOperand = checkWeight(CommonOperandWeight, "commonOperandWeight");
  W.Register = checkWeight(RegOperandWeight, "regOperandWeight");
  if (Error E = irtk::support::checkReadable(Path, "vocabulary"))
    throwValueError("Failed to load vocabulary: " + toString(std::move(E)));
  return std::make_unique<PyMIRVocab>(PyMIRVocab{Path, W});
}

/// An optional str argument.
static std::string toOptionalString(py::handle Obj, const char *What) {
  if (Obj.is_none())
    return "";
  if (!py::isinstance<py::str>(Obj))
    throw py::type_error(std::string(What) + " must be a str or None, not " +
                         typeName(Obj));
  return toName(Obj, What);
}

/// The options of a machine IR run (llvm-ir2vec --mode=mir's) that
/// \p Fn's arguments give: the vocabulary (a MIRVocab \p VocabObj, the file
/// \p VocabPath or the target's bundled one), the target and the lowering.
static irtk::batch::Options
toMIROptions(py::handle VocabObj, py::handle VocabPath, py::handle MTriple,
             py::handle StopAfter, py::handle StopBefore, int OptLevel,
             const char *Fn) {
  irtk::batch::Options O;
  O.Mode = irtk::batch::ModeKind::MIR;
  bool HasVocab = !VocabObj.is_none(), HasPath = !VocabPath.is_none();
  if (HasVocab && HasPath)
    throw py::type_error(std::string(Fn) +
                         "() takes vocab or vocabPath, not both");
  if (HasVocab) {
    if (!py::isinstance<PyMIRVocab>(VocabObj))
      throw py::type_error("vocab must be an ir2vec.MIRVocab from "
                           "ir2vec.loadMIRVocab(), not " +
                           typeName(VocabObj));
    const PyMIRVocab &V = VocabObj.cast<PyMIRVocab &>();
    O.MIRVocabPath = V.Path;
    O.MIRWeights = V.W;
  } else if (HasPath) {
    O.MIRVocabPath = toPath(VocabPath, "vocabPath");
    if (O.MIRVocabPath.empty())
      throwValueError("Empty Vocab Path not allowed");
  }
  // Without either, the target's bundled vocabulary, in the package.
  O.BundledVocabularyDir =
      toPath(py::module_::import("ir2vec.vocab").attr("_DATA_DIR"),
             "ir2vec.vocab._DATA_DIR");
  O.MIRVocabOption = "vocab or vocabPath";
  O.MTriple = toOptionalString(MTriple, "mtriple");
  O.Lowering.StopAfter = toOptionalString(StopAfter, "stopAfter");
  O.Lowering.StopBefore = toOptionalString(StopBefore, "stopBefore");
  if (OptLevel < 0 || OptLevel > 3)
    throwValueError("optLevel must be 0, 1, 2 or 3, not " +
                    std::to_string(OptLevel));
  O.Lowering.OptLevel = static_cast<CodeGenOptLevel>(OptLevel);
  return O;
}

/// The machine IR handler of a run over \p Paths with options \p O,
/// prepared (the target, from the first input that can be read unless O
/// names it, and its vocabulary); runs without the GIL.
static Expected<std::unique_ptr<irtk::batch::ModeHandler>>
prepareMIR(const irtk::batch::Options &O, ArrayRef<std::string> Paths) {
  std::unique_ptr<irtk::batch::ModeHandler> H =
      irtk::batch::createModeHandler(irtk::batch::ModeKind::MIR);
  if (Error E = H->prepare(O, Paths, /*NeedVocabulary=*/true))
    return std::move(E);
  return std::move(H);
}

/// The embeddings of the machine functions of \p Path, as \p W asks, by the
/// prepared handler \p H; runs without the GIL, on any thread.
static FileResult walkMIRFile(irtk::batch::ModeHandler &H,
                              const irtk::batch::Options &O,
                              const std::string &Path,
                              const irtk::ircommon::WalkOptions &W) {
  FileResult R;
  if (Path.empty()) {
    R.Error = "Empty filename not allowed";
    return R;
  }
  irtk::batch::InputResult In;
  FunctionRowsSink S(R.Functions, &R.Module);
  H.walk(Path, O, W, S, In);
  R.Error = std::move(In.Error);
  R.Warnings = std::move(In.Warnings);
  // Code generation can fail half-way: keep nothing of a failed file.
  if (!R.Error.empty()) {
    R.Functions.clear();
    R.Module.clear();
  }
  return R;
}

/// ir2vec.initMIREmbedding and MIR2VecTool(...): \p Filename read as
/// llvm-ir2vec --mode=mir reads an input (batch::ModeHandler: a .mir file,
/// or LLVM IR lowered in-process), and its embeddings kept at every level.
static std::unique_ptr<PyMIR2VecTool>
initMIREmbedding(py::handle Filename, py::handle VocabObj, py::handle VocabPath,
                 py::handle MTriple, py::handle StopAfter,
                 py::handle StopBefore, int OptLevel) {
  std::string Path = toPath(Filename, "filename");
  irtk::batch::Options O =
      toMIROptions(VocabObj, VocabPath, MTriple, StopAfter, StopBefore,
                   OptLevel, "initMIREmbedding");
  if (Path.empty())
    throwValueError("Empty filename not allowed");

  FileResult R;
  {
    py::gil_scoped_release NoGIL;
    Expected<std::unique_ptr<irtk::batch::ModeHandler>> H = prepareMIR(O, Path);
    if (!H) {
      R.Error = toString(H.takeError());
    } else {
      irtk::ircommon::WalkOptions W;
      W.Functions = W.Blocks = W.Instructions = W.Module = true;
      W.InstructionText = W.BlockLabels = true;
      R = walkMIRFile(**H, O, Path, W);
    }
  }
  if (!R.Error.empty())
    throwValueError(R.Error);
  warn(R.Warnings);
  return std::make_unique<PyMIR2VecTool>(Path, std::move(R.Functions),
                                         std::move(R.Module));
}

//===----------------------------------------------------------------------===//
// embedFiles: many files on a thread pool.
//===----------------------------------------------------------------------===//

/// The level named \p LevelName, after checking it and \p Threads.
static LevelKind parseLevelAndThreads(const std::string &LevelName,
                                      int Threads) {
  std::optional<LevelKind> Level = irtk::ir2vec::parseLevel(LevelName);
  if (!Level)
    throwValueError("Invalid level '" + LevelName +
                    "'. Use 'func', 'bb', 'inst' or 'module'");
  if (Threads < 0)
    throwValueError("threads must be 0 (one per core) or more");
  return *Level;
}

/// Embeds one file; runs on a worker thread, without the GIL.
static FileResult embedFile(const std::string &Path, EmbeddingKind K,
                            const Vocabulary &V, LevelKind Level) {
  FileResult R;
  if (Path.empty()) {
    R.Error = "Empty filename not allowed";
    return R;
  }
  Expected<LoadedModule> L = loadModule(Path);
  if (!L) {
    R.Error = toString(L.takeError());
    return R;
  }
  R.Warnings = std::move(L->Warnings);
  // One walk (a fresh embedder per function, as the queries make): the
  // same rows as functionRows and functionPartRows.
  FunctionRowsSink S(R.Functions, &R.Module);
  irtk::ir2vec::Walker(V, walkOptions(K, Level)).walkModule(*L->M, S);
  return R;
}

static py::dict toPython(py::object Filename, const FileResult &R,
                         LevelKind Level) {
  py::dict D;
  D["filename"] = std::move(Filename);
  py::list Warnings;
  for (const std::string &W : R.Warnings)
    Warnings.append(toStr(W));
  D["warnings"] = Warnings;
  if (!R.Error.empty()) {
    D["error"] = toStr(R.Error);
    D["embeddings"] = py::none();
    return D;
  }
  D["error"] = py::none();
  if (Level == LevelKind::Module) {
    D["embeddings"] = toArray(R.Module.data(), R.Module.size());
    return D;
  }
  py::dict PerFunction;
  for (const FunctionRows &F : R.Functions)
    PerFunction[toStr(F.Name)] =
        Level == LevelKind::Function
            ? py::object(toArray(F.Function.row(0), F.Function.Dim))
        : Level == LevelKind::BasicBlock ? py::object(toPairs(F.Blocks))
                                         : py::object(toPairs(F.Instructions));
  D["embeddings"] = PerFunction;
  return D;
}

namespace {

/// The checked arguments of embedFiles and embedMIRFiles (and their
/// iterators).
struct EmbedFilesJob {
  std::vector<std::string> Paths;
  /// The inputs as str, for the results' "filename".
  py::list Names;
  LevelKind Level = LevelKind::Function;
  unsigned Threads = 0;
  /// Embeds one input at Level; runs on the workers, without the GIL.
  std::function<FileResult(const std::string &)> Embed;
};

/// ir2vec.EmbedFilesIterator: the results of embedFiles, one at a time, in
/// input order, as they complete. A producer thread runs the ordered
/// parallel map and queues finished results, at most MaxQueued ahead of the
/// consumer; workers and the producer never touch Python. next() waits with
/// the GIL released, checking for KeyboardInterrupt, and turns one result
/// into Python objects. Closing (or destroying) it stops the map: running
/// files finish and are dropped.
class EmbedFilesStream {
public:
  explicit EmbedFilesStream(EmbedFilesJob J) : Job(std::move(J)) {
    Producer = std::thread([this] { produce(); });
  }
  ~EmbedFilesStream() { close(); }

  size_t size() const { return Job.Paths.size(); }

  /// The next result, or nullopt after the last one (or once closed).
  std::optional<py::dict> next() {
    if (Closed || Next == Job.Paths.size())
      return std::nullopt;
    std::optional<FileResult> R;
    while (!R) {
      {
        py::gil_scoped_release NoGIL;
        std::unique_lock<std::mutex> Lock(Mu);
        Changed.wait_for(Lock, std::chrono::milliseconds(100),
                         [&] { return !Ready.empty(); });
        if (!Ready.empty()) {
          R.emplace(std::move(Ready.front()));
          Ready.pop_front();
        }
      }
      Changed.notify_all();
      if (!R && PyErr_CheckSignals() != 0)
        throw py::error_already_set();
    }
    return toPython(Job.Names[Next++], *R, Job.Level);
  }

  /// Stops the map and waits for the producer (without the GIL).
  void close() {
    if (Closed)
      return;
    Closed = true;
    py::gil_scoped_release NoGIL;
    {
      std::lock_guard<std::mutex> Lock(Mu);
      Stop = true;
    }
    Changed.notify_all();
    Producer.join();
  }

private:
  void produce() {
    irtk::support::ParallelMapOptions PO;
    PO.Threads = Job.Threads;
    PO.Poll = [this] {
      std::lock_guard<std::mutex> Lock(Mu);
      return !Stop;
    };
    irtk::support::orderedParallelMap(
        Job.Paths.size(), PO,
        [&](size_t I) {
          try {
            return Job.Embed(Job.Paths[I]);
          } catch (const std::exception &E) {
            FileResult R;
            R.Error = "'" + Job.Paths[I] + "': " + E.what();
            return R;
          }
        },
        [&](size_t, FileResult &R) {
          std::unique_lock<std::mutex> Lock(Mu);
          Changed.wait(Lock, [&] { return Stop || Ready.size() < MaxQueued; });
          if (!Stop)
            Ready.push_back(std::move(R));
          Lock.unlock();
          Changed.notify_all();
        });
  }

  static constexpr size_t MaxQueued = 2;
  EmbedFilesJob Job;
  size_t Next = 0;
  bool Closed = false;
  std::mutex Mu;
  std::condition_variable Changed;
  std::deque<FileResult> Ready;
  bool Stop = false;
  std::thread Producer;
};

} // namespace

/// A job over \p Filenames (a list of paths, not a single one) at level
/// \p LevelName on \p Threads threads, its Embed still to be set.
static EmbedFilesJob makeJob(py::handle Filenames, const std::string &LevelName,
                             int Threads) {
  if (py::isinstance<py::str>(Filenames) ||
      py::isinstance<py::bytes>(Filenames))
    throw py::type_error("filenames must be a list of paths, not a single " +
                         typeName(Filenames));
  if (!py::isinstance<py::iterable>(Filenames))
    throw py::type_error("filenames must be an iterable of paths, not " +
                         typeName(Filenames));
  EmbedFilesJob J;
  py::object FsDecode = py::module_::import("os").attr("fsdecode");
  for (py::handle F : Filenames) {
    J.Paths.push_back(
        toPath(F, "filenames[" + std::to_string(J.Paths.size()) + "]"));
    J.Names.append(FsDecode(F));
  }
  J.Level = parseLevelAndThreads(LevelName, Threads);
  J.Threads = static_cast<unsigned>(Threads);
  return J;
}

/// Checks embedFiles' arguments.
static EmbedFilesJob makeEmbedFilesJob(py::handle Filenames, py::handle Mode,
                                       py::handle VocabObj,
                                       py::handle VocabPath,
                                       const std::string &LevelName,
                                       int Threads, const char *Fn) {
  EmbedFilesJob J = makeJob(Filenames, LevelName, Threads);
  EmbeddingKind K = parseMode(Mode);
  std::shared_ptr<const Vocabulary> V = resolveVocab(VocabObj, VocabPath, Fn);
  J.Embed = [K, V, Level = J.Level](const std::string &Path) {
    return embedFile(Path, K, *V, Level);
  };
  return J;
}

/// Checks embedMIRFiles' arguments and prepares the run: the target (from
/// the first input that can be read, unless \p MTriple names it) and its
/// vocabulary. What stops llvm-ir2vec --mode=mir as a whole (no input can
/// be read, no vocabulary, a stop point the pipeline lacks) raises
/// ValueError.
static EmbedFilesJob
makeEmbedMIRFilesJob(py::handle Filenames, py::handle VocabObj,
                     py::handle VocabPath, const std::string &LevelName,
                     int Threads, py::handle MTriple, py::handle StopAfter,
                     py::handle StopBefore, int OptLevel, const char *Fn) {
  EmbedFilesJob J = makeJob(Filenames, LevelName, Threads);
  auto O = std::make_shared<const irtk::batch::Options>(toMIROptions(
      VocabObj, VocabPath, MTriple, StopAfter, StopBefore, OptLevel, Fn));
  if (J.Paths.empty())
    return J;
  Expected<std::unique_ptr<irtk::batch::ModeHandler>> H = [&] {
    py::gil_scoped_release NoGIL;
    return prepareMIR(*O, J.Paths);
  }();
  if (!H)
    throwValueError(toString(H.takeError()));
  std::shared_ptr<irtk::batch::ModeHandler> Handler = std::move(*H);
  irtk::ircommon::WalkOptions W;
  W.selectLevel(J.Level);
  W.InstructionText = J.Level == LevelKind::Instruction;
  W.BlockLabels = J.Level == LevelKind::BasicBlock;
  J.Embed = [O, Handler, W](const std::string &Path) {
    return walkMIRFile(*Handler, *O, Path, W);
  };
  return J;
}

/// ir2vec.embedFiles and embedMIRFiles: every result of \p J's stream, in
/// a list.
static py::list embedAll(EmbedFilesJob J) {
  EmbedFilesStream S(std::move(J));
  py::list Out;
  while (std::optional<py::dict> D = S.next())
    Out.append(std::move(*D));
  return Out;
}

//===----------------------------------------------------------------------===//
// Stores: writeStore, mergeStore and the search, for ir2vec.distributed.
//===----------------------------------------------------------------------===//

/// What writeStore keeps of one input for its caller.
struct StoreInput {
  uint64_t Rows = 0;
  std::string Error;
  std::vector<std::string> Warnings;
};

/// One line of inputs.jsonl: the input, its rows and, if it failed, why.
static void writeInputLine(llvm::raw_ostream &OS, const std::string &Name,
                           const StoreInput &R) {
  irtk::support::JSONObjectWriter W(OS);
  W.string("input", Name);
  W.number("rows", R.Rows);
  if (!R.Error.empty())
    W.string("error", R.Error);
  if (!R.Warnings.empty()) {
    std::string List = "[";
    llvm::raw_string_ostream LS(List);
    for (size_t I = 0; I < R.Warnings.size(); ++I) {
      if (I)
        LS << ',';
      irtk::support::printJSONString(LS, R.Warnings[I]);
    }
    LS << ']';
    W.raw("warnings", List);
  }
}

/// ir2vec._ir2vec.writeStore: embeds \p Filenames into a store at \p Dir
/// with llvm-ir2vec's own run loop (batch::StoreJob: the same loading,
/// rows, records, messages and store.json as `llvm-ir2vec embeddings
/// --format=npy`, with \p Tool as the tool), and adds inputs.jsonl, one
/// line per input in order. Inputs that fail are recorded there and leave
/// no rows; the store is written even if all fail. \p BeforeCommit, if not
/// None, is called once everything is written and before the store is moved
/// into place (tests use it to die mid-write). Returns a list of (rows,
/// error or None, warnings) per input.
static py::list writeStore(py::handle Filenames, py::handle DirObj,
                           py::handle Mode, py::handle VocabObj,
                           const std::string &LevelName,
                           const std::string &Tool, int Threads,
                           py::handle BeforeCommit) {
  std::vector<std::string> Paths;
  for (py::handle F : Filenames)
    Paths.push_back(
        toPath(F, "filenames[" + std::to_string(Paths.size()) + "]"));
  irtk::batch::Options O;
  O.Subcommand = irtk::batch::SubcommandKind::Embeddings;
  O.Format = irtk::batch::FormatKind::Store;
  O.Output = toPath(DirObj, "path");
  O.Kind = parseMode(Mode);
  if (!py::isinstance<PyVocab>(VocabObj))
    throw py::type_error(
        "vocab must be an ir2vec.Vocab from ir2vec.loadVocab(), not " +
        typeName(VocabObj));
  const PyVocab &PV = VocabObj.cast<PyVocab &>();
  O.VocabPath = PV.Path;
  O.Weights = PV.W;
  O.Vocabulary = PV.V;
  O.Level = parseLevelAndThreads(LevelName, Threads);
  O.Tool = Tool;

  std::vector<StoreInput> Results(Paths.size());
  std::unique_ptr<irtk::batch::ModeHandler> H =
      irtk::batch::createModeHandler(irtk::batch::ModeKind::LLVM);
  std::unique_ptr<irtk::batch::StoreJob> Job;
  std::string Failure;
  {
    py::gil_scoped_release NoGIL;
    Expected<std::unique_ptr<irtk::batch::StoreJob>> J =
        [&]() -> Expected<std::unique_ptr<irtk::batch::StoreJob>> {
      if (Error E = H->prepare(O, Paths, /*NeedVocabulary=*/true))
        return E;
      return irtk::batch::StoreJob::create(O, *H);
    }();
    if (!J) {
      Failure = toString(J.takeError());
    } else {
      Job = std::move(*J);
      std::string Lines;
      llvm::raw_string_ostream LS(Lines);
      irtk::batch::processInputs(
          Paths, static_cast<unsigned>(Threads), *Job,
          [&](size_t I, irtk::batch::InputResult &Base) {
            auto &R = static_cast<irtk::batch::RowsResult &>(Base);
            if (R.Error.empty())
              Job->accept(R);
            StoreInput &In = Results[I];
            In.Rows = R.Rows.size();
            In.Error = std::move(R.Error);
            In.Warnings = std::move(R.Warnings);
            writeInputLine(LS, Paths[I], In);
          });
      if (Error E = Job->writer().addFile("inputs.jsonl", Lines))
        Failure = toString(std::move(E));
    }
  }
  if (Failure.empty() && !BeforeCommit.is_none())
    BeforeCommit();
  if (Failure.empty()) {
    py::gil_scoped_release NoGIL;
    if (Error E = Job->commit())
      Failure = toString(std::move(E));
  }
  if (!Failure.empty())
    throw py::value_error(toMessage(Failure));
  py::list Out;
  for (const StoreInput &R : Results) {
    py::list Warnings;
    for (const std::string &W : R.Warnings)
      Warnings.append(toStr(W));
    Out.append(py::make_tuple(R.Rows,
                              R.Error.empty() ? py::object(py::none())
                                              : py::object(toStr(R.Error)),
                              Warnings));
  }
  return Out;
}

/// ir2vec._ir2vec.mergeStore: the store at \p From (sharded or not) written
/// as an ordinary store at \p To.
static void mergeStore(py::handle FromObj, py::handle ToObj) {
  std::string From = toPath(FromObj, "source"), To = toPath(ToObj, "path");
  std::string Failure;
  {
    py::gil_scoped_release NoGIL;
    Expected<irtk::store::Store> S = irtk::store::Store::open(From);
    if (!S)
      Failure = toString(S.takeError());
    else if (Error E = irtk::store::writeStoreCopy(*S, To))
      Failure = toString(std::move(E));
  }
  if (!Failure.empty())
    throw py::value_error(toMessage(Failure));
}

/// ir2vec._ir2vec.topK: irtk-similarity's exact search of \p Base for each
/// row of \p Queries; \p Exclude[i] >= 0 leaves that row of Base out of
/// query i's results. Returns, per query, a list of (row, score), best
/// first, ties broken by the lower row.
static py::list topK(FloatMatrix Queries, FloatMatrix Base, unsigned K,
                     const std::string &Metric, std::vector<int64_t> Exclude,
                     unsigned Threads) {
  MatrixArg QArg(Queries, "queries"), BArg(Base, "base");
  const irtk::store::MatrixRef &Q = QArg.ref(), &B = BArg.ref();
  if (B.Rows && Q.Rows && Q.Dim != B.Dim)
    throwValueError("queries and base differ in dimension");
  if (!Exclude.empty() && Exclude.size() != Q.Rows)
    throwValueError("exclude must have one entry per query");
  irtk::store::SearchOptions O;
  O.Metric = metricOf(Metric);
  O.K = K;
  O.Threads = Threads;
  std::vector<std::vector<irtk::store::Neighbor>> R;
  {
    py::gil_scoped_release NoGIL;
    R = irtk::store::topK(Q, B, O, Exclude);
  }
  py::list Out;
  for (const auto &Ns : R) {
    py::list L;
    for (const irtk::store::Neighbor &N : Ns)
      L.append(py::make_tuple(N.Row, N.Score));
    Out.append(L);
  }
  return Out;
}

/// ir2vec._ir2vec.pairs: irtk-similarity's pairs of a row of \p A and a row
/// of \p B within \p Threshold; \p Same: A is B, each unordered pair once.
/// Returns a list of (row of A, row of B, score) in the search's order.
static py::list pairs(FloatMatrix A, FloatMatrix B, bool Same, double Threshold,
                      const std::string &Metric, unsigned Threads) {
  MatrixArg AArg(A, "a"), BArg(B, "b");
  const irtk::store::MatrixRef &MA = AArg.ref(), &MB = BArg.ref();
  irtk::store::MetricKind M = metricOf(Metric);
  std::vector<irtk::store::ScoredPair> R;
  {
    py::gil_scoped_release NoGIL;
    R = irtk::store::pairsWithin(MA, MB, Same, Threshold, M, Threads);
  }
  py::list Out;
  for (const irtk::store::ScoredPair &P : R)
    Out.append(py::make_tuple(P.A, P.B, P.Score));
  return Out;
}

/// The docstrings of defineQueries' methods.
struct QueryDocs {
  const char *FuncNames, *FuncEmbMap, *FuncEmb, *BBEmbMap, *InstEmbMap,
      *ProgramVector;
};

/// What IR2VecTool and MIR2VecTool both offer, by the same names: the
/// filename and the queries.
template <typename ToolT>
static void defineQueries(py::class_<ToolT> &C, const QueryDocs &D) {
  C.def_property_readonly("filename",
                          [](const ToolT &T) { return toStr(T.path()); })
      .def("getFuncNames", &ToolT::getFuncNames, D.FuncNames)
      .def("getFuncEmbMap", &ToolT::getFuncEmbMap, D.FuncEmbMap)
      .def("getFuncEmb", &ToolT::getFuncEmb, py::arg("funcName"), D.FuncEmb)
      .def("getBBEmbMap", &ToolT::getBBEmbMap, py::arg("funcName"), D.BBEmbMap)
      .def("getInstEmbMap", &ToolT::getInstEmbMap, py::arg("funcName"),
           D.InstEmbMap)
      .def("getProgramVector", &ToolT::getProgramVector, D.ProgramVector);
}

PYBIND11_MODULE(_ir2vec, M) {
  irtk::python::bindApproxIndex(M);
  M.doc() = "IR2Vec embeddings of LLVM IR (irtk); see the ir2vec package.";
  M.attr("__version__") = IRTK_VERSION;

  py::tuple Bases =
      py::make_tuple(py::handle(PyExc_ValueError), py::handle(PyExc_TypeError));
  PyObject *ModeError = PyErr_NewExceptionWithDoc(
      "ir2vec.InvalidModeError",
      "An unknown mode string. A ValueError, as in upstream's first "
      "revisions, and a TypeError, as upstream raises for a string now.",
      Bases.ptr(), nullptr);
  if (!ModeError)
    throw py::error_already_set();
  M.attr("InvalidModeError") = py::reinterpret_steal<py::object>(ModeError);

  py::enum_<EmbeddingKind>(M, "IR2VecKind", "IR2Vec embedding kind")
      .value("Symbolic", EmbeddingKind::Symbolic,
             "Symbolic: operands contribute their operand kind")
      .value("FlowAware", EmbeddingKind::FlowAware,
             "Flow-aware: operands defined by an already embedded "
             "instruction contribute that instruction's embedding")
      .export_values();

  py::class_<PyVocab>(M, "Vocab", "A loaded IR2Vec vocabulary")
      .def_property_readonly(
          "dimension", [](const PyVocab &P) { return P.V->dimension(); },
          "Length of every embedding")
      .def_property_readonly(
          "path", [](const PyVocab &P) { return toStr(P.Path); },
          "The file it was loaded from")
      .def("__repr__", [](const PyVocab &P) {
        return toMessage("<ir2vec.Vocab '" + P.Path + "' dimension=" +
                         std::to_string(P.V->dimension()) + ">");
      });

  M.def("loadVocab", &loadVocab, py::arg("vocabPath"), py::kw_only(),
        py::arg("opcWeight") = 1.0, py::arg("typeWeight") = 0.5,
        py::arg("argWeight") = 0.2,
        "Load an IR2Vec vocabulary (upstream's JSON format). The weights "
        "scale the Opcodes, Types and Arguments sections, as upstream's "
        "-ir2vec-*-weight options do. Raises ValueError for an empty path or "
        "a file that is missing or not a valid vocabulary.");

  auto ToolInit = [](py::object Filename, py::object Mode, py::object Vocab,
                     py::object VocabPath) {
    return initEmbedding(Filename, Mode, Vocab, VocabPath);
  };
  py::class_<PyIR2VecTool> IRTool(M, "IR2VecTool",
                                  "The embeddings of one LLVM IR module");
  IRTool
      .def(py::init(ToolInit), py::arg("filename"),
           py::arg("mode") = EmbeddingKind::Symbolic,
           py::arg("vocab") = py::none(), py::arg("vocabPath") = py::none())
      .def_property_readonly("mode", &PyIR2VecTool::kind);
  defineQueries(IRTool,
                {"Names of the module's defined functions, in IR order",
                 "{function name: embedding} for every defined function",
                 "Embedding of one defined function (IR or demangled name)",
                 "{block name: embedding} for the blocks of a function",
                 "{instruction text: embedding} for the instructions of a "
                 "function",
                 "The module's embedding (IITH IR2Vec's name): the sum of "
                 "its defined functions' embeddings, in module order; zero "
                 "without one"});

  M.def("initEmbedding", ToolInit, py::arg("filename"),
        py::arg("mode") = EmbeddingKind::Symbolic,
        py::arg("vocab") = py::none(), py::arg("vocabPath") = py::none(),
        "Parse and verify an LLVM IR file (.ll or .bc) for embedding. mode: "
        "ir2vec.IR2VecKind, or 'sym' / 'fa'. vocab: from ir2vec.loadVocab(); "
        "vocabPath: a vocabulary file instead (upstream's first API); "
        "neither: the bundled default vocabulary.");

  py::class_<PyMIRVocab>(M, "MIRVocab",
                         "A MIR2Vec vocabulary file and its weights, loaded "
                         "for the target of each module embedded")
      .def_property_readonly(
          "path", [](const PyMIRVocab &P) { return toStr(P.Path); },
          "The vocabulary file")
      .def("__repr__", [](const PyMIRVocab &P) {
        return toMessage("<ir2vec.MIRVocab '" + P.Path + "'>");
      });

  M.def("loadMIRVocab", &loadMIRVocab, py::arg("vocabPath"), py::kw_only(),
        py::arg("opcWeight") = 1.0, py::arg("commonOperandWeight") = 1.0,
        py::arg("regOperandWeight") = 1.0,
        "A MIR2Vec vocabulary (upstream's JSON format) for initMIREmbedding. "
        "The weights scale its sections as upstream's -mir2vec-*-weight "
        "options do. Its entities are a target's, so it is read for the "
        "target of each module; here it only has to be readable. Raises "
        "ValueError for an empty path or a file that cannot be read.");

  auto MIRToolInit = [](py::object Filename, py::object Vocab,
                        py::object VocabPath, py::object MTriple,
                        py::object StopAfter, py::object StopBefore,
                        int OptLevel) {
    return initMIREmbedding(Filename, Vocab, VocabPath, MTriple, StopAfter,
                            StopBefore, OptLevel);
  };
  const char *MIRInitDoc =
      "Read a machine IR file (.mir) or an LLVM IR file (.ll or .bc, lowered "
      "in-process as llc would) as llvm-ir2vec --mode=mir does, and embed "
      "its machine functions. vocab: from ir2vec.loadMIRVocab(); vocabPath: "
      "a vocabulary file instead (default weights); neither: the bundled "
      "vocabulary of the target (x86-64 only). mtriple: the target instead "
      "of the module's; stopAfter / stopBefore: where code generation stops "
      "(one stop point per process); optLevel: 0 to 3.";
  py::class_<PyMIR2VecTool> MIRTool(
      M, "MIR2VecTool",
      "The MIR2Vec embeddings of one module's machine functions");
  MIRTool.def(
      py::init(MIRToolInit), py::arg("filename"), py::arg("vocab") = py::none(),
      py::arg("vocabPath") = py::none(), py::kw_only(),
      py::arg("mtriple") = py::none(), py::arg("stopAfter") = py::none(),
      py::arg("stopBefore") = py::none(), py::arg("optLevel") = 2, MIRInitDoc);
  defineQueries(
      MIRTool,
      {"Names of the functions that have a machine function, in module order",
       "{function name: embedding} for every machine function",
       "Embedding of one machine function (IR or demangled name)",
       "{block name: embedding} for the machine blocks of a function",
       "{instruction text: embedding} for the machine instructions of a "
       "function",
       "The module's embedding (IITH IR2Vec's name): the sum of its machine "
       "functions' embeddings, in module order; zero without one"});

  M.def("initMIREmbedding", MIRToolInit, py::arg("filename"),
        py::arg("vocab") = py::none(), py::arg("vocabPath") = py::none(),
        py::kw_only(), py::arg("mtriple") = py::none(),
        py::arg("stopAfter") = py::none(), py::arg("stopBefore") = py::none(),
        py::arg("optLevel") = 2, MIRInitDoc);

  const char *EmbedFilesDoc =
      "Embed many IR files in parallel with the GIL released. Returns one "
      "dict per file, in input order: filename, error (None or a message), "
      "warnings, and embeddings: {function: vector} for level 'func', "
      "{function: [(block or instruction, vector), ...]} for 'bb' and "
      "'inst', the module's vector (the sum of its functions') for "
      "'module'. threads=0 uses one thread per core.";
  M.def(
      "embedFiles",
      [](py::object Filenames, py::object Mode, py::object Vocab,
         py::object VocabPath, const std::string &Level, int Threads) {
        return embedAll(makeEmbedFilesJob(Filenames, Mode, Vocab, VocabPath,
                                          Level, Threads, "embedFiles"));
      },
      py::arg("filenames"), py::arg("mode") = EmbeddingKind::Symbolic,
      py::arg("vocab") = py::none(), py::kw_only(),
      py::arg("vocabPath") = py::none(), py::arg("level") = "func",
      py::arg("threads") = 0, EmbedFilesDoc);

  py::class_<EmbedFilesStream>(
      M, "EmbedFilesIterator",
      "embedFiles' results, one dict per file in input order, each as soon "
      "as it is ready; len() is the number of files. close() (or deleting "
      "it) stops the files not yet started.")
      .def("__iter__", [](py::object Self) { return Self; })
      .def("__next__",
           [](EmbedFilesStream &S) -> py::dict {
             if (std::optional<py::dict> D = S.next())
               return std::move(*D);
             throw py::stop_iteration();
           })
      .def("__len__", &EmbedFilesStream::size)
      .def("close", &EmbedFilesStream::close);
  M.def(
      "embedFilesIter",
      [](py::object Filenames, py::object Mode, py::object Vocab,
         py::object VocabPath, const std::string &Level, int Threads) {
        return std::make_unique<EmbedFilesStream>(
            makeEmbedFilesJob(Filenames, Mode, Vocab, VocabPath, Level, Threads,
                              "embedFilesIter"));
      },
      py::arg("filenames"), py::arg("mode") = EmbeddingKind::Symbolic,
      py::arg("vocab") = py::none(), py::kw_only(),
      py::arg("vocabPath") = py::none(), py::arg("level") = "func",
      py::arg("threads") = 0,
      "embedFiles as an iterator: yields each file's dict, in input order, "
      "as soon as it is ready (wrap it in tqdm for a progress bar).");

  const char *EmbedMIRFilesDoc =
      "Embed the machine functions of many files (.mir, or LLVM IR lowered "
      "in-process) in parallel with the GIL released, as llvm-ir2vec "
      "--mode=mir does. vocab, vocabPath, mtriple, stopAfter, stopBefore and "
      "optLevel as initMIREmbedding's; level and threads as embedFiles'. "
      "Returns embedFiles' dicts, one per file in input order.";
  auto MIRJob = [](py::object Filenames, py::object Vocab, py::object VocabPath,
                   const std::string &Level, int Threads, py::object MTriple,
                   py::object StopAfter, py::object StopBefore, int OptLevel,
                   const char *Fn) {
    return makeEmbedMIRFilesJob(Filenames, Vocab, VocabPath, Level, Threads,
                                MTriple, StopAfter, StopBefore, OptLevel, Fn);
  };
  M.def(
      "embedMIRFiles",
      [MIRJob](py::object Filenames, py::object Vocab, py::object VocabPath,
               const std::string &Level, int Threads, py::object MTriple,
               py::object StopAfter, py::object StopBefore, int OptLevel) {
        return embedAll(MIRJob(Filenames, Vocab, VocabPath, Level, Threads,
                               MTriple, StopAfter, StopBefore, OptLevel,
                               "embedMIRFiles"));
      },
      py::arg("filenames"), py::arg("vocab") = py::none(), py::kw_only(),
      py::arg("vocabPath") = py::none(), py::arg("level") = "func",
      py::arg("threads") = 0, py::arg("mtriple") = py::none(),
      py::arg("stopAfter") = py::none(), py::arg("stopBefore") = py::none(),
      py::arg("optLevel") = 2, EmbedMIRFilesDoc);
  M.def(
      "embedMIRFilesIter",
      [MIRJob](py::object Filenames, py::object Vocab, py::object VocabPath,
               const std::string &Level, int Threads, py::object MTriple,
               py::object StopAfter, py::object StopBefore, int OptLevel) {
        return std::make_unique<EmbedFilesStream>(
            MIRJob(Filenames, Vocab, VocabPath, Level, Threads, MTriple,
                   StopAfter, StopBefore, OptLevel, "embedMIRFilesIter"));
      },
      py::arg("filenames"), py::arg("vocab") = py::none(), py::kw_only(),
      py::arg("vocabPath") = py::none(), py::arg("level") = "func",
      py::arg("threads") = 0, py::arg("mtriple") = py::none(),
      py::arg("stopAfter") = py::none(), py::arg("stopBefore") = py::none(),
      py::arg("optLevel") = 2,
      "embedMIRFiles as an iterator: yields each file's dict, in input "
      "order, as soon as it is ready.");

  M.def(
      "writeStore",
      [](py::object Filenames, py::object Path, py::object Mode,
         py::object Vocab, const std::string &Level, const std::string &Tool,
         int Threads, py::object BeforeCommit) {
        return writeStore(Filenames, Path, Mode, Vocab, Level, Tool, Threads,
                          BeforeCommit);
      },
      py::arg("filenames"), py::arg("path"), py::arg("mode"), py::arg("vocab"),
      py::kw_only(), py::arg("level") = "func", py::arg("tool") = "",
      py::arg("threads") = 1, py::arg("beforeCommit") = py::none(),
      "Embed IR files into a store directory as llvm-ir2vec --format=npy "
      "does, plus inputs.jsonl; returns (rows, error, warnings) per input. "
      "For ir2vec.distributed.");
  M.def("mergeStore", &mergeStore, py::arg("source"), py::arg("path"),
        "Write a store (sharded or not) as an ordinary store at path.");
  M.def("topK", &topK, py::arg("queries"), py::arg("base"), py::arg("k"),
        py::arg("metric") = "cosine",
        py::arg("exclude") = std::vector<int64_t>(), py::arg("threads") = 0,
        "irtk-similarity's exact top-k: per query, [(row, score)] best "
        "first.");
  M.def("pairs", &pairs, py::arg("a"), py::arg("b"), py::arg("same"),
        py::arg("threshold"), py::arg("metric") = "cosine",
        py::arg("threads") = 0,
        "irtk-similarity's pairs within a threshold: [(row a, row b, "
        "score)].");
  M.def(
      "qualifiedFunctionName",
      [](const std::string &Symbol) {
        return irtk::store::qualifiedFunctionName(Symbol);
      },
      py::arg("symbol"),
      "The qualified name of a mangled function without its parameters "
      "('mup::OprtAdd::Eval'), or '' for a symbol that is not one; the "
      "names irtk-similarity topk --function accepts.");
}
