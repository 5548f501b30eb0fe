//===- Npy.h - float32 matrices in NumPy's .npy format ----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reading and writing the one kind of .npy file a store holds: a C-order,
/// little-endian float32 matrix of shape (rows, cols). The writer emits a
/// standard NPY 1.0 header, so numpy.load reads the file; the reader accepts
/// NPY 1.0, 2.0 and 3.0 headers and maps the data instead of copying it.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_STORE_NPY_H
#define IRTK_STORE_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
class raw_fd_ostream;
} // namespace llvm

namespace irtk::store {

/// Size of the headers this library writes: magic, version, length and the
/// dictionary padded with spaces, 128 bytes in all (a multiple of 64, as
/// NumPy aligns them). Room for any 64-bit shape, so a header written before
/// the row count is known can be rewritten in place.
inline constexpr size_t NpyHeaderSize = 128;

/// The NPY 1.0 header of a C-order float32 matrix of \p Rows x \p Cols,
/// NpyHeaderSize bytes long.
std::string makeNpyHeader(uint64_t Rows, uint64_t Cols);

/// What a header says about the data that follows it.
struct NpyShape {
  uint64_t Rows = 0;
  uint64_t Cols = 0;
  /// Where the data starts in the file.
  size_t DataOffset = 0;
};

/// Parses the header at the start of \p File (the whole file's contents).
/// Fails, naming \p Name, unless it describes a C-order little-endian float32
/// matrix (2-D; a 1-D shape (n,) is not accepted) whose data is exactly the
/// rest of the file.
llvm::Expected<NpyShape> parseNpyHeader(llvm::StringRef File,
                                        llvm::StringRef Name);

/// Writes a float32 matrix row by row without knowing the row count in
/// advance: a header for zero rows first, the real one over it on finish().
class NpyWriter {
public:
  /// Creates (truncates) \p Path for a matrix of \p Cols columns.
  static llvm::Expected<std::unique_ptr<NpyWriter>> create(llvm::StringRef Path,
                                                           unsigned Cols);
  ~NpyWriter();

  /// Appends rows; \p Values.size() must be a multiple of cols().
  void append(llvm::ArrayRef<float> Values);
  /// Writes the final header and closes the file; fails on any write error.
  llvm::Error finish();

  uint64_t rows() const { return Rows; }
  unsigned cols() const { return Cols; }

private:
  NpyWriter(std::string Path, unsigned Cols,
            std::unique_ptr<llvm::raw_fd_ostream> OS);
  std::string Path;
  unsigned Cols;
  uint64_t Rows = 0;
  std::unique_ptr<llvm::raw_fd_ostream> OS;
};

/// Writes a whole matrix to \p Path through a temporary file and a rename.
llvm::Error writeNpyFile(llvm::StringRef Path, llvm::ArrayRef<float> Values,
                         unsigned Cols);

/// A read-only float32 matrix backed by a .npy file, memory-mapped when the
/// system allows.
class NpyMatrix {
public:
  /// Opens and checks \p Path; errors name it and the problem (missing file,
  /// bad magic, unsupported dtype or order, size that does not match the
  /// shape).
  static llvm::Expected<NpyMatrix> open(llvm::StringRef Path);
  /// The rows of \p Parts one after another, as one matrix of \p Cols
  /// columns (every part must have that many): a single part is moved, not
  /// copied; several are copied into memory the result owns.
  static NpyMatrix concatenate(std::vector<NpyMatrix> Parts, unsigned Cols);

  NpyMatrix(NpyMatrix &&);
  NpyMatrix &operator=(NpyMatrix &&);
  ~NpyMatrix();

  uint64_t rows() const { return Rows; }
  unsigned cols() const { return Cols; }
  /// rows() * cols() values, row after row.
  const float *data() const { return Data; }
  llvm::ArrayRef<float> row(uint64_t R) const {
    return llvm::ArrayRef<float>(Data + R * Cols, Cols);
  }

private:
  NpyMatrix() = default;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  /// Owned copy when the mapped data is not 4-byte aligned.
  std::unique_ptr<float[]> Copy;
  const float *Data = nullptr;
  uint64_t Rows = 0;
  unsigned Cols = 0;
};

} // namespace irtk::store

#endif // IRTK_STORE_NPY_H
