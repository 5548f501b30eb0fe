//===- ApproxIndex.cpp - Approximate nearest-neighbour indexes ------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// FAISS reports errors by throwing: this file is compiled with exceptions and
// RTTI, and every call into FAISS is inside a try block that turns what it
// throws into an llvm::Error.
//
//===----------------------------------------------------------------------===//

#include "irtk/store/ApproxIndex.h"
#include "ReadInput.h"
#include "irtk/support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <faiss/Index.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIDMap.h>
#include <faiss/IndexIVF.h>
#include <faiss/IndexIVFFlat.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/impl/io.h>
#include <faiss/index_factory.h>
#include <faiss/index_io.h>

#include <Eigen/Core>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>

using namespace llvm;

namespace irtk::store {

static constexpr const char *FormatName = "irtk-approx-index";
/// Version 2: the checksum covers the header line too (version 1's covered
/// only the payload, so an edited metric or list count was accepted).
static constexpr unsigned FormatVersion = 2;
static constexpr size_t HashBlock = size_t(1) << 20;

static void setThreads(unsigned Threads) {
  if (Threads)
    omp_set_num_threads(static_cast<int>(Threads));
}

static std::string hex16(uint64_t H) {
  std::string S;
  raw_string_ostream(S) << format_hex_no_prefix(H, 16);
  return S;
}

/// One hash of a sequence of hashes.
static uint64_t combineHashes(ArrayRef<uint64_t> H) {
  return xxh3_64bits(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(H.data()),
                        H.size() * sizeof(uint64_t)));
}

/// The hashes of \p Data's blocks of HashBlock bytes, hashed together with
/// \p Prefix.
static uint64_t blockHash(ArrayRef<uint8_t> Data, ArrayRef<uint64_t> Prefix) {
  size_t Blocks = (Data.size() + HashBlock - 1) / HashBlock;
  std::vector<uint64_t> H(Prefix.begin(), Prefix.end());
  size_t First = H.size();
  H.resize(First + Blocks);
  // One block (a small index) is not worth a team of threads.
#pragma omp parallel for schedule(static) if (Blocks > 1)
  for (int64_t B = 0; B < static_cast<int64_t>(Blocks); ++B) {
    size_t Begin = static_cast<size_t>(B) * HashBlock;
    H[First + B] = xxh3_64bits(
        Data.slice(Begin, std::min(HashBlock, Data.size() - Begin)));
  }
  return combineHashes(H);
}

std::string matrixChecksum(MatrixRef M, unsigned Threads) {
  setThreads(Threads);
  ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>(M.Data),
                          M.Rows * M.Dim * sizeof(float));
  return hex16(blockHash(Bytes, {M.Rows, M.Dim}));
}

std::optional<ApproxKind> parseApproxKind(StringRef S) {
  if (S == "ivf-flat")
    return ApproxKind::IVFFlat;
  if (S == "ivf-pq")
    return ApproxKind::IVFPQ;
  if (S == "hnsw")
    return ApproxKind::HNSW;
  return std::nullopt;
}

StringRef approxKindName(ApproxKind K) {
  switch (K) {
  case ApproxKind::IVFFlat:
    return "ivf-flat";
  case ApproxKind::IVFPQ:
    return "ivf-pq";
  case ApproxKind::HNSW:
    return "hnsw";
  }
  return "ivf-flat";
}

//===----------------------------------------------------------------------===//
// FAISS's reader and writer
//===----------------------------------------------------------------------===//

namespace {
/// Counts (and, with a stream, writes and hashes) what FAISS writes.
struct StreamWriter : faiss::IOWriter {
  raw_ostream *OS = nullptr;
  uint64_t Size = 0;
  std::vector<uint8_t> Block;
  std::vector<uint64_t> Hashes;

  size_t operator()(const void *Ptr, size_t Size, size_t N) override {
    size_t Bytes = Size * N;
    this->Size += Bytes;
    if (!OS)
      return N;
    OS->write(static_cast<const char *>(Ptr), Bytes);
    const auto *P = static_cast<const uint8_t *>(Ptr);
    while (Bytes) {
      size_t Take = std::min(Bytes, HashBlock - Block.size());
      Block.insert(Block.end(), P, P + Take);
      P += Take;
      Bytes -= Take;
      if (Block.size() == HashBlock) {
        Hashes.push_back(xxh3_64bits(Block));
        Block.clear();
      }
    }
    return N;
  }
  /// The same as blockHash of everything written, with the hashes pushed
  /// before the first write as its prefix.
  uint64_t finish() {
    if (!Block.empty())
      Hashes.push_back(xxh3_64bits(Block));
    return combineHashes(Hashes);
  }
};

struct MemoryReader : faiss::IOReader {
  ArrayRef<uint8_t> Data;
  size_t At = 0;
  size_t operator()(void *Ptr, size_t Size, size_t N) override {
    if (!Size)
      return 0;
    size_t Items = std::min(N, (Data.size() - At) / Size);
    // FAISS reads an empty vector into its null data().
    if (Items)
      std::memcpy(Ptr, Data.data() + At, Items * Size);
    At += Items * Size;
    return Items;
  }
};
} // namespace

