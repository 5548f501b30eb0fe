//===- EvictionAdvisor.cpp - irtk's register-eviction advisor -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The features follow LLVM 22's MLRegAllocEvictAdvisor.cpp, computed here
// from the advisor's protected members and LLVM's exported helpers; the
// three that need the allocator's private state (a live range's stage and
// cascade, the allocator's queue) are replaced by differently named
// substitutes. docs/AdvisorFeatures.md describes each one.
//
//===----------------------------------------------------------------------===//

#include "irtk/advisors/EvictionAdvisor.h"
#include "AllocationOrderMirror.h"
#include "irtk/advisors/MLP.h"
#include "irtk/ircommon/Diagnostics.h"
#include "irtk/mir2vec/Embedder.h"
#include "irtk/mir2vec/InsertedPass.h"
#include "irtk/mir2vec/Loader.h"
#include "irtk/support/ReadFile.h"
#include "irtk/vocab/VocabularyPath.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/CodeGen/CalcSpillWeights.h"
#include "llvm/CodeGen/LiveInterval.h"
#include "llvm/CodeGen/LiveIntervalUnion.h"
#include "llvm/CodeGen/LiveIntervals.h"
#include "llvm/CodeGen/LiveRegMatrix.h"
#include "llvm/CodeGen/MachineBlockFrequencyInfo.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/Passes.h"
#include "llvm/CodeGen/RegAllocEvictionAdvisor.h"
#include "llvm/CodeGen/RegisterClassInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/CodeGen/VirtRegMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/TargetMachine.h"

#include <cstring>
#include <iterator>
#include <memory>

using namespace llvm;

namespace llvm {
// The greedy allocator's -regalloc-eviction-max-interference-cutoff.
extern cl::opt<unsigned> EvictInterferenceCutoff;

// LLVM's RegAllocScore (lib/CodeGen/RegAllocScore.h, not installed):
// calculateRegAllocScore returns it by value, so this has its members, in
// its order; getScore() weighs them by the -regalloc-*-weight options.
class RegAllocScore final {
  double CopyCounts = 0.0;
  double LoadCounts = 0.0;
  double StoreCounts = 0.0;
  double CheapRematCounts = 0.0;
  double LoadStoreCounts = 0.0;
  double ExpensiveRematCounts = 0.0;

public:
  double getScore() const;
};
RegAllocScore calculateRegAllocScore(const MachineFunction &MF,
                                     const MachineBlockFrequencyInfo &MBFI);
} // namespace llvm

namespace irtk::advisors {

namespace {

// Buffer order of the features (evictionFeatures): the feature table's.
enum Feature : size_t {
#define IRTK_EVICT_FEATURE(Id, Name, Type, Shape, Normalised, Doc) Id,
#include "irtk/advisors/EvictionFeatures.def"
};

// The per-position features scaled by their largest value in a decision,
// as LLVM scales them (the others are flags, counts of private state, or
// not per position).
bool isNormalized(size_t F) {
  static constexpr bool Normalised[] = {
#define IRTK_EVICT_FEATURE(Id, Name, Type, Shape, Normalised, Doc) Normalised,
#include "irtk/advisors/EvictionFeatures.def"
  };
  return F < std::size(Normalised) && Normalised[F];
}

constexpr int64_t NoEvictionPos = EvictionCandidates;

} // namespace

std::vector<TensorSpec> evictionFeatures(unsigned EmbeddingDim) {
  const std::vector<int64_t> PerPosition{
      1, static_cast<int64_t>(EvictionPositions)};
  const std::vector<int64_t> Scalar{1};
  const std::vector<int64_t> PerPositionEmbedding{
      static_cast<int64_t>(EvictionPositions),
      static_cast<int64_t>(EmbeddingDim)};
  std::vector<TensorSpec> F;
#define IRTK_EVICT_FEATURE(Id, Name, Type, Shape, Normalised, Doc)             \
  if (&Shape != &PerPositionEmbedding || EmbeddingDim)                         \
    F.push_back(TensorSpec::createSpec<Type>(Name, Shape));
#include "irtk/advisors/EvictionFeatures.def"
  return F;
}

namespace {

/// What one pipeline's advisor keeps across functions.
struct Session {
  explicit Session(EvictionAdvisorOptions O) : Options(std::move(O)) {}

