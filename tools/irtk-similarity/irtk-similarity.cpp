//===- irtk-similarity.cpp - Nearest functions in embedding stores --------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// irtk-similarity topk   top-k nearest rows of a store to a stored function
///                        or module, a row, or the functions (or modules)
///                        of IR files
/// irtk-similarity pairs  all pairs of rows within a threshold (clone
///                        candidates)
/// irtk-similarity index  an approximate index of a store (ApproxIndex.h),
///                        which topk --index searches
/// Stores are written by `llvm-ir2vec embeddings --format=npy -o DIR`. The
/// searching is irtk::store's (Search.h); this file parses the command line,
/// gathers the queries and formats the results. Exit status: 0 success, 1 an
/// input or output problem, 2 a usage error.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/StoreRows.h"
#include "irtk/mir2vec/Loader.h"
#include "irtk/mir2vec/Lowering.h"
#include "irtk/mir2vec/Output.h"
#include "irtk/store/ApproxIndex.h"
#include "irtk/store/Search.h"
#include "irtk/store/Store.h"
#include "irtk/support/Format.h"
#include "irtk/support/OutputFile.h"
#include "irtk/support/ReadFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include "BoostCommandLine.h"
#include "StatusLine.h"
#include "ToolMain.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>

namespace po = boost::program_options;
using namespace llvm;
using namespace irtk;
using namespace irtk::store;

static constexpr const char *ToolName = "irtk-similarity";

static const char *const Usage =
    "USAGE: irtk-similarity topk --store <dir> [--against <dir>]\n"
    "           (--function <name> | --module <path> | --row <n> |\n"
    "            --ir <file.ll|file.bc> ...)\n"
    "           [--vocab <file>] [-k <n>] [--metric cosine|euclidean]\n"
    "           [--format text|json] [-o <file>] [-j <n>]\n"
    "           [--progress auto|always|never]\n"
    "           [--min-instructions <n>] [--min-blocks <n>]\n"
    "           [--index <file> [--nprobe <n>] [--ef <n>] [--rerank <n>]]\n"
    "       irtk-similarity pairs --store <dir> [--against <dir>]\n"
    "           --threshold <x> [--metric cosine|euclidean]\n"
    "           [--format text|json] [-o <file>] [-j <n>]\n"
    "           [--progress auto|always|never]\n"
    "           [--min-instructions <n>] [--min-blocks <n>]\n"
    "       irtk-similarity index --store <dir> [--kind ivf-flat|ivf-pq|hnsw]\n"
    "           [--metric cosine|euclidean] [--lists <n>] [--pq-bytes <n>]\n"
    "           [--hnsw-links <n>] [--train-rows <n>] [--seed <n>] [-o "
    "<file>]\n"
    "           [-j <n>] [--progress auto|always|never]\n\n"
    "topk   the k rows nearest to each query, best first: the rows of\n"
    "       --function (symbol or demangled name), --module (its path, or the\n"
    "       end of it) or --row in --store, searched in --against or else in\n"
    "       --store (leaving the query row out), or the functions (modules,\n"
    "       in a module-level store) of --ir files, embedded as --store was\n"
    "       and searched in it\n"
    "pairs  every pair of a row of --store and a row of --against (or two\n"
    "       rows of --store) with cosine >= threshold or distance <=\n"
    "       threshold, best first\n"
    "       --min-instructions and --min-blocks leave out the rows of smaller\n"
    "       functions from topk's results and from pairs\n"
    "index  an approximate index of --store (FAISS) for topk --index: its\n"
    "       candidates are scored exactly; only the recall is approximate\n";

namespace {
enum class CommandKind { TopK, Pairs, Index };

struct Options {
  CommandKind Command = CommandKind::TopK;
  std::string Store, Against, Function, Module, Vocab, Output = "-";
  std::optional<uint64_t> Row;
  std::vector<std::string> IRFiles;
  unsigned K = 10;
  double Threshold = 0;
  MetricKind Metric = MetricKind::Cosine;
  bool JSON = false;
  unsigned Threads = 0;
  /// topk --index, and index's output.
  std::string IndexPath;
  ApproxSearchOptions Approx;
  ApproxBuildOptions Build;
  /// Whether --metric was given (an index has its own).
  bool MetricGiven = false;
  /// The status line while stores load.
  tools::ProgressModeKind Progress = tools::ProgressModeKind::Auto;
  /// --min-instructions, --min-blocks: the rows searched.
  SizeFilter Sizes;
};

/// The rows to search for: vectors, what they are, which row to skip.
struct QuerySet {
  std::vector<float> Values;
  std::vector<IndexRecord> Records;
  /// Query i is row Records[i].Row of this store, or comes from an IR file.
  const Store *From = nullptr;
  std::vector<std::string> Files;
  std::vector<int64_t> Exclude;
};

/// The rows of a store a search considers: all of them, or the rows that
/// --min-instructions and --min-blocks keep, copied.
struct SearchedRows {
  MatrixRef Matrix;
  bool Filtered = false;
  /// When Filtered: the store's row of each row of Matrix, ascending.
  std::vector<uint64_t> Rows;
  std::vector<float> Values;