struct ApproxIndex::Impl {
  std::unique_ptr<faiss::Index> Index;
  /// The index whose search parameters are set (inside an IDMap for HNSW).
  faiss::IndexIVF *IVF = nullptr;
  faiss::IndexHNSW *HNSW = nullptr;
  /// ivf-flat: each list's squared norms, made by the first search.
  std::vector<std::vector<float>> ListNorms;
  mutable std::mutex Searching;
};

ApproxIndex::ApproxIndex(ApproxIndexInfo Info, std::unique_ptr<Impl> I,
                         uint64_t Bytes)
    : Info(std::move(Info)), I(std::move(I)), Bytes(Bytes) {}
ApproxIndex::ApproxIndex(ApproxIndex &&) = default;
ApproxIndex &ApproxIndex::operator=(ApproxIndex &&) = default;
ApproxIndex::~ApproxIndex() = default;

/// FAISS searches by Euclidean distance for both metrics: for cosine the
/// index holds unit vectors, whose distances rank as their cosines do
/// (|a - b|^2 = 2 - 2 cos). Searching unit vectors by inner product ranks
/// the same in theory, but FAISS's product quantiser estimates inner
/// products of residuals poorly: on 200,000 perturbed real embeddings,
/// ivf-pq's recall@10 was 0.34 by inner product and 0.92 by distance.
static faiss::MetricType faissMetric(MetricKind) { return faiss::METRIC_L2; }

static bool finiteRow(ArrayRef<float> R) {
  return llvm::all_of(R, [](float X) { return std::isfinite(X); });
}

/// Row \p R of \p M as the index holds it: unit length for cosine (a zero
/// row stays zero).
static void prepareRow(ArrayRef<float> R, MetricKind Metric, float *Out) {
  double Norm = 0;
  if (Metric == MetricKind::Cosine)
    for (float X : R)
      Norm += static_cast<double>(X) * X;
  double Scale = Norm > 0 ? 1.0 / std::sqrt(Norm) : 1.0;
  for (size_t E = 0; E < R.size(); ++E)
    Out[E] = static_cast<float>(R[E] * Scale);
}

/// Finds the typed parts of \p I's index.
static Error bindParts(ApproxIndex::Impl &I, ApproxKind Kind) {
  faiss::Index *Inner = I.Index.get();
  if (auto *Map = dynamic_cast<faiss::IndexIDMap *>(Inner))
    Inner = Map->index;
  I.IVF = dynamic_cast<faiss::IndexIVF *>(Inner);
  I.HNSW = dynamic_cast<faiss::IndexHNSW *>(Inner);
  bool Fits = false;
  switch (Kind) {
  case ApproxKind::IVFFlat:
    Fits = dynamic_cast<faiss::IndexIVFFlat *>(Inner) != nullptr;
    break;
  case ApproxKind::IVFPQ:
    Fits = dynamic_cast<faiss::IndexIVFPQ *>(Inner) != nullptr;
    break;
  case ApproxKind::HNSW:
    Fits = I.HNSW && Inner != I.Index.get();
    break;
  }
  if (!Fits)
    return createStringError(inconvertibleErrorCode(),
                             "the FAISS index is not of the kind '%s'",
                             approxKindName(Kind).str().c_str());
  return Error::success();
}

static uint64_t powerOf2Below(uint64_t N) {
  uint64_t P = 1;
  while (P * 2 <= N)
    P *= 2;
  return P;
}

