//===- Weights.h - Section weights as the loaders apply them ----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_LIB_WEIGHTS_H
#define IRTK_VOCAB_LIB_WEIGHTS_H

#include "irtk/vocab/Layout.h"

#include <cassert>

namespace irtk::vocab {

/// The weights of \p L's sections: \p W, or all 1 when \p W is empty. The
/// JSON and the binary loaders both take theirs from here.
inline SectionWeights completeWeights(const Layout &L,
                                      const SectionWeights &W) {
  assert((W.empty() || W.size() == L.numSections()) &&
         "one weight per section");
  return W.empty() ? SectionWeights(L.numSections(), 1.0f) : W;
}

} // namespace irtk::vocab

#endif // IRTK_VOCAB_LIB_WEIGHTS_H