  EvictionAdvisorOptions Options;
  /// LLVM's own eviction advisor analysis, which answers for stock.
  std::unique_ptr<RegAllocEvictionAdvisorAnalysisLegacy> Stock;
  /// Made at the first function the allocator asks about.
  std::unique_ptr<PolicyRunner> Runner;
  std::shared_ptr<const mir2vec::TargetLayout> Layout;
  std::optional<vocab::Vocabulary> Vocabulary;
  /// The vocabulary to load at the first decision that reads an embedding
  /// (its dimension, which the features' shapes need, is read from its
  /// binary form's header); empty once loaded, or when nothing reads it.
  std::string PendingVocabulary;
  unsigned Dim = 0;
  bool SetUp = false;
  /// Why the advisor stays stock; reported once.
  std::string Error;
  bool Reported = false;
  /// The function the runner's context names, and whether it has
  /// decisions waiting for their reward.
  const Function *Context = nullptr;
  bool Decided = false;
  /// Decisions taken in the current function.
  unsigned InFunction = 0;

  /// Whether our advisor decides; the default policy without a log is
  /// LLVM's advisor itself.
  bool active() const {
    return Options.Policy.Kind != PolicyKind::Default ||
           !Options.Policy.LogPath.empty();
  }

  void fail(LLVMContext &Ctx, std::string Message) {
    if (Error.empty())
      Error = std::move(Message);
    if (!Reported) {
      Reported = true;
      ircommon::reportError(Ctx, "irtk: " + Error);
    }
  }