Expected<ApproxIndex>
ApproxIndex::build(MatrixRef Base, const ApproxBuildOptions &Opts, Progress P) {
  auto Fail = [](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(), Msg);
  };
  auto Report = [&](StringRef Stage, uint64_t Done, uint64_t Total) {
    if (P)
      P(Stage, Done, Total);
  };
  setThreads(Opts.Threads);
  ApproxIndexInfo Info;
  Info.Kind = Opts.Kind;
  Info.Metric = Opts.Metric;
  Info.Dimension = Base.Dim;
  Info.Rows = Base.Rows;
  Info.Faiss = std::to_string(FAISS_VERSION_MAJOR) + "." +
               std::to_string(FAISS_VERSION_MINOR) + "." +
               std::to_string(FAISS_VERSION_PATCH);
  if (!Base.Dim)
    return Fail("cannot index vectors of dimension 0");
  Report("checksum", 0, 1);
  Info.StoreChecksum = matrixChecksum(Base, Opts.Threads);

  std::vector<int64_t> Finite;
  Finite.reserve(Base.Rows);
  for (uint64_t R = 0; R < Base.Rows; ++R)
    if (finiteRow(Base.row(R)))
      Finite.push_back(static_cast<int64_t>(R));
  Info.Indexed = Finite.size();
  if (Finite.empty())
    return Fail("no row to index: the store has no row of finite values");

  bool IsIVF = Opts.Kind != ApproxKind::HNSW;
  uint64_t TrainRows = 0;
  std::string Factory;
  if (IsIVF) {
    uint64_t Lists = Opts.Lists;
    if (!Lists) {
      // FAISS's guidance is 4 to 16 times the square root; the lower end
      // keeps the clustering's cost (rows x lists) modest.
      Lists = powerOf2Below(static_cast<uint64_t>(
          4 * std::sqrt(static_cast<double>(Finite.size()))));
      Lists =
          std::min<uint64_t>(Lists, std::max<uint64_t>(1, Finite.size() / 39));
    }
    TrainRows = Opts.TrainRows ? Opts.TrainRows : 64 * Lists;
    TrainRows = std::min<uint64_t>(TrainRows, Finite.size());
    if (Lists > TrainRows)
      return Fail("cannot make " + Twine(Lists) + " lists from " +
                  Twine(TrainRows) + " training rows (the store has " +
                  Twine(Finite.size()) + " indexable rows)");
    Info.Lists = static_cast<unsigned>(Lists);
    Factory = "IVF" + std::to_string(Lists) + ",";
    if (Opts.Kind == ApproxKind::IVFFlat) {
      Factory += "Flat";
    } else {
      unsigned M = Opts.PQBytes;
      if (!M)
        for (unsigned D = 1; D <= std::max(1u, Base.Dim / 3); ++D)
          if (Base.Dim % D == 0)
            M = D;
      if (Base.Dim % M)
        return Fail("--pq-bytes " + Twine(M) + " does not divide the " +
                    "dimension " + Twine(Base.Dim));
      if (TrainRows < 256)
        return Fail("ivf-pq needs at least 256 training rows (its codes have "
                    "256 values); the store has " +
                    Twine(Finite.size()) + " indexable rows");
      Info.PQBytes = M;
      Factory += "PQ" + std::to_string(M) + "x8";
    }
  } else {
    Info.HNSWLinks = Opts.HNSWLinks;
    Factory = "HNSW" + std::to_string(Opts.HNSWLinks) + ",Flat";
  }

  auto Impl = std::make_unique<ApproxIndex::Impl>();
  try {
    std::unique_ptr<faiss::Index> Made(faiss::index_factory(
        static_cast<int>(Base.Dim), Factory.c_str(), faissMetric(Opts.Metric)));
    if (Opts.Kind == ApproxKind::HNSW) {
      auto *Map = new faiss::IndexIDMap(Made.release());
      Map->own_fields = true;
      Impl->Index.reset(Map);
    } else {
      Impl->Index = std::move(Made);
    }
    if (Error E = bindParts(*Impl, Opts.Kind))
      return std::move(E);
    if (Impl->HNSW)
      Impl->HNSW->hnsw.efConstruction = static_cast<int>(Opts.EfConstruction);
    // The factory's IVF-PQ reorders its codes for polysemous search by
    // annealing (seconds to minutes of training); ours are only reranked.
    if (auto *PQ = dynamic_cast<faiss::IndexIVFPQ *>(Impl->IVF))
      PQ->do_polysemous_training = false;

    std::vector<float> Buf;
    if (IsIVF) {
      // A seeded sample of the rows (a partial Fisher-Yates shuffle).
      std::vector<int64_t> Sample = Finite;
      std::mt19937_64 Rng(Opts.Seed);
      for (uint64_t K = 0; K < TrainRows; ++K) {
        std::uniform_int_distribution<uint64_t> U(K, Sample.size() - 1);
        std::swap(Sample[K], Sample[U(Rng)]);
      }
      Sample.resize(TrainRows);
      std::sort(Sample.begin(), Sample.end());
      Buf.resize(TrainRows * Base.Dim);
      for (uint64_t K = 0; K < TrainRows; ++K)
        prepareRow(Base.row(Sample[K]), Opts.Metric, &Buf[K * Base.Dim]);
      for (faiss::ClusteringParameters *CP :
           {&Impl->IVF->cp,
            Opts.Kind == ApproxKind::IVFPQ
                ? &static_cast<faiss::IndexIVFPQ *>(Impl->IVF)->pq.cp
                : nullptr}) {
        if (!CP)
          continue;
        CP->niter = static_cast<int>(Opts.TrainIterations);
        CP->seed = static_cast<int>(Opts.Seed);
        // The sizes are ours to choose; FAISS would warn on stderr.
        CP->min_points_per_centroid = 1;
      }
      Report("training", 0, TrainRows);
      Impl->Index->train(static_cast<faiss::Index::idx_t>(TrainRows),
                         Buf.data());
    }
    const uint64_t Batch = 1 << 16;
    for (uint64_t First = 0; First < Finite.size(); First += Batch) {
      Report("adding", First, Finite.size());
      uint64_t N = std::min<uint64_t>(Batch, Finite.size() - First);
      Buf.resize(N * Base.Dim);
#pragma omp parallel for schedule(static)
      for (int64_t K = 0; K < static_cast<int64_t>(N); ++K)
        prepareRow(Base.row(Finite[First + K]), Opts.Metric,
                   &Buf[K * Base.Dim]);
      Impl->Index->add_with_ids(static_cast<faiss::Index::idx_t>(N), Buf.data(),
                                &Finite[First]);
    }
    Report("adding", Finite.size(), Finite.size());
    StreamWriter Counter;
    faiss::write_index(Impl->Index.get(), &Counter);
    return ApproxIndex(std::move(Info), std::move(Impl), Counter.Size);
  } catch (const std::exception &E) {
    return Fail(Twine("FAISS failed to build the index: ") + E.what());
  }
}