  uint64_t storeRow(uint64_t I) const { return Filtered ? Rows[I] : I; }
  /// The row of Matrix that is the store's \p Row, or -1.
  int64_t matrixRow(int64_t Row) const {
    if (!Filtered || Row < 0)
      return Row;
    auto It = llvm::lower_bound(Rows, static_cast<uint64_t>(Row));
    return It != Rows.end() && *It == static_cast<uint64_t>(Row)
               ? It - Rows.begin()
               : -1;
  }
};
} // namespace

using ParseResult = tools::ParseResult<Options>;

static ParseResult usageError(const Twine &Msg) {
  return ParseResult::usageError(Msg.str());
}

static Error inputError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

static MatrixRef matrixOf(const Store &S) {
  return {S.matrix().data(), S.matrix().rows(), S.matrix().cols()};
}

static void writeNumber(raw_ostream &OS, double X) {
  char Buf[irtk::support::MaxNumberChars];
  OS << StringRef(Buf, irtk::support::formatShortest(X, Buf));
}

/// "add(int, int) (m.ll)", with the block and instruction for bb and inst
/// rows; "module m.ll" for a module row.
static void describe(raw_ostream &OS, const IndexRecord &R) {
  if (R.Level == irtk::support::levelName(irtk::support::LevelKind::Module)) {
    OS << "module " << R.Module;
    return;
  }
  OS << R.Demangled;
  if (R.BlockIndex) {
    OS << " block ";
    if (R.Block && !R.Block->empty())
      OS << *R.Block;
    else
      OS << '#' << *R.BlockIndex;
  }
  if (R.InstIndex) {
    OS << " inst " << *R.InstIndex;
    if (R.Inst)
      OS << " '" << *R.Inst << '\'';
  }
  OS << " (" << R.Module << ')';
}

/// Warns when two stores were made differently: their scores then compare
/// vectors of different spaces. Vocabularies are compared by the hash of
/// their content when both stores record one, else by path; a store without
/// a hash whose path differs gets a note that they cannot be compared.
static void warnIfIncompatible(const Store &A, const Store &B) {
  const StoreInfo &X = A.info(), &Y = B.info();
  std::string Diffs;
  auto Note = [&](StringRef Field) {
    Diffs += (Diffs.empty() ? "" : ", ") + Field.str();
  };
  if (X.Level != Y.Level)
    Note("level");
  if (X.Kind != Y.Kind)
    Note("kind");
  bool BothHashed = !X.VocabularyHash.empty() && !Y.VocabularyHash.empty();
  if (BothHashed && X.VocabularyHash != Y.VocabularyHash)
    Note("vocabulary");
  if (X.Weights != Y.Weights)
    Note("weights");
  if (!Diffs.empty())
    WithColor::warning(errs(), ToolName)
        << "stores " << A.path() << " and " << B.path() << " differ in "
        << Diffs << '\n';
  if (!BothHashed && X.Vocabulary != Y.Vocabulary) {
    const Store &Unhashed = X.VocabularyHash.empty() ? A : B;
    WithColor::note(errs(), ToolName)
        << "the vocabularies of stores " << A.path() << " and " << B.path()
        << " cannot be compared: their paths differ and store "
        << Unhashed.path()
        << " records no vocabulary_hash (write it again to record one)\n";
  }
}

/// The rows of \p S that \p O's searches consider.
static Expected<SearchedRows> searchedRows(const Options &O, const Store &S) {
  SearchedRows R;
  R.Matrix = matrixOf(S);
  if (!O.Sizes.active())
    return R;
  Expected<std::vector<uint64_t>> Rows = selectRows(S, O.Sizes);
  if (!Rows)
    return Rows.takeError();
  R.Filtered = true;
  R.Rows = std::move(*Rows);
  R.Values = gatherRows(R.Matrix, R.Rows);
  R.Matrix = {R.Values.data(), R.Rows.size(), S.dimension()};
  return R;
}

static Error checkSameDimension(const Store &A, const Store &B) {
  if (A.dimension() == B.dimension())
    return Error::success();
  return inputError("dimension mismatch: store " + A.path() +
                    " has dimension " + Twine(A.dimension()) + ", store " +
                    B.path() + " has " + Twine(B.dimension()));
}