  bool setUp(const MachineFunction &MF);
  /// Loads the pending vocabulary; false (reported) when that fails.
  bool loadVocabulary(const MachineFunction &MF);
  /// Whether the MIR2Vec features have (or will have) a vocabulary.
  bool hasVocabulary() const {
    return Vocabulary || !PendingVocabulary.empty();
  }
};

bool Session::loadVocabulary(const MachineFunction &MF) {
  if (Vocabulary)
    return true;
  if (!Error.empty())
    return false;
  const TargetSubtargetInfo &STI = MF.getSubtarget();
  // The bundled vocabulary's binary form has the layout's tables: the
  // process builds no layout.
  Expected<mir2vec::TargetVocabulary> V = mir2vec::loadTargetVocabulary(
      PendingVocabulary, *STI.getInstrInfo(), *STI.getRegisterInfo(),
      mir2vec::layoutDescription(MF.getTarget()), Options.VocabularyWeights);
  if (V && Dim && V->Vocabulary.dimension() != Dim)
    V = createStringError(inconvertibleErrorCode(),
                          "%s changed while llc ran (dimension %u, was %u)",
                          PendingVocabulary.c_str(), V->Vocabulary.dimension(),
                          Dim);
  if (!V) {
    fail(MF.getFunction().getContext(), toString(V.takeError()));
    return false;
  }
  Layout = std::move(V->Layout);
  Vocabulary.emplace(std::move(V->Vocabulary));
  Dim = Vocabulary->dimension();
  PendingVocabulary.clear();
  return true;
}

bool Session::setUp(const MachineFunction &MF) {
  if (SetUp || !Error.empty())
    return Error.empty();
  SetUp = true;
  LLVMContext &Ctx = MF.getFunction().getContext();
  const EvictionAdvisorOptions &O = Options;
  // A model that reads no MIR2Vec feature, with no log, needs no target
  // layout and no vocabulary: building them would cost more than the
  // allocation decisions.
  Expected<PreparedPolicy> Policy = PreparedPolicy::read(O.Policy);
  if (!Policy) {
    fail(Ctx, toString(Policy.takeError()));
    return false;
  }
  bool Embeddings = O.Embeddings && Policy->readsAny([](StringRef F) {
    return findAdvisor("evict")->isEmbedding(F);
  });
  // A vocabulary the user named must exist even when nothing reads it.
  if (!Embeddings && !O.VocabularyPath.empty())
    if (llvm::Error E =
            support::checkReadable(O.VocabularyPath, "vocabulary")) {
      fail(Ctx, toString(std::move(E)));
      return false;
    }
  if (Embeddings) {
    Expected<std::string> Path = vocab::resolveVocabularyPath(
        O.VocabularyPath,
        mir2vec::defaultVocabularyPath(O.BinaryPath, MF.getTarget()),
        [&](StringRef Default) -> std::string {
          if (Default.empty())
            return "the eviction advisor's MIR2Vec features need a "
                   "vocabulary for " +
                   MF.getTarget().getTargetTriple().str() +
                   ": set -irtk-mir-vocab-path (irtk bundles one for "
                   "x86-64 only) or -irtk-evict-embeddings=false";
          return "the eviction advisor's MIR2Vec features need the "
                 "bundled vocabulary " +
                 Default.str() +
                 ", which is missing (the plugin was moved from its "
                 "installation?): set -irtk-mir-vocab-path or "
                 "-irtk-evict-embeddings=false";
        });
    if (!Path) {
      fail(Ctx, toString(Path.takeError()));
      return false;
    }
    PendingVocabulary = std::move(*Path);
    // With a binary form, its header gives the dimension and the vectors
    // wait for the first decision that reads them (a module without one
    // loads nothing); a JSON is read now, as its dimension needs it.
    if (std::optional<unsigned> D =
            vocab::Vocabulary::binaryDimension(PendingVocabulary))
      Dim = *D;
    else if (!loadVocabulary(MF))
      return false;
  }
  const AdvisorInfo &Info = *findAdvisor("evict");
  PolicySpec Spec{Info.Name.str(), evictionFeatures(Dim),
                  TensorSpec::createSpec<int64_t>(Info.Decision.str(), {1}),
                  EvictDefault, TensorSpec::createSpec<float>("reward", {1})};
  Expected<std::unique_ptr<PolicyRunner>> R =
      PolicyRunner::create(Ctx, std::move(Spec), std::move(*Policy));
  if (!R) {
    fail(Ctx, toString(R.takeError()));
    return false;
  }
  Runner = std::move(*R);
  return true;
}

/// The components of one live interval's features, as LLVM sums them.
struct IntervalComponents {
  double R = 0, W = 0, RW = 0, IndVarUpdates = 0, HintWeights = 0;
  int64_t NumDefsAndUses = 0;
  float HottestBlockFreq = 0;
  bool IsRemat = false;
  /// The MIR2Vec sums, plain and weighted by block frequency.
  std::vector<float> Embedding, EmbeddingByFreq;
};

class Advisor final : public RegAllocEvictionAdvisor {
public:
  Advisor(const MachineFunction &MF, const RAGreedy &RA,
          std::unique_ptr<RegAllocEvictionAdvisor> StockAdvisor, Session &S,
          const MachineBlockFrequencyInfo &MBFI, const MachineLoopInfo &Loops)
      : RegAllocEvictionAdvisor(MF, RA), StockAdvisor(std::move(StockAdvisor)),
        S(S), MBFI(MBFI), Loops(Loops) {
    // The MIR2Vec sums only when the policy or the log reads them.
    WantsEmbedder =
        S.hasVocabulary() && (S.Runner->readsInput(Mir2VecDefsAndUses) ||
                              S.Runner->readsInput(Mir2VecDefsAndUsesByFreq));
    for (unsigned I = 0, E = MRI->getNumVirtRegs(); I != E; ++I)
      if (!MRI->reg_nodbg_empty(Register::index2VirtReg(I)))
        ++InitialQueueSize;
    InitialVirtRegs = MRI->getNumVirtRegs();
  }

  MCRegister tryFindEvictionCandidate(
      const LiveInterval &VirtReg, const AllocationOrder &Order,
      uint8_t CostPerUseLimit,
      const SmallVirtRegSet &FixedRegisters) const override;