//===----------------------------------------------------------------------===//
// The file
//===----------------------------------------------------------------------===//

static json::Object headerOf(const ApproxIndexInfo &Info) {
  return json::Object{{"format", FormatName},
                      {"version", FormatVersion},
                      {"kind", approxKindName(Info.Kind)},
                      {"metric", metricName(Info.Metric)},
                      {"dimension", Info.Dimension},
                      {"rows", static_cast<int64_t>(Info.Rows)},
                      {"indexed", static_cast<int64_t>(Info.Indexed)},
                      {"store_checksum", Info.StoreChecksum},
                      {"lists", Info.Lists},
                      {"pq_bytes", Info.PQBytes},
                      {"hnsw_links", Info.HNSWLinks},
                      {"faiss", Info.Faiss}};
}

Error ApproxIndex::write(StringRef Path) const {
  Expected<std::unique_ptr<support::OutputFile>> Out =
      support::OutputFile::open(Path);
  if (!Out)
    return Out.takeError();
  raw_ostream &OS = (*Out)->os();
  std::string Header;
  raw_string_ostream(Header) << json::Value(headerOf(Info)) << '\n';
  OS << Header;
  StreamWriter W;
  W.OS = &OS;
  W.Hashes.push_back(xxh3_64bits(arrayRefFromStringRef(Header)));
  try {
    faiss::write_index(I->Index.get(), &W);
  } catch (const std::exception &E) {
    (*Out)->discard();
    return createStringError(inconvertibleErrorCode(),
                             "%s: FAISS failed to write the index: %s",
                             Path.str().c_str(), E.what());
  }
  uint64_t Hash = W.finish();
  OS << '\n'
     << json::Value(
            json::Object{{"payload_bytes", static_cast<int64_t>(W.Size)},
                         {"checksum", hex16(Hash)}})
     << '\n';
  return (*Out)->commit();
}

namespace {
/// Reads the fields of a JSON object, strictly: every key known, every
/// named one present.
struct HeaderReader {
  const json::Object &O;
  std::string Problem;

  template <typename T> bool get(StringRef Key, T &Out) {
    const json::Value *V = O.get(Key);
    if (!V) {
      Problem = ("no '" + Key + "'").str();
      return false;
    }
    if constexpr (std::is_same_v<T, std::string>) {
      if (std::optional<StringRef> S = V->getAsString()) {
        Out = S->str();
        return true;
      }
    } else {
      if (std::optional<int64_t> N = V->getAsInteger(); N && *N >= 0) {
        Out = static_cast<T>(*N);
        if (static_cast<int64_t>(Out) == *N)
          return true;
      }
    }
    Problem = ("'" + Key + "' is not a valid value").str();
    return false;
  }
};
} // namespace