/// Queries from rows of \p S (--row, --function, --module).
static Expected<QuerySet> storeQueries(const Options &O, const Store &S,
                                       bool ExcludeSelf) {
  std::vector<uint64_t> Rows;
  if (O.Row) {
    if (*O.Row >= S.size())
      return inputError("row " + Twine(*O.Row) + " out of range: store " +
                        S.path() + " has " + Twine(S.size()) + " rows");
    Rows.push_back(*O.Row);
  } else {
    bool ByModule = !O.Module.empty();
    std::string Where = ("store " + S.path()).str();
    Expected<std::vector<uint64_t>> Found =
        ByModule ? S.index().findModule(O.Module, Where)
                 : S.index().findFunction(O.Function, Where);
    if (!Found)
      return Found.takeError();
    if (Found->empty())
      return inputError(Twine(ByModule ? "module '" : "function '") +
                        (ByModule ? O.Module : O.Function) + "' not found in " +
                        Where);
    Rows = std::move(*Found);
  }
  QuerySet Q;
  Q.From = &S;
  for (uint64_t R : Rows) {
    ArrayRef<float> V = S.matrix().row(R);
    Q.Values.insert(Q.Values.end(), V.begin(), V.end());
    Expected<IndexRecord> Rec = S.index().record(R);
    if (!Rec)
      return Rec.takeError();
    Q.Records.push_back(std::move(*Rec));
    Q.Exclude.push_back(ExcludeSelf ? static_cast<int64_t>(R) : -1);
  }
  return Q;
}

/// The vocabulary a query is embedded with must have the store's dimension.
static Error checkDimension(const vocab::Vocabulary &V,
                            const std::string &VocabPath, const Store &S) {
  if (V.dimension() == S.dimension())
    return Error::success();
  return inputError("dimension mismatch: vocabulary " + VocabPath +
                    " has dimension " + Twine(V.dimension()) + ", store " +
                    S.path() + " has " + Twine(S.dimension()));
}

/// Appends the rows of \p Rows, from \p File, to \p Q.
static void addQueries(QuerySet &Q, RowBatch &Rows, const std::string &File) {
  Q.Values.insert(Q.Values.end(), Rows.Values.begin(), Rows.Values.end());
  for (IndexRecord &R : Rows.Records) {
    Q.Records.push_back(std::move(R));
    Q.Files.push_back(File);
  }
}

/// Queries from machine IR: .mir files, or IR lowered as the store's
/// source says.
static Expected<QuerySet> mirQueries(const Options &O, const Store &S,
                                     const std::string &VocabPath) {
  Expected<mir2vec::StoreSettings> Settings =
      mir2vec::readStoreSettings(S.info(), S.path());
  if (!Settings)
    return Settings.takeError();
  mir2vec::initializeTargets();
  Expected<std::unique_ptr<TargetMachine>> TM = mir2vec::createTargetMachine(
      Settings->Target, Settings->Lowering.OptLevel);
  if (!TM)
    return TM.takeError();
  if (Error E = mir2vec::configureLowering(Settings->Lowering, **TM))
    return E;
  std::shared_ptr<const mir2vec::TargetLayout> Layout = mir2vec::layoutOf(**TM);
  Expected<vocab::Vocabulary> V =
      mir2vec::loadVocabulary(VocabPath, *Layout, Settings->W);
  if (!V)
    return V.takeError();
  if (Error E = checkDimension(*V, VocabPath, S))
    return E;
  mir2vec::EmbeddingOutputOptions EO;
  EO.Level = Settings->Level;
  QuerySet Q;
  for (const std::string &File : O.IRFiles) {
    irtk::support::ReadOptions RO;
    RO.AllowStdin = false;
    Expected<std::unique_ptr<MemoryBuffer>> Buf =
        irtk::support::readFile(File, "", RO);
    if (!Buf)
      return Buf.takeError();
    LLVMContext Ctx;
    // A .mir file keeps its own target (checked below); IR is lowered for
    // the store's, as llvm-ir2vec --mtriple did.
    mir2vec::MachineModule MM =
        mir2vec::looksLikeMIR((*Buf)->getBuffer())
            ? mir2vec::loadMIRBuffer(std::move(*Buf), File, Ctx)
            : mir2vec::readMachineModule(std::move(*Buf), File, Ctx,
                                         Settings->Target, Settings->Lowering);
    if (!MM.M)
      return inputError(MM.Error);
    if (mir2vec::layoutDescription(*MM.TM) != mir2vec::layoutDescription(**TM))
      return inputError(File + ": the target is " +
                        mir2vec::layoutDescription(*MM.TM) + ", the store's " +
                        mir2vec::layoutDescription(**TM));
    EO.ModuleName = File;
    RowBatch Rows;
    mir2vec::collectModuleRows(MM, *V, *Layout, EO, Rows);
    if (MM.Lowering && !MM.Lowering->error().empty())
      return inputError(MM.Lowering->error());
    addQueries(Q, Rows, File);
  }
  return Q;
}