  bool canEvictHintInterference(
      const LiveInterval &VirtReg, MCRegister PhysReg,
      const SmallVirtRegSet &FixedRegisters) const override {
    return StockAdvisor->canEvictHintInterference(VirtReg, PhysReg,
                                                  FixedRegisters);
  }

private:
  /// The intervals to evict to free \p PhysReg, as LLVM's ML advisor
  /// collects them; false when it could not consider \p PhysReg for the
  /// reasons that need no private state (a fixed or physical interference,
  /// too many interferences).
  bool collectInterference(const LiveInterval &VirtReg, MCRegister PhysReg,
                           const SmallVirtRegSet &FixedRegisters,
                           SmallVectorImpl<const LiveInterval *> &Intervals,
                           int64_t &LocalIntfs, float &NumUrgent) const;
  /// Whether LLVM's heuristic would evict for \p PhysReg were it the only
  /// register of the order.
  bool stockAccepts(const LiveInterval &VirtReg,
                    const AllocationOrderMirror &Real, MCRegister PhysReg,
                    uint8_t CostPerUseLimit,
                    const SmallVirtRegSet &FixedRegisters) const;
  const IntervalComponents &components(const LiveInterval &LI) const;
  void extractFeatures(ArrayRef<const LiveInterval *> Intervals, size_t Pos,
                       int64_t IsHintValue, int64_t LocalIntfs,
                       float NumUrgent) const;
  float assignedFraction() const;
  /// Adds \p C's MIR2Vec sums to the embedding features at \p Pos.
  void addEmbedding(const IntervalComponents &C, size_t Pos) const;

  template <typename T> T *tensor(size_t F) const {
    return S.Runner->getTensor<T>(F);
  }