Expected<ApproxIndex> ApproxIndex::load(StringRef Path) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(), Path + ": " + Msg);
  };
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInput(Path);
  if (!Buf)
    return Buf.takeError();
  StringRef Text = (*Buf)->getBuffer();
  size_t HeaderEnd = Text.find('\n');
  if (HeaderEnd == StringRef::npos)
    return Fail("not an irtk approximate index (no header line)");
  Expected<json::Value> Header = json::parse(Text.take_front(HeaderEnd));
  const json::Object *H = Header ? Header->getAsObject() : nullptr;
  if (!Header)
    consumeError(Header.takeError());
  if (!H || !H->getString("format") || *H->getString("format") != FormatName)
    return Fail("not an irtk approximate index (its first line is not a '" +
                Twine(FormatName) + "' header)");
  ApproxIndexInfo Info;
  HeaderReader R{*H, ""};
  unsigned Version = 0;
  std::string Kind, Metric;
  if (!R.get("version", Version))
    return Fail("header: " + R.Problem);
  if (Version < FormatVersion)
    return Fail("an index of format version " + Twine(Version) +
                ", which this irtk no longer reads; build it again with "
                "irtk-similarity index");
  if (Version != FormatVersion)
    return Fail("format version " + Twine(Version) + "; this irtk reads " +
                Twine(FormatVersion));
  static const char *const Keys[] = {
      "format",  "version",        "kind",  "metric",   "dimension",  "rows",
      "indexed", "store_checksum", "lists", "pq_bytes", "hnsw_links", "faiss"};
  for (const auto &KV : *H)
    if (!llvm::is_contained(Keys, KV.first.str()))
      return Fail("header: unknown key '" + KV.first.str() + "'");
  if (!R.get("kind", Kind) || !R.get("metric", Metric) ||
      !R.get("dimension", Info.Dimension) || !R.get("rows", Info.Rows) ||
      !R.get("indexed", Info.Indexed) ||
      !R.get("store_checksum", Info.StoreChecksum) ||
      !R.get("lists", Info.Lists) || !R.get("pq_bytes", Info.PQBytes) ||
      !R.get("hnsw_links", Info.HNSWLinks) || !R.get("faiss", Info.Faiss))
    return Fail("header: " + R.Problem);
  std::optional<ApproxKind> K = parseApproxKind(Kind);
  std::optional<MetricKind> M = parseMetric(Metric);
  if (!K)
    return Fail("header: unknown kind '" + Kind + "'");
  if (!M)
    return Fail("header: unknown metric '" + Metric + "'");
  Info.Kind = *K;
  Info.Metric = *M;

  // The trailer: the payload's length and checksum, on the last line.
  StringRef Rest = Text.drop_front(HeaderEnd + 1);
  auto Truncated = [&]() {
    return Fail("truncated or corrupt (its header and payload do not match "
                "the length and checksum it ends with)");
  };
  if (!Rest.ends_with("\n"))
    return Truncated();
  size_t TrailerStart = Rest.drop_back().rfind('\n');
  if (TrailerStart == StringRef::npos)
    return Truncated();
  Expected<json::Value> Trailer =
      json::parse(Rest.slice(TrailerStart + 1, Rest.size() - 1));
  if (!Trailer) {
    consumeError(Trailer.takeError());
    return Truncated();
  }
  const json::Object *T = Trailer->getAsObject();
  std::optional<int64_t> Size =
      T ? T->getInteger("payload_bytes") : std::nullopt;
  std::optional<StringRef> Sum = T ? T->getString("checksum") : std::nullopt;
  StringRef Payload = Rest.take_front(TrailerStart);
  if (!Size || !Sum || T->size() != 2 ||
      static_cast<uint64_t>(*Size) != Payload.size())
    return Truncated();
  // The checksum covers the header line (with its newline), then the
  // payload: a changed metric or list count is corruption too.
  uint64_t HeaderHash =
      xxh3_64bits(arrayRefFromStringRef(Text.take_front(HeaderEnd + 1)));
  if (hex16(blockHash(arrayRefFromStringRef(Payload), {HeaderHash})) != *Sum)
    return Truncated();

  auto Impl = std::make_unique<ApproxIndex::Impl>();
  try {
    MemoryReader Reader;
    Reader.Data = arrayRefFromStringRef(Payload);
    Impl->Index.reset(faiss::read_index(&Reader));
  } catch (const std::exception &E) {
    return Fail(Twine("FAISS cannot read its index: ") + E.what());
  }
  if (Error E = bindParts(*Impl, Info.Kind))
    return Fail(toString(std::move(E)));
  if (static_cast<unsigned>(Impl->Index->d) != Info.Dimension ||
      static_cast<uint64_t>(Impl->Index->ntotal) != Info.Indexed ||
      Info.Indexed > Info.Rows)
    return Fail("its FAISS index (dimension " + Twine(Impl->Index->d) + ", " +
                Twine(Impl->Index->ntotal) +
                " vectors) does not match its header");
  uint64_t Bytes = Payload.size();
  return ApproxIndex(std::move(Info), std::move(Impl), Bytes);
}