/// Queries from IR files, embedded as \p S was built.
static Expected<QuerySet> irQueries(const Options &O, const Store &S) {
  const StoreInfo &Info = S.info();
  std::string VocabPath = O.Vocab.empty() ? Info.Vocabulary : O.Vocab;
  if (VocabPath == "-" && O.Vocab.empty())
    return inputError("store " + S.path() +
                      " was built from a vocabulary read from standard "
                      "input; name it with --vocab");
  if (Info.Kind == mir2vec::EmbeddingKindName) {
    Expected<QuerySet> Q = mirQueries(O, S, VocabPath);
    if (Q && Q->Records.empty())
      return inputError("no machine function to query in the --ir files");
    if (Q)
      Q->Exclude.assign(Q->Records.size(), -1);
    return Q;
  }
  Expected<ir2vec::StoreSettings> Settings =
      ir2vec::readStoreSettings(Info, S.path());
  if (!Settings)
    return Settings.takeError();
  Expected<vocab::Vocabulary> V =
      ir2vec::loadVocabulary(VocabPath, Settings->W);
  if (!V)
    return V.takeError();
  if (Error E = checkDimension(*V, VocabPath, S))
    return E;
  ir2vec::EmbeddingOutputOptions EO;
  EO.Kind = Settings->Kind;
  EO.Level = Settings->Level;
  QuerySet Q;
  for (const std::string &File : O.IRFiles) {
    Expected<RowBatch> Rows = ir2vec::embedIRFile(File, *V, EO);
    if (!Rows)
      return Rows.takeError();
    addQueries(Q, *Rows, File);
  }
  if (Q.Records.empty())
    return inputError("no defined function to query in the --ir files");
  Q.Exclude.assign(Q.Records.size(), -1);
  return Q;
}

static void writeQueryJSON(raw_ostream &OS, const QuerySet &Q, size_t I) {
  const IndexRecord &R = Q.Records[I];
  irtk::support::JSONObjectWriter W(OS, /*NewLine=*/false);
  if (Q.From)
    W.string("store", Q.From->path()).number("row", R.Row);
  else
    W.string("file", Q.Files[I]);
  writeIndexFields(R, W);
}

/// The --store and, with --against, the second store (same dimension).
using StorePair = std::pair<std::optional<Store>, std::optional<Store>>;
/// Opens the store \p Dir with a status line (llvm-ir2vec's --progress): on
/// a terminal it is erased once the store is open, elsewhere (always) its
/// last state stays as a line.
static Expected<Store> openStore(const Options &O, StringRef Dir) {
  tools::StatusLine Line(errs(), ToolName, O.Progress);
  auto Status = [&](uint64_t Done, uint64_t Total) {
    std::string S;
    raw_string_ostream SS(S);
    SS << "loading " << Dir << ": " << Done << '/' << Total << " rows, "
       << tools::formatDuration(Line.elapsed());
    return S;
  };
  std::optional<std::pair<uint64_t, uint64_t>> Last;
  Expected<Store> S = Store::open(Dir, [&](uint64_t Done, uint64_t Total) {
    Last.emplace(Done, Total);
    // The last state is finish()'s to print.
    if (Done < Total && Line.due())
      Line.update(Status(Done, Total));
  });
  if (O.Progress == tools::ProgressModeKind::Always && Last)
    Line.finish(Status(Last->first, Last->second));
  else
    Line.clear();
  return S;
}

static Expected<StorePair> openStores(const Options &O) {
  StorePair P;
  Expected<Store> S = openStore(O, O.Store);
  if (!S)
    return S.takeError();
  P.first.emplace(std::move(*S));
  if (!O.Against.empty()) {
    Expected<Store> T = openStore(O, O.Against);
    if (!T)
      return T.takeError();
    P.second.emplace(std::move(*T));
    if (Error E = checkSameDimension(*P.first, *P.second))
      return E;
    warnIfIncompatible(*P.first, *P.second);
  }
  return P;
}