  std::unique_ptr<RegAllocEvictionAdvisor> StockAdvisor;
  Session &S;
  const MachineBlockFrequencyInfo &MBFI;
  const MachineLoopInfo &Loops;
  /// Made at the first decision (which loads the vocabulary if need be).
  mutable std::optional<mir2vec::Embedder> Embedder;
  bool WantsEmbedder = false;
  unsigned InitialQueueSize = 0;
  unsigned InitialVirtRegs = 0;
  mutable DenseMap<unsigned, IntervalComponents> Cache;
  /// Per decision: the largest value of each normalized feature.
  mutable std::vector<float> Largest;
  mutable std::vector<double> InstScratch;
};

bool Advisor::collectInterference(
    const LiveInterval &VirtReg, MCRegister PhysReg,
    const SmallVirtRegSet &FixedRegisters,
    SmallVectorImpl<const LiveInterval *> &Intervals, int64_t &LocalIntfs,
    float &NumUrgent) const {
  if (Matrix->checkInterference(VirtReg, PhysReg) > LiveRegMatrix::IK_VirtReg)
    return false;
  const bool IsLocal = LIS->intervalIsInOneMBB(VirtReg);
  const unsigned Cutoff = EvictInterferenceCutoff;
  for (MCRegUnit Unit : TRI->regunits(PhysReg)) {
    LiveIntervalUnion::Query &Q = Matrix->query(VirtReg, Unit);
    const auto &Intfs = Q.interferingVRegs(Cutoff);
    if (Intfs.empty() && Intervals.empty())
      continue;
    if (Intfs.size() >= Cutoff)
      return false;
    Intervals.append(Intfs.begin(), Intfs.end());
    for (const LiveInterval *Intf : reverse(Intfs)) {
      if (FixedRegisters.count(Intf->reg()))
        return false;
      // LLVM counts the urgent ones that may break a cascade; the cascade
      // is private, so this counts every interference the rule calls
      // urgent.
      bool Urgent =
          !VirtReg.isSpillable() &&
          (Intf->isSpillable() ||
           RegClassInfo.getNumAllocatableRegs(MRI->getRegClass(VirtReg.reg())) <
               RegClassInfo.getNumAllocatableRegs(
                   MRI->getRegClass(Intf->reg())));
      NumUrgent += Urgent;
      LocalIntfs += (IsLocal && LIS->intervalIsInOneMBB(*Intf) &&
                     (!EnableLocalReassign || !canReassign(*Intf, PhysReg)));
    }
  }
  return true;
}

bool Advisor::stockAccepts(const LiveInterval &VirtReg,
                           const AllocationOrderMirror &Real,
                           MCRegister PhysReg, uint8_t CostPerUseLimit,
                           const SmallVirtRegSet &FixedRegisters) const {
  // PhysReg as the only (hint) register of an order over the same class
  // order, so that LLVM's order limit is the same.
  AllocationOrderMirror Single{
      {static_cast<MCPhysReg>(PhysReg.id())}, Real.Order, 0};
  return StockAdvisor->tryFindEvictionCandidate(VirtReg, Single.asOrder(),
                                                CostPerUseLimit,
                                                FixedRegisters) == PhysReg;
}

const IntervalComponents &Advisor::components(const LiveInterval &LI) const {
  auto [It, Inserted] = Cache.try_emplace(LI.reg().id());
  IntervalComponents &C = It->second;
  if (!Inserted)
    return C;
  if (Embedder) {
    C.Embedding.assign(S.Dim, 0);
    C.EmbeddingByFreq.assign(S.Dim, 0);
    InstScratch.resize(S.Dim);
  }
  SmallPtrSet<const MachineInstr *, 8> Visited;
  for (auto I = MRI->reg_instr_nodbg_begin(LI.reg()),
            E = MRI->reg_instr_nodbg_end();
       I != E;) {
    const MachineInstr *MI = &*(I++);
    ++C.NumDefsAndUses;
    if (!Visited.insert(MI).second)
      continue;
    if (MI->isIdentityCopy() || MI->isImplicitDef())
      continue;
    auto [Reads, Writes] = MI->readsWritesVirtualRegister(LI.reg());
    const MachineBasicBlock *MBB = MI->getParent();
    float Freq = MBFI.getBlockFreqRelativeToEntryBlock(MBB);
    C.HottestBlockFreq = std::max(Freq, C.HottestBlockFreq);
    C.R += (Reads && !Writes) * Freq;
    C.W += (!Reads && Writes) * Freq;
    C.RW += (Reads && Writes) * Freq;
    const MachineLoop *L = Loops.getLoopFor(MBB);
    if (Writes && L && L->isLoopExiting(MBB) && LIS->isLiveOutOfMBB(LI, MBB))
      C.IndVarUpdates += Freq;
    if (MI->isCopy() && VirtRegAuxInfo::copyHint(MI, LI.reg(), *TRI, *MRI))
      C.HintWeights += Freq;
    if (Embedder) {
      Embedder->computeInstVector(*MI, InstScratch.data());
      for (unsigned D = 0; D < S.Dim; ++D) {
        C.Embedding[D] += static_cast<float>(InstScratch[D]);
        C.EmbeddingByFreq[D] += static_cast<float>(InstScratch[D] * Freq);
      }
    }
  }
  C.IsRemat = VirtRegAuxInfo::isRematerializable(
      LI, *LIS, *VRM, *MRI, *MF.getSubtarget().getInstrInfo());
  return C;
}

void Advisor::extractFeatures(ArrayRef<const LiveInterval *> Intervals,
                              size_t Pos, int64_t IsHintValue,
                              int64_t LocalIntfs, float NumUrgent) const {
  int64_t NumDefsAndUses = 0, NumBrokenHints = 0, NumSplit = 0,
          NumUnspillable = 0;
  double R = 0, W = 0, RW = 0, IndVarUpdates = 0, HintWeight = 0;
  float StartFreq = 0, EndFreq = 0, HottestBlockFreq = 0, TotalWeight = 0;
  int32_t NumRemat = 0;
  SlotIndexes &Indexes = *LIS->getSlotIndexes();
  SlotIndex EndSI = Indexes.getZeroIndex();
  SlotIndex StartSI = Indexes.getLastIndex();
  SmallPtrSet<const LiveInterval *, 8> Embedded;
  for (const LiveInterval *LI : Intervals) {
    TotalWeight = std::max(TotalWeight, LI->weight());
    if (LI->beginIndex() < StartSI)
      StartSI = LI->beginIndex();
    if (LI->endIndex() > EndSI)
      EndSI = LI->endIndex();
    const IntervalComponents &C = components(*LI);
    NumBrokenHints += VRM->hasPreferredPhys(LI->reg());
    NumDefsAndUses += C.NumDefsAndUses;
    HottestBlockFreq = std::max(HottestBlockFreq, C.HottestBlockFreq);
    R += C.R;
    W += C.W;
    RW += C.RW;
    IndVarUpdates += C.IndVarUpdates;
    HintWeight += C.HintWeights;
    NumRemat += C.IsRemat;
    NumSplit += VRM->getOriginal(LI->reg()) != LI->reg();
    NumUnspillable += !LI->isSpillable();
    // An interval that interferes on several units counts once here.
    if (Embedder && Embedded.insert(LI).second)
      addEmbedding(C, Pos);
  }
  size_t Size = 0;
  if (!Intervals.empty()) {
    StartFreq =
        MBFI.getBlockFreqRelativeToEntryBlock(LIS->getMBBFromIndex(StartSI));
    if (EndSI >= Indexes.getLastIndex())
      EndSI = Indexes.getLastIndex().getPrevIndex();
    EndFreq =
        MBFI.getBlockFreqRelativeToEntryBlock(LIS->getMBBFromIndex(EndSI));
    Size = StartSI.distance(EndSI);
  }
  auto Set = [&](size_t F, auto Value) {
    using T = decltype(Value);
    tensor<T>(F)[Pos] = Value;
    if (isNormalized(F))
      Largest[F] = std::max(Largest[F], static_cast<float>(Value));
  };
  Set(IsFree, static_cast<int64_t>(Intervals.empty()));
  Set(NrUrgentByClass, NumUrgent);
  Set(NrBrokenHints, static_cast<float>(NumBrokenHints));
  Set(IsHint, IsHintValue);
  Set(IsLocal, LocalIntfs);
  Set(NrRematerializable, static_cast<float>(NumRemat));
  Set(NrDefsAndUses, static_cast<float>(NumDefsAndUses));
  Set(WeighedReads, static_cast<float>(R));
  Set(WeighedWrites, static_cast<float>(W));
  Set(WeighedReadWrites, static_cast<float>(RW));
  Set(WeighedIndvars, static_cast<float>(IndVarUpdates));
  Set(HintWeights, static_cast<float>(HintWeight));
  Set(StartBBFreq, StartFreq);
  Set(EndBBFreq, EndFreq);
  Set(HottestBBFreq, HottestBlockFreq);
  Set(LiveRangeSize, static_cast<float>(Size));
  Set(UseDefDensity, TotalWeight);
  Set(NrSplitProducts, NumSplit);
  Set(NrUnspillable, NumUnspillable);
}

void Advisor::addEmbedding(const IntervalComponents &C, size_t Pos) const {
  float *Emb = tensor<float>(Mir2VecDefsAndUses) + Pos * S.Dim;
  float *EmbByFreq = tensor<float>(Mir2VecDefsAndUsesByFreq) + Pos * S.Dim;
  for (unsigned D = 0; D < S.Dim; ++D) {
    Emb[D] += C.Embedding[D];
    EmbByFreq[D] += C.EmbeddingByFreq[D];
  }
}

float Advisor::assignedFraction() const {
  unsigned Assigned = 0;
  for (unsigned I = 0; I != InitialVirtRegs; ++I)
    Assigned += VRM->hasPhys(Register::index2VirtReg(I));
  return InitialQueueSize ? static_cast<float>(Assigned) / InitialQueueSize
                          : 0.0f;
}

MCRegister Advisor::tryFindEvictionCandidate(
    const LiveInterval &VirtReg, const AllocationOrder &Order,
    uint8_t CostPerUseLimit, const SmallVirtRegSet &FixedRegisters) const {
  MCRegister StockReg = StockAdvisor->tryFindEvictionCandidate(
      VirtReg, Order, CostPerUseLimit, FixedRegisters);
  if (!S.Error.empty())
    return StockReg;
  const AllocationOrderMirror &Real = AllocationOrderMirror::of(Order);
  if (!Real.isConsistent(
          RegClassInfo.getOrder(MRI->getRegClass(VirtReg.reg())))) {
    S.fail(MF.getFunction().getContext(),
           "this LLVM's AllocationOrder is not laid out as LLVM 22.1's, "
           "which irtk was built for; the eviction advisor stays stock");
    return StockReg;
  }
  std::optional<unsigned> Limit =
      getOrderLimit(VirtReg, Order, CostPerUseLimit);
  if (!Limit)
    return StockReg;
  if (WantsEmbedder && !Embedder) {
    if (!S.loadVocabulary(MF))
      return StockReg;
    Embedder.emplace(MF, *S.Vocabulary, *S.Layout);
  }

  PolicyRunner &Runner = *S.Runner;
  for (size_t F = 0; F < Runner.spec().Inputs.size(); ++F)
    std::memset(Runner.getTensorUntyped(F), 0,
                Runner.spec().Inputs[F].getTotalTensorBufferSize());
  Largest.assign(Runner.spec().Inputs.size(), 0.0f);

  SmallVector<MCRegister, EvictionCandidates> Regs;
  SmallVector<const LiveInterval *, 8> Intervals;
  int64_t *Mask = tensor<int64_t>(Evictable);
  size_t Choices = 0;
  Real.forEach(*Limit, [&](MCRegister PhysReg, bool Hint) {
    if (Regs.size() == EvictionCandidates)
      return;
    size_t Pos = Regs.size();
    Regs.push_back(PhysReg);
    if (!canAllocatePhysReg(CostPerUseLimit, PhysReg))
      return;
    Intervals.clear();
    int64_t LocalIntfs = 0;
    float NumUrgent = 0;
    if (!collectInterference(VirtReg, PhysReg, FixedRegisters, Intervals,
                             LocalIntfs, NumUrgent))
      return;
    extractFeatures(Intervals, Pos, Hint, LocalIntfs, NumUrgent);
    if (stockAccepts(VirtReg, Real, PhysReg, CostPerUseLimit, FixedRegisters)) {
      Mask[Pos] = 1;
      ++Choices;
    }
  });
  // Only candidates the stock heuristic accepts can be chosen: with none,
  // there is nothing to decide.
  if (Choices == 0)
    return StockReg;
  int64_t DefaultPos = NoEvictionPos;
  if (StockReg) {
    auto It = find(Regs, StockReg);
    if (It == Regs.end())
      return StockReg; // Past the 32 positions: not representable.
    DefaultPos = It - Regs.begin();
  }
  const bool MustFindEviction =
      !VirtReg.isSpillable() && CostPerUseLimit == static_cast<uint8_t>(~0u);
  Mask[NoEvictionPos] = !MustFindEviction;
  const LiveInterval *Self = &VirtReg;
  if (!MustFindEviction)
    extractFeatures(ArrayRef(&Self, 1), NoEvictionPos, 0, 0, 0);
  else if (Embedder)
    addEmbedding(components(VirtReg), NoEvictionPos); // Always filled.
  for (size_t F = 0; F < Largest.size(); ++F) {
    if (!isNormalized(F) || Largest[F] == 0)
      continue;
    float *T = tensor<float>(F);
    for (size_t P = 0; P < EvictionPositions; ++P)
      T[P] /= Largest[F];
  }
  if (Runner.readsInput(AssignedFraction))
    *tensor<float>(AssignedFraction) = assignedFraction();
  *tensor<int64_t>(EvictDefault) = DefaultPos;
  tensor<int64_t>(IsDefault)[DefaultPos] = 1;

  if (S.Options.DeviateAt && *S.Options.DeviateAt == S.InFunction &&
      Runner.kind() == PolicyKind::Default) {
    int64_t To = S.Options.DeviateTo < 0 ? NoEvictionPos : -1;
    for (int64_t P = 0, Rank = 0; To < 0 && P < NoEvictionPos; ++P)
      if (Mask[P] && P != DefaultPos && Rank++ == S.Options.DeviateTo)
        To = P;
    if (To >= 0 && Mask[To])
      Runner.overrideNextDefault(To);
  }
  int64_t Pos = Runner.evaluate<int64_t>();
  S.Decided = true;
  ++S.InFunction;
  // An answer outside the allowed positions is not carried out (and
  // counted: the runner reports how many).
  if (Pos < 0 || Pos > NoEvictionPos || !Mask[Pos]) {
    Runner.noteOverruled();
    return StockReg;
  }
  if (Pos == NoEvictionPos)
    return MCRegister::NoRegister;
  return Regs[Pos];
}

/// Hands the allocator our advisor, or LLVM's own where ours would only
/// repeat it.
class AdvisorProvider final : public RegAllocEvictionAdvisorProvider {
public:
  AdvisorProvider(Session &S, LLVMContext &Ctx)
      : RegAllocEvictionAdvisorProvider(AdvisorMode::Default, Ctx), S(S) {}