Error ApproxIndex::checkMatrix(MatrixRef Base, StringRef IndexName,
                               StringRef StoreName, unsigned Threads) const {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             IndexName + ": " + Msg +
                                 "; build it again with irtk-similarity index");
  };
  if (Base.Dim != Info.Dimension)
    return Fail("an index of dimension " + Twine(Info.Dimension) + ", not " +
                Twine(Base.Dim) + " as '" + StoreName + "'");
  if (Base.Rows != Info.Rows)
    return Fail("an index of a store of " + Twine(Info.Rows) + " rows; '" +
                StoreName + "' has " + Twine(Base.Rows));
  std::string Sum = matrixChecksum(Base, Threads);
  if (Sum != Info.StoreChecksum)
    return Fail("built from other vectors than those of '" + StoreName +
                "' (store checksum " + Info.StoreChecksum + ", now " + Sum +
                "): the store changed, or it is another store's index");
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Searching
//===----------------------------------------------------------------------===//

namespace {
/// A candidate row and its ranking distance; ordered by distance, then row.
struct Candidate {
  float Dist;
  faiss::Index::idx_t Label;
  bool operator<(const Candidate &O) const {
    return Dist != O.Dist ? Dist < O.Dist : Label < O.Label;
  }
};
} // namespace

/// Keeps the \p Want smallest of the candidates pushed (a max-heap).
static void pushBounded(std::vector<Candidate> &Heap, size_t Want,
                        Candidate C) {
  if (Heap.size() < Want) {
    Heap.push_back(C);
    std::push_heap(Heap.begin(), Heap.end());
  } else if (C < Heap.front()) {
    std::pop_heap(Heap.begin(), Heap.end());
    Heap.back() = C;
    std::push_heap(Heap.begin(), Heap.end());
  }
}

/// The ivf-flat search of a batch of \p N prepared queries \p Q, list by list
/// rather than query by query: the queries that visit a list are scored
/// against it together, as one matrix product (Eigen, as the exact search),
/// so that a list is read once per batch rather than once per query that
/// visits it. FAISS scans each visited list per query. The candidates are
/// those FAISS would find (the \p Want nearest among the visited lists, by
/// |x|^2 - 2 q.x, which ranks as the distance does), up to ties and
/// rounding; the caller scores them exactly. \p Dist receives their squared
/// distances (|q|^2 added back), as FAISS's search would.
static void searchFlatByList(ApproxIndex::Impl &I, uint64_t N, const float *Q,
                             unsigned Dim, size_t Want,
                             faiss::Index::idx_t *Labels, float *Dist) {
  using idx_t = faiss::Index::idx_t;
  faiss::IndexIVF &IVF = *I.IVF;
  const faiss::InvertedLists &Lists = *IVF.invlists;
  size_t NList = IVF.nlist, NProbe = IVF.nprobe;
  using RowMatrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  if (I.ListNorms.size() != NList) {
    I.ListNorms.assign(NList, {});
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t L = 0; L < static_cast<int64_t>(NList); ++L) {
      faiss::InvertedLists::ScopedCodes Codes(&Lists, L);
      size_t Size = Lists.list_size(L);
      Eigen::Map<const RowMatrix> X(
          reinterpret_cast<const float *>(Codes.get()), Size, Dim);
      std::vector<float> &Norms = I.ListNorms[L];
      Norms.resize(Size);
      Eigen::Map<Eigen::VectorXf>(Norms.data(), Size) =
          X.rowwise().squaredNorm();
    }
  }
  // The lists each query visits, then the queries that visit each list.
  std::vector<float> CoarseDist(N * NProbe);
  std::vector<idx_t> Coarse(N * NProbe);
  IVF.quantizer->search(static_cast<idx_t>(N), Q, static_cast<idx_t>(NProbe),
                        CoarseDist.data(), Coarse.data());
  std::vector<uint64_t> Start(NList + 1, 0);
  for (idx_t L : Coarse)
    if (L >= 0)
      ++Start[L + 1];
  for (size_t L = 0; L < NList; ++L)
    Start[L + 1] += Start[L];
  // Visits[Start[L] ...] are the (query, probe) slots that visit list L.
  std::vector<uint64_t> Visits(Start[NList]),
      Fill(Start.begin(), Start.end() - 1);
  for (uint64_t S = 0; S < Coarse.size(); ++S)
    if (Coarse[S] >= 0)
      Visits[Fill[Coarse[S]]++] = S;
  // Each slot's best candidates, then each query's best of its slots.
  std::vector<std::vector<Candidate>> Best(N * NProbe);
  const uint64_t Chunk = 2048;