static Error runTopK(const Options &O, raw_ostream &OS) {
  Expected<StorePair> P = openStores(O);
  if (!P)
    return P.takeError();
  std::optional<Store> &S = P->first, &T = P->second;
  const Store &Base = T ? *T : *S;
  Expected<QuerySet> Q = O.IRFiles.empty()
                             ? storeQueries(O, *S, /*ExcludeSelf=*/!T)
                             : irQueries(O, *S);
  if (!Q)
    return Q.takeError();

  MatrixRef QM{Q->Values.data(), Q->Records.size(), Base.dimension()};
  std::vector<std::vector<Neighbor>> Results;
  MetricKind Metric = O.Metric;
  if (!O.IndexPath.empty()) {
    Expected<ApproxIndex> Index = ApproxIndex::load(O.IndexPath);
    if (!Index)
      return Index.takeError();
    if (Error E = Index->checkMatrix(matrixOf(Base), O.IndexPath, Base.path(),
                                     O.Threads))
      return E;
    Metric = Index->info().Metric;
    if (O.MetricGiven && Metric != O.Metric)
      return inputError(O.IndexPath + ": an index for " + metricName(Metric) +
                        " scores; --metric asks for " + metricName(O.Metric));
    ApproxSearchOptions AO = O.Approx;
    AO.K = O.K;
    AO.Threads = O.Threads;
    Results = Index->search(QM, matrixOf(Base), AO, Q->Exclude);
  } else {
    Expected<SearchedRows> Searched = searchedRows(O, Base);
    if (!Searched)
      return Searched.takeError();
    SearchOptions SO;
    SO.Metric = O.Metric;
    SO.K = O.K;
    SO.Threads = O.Threads;
    std::vector<int64_t> Exclude;
    for (int64_t Row : Q->Exclude)
      Exclude.push_back(Searched->matrixRow(Row));
    Results = topK(QM, Searched->Matrix, SO, Exclude);
    for (std::vector<Neighbor> &Found : Results)
      for (Neighbor &N : Found)
        N.Row = Searched->storeRow(N.Row);
  }

  if (O.JSON) {
    OS << "{\"command\":\"topk\",\"metric\":\"" << metricName(Metric)
       << "\",\"k\":" << O.K << ",\"store\":";
    irtk::support::printJSONString(OS, Base.path());
    if (!O.IndexPath.empty()) {
      OS << ",\"index\":";
      irtk::support::printJSONString(OS, O.IndexPath);
    }
    OS << ",\"results\":[";
  }
  for (size_t I = 0; I < Results.size(); ++I) {
    const IndexRecord &QR = Q->Records[I];
    if (O.JSON) {
      OS << (I ? ",\n" : "\n") << "{\"query\":";
      writeQueryJSON(OS, *Q, I);
      OS << ",\"neighbors\":[";
    } else {
      OS << "query: ";
      describe(OS, QR);
      if (Q->From)
        OS << ", row " << QR.Row << " of " << Q->From->path();
      OS << '\n';
    }
    unsigned Rank = 0;
    for (const Neighbor &N : Results[I]) {
      Expected<IndexRecord> R = Base.index().record(N.Row);
      if (!R)
        return R.takeError();
      ++Rank;
      if (O.JSON) {
        OS << (Rank > 1 ? "," : "");
        irtk::support::JSONObjectWriter W(OS, /*NewLine=*/false);
        W.number("rank", Rank).number("row", N.Row).real("score", N.Score);
        writeIndexFields(*R, W);
      } else {
        OS << format("%5u  %.6f  row %llu  ", Rank, N.Score,
                     static_cast<unsigned long long>(N.Row));
        describe(OS, *R);
        OS << '\n';
      }
    }
    if (O.JSON)
      OS << "]}";
  }
  if (O.JSON)
    OS << "\n]}\n";
  return Error::success();
}

static Error runPairs(const Options &O, raw_ostream &OS) {
  Expected<StorePair> P = openStores(O);
  if (!P)
    return P.takeError();
  std::optional<Store> &S = P->first, &T = P->second;
  const Store &B = T ? *T : *S;
  Expected<SearchedRows> RowsA = searchedRows(O, *S);
  if (!RowsA)
    return RowsA.takeError();
  Expected<SearchedRows> RowsB =
      T ? searchedRows(O, *T) : Expected<SearchedRows>(SearchedRows());
  if (!RowsB)
    return RowsB.takeError();
  const SearchedRows &SB = T ? *RowsB : *RowsA;
  std::vector<ScoredPair> Pairs = pairsWithin(
      RowsA->Matrix, SB.Matrix, /*Same=*/!T, O.Threshold, O.Metric, O.Threads);
  // The order (best first, then by rows) survives: the maps ascend.
  for (ScoredPair &P : Pairs) {
    P.A = RowsA->storeRow(P.A);
    P.B = SB.storeRow(P.B);
  }

  if (O.JSON) {
    OS << "{\"command\":\"pairs\",\"metric\":\"" << metricName(O.Metric)
       << "\",\"threshold\":";
    writeNumber(OS, O.Threshold);
    OS << ",\"store\":";
    irtk::support::printJSONString(OS, S->path());
    OS << ",\"against\":";
    irtk::support::printJSONString(OS, B.path());
    OS << ",\"pairs\":[";
  }
  bool First = true;
  for (const ScoredPair &P : Pairs) {
    Expected<IndexRecord> RA = S->index().record(P.A);
    if (!RA)
      return RA.takeError();
    Expected<IndexRecord> RB = B.index().record(P.B);
    if (!RB)
      return RB.takeError();
    if (O.JSON) {
      OS << (First ? "\n" : ",\n");
      irtk::support::JSONObjectWriter W(OS, /*NewLine=*/false);
      W.real("score", P.Score)
          .object("a",
                  [&](irtk::support::JSONObjectWriter &A) {
                    A.number("row", P.A);
                    writeIndexFields(*RA, A);
                  })
          .object("b", [&](irtk::support::JSONObjectWriter &B) {
            B.number("row", P.B);
            writeIndexFields(*RB, B);
          });
    } else {
      OS << format("%.6f  row %llu  ", P.Score,
                   static_cast<unsigned long long>(P.A));
      describe(OS, *RA);
      OS << format("  row %llu  ", static_cast<unsigned long long>(P.B));
      describe(OS, *RB);
      OS << '\n';
    }
    First = false;
  }
  if (O.JSON)
    OS << "\n]}\n";
  return Error::success();
}

/// The default index file of \p O's store: inside it, named by kind and
/// metric.
static std::string defaultIndexPath(const Options &O) {
  SmallString<256> P(O.Store);
  sys::path::append(P, ("approx-" + approxKindName(O.Build.Kind) + "-" +
                        metricName(O.Build.Metric) + ".index")
                           .str());
  return std::string(P);
}