  std::unique_ptr<RegAllocEvictionAdvisor>
  getAdvisor(const MachineFunction &MF, const RAGreedy &RA,
             MachineBlockFrequencyInfo *MBFI, MachineLoopInfo *Loops) override {
    std::unique_ptr<RegAllocEvictionAdvisor> Stock =
        S.Stock->getProvider().getAdvisor(MF, RA, MBFI, Loops);
    if (!S.active() || !MBFI || !Loops || !S.setUp(MF))
      return Stock;
    // X86 allocates tile registers in a run of its own: both runs' decisions
    // go to one context, the function's.
    if (S.Context != &MF.getFunction()) {
      S.Context = &MF.getFunction();
      S.Decided = false;
      S.InFunction = 0;
      S.Runner->switchContext(MF.getName());
    }
    return std::make_unique<Advisor>(MF, RA, std::move(Stock), S, *MBFI,
                                     *Loops);
  }

private:
  Session &S;
};

/// The allocator's RegAllocEvictionAdvisorAnalysisLegacy: added to the
/// pipeline before the allocator, it is found under that analysis's ID in
/// place of LLVM's.
class EvictionAdvisorPass final : public RegAllocEvictionAdvisorAnalysisLegacy {
public:
  explicit EvictionAdvisorPass(std::shared_ptr<Session> Shared)
      : RegAllocEvictionAdvisorAnalysisLegacy(AdvisorMode::Default),
        Shared(std::move(Shared)), S(*this->Shared) {}