#pragma omp parallel
  {
    Eigen::MatrixXf QMat, S;
#pragma omp for schedule(dynamic, 4)
    for (int64_t L = 0; L < static_cast<int64_t>(NList); ++L) {
      size_t M = Start[L + 1] - Start[L], Size = Lists.list_size(L);
      if (!M || !Size)
        continue;
      faiss::InvertedLists::ScopedCodes Codes(&Lists, L);
      faiss::InvertedLists::ScopedIds Ids(&Lists, L);
      const float *X = reinterpret_cast<const float *>(Codes.get());
      const std::vector<float> &Norms = I.ListNorms[L];
      QMat.resize(Dim, M);
      for (size_t J = 0; J < M; ++J) {
        QMat.col(J) = Eigen::Map<const Eigen::VectorXf>(
            Q + (Visits[Start[L] + J] / NProbe) * Dim, Dim);
        Best[Visits[Start[L] + J]].reserve(Want);
      }
      for (uint64_t First = 0; First < Size; First += Chunk) {
        uint64_t Rows = std::min<uint64_t>(Chunk, Size - First);
        S.noalias() =
            Eigen::Map<const RowMatrix>(X + First * Dim, Rows, Dim) * QMat;
        for (size_t J = 0; J < M; ++J) {
          std::vector<Candidate> &Heap = Best[Visits[Start[L] + J]];
          const float *Col = S.col(J).data();
          for (uint64_t R = 0; R < Rows; ++R)
            pushBounded(Heap, Want,
                        {Norms[First + R] - 2 * Col[R], Ids.get()[First + R]});
        }
      }
    }
#pragma omp for schedule(static)
    for (int64_t K = 0; K < static_cast<int64_t>(N); ++K) {
      std::vector<Candidate> All;
      for (size_t P = 0; P < NProbe; ++P)
        for (const Candidate &C : Best[K * NProbe + P])
          pushBounded(All, Want, C);
      std::sort_heap(All.begin(), All.end());
      float QNorm =
          Eigen::Map<const Eigen::VectorXf>(Q + K * Dim, Dim).squaredNorm();
      for (size_t C = 0; C < All.size(); ++C) {
        Labels[K * Want + C] = All[C].Label;
        Dist[K * Want + C] = All[C].Dist + QNorm;
      }
    }
  }
}

/// The rows FAISS's squared distance \p D (to a prepared query of squared
/// norm \p QNorm) cannot tell from the cut at \p Cut: its rounding, as
/// Search.cpp bounds a float dot product's, (4 Dim + 32) u of the terms'
/// magnitude, on both sides of the comparison. |x|^2 <= 2 |q|^2 + 2 D
/// bounds the magnitude.
static bool tiedWithCut(float D, float Cut, float QNorm, unsigned Dim) {
  float Slack = 2 * (4 * static_cast<float>(Dim) + 32) *
                std::numeric_limits<float>::epsilon() *
                (6 * QNorm + 4 * std::max(Cut, 0.0f));
  return D <= Cut + Slack;
}

/// The candidates of \p N prepared queries \p Q: the \p Want nearest the
/// index proposes and every further one tied with the Want-th (within
/// rounding). The index breaks ties at its cut arbitrarily, so the rows
/// tied there are all kept for the exact scoring, which breaks ties by row:
/// an exhaustive search (ivf-flat visiting every list) then equals the
/// exact search row for row. A query whose last candidate is still tied
/// asks again for twice as many. Only the queries \p Pending (indexes into
/// \p Q) are searched.
static void
proposeCandidates(ApproxIndex::Impl &I, const ApproxIndexInfo &Info,
                  bool ByList, std::vector<uint64_t> Pending, const float *Q,
                  unsigned Dim, uint64_t Want, const ApproxSearchOptions &Opts,
                  std::vector<std::vector<faiss::Index::idx_t>> &Out) {
  using idx_t = faiss::Index::idx_t;
  std::vector<float> Sub, Dist;
  std::vector<idx_t> Labels;
  for (uint64_t W = Want; !Pending.empty();
       W = std::min<uint64_t>(2 * W, Info.Indexed)) {
    uint64_t M = Pending.size();
    Sub.resize(M * Dim);
    for (uint64_t J = 0; J < M; ++J)
      std::copy_n(Q + Pending[J] * Dim, Dim, &Sub[J * Dim]);
    Labels.assign(M * W, -1);
    Dist.assign(M * W, std::numeric_limits<float>::infinity());
    // Parameters and sizes were checked; FAISS throws only on bugs.
    if (ByList) {
      searchFlatByList(I, M, Sub.data(), Dim, W, Labels.data(), Dist.data());
    } else {
      if (I.HNSW)
        I.HNSW->hnsw.efSearch = static_cast<int>(
            std::max<uint64_t>(Opts.EfSearch ? Opts.EfSearch : 64, W));
      I.Index->search(static_cast<idx_t>(M), Sub.data(), static_cast<idx_t>(W),
                      Dist.data(), Labels.data());
    }
    std::vector<uint64_t> Again;
    for (uint64_t J = 0; J < M; ++J) {
      const idx_t *L = &Labels[J * W];
      const float *D = &Dist[J * W];
      uint64_t Found = std::find(L, L + W, idx_t(-1)) - L;
      float QNorm =
          Eigen::Map<const Eigen::VectorXf>(&Sub[J * Dim], Dim).squaredNorm();
      if (W < Info.Indexed && Found == W && Want <= W &&
          tiedWithCut(D[W - 1], D[Want - 1], QNorm, Dim)) {
        Again.push_back(Pending[J]);
        continue;
      }
      Out[Pending[J]].assign(L, L + Found);
    }
    Pending = std::move(Again);
  }
}