static Error runIndex(const Options &O, raw_ostream &OS) {
  Expected<Store> S = openStore(O, O.Store);
  if (!S)
    return S.takeError();
  tools::StatusLine Line(errs(), ToolName, O.Progress);
  std::string Last;
  Expected<ApproxIndex> Index =
      ApproxIndex::build(matrixOf(*S), O.Build,
                         [&](StringRef Stage, uint64_t Done, uint64_t Total) {
                           std::string Msg;
                           raw_string_ostream M(Msg);
                           M << "indexing " << S->path() << ": " << Stage;
                           if (Stage == "adding")
                             M << ' ' << Done << '/' << Total << " rows";
                           M << ", " << tools::formatDuration(Line.elapsed());
                           Last = Msg;
                           if (Line.due())
                             Line.update(Msg);
                         });
  if (O.Progress == tools::ProgressModeKind::Always && !Last.empty())
    Line.finish(Last);
  else
    Line.clear();
  if (!Index)
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             S->path().str().c_str(),
                             toString(Index.takeError()).c_str());
  if (Error E = Index->write(O.IndexPath))
    return E;
  const ApproxIndexInfo &I = Index->info();
  OS << O.IndexPath << ": " << approxKindName(I.Kind) << ", "
     << metricName(I.Metric) << ", " << I.Indexed << " of " << I.Rows
     << " rows";
  if (I.Lists)
    OS << ", " << I.Lists << " lists";
  if (I.PQBytes)
    OS << ", " << I.PQBytes << "-byte codes";
  if (I.HNSWLinks)
    OS << ", " << I.HNSWLinks << " links";
  OS << ", " << Index->bytes() << " bytes ("
     << format("%.3f", static_cast<double>(Index->bytes()) /
                           std::max<double>(1.0, static_cast<double>(I.Rows) *
                                                     I.Dimension * 4))
     << "x the vectors)\n";
  return Error::success();
}