  StringRef getPassName() const override {
    return "irtk Register Eviction Advisor";
  }

  bool doInitialization(Module &M) override {
    // LLVM's advisor as -regalloc-enable-advisor chooses it (the default
    // one, unless asked otherwise: then ours stays out of the way).
    S.Stock.reset(static_cast<RegAllocEvictionAdvisorAnalysisLegacy *>(
        callDefaultCtor<RegAllocEvictionAdvisorAnalysisLegacy>()));
    auto Mode = cl::getRegisteredOptions().find("regalloc-enable-advisor");
    if (S.Stock->getAdvisorMode() != AdvisorMode::Default ||
        (Mode != cl::getRegisteredOptions().end() &&
         Mode->second->getNumOccurrences()))
      S.fail(M.getContext(), "-irtk-evict-policy replaces LLVM's eviction "
                             "advisor; leave out -regalloc-enable-advisor");
    S.Stock->doInitialization(M);
    Provider = std::make_unique<AdvisorProvider>(S, M.getContext());
    return false;
  }

  bool doFinalization(Module &M) override {
    if (S.Runner)
      if (Error E = S.Runner->finish())
        ircommon::reportError(M.getContext(),
                              "irtk: " + toString(std::move(E)));
    return false;
  }

private:
  std::shared_ptr<Session> Shared;
  Session &S;
};

class ScorePass;
/// Inserted after the virtual registers are rewritten, with its session.
using InsertedScorePass = mir2vec::InsertedPass<ScorePass, Session>;

/// Runs after the virtual registers are rewritten (LLVM's own scoring pass
/// there does nothing in a build without TensorFlow Lite, as Debian's is):
/// the function's RegAllocScore is the reward of its last decision.
class ScorePass final : public MachineFunctionPass {
public:
  static char ID;
  ScorePass()
      : MachineFunctionPass(ID), Shared(InsertedScorePass::building()) {}

