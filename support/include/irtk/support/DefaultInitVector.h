//===- DefaultInitVector.h - Vectors that resize without zero-filling -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// DefaultInitVector<T>: a std::vector whose resize() default-initialises
/// new elements (for numbers: leaves them unset) instead of zeroing them,
/// for loaders that overwrite every element they resize for (a vocabulary's
/// binary form, the MIR layout's tables: one pass over the bytes instead of
/// a zero-fill and a copy). Everything else is std::vector's.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_DEFAULTINITVECTOR_H
#define IRTK_SUPPORT_DEFAULTINITVECTOR_H

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace irtk::support {

/// std::allocator, except that constructing with no value default-
/// initialises.
template <typename T> struct DefaultInitAllocator : std::allocator<T> {
  template <typename U> struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U> &) noexcept {}

  template <typename U> void construct(U *P) {
    ::new (static_cast<void *>(P)) U;
  }
  template <typename U, typename... Args> void construct(U *P, Args &&...A) {
    ::new (static_cast<void *>(P)) U(std::forward<Args>(A)...);
  }
};

template <typename T>
using DefaultInitVector = std::vector<T, DefaultInitAllocator<T>>;

} // namespace irtk::support

#endif // IRTK_SUPPORT_DEFAULTINITVECTOR_H