static ParseResult parseCommandLine(int Argc, char **Argv) {
  if (Argc < 2)
    return usageError("please specify a command: topk, pairs or index");
  std::string Cmd = Argv[1];
  if (Cmd == "--help" || Cmd == "-h" || Cmd == "help")
    return ParseResult::print(Usage);
  Options O;
  if (Cmd == "topk")
    O.Command = CommandKind::TopK;
  else if (Cmd == "pairs")
    O.Command = CommandKind::Pairs;
  else if (Cmd == "index")
    O.Command = CommandKind::Index;
  else
    return usageError("unknown command '" + Cmd +
                      "'; expected topk, pairs or index");

  std::map<std::string, std::string> Values;
  po::options_description Desc("Options");
  auto Text = [] { return po::value<std::string>(); };
  // clang-format off
  Desc.add_options()
    ("help,h", "Display usage")
    ("store", Text(), "Store directory (llvm-ir2vec embeddings --format=npy)")
    ("against", Text(), "Search this store instead (same dimension)")
    ("function", Text(), "topk: query the rows of this function (symbol, demangled name, or qualified name without parameters)")
    ("module", Text(), "topk: query the rows of this module (its path as recorded, or the end of it)")
    ("row", Text(), "topk: query this row of --store")
    ("ir", po::value<std::vector<std::string>>(&O.IRFiles), "topk: query the functions of this IR file (repeatable)")
    ("vocab", Text(), "topk --ir: vocabulary (default: the store's)")
    ("k,k", Text(), "topk: neighbours per query (default 10)")
    ("threshold", Text(), "pairs: minimum cosine or maximum distance")
    ("metric", Text(), "cosine (default) or euclidean")
    ("format", Text(), "text (default) or json")
    ("output,o", Text(), "Output file (default '-', standard output)")
    ("threads,j", Text(), "Threads (default 0: all cores)")
    ("min-instructions", Text(), "topk, pairs: only rows of functions of at least this many instructions")
    ("min-blocks", Text(), "topk, pairs: only rows of functions of at least this many blocks")
    ("progress", Text(), "Status line on standard error while stores load: auto (on a terminal; the default), always or never")
    ("index", Text(), "topk: search this approximate index of the searched store")
    ("nprobe", Text(), "topk --index: inverted lists visited per query (ivf-*; default 8)")
    ("ef", Text(), "topk --index: candidate list of the graph search (hnsw; default 64)")
    ("rerank", Text(), "topk --index: candidates scored exactly per result (default 1; ivf-pq 4)")
    ("kind", Text(), "index: ivf-flat (default), ivf-pq or hnsw")
    ("lists", Text(), "index: inverted lists (ivf-*; default about 4 times the square root of the rows)")
    ("pq-bytes", Text(), "index: bytes per code (ivf-pq; a divisor of the dimension)")
    ("hnsw-links", Text(), "index: links per node (hnsw; default 32)")
    ("train-rows", Text(), "index: rows the clustering learns from (ivf-*; default 64 per list)")
    ("seed", Text(), "index: the training sample's seed (default 1)");
  // clang-format on
  try {
    std::vector<std::string> Args(Argv + 2, Argv + Argc);
    po::parsed_options Parsed =
        tools::parseArguments(Args, Desc, po::positional_options_description());
    for (const po::option &Opt : Parsed.options) {
      if (Opt.string_key == "help")
        return ParseResult::print(Usage);
      if (Opt.unregistered || Opt.position_key >= 0)
        return usageError("unexpected argument '" +
                          (Opt.original_tokens.empty()
                               ? Opt.string_key
                               : Opt.original_tokens.front()) +
                          "'");
      if (Opt.string_key == "ir")
        O.IRFiles.insert(O.IRFiles.end(), Opt.value.begin(), Opt.value.end());
      else if (!Opt.value.empty())
        Values[Opt.string_key] = Opt.value.back();
    }
  } catch (const std::exception &E) {
    return usageError(E.what());
  }
  auto Get = [&](const char *Key) -> std::optional<std::string> {
    auto It = Values.find(Key);
    if (It == Values.end())
      return std::nullopt;
    return It->second;
  };
  if (!Get("store"))
    return usageError("--store <dir> is required");
  O.Store = *Get("store");
  O.Against = Get("against").value_or("");
  O.Output = Get("output").value_or("-");
  O.MetricGiven = Get("metric").has_value();
  std::string Metric = Get("metric").value_or("cosine");
  if (std::optional<MetricKind> M = parseMetric(Metric))
    O.Metric = *M;
  else
    return usageError("invalid --metric '" + Metric +
                      "'; expected cosine or euclidean");
  std::string Format = Get("format").value_or("text");
  if (Format != "text" && Format != "json")
    return usageError("invalid --format '" + Format +
                      "'; expected text or json");
  O.JSON = Format == "json";
  if (std::string Msg = tools::parseProgressOption(
          Get("progress").value_or("auto"), O.Progress);
      !Msg.empty())
    return usageError(Msg);
  if (std::string Msg = tools::parseCountOption(
          "--threads", Get("threads").value_or("0"), 0, 4096, O.Threads);
      !Msg.empty())
    return usageError(Msg);

  const char *TopKOnly[] = {"function", "module", "row", "vocab", "k",
                            "index",    "nprobe", "ef",  "rerank"};
  for (auto [Key, Slot] :
       {std::pair{"min-instructions", &O.Sizes.MinInstructions},
        {"min-blocks", &O.Sizes.MinBlocks}})
    if (std::optional<std::string> V = Get(Key)) {
      if (O.Command == CommandKind::Index)
        return usageError("--" + Twine(Key) + " applies to topk and pairs");
      if (Get("index"))
        return usageError("--" + Twine(Key) +
                          " applies to the exact search, not --index");
      if (std::string Msg = tools::parseCountOption(("--" + Twine(Key)).str(),
                                                    *V, 0, UINT32_MAX, *Slot);
          !Msg.empty())
        return usageError(Msg);
    }
  const char *IndexOnly[] = {"kind",       "lists",      "pq-bytes",
                             "hnsw-links", "train-rows", "seed"};
  if (O.Command != CommandKind::Index)
    for (const char *Key : IndexOnly)
      if (Get(Key))
        return usageError("--" + Twine(Key) + " applies to index only");
  if (O.Command == CommandKind::Index) {
    for (const char *Key : TopKOnly)
      if (Get(Key))
        return usageError("--" + Twine(Key) + " applies to topk only");
    for (const char *Key : {"threshold", "against"})
      if (Get(Key))
        return usageError("--" + Twine(Key) + " does not apply to index");
    if (!O.IRFiles.empty())
      return usageError("--ir applies to topk only");
    std::string Kind = Get("kind").value_or("ivf-flat");
    if (std::optional<ApproxKind> K = parseApproxKind(Kind))
      O.Build.Kind = *K;
    else
      return usageError("invalid --kind '" + Kind +
                        "'; expected ivf-flat, ivf-pq or hnsw");
    O.Build.Metric = O.Metric;
    O.Build.Threads = O.Threads;
    for (auto [Key, Min, Max, Slot] :
         {std::tuple<const char *, uint64_t, uint64_t, unsigned *>{
              "lists", 1, 1 << 24, &O.Build.Lists},
          {"pq-bytes", 1, 4096, &O.Build.PQBytes},
          {"hnsw-links", 2, 512, &O.Build.HNSWLinks}})
      if (std::optional<std::string> V = Get(Key))
        if (std::string Msg = tools::parseCountOption(("--" + Twine(Key)).str(),
                                                      *V, Min, Max, *Slot);
            !Msg.empty())
          return usageError(Msg);
    for (auto [Key, Slot] :
         {std::pair{"train-rows", &O.Build.TrainRows}, {"seed", &O.Build.Seed}})
      if (std::optional<std::string> V = Get(Key))
        if (std::string Msg = tools::parseCountOption(
                ("--" + Twine(Key)).str(), *V, Key == StringRef("seed") ? 0 : 1,
                UINT64_MAX, *Slot);
            !Msg.empty())
          return usageError(Msg);
    if (O.Build.Kind != ApproxKind::IVFPQ && Get("pq-bytes"))
      return usageError("--pq-bytes applies to --kind ivf-pq only");
    if (O.Build.Kind == ApproxKind::HNSW && (Get("lists") || Get("train-rows")))
      return usageError("--lists and --train-rows apply to --kind ivf-* only");
    if (O.Build.Kind != ApproxKind::HNSW && Get("hnsw-links"))
      return usageError("--hnsw-links applies to --kind hnsw only");
    O.IndexPath = Get("output").value_or(defaultIndexPath(O));
    if (O.IndexPath == "-")
      return usageError("index writes a file, not standard output: name it "
                        "with -o <file>");
    O.Output = "-";
    return ParseResult::run(std::move(O));
  }
  if (O.Command == CommandKind::Pairs) {
    for (const char *Key : TopKOnly)
      if (Get(Key))
        return usageError("--" + Twine(Key) + " applies to topk only");
    if (!O.IRFiles.empty())
      return usageError("--ir applies to topk only");
    std::optional<std::string> T = Get("threshold");
    if (!T)
      return usageError("pairs needs --threshold <x>");
    char *End = nullptr;
    O.Threshold = std::strtod(T->c_str(), &End);
    if (T->empty() || *End != '\0' || !std::isfinite(O.Threshold))
      return usageError("invalid --threshold '" + *T +
                        "'; expected a finite number");
  } else {
    if (Get("threshold"))
      return usageError("--threshold applies to pairs only");
    unsigned Sources = Get("function").has_value() + Get("module").has_value() +
                       Get("row").has_value() + !O.IRFiles.empty();
    if (Sources != 1)
      return usageError(
          "topk needs exactly one of --function, --module, --row and --ir");
    O.Function = Get("function").value_or("");
    O.Module = Get("module").value_or("");
    if (std::optional<std::string> R = Get("row")) {
      uint64_t Row;
      if (std::string Msg =
              tools::parseCountOption("--row", *R, 0, UINT64_MAX, Row);
          !Msg.empty())
        return usageError(Msg);
      O.Row = Row;
    }
    O.Vocab = Get("vocab").value_or("");
    if (!O.Vocab.empty() && O.IRFiles.empty())
      return usageError("--vocab applies to --ir queries only");
    if (!O.IRFiles.empty() && !O.Against.empty())
      return usageError("--ir queries search --store; --against applies to "
                        "--function, --module and --row");
    if (std::string Msg = tools::parseCountOption("-k", Get("k").value_or("10"),
                                                  1, 1000000, O.K);
        !Msg.empty())
      return usageError(Msg);
    O.IndexPath = Get("index").value_or("");
    for (auto [Key, Slot] : {std::pair{"nprobe", &O.Approx.NProbe},
                             {"ef", &O.Approx.EfSearch},
                             {"rerank", &O.Approx.Rerank}})
      if (std::optional<std::string> V = Get(Key)) {
        if (O.IndexPath.empty())
          return usageError("--" + Twine(Key) + " applies to --index only");
        if (std::string Msg = tools::parseCountOption(("--" + Twine(Key)).str(),
                                                      *V, 1, 1 << 20, *Slot);
            !Msg.empty())
          return usageError(Msg);
      }
  }

  return ParseResult::run(std::move(O));
}