  StringRef getPassName() const override {
    return "irtk Register Allocation Score";
  }

  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.setPreservesAll();
    AU.addRequired<MachineBlockFrequencyInfoWrapperPass>();
    MachineFunctionPass::getAnalysisUsage(AU);
  }

  bool runOnMachineFunction(MachineFunction &MF) override {
    if (!Shared || !Shared->Runner || Shared->Context != &MF.getFunction() ||
        !Shared->Decided)
      return false;
    const MachineBlockFrequencyInfo &MBFI =
        getAnalysis<MachineBlockFrequencyInfoWrapperPass>().getMBFI();
    Shared->Runner->logReward(
        static_cast<float>(calculateRegAllocScore(MF, MBFI).getScore()));
    Shared->Decided = false;
    return false;
  }

private:
  std::shared_ptr<Session> Shared;
};

char ScorePass::ID = 0;

} // namespace

void insertEvictionAdvisor(TargetMachine &, legacy::PassManagerBase &PM,
                           TargetPassConfig &Config,
                           const EvictionAdvisorOptions &O) {
  auto S = std::make_shared<Session>(O);
  PM.add(new EvictionAdvisorPass(S));
  if (O.Policy.LogPath.empty())
    return;
  InsertedScorePass::insert(Config, &VirtRegRewriterID, std::move(S),
                            "irtk Register Allocation Score",
                            "irtk-regalloc-score");
}

} // namespace irtk::advisors
