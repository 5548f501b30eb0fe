//===- ApproxIndexModule.cpp - ir2vec._ir2vec.ApproxIndex -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The approximate indexes of irtk-similarity (irtk/store/ApproxIndex.h) for
/// Python: built from, checked against and searched over a float32 matrix
/// (a store's vectors); ir2vec/store.py ties them to stores.
///
//===----------------------------------------------------------------------===//

#include "ApproxIndexModule.h"
#include "ModuleSupport.h"

#include "irtk/store/ApproxIndex.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace irtk::store;
using namespace irtk::python;

static void throwIf(llvm::Error E) {
  if (E)
    throwValueError(llvm::toString(std::move(E)));
}

template <typename T> static T take(llvm::Expected<T> E) {
  if (!E)
    throwValueError(llvm::toString(E.takeError()));
  return std::move(*E);
}

void irtk::python::bindApproxIndex(py::module_ &M) {
  py::class_<ApproxIndex>(M, "ApproxIndex",
                          "An approximate index of a matrix's rows "
                          "(irtk-similarity index).")
      .def_static(
          "build",
          [](FloatMatrix Base, const std::string &Kind,
             const std::string &Metric, unsigned Lists, unsigned PQBytes,
             unsigned HNSWLinks, uint64_t TrainRows, uint64_t Seed,
             unsigned Threads) {
            ApproxBuildOptions O;
            std::optional<ApproxKind> K = parseApproxKind(Kind);
            if (!K)
              throwValueError("invalid kind '" + Kind +
                              "'; expected ivf-flat, ivf-pq or hnsw");
            O.Kind = *K;
            O.Metric = metricOf(Metric);
            O.Lists = Lists;
            O.PQBytes = PQBytes;
            O.HNSWLinks = HNSWLinks;
            O.TrainRows = TrainRows;
            O.Seed = Seed;
            O.Threads = Threads;
            MatrixArg B(Base, "base");
            llvm::Expected<ApproxIndex> I = [&] {
              py::gil_scoped_release NoGIL;
              return ApproxIndex::build(B.ref(), O);
            }();
            return take(std::move(I));
          },
          py::arg("base"), py::kw_only(), py::arg("kind") = "ivf-flat",
          py::arg("metric") = "cosine", py::arg("lists") = 0,
          py::arg("pqBytes") = 0, py::arg("hnswLinks") = 32,
          py::arg("trainRows") = 0, py::arg("seed") = 1, py::arg("threads") = 0)
      .def_static(
          "load",
          [](py::handle Path) {
            return take(ApproxIndex::load(toPath(Path, "path")));
          },
          py::arg("path"))
      .def(
          "write",
          [](const ApproxIndex &I, py::handle Path) {
            throwIf(I.write(toPath(Path, "path")));
          },
          py::arg("path"))
      .def(
          "check",
          [](const ApproxIndex &I, FloatMatrix Base, py::handle Index,
             py::handle Store) {
            throwIf(I.checkMatrix(MatrixArg(Base, "base").ref(),
                                  toPath(Index, "indexName"),
                                  toPath(Store, "storeName")));
          },
          py::arg("base"), py::arg("indexName"), py::arg("storeName"))
      .def(
          "search",
          [](const ApproxIndex &I, FloatMatrix Queries, FloatMatrix Base,
             unsigned K, unsigned NProbe, unsigned Ef, unsigned Rerank,
             std::vector<int64_t> Exclude, unsigned Threads) {
            MatrixArg QArg(Queries, "queries"), BArg(Base, "base");
            const MatrixRef &Q = QArg.ref(), &B = BArg.ref();
            if (Q.Rows && Q.Dim != I.info().Dimension)
              throwValueError("the queries have dimension " +
                              std::to_string(Q.Dim) + "; the index " +
                              std::to_string(I.info().Dimension));
            if (B.Rows != I.info().Rows || B.Dim != I.info().Dimension)
              throwValueError("base is not the matrix of the index");
            if (!Exclude.empty() && Exclude.size() != Q.Rows)
              throwValueError("exclude must have one entry per query");
            ApproxSearchOptions O;
            O.K = K;
            O.NProbe = NProbe;
            O.EfSearch = Ef;
            O.Rerank = Rerank;
            O.Threads = Threads;
            std::vector<std::vector<Neighbor>> R;
            {
              py::gil_scoped_release NoGIL;
              R = I.search(Q, B, O, Exclude);
            }
            py::list Out;
            for (const auto &Ns : R) {
              py::list L;
              for (const Neighbor &N : Ns)
                L.append(py::make_tuple(N.Row, N.Score));
              Out.append(L);
            }
            return Out;
          },
          py::arg("queries"), py::arg("base"), py::kw_only(), py::arg("k") = 10,
          py::arg("nprobe") = 0, py::arg("ef") = 0, py::arg("rerank") = 0,
          py::arg("exclude") = std::vector<int64_t>(), py::arg("threads") = 0)
      .def_property_readonly("info",
                             [](const ApproxIndex &I) {
                               const ApproxIndexInfo &N = I.info();
                               py::dict D;
                               D["kind"] = approxKindName(N.Kind).str();
                               D["metric"] = metricName(N.Metric).str();
                               D["dimension"] = N.Dimension;
                               D["rows"] = N.Rows;
                               D["indexed"] = N.Indexed;
                               D["store_checksum"] = N.StoreChecksum;
                               D["lists"] = N.Lists;
                               D["pq_bytes"] = N.PQBytes;
                               D["hnsw_links"] = N.HNSWLinks;
                               D["faiss"] = N.Faiss;
                               return D;
                             })
      .def_property_readonly("bytes", &ApproxIndex::bytes);
  M.def(
      "matrixChecksum",
      [](FloatMatrix A) {
        return matrixChecksum(MatrixArg(A, "matrix").ref());
      },
      py::arg("matrix"));
}