static Error run(const Options &O) {
  // The output must not replace a file the run reads.
  std::vector<std::string> Inputs = O.IRFiles;
  if (!O.Vocab.empty())
    Inputs.push_back(O.Vocab);
  // topk reads the index; index writes it (checked below).
  if (!O.IndexPath.empty() && O.Command != CommandKind::Index)
    Inputs.push_back(O.IndexPath);
  for (const std::string *Dir : {&O.Store, &O.Against})
    if (!Dir->empty())
      for (const char *Name :
           {store::InfoFileName, store::IndexFileName, store::MatrixFileName}) {
        SmallString<256> P(*Dir);
        sys::path::append(P, Name);
        Inputs.push_back(std::string(P));
      }
  if (Error E = irtk::support::checkNotAnInput(O.Output, Inputs))
    return E;
  // The whole output is rendered first and written through a temporary
  // file: a failed run leaves no partial output.
  std::string Rendered;
  raw_string_ostream OS(Rendered);
  if (O.Command == CommandKind::Index) {
    if (Error E = irtk::support::checkNotAnInput(O.IndexPath, Inputs))
      return E;
  }
  Error E = O.Command == CommandKind::TopK    ? runTopK(O, OS)
            : O.Command == CommandKind::Pairs ? runPairs(O, OS)
                                              : runIndex(O, OS);
  if (E)
    return E;
  return irtk::support::writeOutputFile(O.Output, [&](raw_ostream &Out) {
    Out << Rendered;
    return Error::success();
  });
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  return tools::runMain<Options>(ToolName, parseCommandLine(Argc, Argv), run);
}
