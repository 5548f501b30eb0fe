//===- Output.h - Walking and writing MIR2Vec embeddings --------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The walk over a module's machine functions, in module order, and its
/// sinks: upstream `llvm-ir2vec --mode=mir`'s text (byte for byte) here,
/// JSON lines and store rows through ircommon::SiteSink, as for LLVM IR;
/// and the MIR triplets. A defined function without a
/// machine function is skipped, as upstream skips it (with a warning:
/// functionsWithoutMachineCode); a machine function without blocks has a
/// zero vector (LLVM 22 crashes on it; LLVM main gives zero).
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_MIR2VEC_OUTPUT_H
#define IRTK_MIR2VEC_OUTPUT_H

#include "irtk/ircommon/EmbeddingSink.h"
#include "irtk/mir2vec/Layout.h"
#include "irtk/mir2vec/Loader.h"
#include "irtk/mir2vec/Lowering.h"
#include "irtk/store/Store.h"
#include "irtk/support/Level.h"
#include "irtk/vocab/Triplets.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
class Function;
class MachineFunction;
class raw_ostream;
} // namespace llvm

namespace irtk::mir2vec {

using support::LevelKind;

/// The kind of MIR2Vec embeddings in JSON lines and store metadata.
inline constexpr const char *EmbeddingKindName = "mir2vec-symbolic";

using ircommon::EmbeddingRecord;
using ircommon::EmbeddingSink;
/// Levels, function name and whether instruction records carry
/// MachineInstr::print's text, as for LLVM IR.
using ircommon::WalkOptions;

/// Walks the defined functions of \p MM in module order, then, with
/// Opts.Module, hands out the module's record: the sum of the vectors of
/// the machine functions walked (ircommon::ModuleSum; a function without a
/// machine function adds nothing). Returns the number
/// of functions that matched Opts.FunctionName (or were walked). A module
/// lowered from IR is compiled by its walk, which it can have only once
/// (this one or writeEmbeddings, collectModuleRows, collectModuleTriplets);
/// then MM.Lowering->error() tells whether code generation failed, in which
/// case what the walk produced is to be discarded.
unsigned walkModule(const MachineModule &MM, const vocab::Vocabulary &V,
                    const TargetLayout &L, const WalkOptions &Opts,
                    EmbeddingSink &S);

/// The defined functions of \p MM that \p FunctionName selects (all when
/// empty) and that have no machine function, in module order (for a module
/// lowered from IR, those code generation skips: available_externally).
std::vector<const llvm::Function *>
functionsWithoutMachineCode(const MachineModule &MM,
                            llvm::StringRef FunctionName = "");

/// Level, format (upstream's text or JSON lines), function and module
/// name, as LLVM IR's writers take them.
using EmbeddingOutputOptions = ircommon::OutputOptions;

/// Writes the embeddings of \p MM as upstream's text or as JSON lines;
/// returns what walkModule returns.
unsigned writeEmbeddings(const MachineModule &MM, const vocab::Vocabulary &V,
                         const TargetLayout &L,
                         const EmbeddingOutputOptions &Opts,
                         llvm::raw_ostream &OS);

/// The same for one machine function, whatever FunctionName says; the
/// instruction text is numbered as in writeEmbeddings. A function's walk
/// has no module level.
void writeFunctionEmbeddings(const llvm::MachineFunction &MF,
                             const vocab::Vocabulary &V, const TargetLayout &L,
                             const EmbeddingOutputOptions &Opts,
                             llvm::raw_ostream &OS);

/// Appends the embeddings of \p MM to \p Out as store rows (float32).
unsigned collectModuleRows(const MachineModule &MM, const vocab::Vocabulary &V,
                           const TargetLayout &L,
                           const EmbeddingOutputOptions &Opts,
                           store::RowBatch &Out);

/// store.json for MIR2Vec rows: kind "mir2vec-symbolic", weights "opcode",
/// "common_operand" and "register", and the source: the target triple
/// \p Target, and how IR inputs were lowered (\p L).
store::StoreInfo makeStoreInfo(unsigned Dimension, LevelKind Level,
                               llvm::StringRef Vocabulary, const Weights &W,
                               llvm::StringRef Tool, llvm::StringRef Target,
                               const LoweringOptions &L);

/// What a MIR2Vec store says about how to embed more code as its rows were.
struct StoreSettings {
  LevelKind Level = LevelKind::Function;
  Weights W;
  /// The target triple.
  std::string Target;
  LoweringOptions Lowering;
};

/// Fails, naming \p Name, when \p Info does not describe MIR2Vec rows.
llvm::Expected<StoreSettings> readStoreSettings(const store::StoreInfo &Info,
                                                llvm::StringRef Name);

/// Relation ids of MIR triplets: 0 is Next, 1 + i is operand i.
enum RelationKind : unsigned { NextRelation = 0, ArgBase = 1 };

struct TripletSummary {
  /// Largest relation id, at least 0 (Next).
  unsigned MaxRelation = NextRelation;
  unsigned Functions = 0;
};

/// Appends the triplets of \p MM, as upstream's: per non-debug instruction,
/// (previous opcode, opcode, Next) within a function, then (opcode,
/// operand, Arg i) per operand.
TripletSummary collectModuleTriplets(const MachineModule &MM,
                                     const TargetLayout &L,
                                     std::vector<vocab::Triplet> &Out,
                                     llvm::StringRef FunctionName = "");

/// OpenKE's relation2id for MIR: "Next\t0", then "Arg<i>\t<1+i>".
void writeRelations(unsigned MaxRelation, llvm::raw_ostream &OS);

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_OUTPUT_H