std::vector<std::vector<Neighbor>>
ApproxIndex::search(MatrixRef Queries, MatrixRef Base,
                    const ApproxSearchOptions &Opts,
                    ArrayRef<int64_t> Exclude) const {
  std::lock_guard<std::mutex> Lock(I->Searching);
  setThreads(Opts.Threads);
  std::vector<std::vector<Neighbor>> Out(Queries.Rows);
  if (!Info.Indexed || !Opts.K)
    return Out;
  unsigned Rerank =
      Opts.Rerank ? Opts.Rerank : (Info.Kind == ApproxKind::IVFPQ ? 4 : 1);
  uint64_t Want = std::min<uint64_t>(
      Info.Indexed, (uint64_t(Opts.K) + (Exclude.empty() ? 0 : 1)) * Rerank);
  if (I->IVF)
    I->IVF->nprobe =
        std::min<size_t>(Opts.NProbe ? Opts.NProbe : 8, I->IVF->nlist);
  const uint64_t Batch = 1024;
  using Scan = ApproxSearchOptions::Scan;
  bool ByList =
      Info.Kind == ApproxKind::IVFFlat &&
      (Opts.ScanOrder == Scan::ByList ||
       (Opts.ScanOrder == Scan::Auto &&
        std::min(Queries.Rows, Batch) * I->IVF->nprobe >= I->IVF->nlist));
  std::vector<float> Q;
  std::vector<std::vector<faiss::Index::idx_t>> Cands;
  for (uint64_t First = 0; First < Queries.Rows; First += Batch) {
    uint64_t N = std::min<uint64_t>(Batch, Queries.Rows - First);
    Q.resize(N * Queries.Dim);
    // A query that is not finite matches nothing: the index is not asked.
    std::vector<uint64_t> Finite;
    for (uint64_t K = 0; K < N; ++K)
      if (finiteRow(Queries.row(First + K))) {
        prepareRow(Queries.row(First + K), Info.Metric, &Q[K * Queries.Dim]);
        Finite.push_back(K);
      }
    Cands.assign(N, {});
    proposeCandidates(*I, Info, ByList, std::move(Finite), Q.data(),
                      Queries.Dim, Want, Opts, Cands);
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t K = 0; K < static_cast<int64_t>(N); ++K) {
      uint64_t Query = First + K;
      ArrayRef<float> QRow = Queries.row(Query);
      std::vector<Neighbor> &Best = Out[Query];
      if (!finiteRow(QRow))
        continue;
      int64_t Skip = Exclude.empty() ? -1 : Exclude[Query];
      for (int64_t Row : Cands[K]) {
        // A label outside the matrix is a damaged index's, never a row.
        if (Row < 0 || static_cast<uint64_t>(Row) >= Base.Rows || Row == Skip)
          continue;
        double S = score(QRow, Base.row(Row), Info.Metric);
        if (std::isnan(S))
          continue;
        Best.push_back({static_cast<uint64_t>(Row), S});
      }
      std::sort(Best.begin(), Best.end(),
                [&](const Neighbor &A, const Neighbor &B) {
                  if (A.Score != B.Score)
                    return isBetter(A.Score, B.Score, Info.Metric);
                  return A.Row < B.Row;
                });
      Best.erase(std::unique(Best.begin(), Best.end(),
                             [](const Neighbor &A, const Neighbor &B) {
                               return A.Row == B.Row;
                             }),
                 Best.end());
      if (Best.size() > Opts.K)
        Best.resize(Opts.K);
    }
  }
  return Out;
}

} // namespace irtk::store
