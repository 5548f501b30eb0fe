//===- InlineAdvisor.cpp - The inliner's advisor: MLGO features + IR2Vec --===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/advisors/InlineAdvisor.h"
#include "irtk/advisors/MLP.h"
#include "irtk/ircommon/Diagnostics.h"
#include "irtk/support/OutputFile.h"
#include "irtk/support/ReadFile.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/InlineAdvisor.h"
#include "llvm/Analysis/InlineModelFeatureMaps.h"
#include "llvm/Analysis/MLInlineAdvisor.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <utility>

using namespace llvm;

namespace irtk::advisors {

// Our features, after LLVM's: the feature table's ids and names.
enum OurFeature : size_t {
#define IRTK_INLINE_FEATURE(Id, Name, Type, Shape, Doc) Id,
#include "irtk/advisors/InlineFeatures.def"
};
static constexpr StringLiteral OurFeatureNames[] = {
#define IRTK_INLINE_FEATURE(Id, Name, Type, Shape, Doc) Name,
#include "irtk/advisors/InlineFeatures.def"
};

std::string InlineTeacher::featureName() const {
  return "teacher_thr" + std::to_string(Threshold);
}

/// LLVM's features (as MLInlineAdvisor hands them to its runner), then
/// ours where missing.
static std::vector<TensorSpec>
withOurFeatures(std::vector<TensorSpec> Specs, unsigned EmbeddingDim,
                ArrayRef<InlineTeacher> Teachers) {
  const std::vector<int64_t> Scalar{1};
  const std::vector<int64_t> Embedding{static_cast<int64_t>(EmbeddingDim)};
#define IRTK_INLINE_FEATURE(Id, Name, Type, Shape, Doc)                        \
  if (!findFeature(Specs, Name) && (&Shape != &Embedding || EmbeddingDim))     \
    Specs.push_back(TensorSpec::createSpec<Type>(Name, Shape));
#include "irtk/advisors/InlineFeatures.def"
  for (const InlineTeacher &T : Teachers)
    Specs.push_back(TensorSpec::createSpec<int64_t>(T.featureName(), {1}));
  return Specs;
}

std::vector<TensorSpec> inlineFeatures(unsigned EmbeddingDim,
                                       ArrayRef<InlineTeacher> Teachers) {
  return withOurFeatures(MLInlineAdvisor::getInitialFeatureMap(), EmbeddingDim,
                         Teachers);
}

namespace {

/// What one analysis manager's inliners share: the manager (the advisor
/// factory is a plain function pointer and is given only the function
/// analysis manager, while MLInlineAdvisor needs the module one) and the
/// options read when it was set up. One per thread, as each thread that
/// compiles sets up its own pass builder.
struct Session {
  ModuleAnalysisManager *MAM = nullptr;
  InlineAdvisorOptions Opts;
};
thread_local std::unique_ptr<Session> CurrentSession;

class IRTKInlineAdvisor;

/// The blocks of a caller that inlining one of its calls may change, found
/// before the inlining: InlineFunction splits the call's block and puts
/// the callee's blocks between its two halves (so every new block lies
/// between the call's block and the block after it), moves static allocas
/// to the entry block, rewires the call's successors (an invoke's unwind
/// destination gains and loses incoming values, and a PHI of one value
/// left is replaced by it in its users) and replaces the call's uses.
struct InliningScope {
  const BasicBlock *CallBlock = nullptr;
  /// The block after CallBlock in the function; null at its end.
  const BasicBlock *Next = nullptr;
  /// The entry block, the call's successors, the blocks of their PHIs'
  /// users and of the call's users.
  SmallPtrSet<const BasicBlock *, 8> Others;
};

/// MLInlineAdvice, plus the reward of the decision for the log and the
/// embedding cache's update.
class IRTKInlineAdvice : public MLInlineAdvice {
public:
  IRTKInlineAdvice(IRTKInlineAdvisor *Advisor, CallBase &CB,
                   OptimizationRemarkEmitter &ORE, bool Recommendation,
                   bool Observed);

private:
  void recordInliningImpl() override;
  void recordInliningWithCalleeDeletedImpl() override;
  void inlined(bool CalleeDeleted);

  IRTKInlineAdvisor &Ours;
  /// The decision came from the policy (not a mandatory one).
  bool Observed;

public:
  /// When inlining is recommended and the caller's block vectors are kept.
  std::optional<InliningScope> Scope;
};

class IRTKInlineAdvisor : public MLInlineAdvisor {
public:
  IRTKInlineAdvisor(
      Module &M, ModuleAnalysisManager &MAM,
      std::function<
          std::unique_ptr<MLModelRunner>(const std::vector<TensorSpec> &)>
          GetRunner,
      std::function<bool(CallBase &)> GetDefault,
      std::optional<ir2vec::EmbeddingKind> Kind, const vocab::Vocabulary *Vocab,
      std::vector<std::pair<std::string, std::function<bool(CallBase &)>>>
          TeacherDecisions,
      std::optional<unsigned> FlipAt, StringMap<size_t> CallerTeachers,
      EdgeDecisions Edges, std::string TracePath, bool Incremental)
      : MLInlineAdvisor(M, MAM, std::move(GetRunner), std::move(GetDefault)),
        Kind(Kind), Vocab(Vocab),
        Incremental(Incremental && Kind == ir2vec::EmbeddingKind::Symbolic),
        FlipAt(FlipAt), CallerTeachers(std::move(CallerTeachers)),
        Edges(std::move(Edges)), TracePath(std::move(TracePath)) {
    if (!ModelRunner)
      return; // MLInlineAdvisor reported it.
    const std::vector<TensorSpec> &Specs = runner().spec().Inputs;
    DefaultIndex = *findFeature(Specs, DefaultDecisionName);
    if (Vocab && Kind) {
      InstVectors.emplace(*Vocab);
      CalleeIndex = findFeature(Specs, OurFeatureNames[CalleeEmbedding]);
      CallerIndex = findFeature(Specs, OurFeatureNames[CallerEmbedding]);
    }
    for (auto &[Name, Decide] : TeacherDecisions)
      Teachers.emplace_back(findFeature(Specs, Name), std::move(Decide));
    runner().switchContext(M.getModuleIdentifier());
  }

  ~IRTKInlineAdvisor() override {
    if (TracePath.empty() || !ModelRunner)
      return;
    if (Error E = support::writeOutputFile(TracePath, [&](raw_ostream &OS) {
          OS << Trace;
          return Error::success();
        }))
      ircommon::reportError(M.getContext(), "irtk: " + toString(std::move(E)));
  }

  PolicyRunner &runner() { return *static_cast<PolicyRunner *>(&*ModelRunner); }

  /// No trace is written (the advisor failed before it decided anything).
  void dropTrace() { TracePath.clear(); }

  // The embeddings of the functions the inliner works on are dropped as it
  // enters and leaves their SCC: function passes run on them right after,
  // and may again when an SCC is revisited. Functions of other SCCs are not
  // changed by the CGSCC walk in between (it goes bottom-up: their callers
  // come later), so their embeddings stay, and each callee is embedded once
  // per version rather than once per call site.
  void onPassEntry(LazyCallGraph::SCC *SCC) override {
    MLInlineAdvisor::onPassEntry(SCC);
    forget(SCC);
  }
  void onPassExit(LazyCallGraph::SCC *SCC) override {
    MLInlineAdvisor::onPassExit(SCC);
    forget(SCC);
  }

  /// What inlining \p CB may change in its caller, when the caller's block
  /// vectors are kept.
  std::optional<InliningScope> scopeOf(const CallBase &CB) const {
    auto It = Embeddings.find(CB.getCaller());
    if (It == Embeddings.end() || !It->second.HasBlocks)
      return std::nullopt;
    InliningScope S;
    S.CallBlock = CB.getParent();
    S.Next = S.CallBlock->getNextNode();
    S.Others.insert(&CB.getCaller()->getEntryBlock());
    for (const BasicBlock *Succ : successors(S.CallBlock)) {
      S.Others.insert(Succ);
      // An invoke's unwind destination loses the invoke's incoming values
      // (BasicBlock::removePredecessor), and a PHI left with one value is
      // replaced by it wherever it is used.
      for (const PHINode &Phi : Succ->phis())
        for (const User *U : Phi.users())
          if (const auto *I = dyn_cast<Instruction>(U))
            S.Others.insert(I->getParent());
    }
    for (const User *U : CB.users())
      if (const auto *I = dyn_cast<Instruction>(U))
        S.Others.insert(I->getParent());
    return S;
  }

  void inlined(const IRTKInlineAdvice &A, bool CalleeDeleted, bool Observed) {
    auto Caller = Embeddings.find(A.getCaller());
    if (Caller != Embeddings.end()) {
      if (A.Scope && Caller->second.HasBlocks)
        markChanged(*A.getCaller(), Caller->second, *A.Scope);
      else
        Embeddings.erase(Caller);
    }
    if (CalleeDeleted)
      Embeddings.erase(A.getCallee());
    if (!Observed || isForcedToStop())
      return;
    // The change of the module's IR size (instructions), as MLInlineAdvisor
    // tracks it: the per-decision estimate logged as delta_size.
    int64_t After =
        getIRSize(*A.getCaller()) + (CalleeDeleted ? 0 : A.CalleeIRSize);
    runner().logReward(
        static_cast<float>(After - (A.CallerIRSize + A.CalleeIRSize)));
  }

protected:
  std::unique_ptr<MLInlineAdvice>
  getAdviceFromModel(CallBase &CB, OptimizationRemarkEmitter &ORE) override {
    PolicyRunner &R = runner();
    // Only what the policy or the log reads: each costs an inline-cost
    // analysis or an embedding.
    if (R.readsInput(DefaultIndex))
      *R.getTensor<int64_t>(DefaultIndex) = GetDefaultAdvice(CB);
    if (CalleeIndex && R.readsInput(*CalleeIndex))
      setEmbedding(*CB.getCalledFunction(), *CalleeIndex);
    if (CallerIndex && R.readsInput(*CallerIndex))
      setEmbedding(*CB.getCaller(), *CallerIndex);
    for (auto &[Index, Decide] : Teachers)
      if (Index && R.readsInput(*Index))
        *R.getTensor<int64_t>(*Index) = Decide(CB);
    if (R.kind() == PolicyKind::Default) {
      // What the default policy takes, when not its default: the edge's
      // decision, else the teacher of the caller; then the flip of
      // whichever decides.
      std::optional<bool> Taken;
      if (!Edges.empty()) {
        auto It = Edges.find(edgeKey(CB.getCaller()->getName(),
                                     CB.getCalledFunction()->getName()));
        if (It != Edges.end())
          Taken = It->second;
      }
      if (!Taken && !CallerTeachers.empty()) {
        auto It = CallerTeachers.find(CB.getCaller()->getName());
        if (It != CallerTeachers.end()) {
          // The teacher's feature holds its decision when the log reads it.
          auto &[Index, Decide] = Teachers[It->second];
          Taken = Index && R.readsInput(*Index)
                      ? *R.getTensor<int64_t>(*Index) != 0
                      : Decide(CB);
        }
      }
      if (FlipAt && *FlipAt == Asked)
        Taken =
            !Taken.value_or(*R.getTensor<int64_t>(R.spec().DefaultIndex) != 0);
      if (Taken)
        R.overrideNextDefault(*Taken);
    }
    // The runner has overruled an answer other than 0 (do not inline) and
    // 1 (inline) with stock's.
    bool Decision = R.evaluate<int64_t>() != 0;
    if (!TracePath.empty())
      raw_string_ostream(Trace)
          << Asked << '\t' << CB.getCaller()->getName() << '\t'
          << CB.getCalledFunction()->getName() << '\t' << Decision << '\n';
    ++Asked;
    return std::make_unique<IRTKInlineAdvice>(this, CB, ORE, Decision,
                                              /*Observed=*/true);
  }

  std::unique_ptr<MLInlineAdvice>
  getMandatoryAdviceImpl(CallBase &CB) override {
    return std::make_unique<IRTKInlineAdvice>(this, CB, getCallerORE(CB), true,
                                              /*Observed=*/false);
  }

private:
  void forget(LazyCallGraph::SCC *SCC) {
    if (!SCC) {
      Embeddings.clear();
      return;
    }
    for (const LazyCallGraph::Node &N : *SCC)
      Embeddings.erase(&N.getFunction());
  }

  /// A function's embedding as the features hold it and, for incremental
  /// updates, each reachable block's vector.
  struct CachedEmbedding {
    std::vector<float> Floats;
    DenseMap<const BasicBlock *, std::vector<double>> Blocks;
    bool HasBlocks = false;
    /// Blocks inlinings changed since Floats was summed: embedded again
    /// when the embedding is next read (a caller is often not asked again).
    SmallPtrSet<const BasicBlock *, 16> Changed;
    bool Stale = false;
  };

  void setEmbedding(const Function &F, size_t Index) {
    auto [It, New] = Embeddings.try_emplace(&F);
    if (!New && It->second.Stale) {
      CachedEmbedding &C = It->second;
      embedBlocks(F, C,
                  [&](const BasicBlock *BB) { return C.Changed.count(BB); });
      C.Changed.clear();
      C.Stale = false;
    }
    if (New) {
      if (Incremental) {
        It->second.HasBlocks = true;
        embedBlocks(F, It->second, [](const BasicBlock *) { return true; });
      } else {
        std::vector<double> V =
            ir2vec::Embedder::create(*Kind, F, *Vocab, &*InstVectors)
                ->getFunctionVector();
        It->second.Floats.assign(V.begin(), V.end());
      }
    }
    llvm::copy(It->second.Floats, runner().getTensor<float>(Index));
  }

  /// Sets \p C to \p F's embedding, embedding again the blocks \p Changed
  /// says may have changed (and any not kept) and reusing the others'
  /// vectors. A symbolic block vector depends on its own instructions
  /// only, and the blocks are summed in Embedder::computeFunctionVector's
  /// order (depth first from the entry): the same doubles as embedding
  /// \p F from scratch.
  void embedBlocks(const Function &F, CachedEmbedding &C,
                   function_ref<bool(const BasicBlock *)> Changed) {
    unsigned Dim = Vocab->dimension();
    std::unique_ptr<ir2vec::Embedder> E;
    std::vector<double> Sum(Dim, 0.0);
    // In place: a kept vector of a block deleted since is never read, as
    // a new block at its address is one an inlining marked changed.
    ir2vec::BlockNumberSet Seen(F);
    if (!F.isDeclaration())
      for (const BasicBlock *BB : ir2vec::blocksDepthFirst(F, Seen)) {
        auto [It, New] = C.Blocks.try_emplace(BB);
        std::vector<double> &V = It->second;
        if (New || Changed(BB)) {
          if (!E)
            E = ir2vec::Embedder::create(*Kind, F, *Vocab, &*InstVectors);
          V.resize(Dim);
          E->computeBBVector(*BB, V.data());
        }
        ir2vec::addVector(Sum.data(), V.data(), Dim);
      }
    C.Floats.assign(Sum.begin(), Sum.end());
  }

  /// After \p F inlined a call of scope \p S: the blocks it may have
  /// changed. (A block deleted since could leave its address here for a
  /// new one; new blocks are marked changed anyway.)
  void markChanged(const Function &F, CachedEmbedding &C,
                   const InliningScope &S) {
    C.Changed.insert(S.Others.begin(), S.Others.end());
    for (auto It = S.CallBlock->getIterator(); It != F.end() && &*It != S.Next;
         ++It)
      C.Changed.insert(&*It);
    C.Stale = true;
  }

  std::optional<ir2vec::EmbeddingKind> Kind;
  const vocab::Vocabulary *Vocab;
  /// Callers' embeddings are updated after an inlining rather than made
  /// again (symbolic only: a flow-aware block vector depends on others).
  bool Incremental;
  std::optional<unsigned> FlipAt;
  /// The teacher (its place in Teachers) the default policy follows in each
  /// named caller.
  StringMap<size_t> CallerTeachers;
  /// The decision the default policy takes on each named edge.
  EdgeDecisions Edges;
  /// Where the decisions' trace goes (none: empty), and the trace.
  std::string TracePath, Trace;
  /// Decisions the policy was asked in this module.
  unsigned Asked = 0;
  size_t DefaultIndex = 0;
  std::optional<size_t> CalleeIndex, CallerIndex;
  /// Each teacher's feature (none when the inputs lack it) and its
  /// heuristic, in the order of the options' teachers.
  std::vector<std::pair<std::optional<size_t>, std::function<bool(CallBase &)>>>
      Teachers;
  /// Function embeddings.
  std::map<const Function *, CachedEmbedding> Embeddings;
  /// Symbolic instruction vectors, across the module's functions.
  std::optional<ir2vec::InstVectorCache> InstVectors;
};

IRTKInlineAdvice::IRTKInlineAdvice(IRTKInlineAdvisor *Advisor, CallBase &CB,
                                   OptimizationRemarkEmitter &ORE,
                                   bool Recommendation, bool Observed)
    : MLInlineAdvice(Advisor, CB, ORE, Recommendation), Ours(*Advisor),
      Observed(Observed) {
  if (Recommendation)
    Scope = Ours.scopeOf(CB);
}

void IRTKInlineAdvice::recordInliningImpl() {
  MLInlineAdvice::recordInliningImpl();
  Ours.inlined(*this, /*CalleeDeleted=*/false, Observed);
}

void IRTKInlineAdvice::recordInliningWithCalleeDeletedImpl() {
  MLInlineAdvice::recordInliningWithCalleeDeletedImpl();
  Ours.inlined(*this, /*CalleeDeleted=*/true, Observed);
}

} // namespace

/// The stock advisor's decision, as LLVM's own ML advisors ask for it.
static std::function<bool(CallBase &)>
defaultDecision(Module &M, FunctionAnalysisManager &FAM, InlineParams Params,
                InlineContext IC) {
  auto Default = std::make_shared<DefaultInlineAdvisor>(M, FAM, Params, IC);
  return [Default](CallBase &CB) {
    std::unique_ptr<InlineAdvice> A = Default->getAdvice(CB);
    bool Recommended = A->isInliningRecommended();
    A->recordUnattemptedInlining();
    return Recommended;
  };
}

/// MLInlineAdvisor stops asking once the module's IR has grown past
/// -ml-advisor-size-increase-threshold times its size (2 by default), a
/// guard against a runaway model. The stock heuristic and its teachers have
/// no such guard: under the default policy it is lifted, unless the user set
/// it, so that the decisions are exactly theirs.
static void liftSizeGuard() {
  auto &Opts = cl::getRegisteredOptions();
  auto It = Opts.find("ml-advisor-size-increase-threshold");
  if (It == Opts.end() || It->second->getNumOccurrences())
    return;
  static_cast<cl::opt<float> *>(It->second)->setValue(1e30f);
}

static InlineAdvisor *createAdvisor(Module &M, FunctionAnalysisManager &FAM,
                                    InlineParams Params, InlineContext IC) {
  auto Stock = [&] { return new DefaultInlineAdvisor(M, FAM, Params, IC); };
  Session *S = CurrentSession.get();
  if (!S || !S->MAM)
    return Stock();
  const InlineAdvisorOptions &Opts = S->Opts;
  if (Opts.Policy.Kind == PolicyKind::Default)
    liftSizeGuard();

  // Nothing reads the embeddings under the default policy without a log,
  // nor with a model that names none of them and no log: then no vocabulary
  // is loaded (the model file read here is not read again).
  // The trace, written when the advisor ends, must not replace an input.
  if (!Opts.TracePath.empty())
    if (Error E =
            support::checkNotAnInput(Opts.TracePath, Opts.Policy.Inputs)) {
      ircommon::reportError(M.getContext(), "irtk: " + toString(std::move(E)));
      return Stock();
    }
  // No default model: the one irtk shipped cost C++ builds 17-27% more
  // compile time for no measured size gain (docs/InlineTraining.md).
  if (Opts.Policy.Kind == PolicyKind::Model && Opts.Policy.ModelPath.empty()) {
    ircommon::reportError(
        M.getContext(),
        "irtk: the model policy needs a model file (" +
            Opts.Policy.OptionPrefix +
            "model=<file>): irtk ships no default inline model, as the "
            "one it trained cost C++ builds 17-27% more compile time for no "
            "measured size gain on held-out code (docs/InlineTraining.md)");
    return Stock();
  }
  Expected<PreparedPolicy> Policy = PreparedPolicy::read(Opts.Policy);
  if (!Policy) {
    ircommon::reportError(M.getContext(),
                          "irtk: " + toString(Policy.takeError()));
    return Stock();
  }
  std::optional<ir2vec::EmbeddingKind> Embedding = Opts.Embedding;
  if (Embedding && !Policy->readsAny([](StringRef F) {
        return findAdvisor("inline")->isEmbedding(F);
      }))
    Embedding.reset();
  // A vocabulary the user named must exist even when nothing reads it.
  if (!Embedding && !Opts.Vocab.Path.empty())
    if (Error E = support::checkReadable(Opts.Vocab.Path, "vocabulary")) {
      ircommon::reportError(M.getContext(), "irtk: " + toString(std::move(E)));
      return Stock();
    }
  const vocab::Vocabulary *Vocab = nullptr;
  if (Embedding) {
    const ir2vec::VocabAnalysis::Result &VR =
        S->MAM->getResult<ir2vec::VocabAnalysis>(M);
    if (!VR.isValid())
      return Stock(); // VocabAnalysis reported why.
    Vocab = VR.vocabulary();
  }
  unsigned Dim = Vocab ? Vocab->dimension() : 0;

  // Each teacher: the stock heuristic as -inline-threshold=N sets it up.
  std::vector<std::pair<std::string, std::function<bool(CallBase &)>>>
      TeacherDecisions;
  std::optional<std::string> Follow;
  for (const InlineTeacher &T : Opts.Teachers) {
    InlineParams P = Params;
    P.DefaultThreshold = T.Threshold;
    P.OptMinSizeThreshold.reset();
    P.OptSizeThreshold.reset();
    P.ColdThreshold.reset();
    TeacherDecisions.emplace_back(T.featureName(),
                                  defaultDecision(M, FAM, P, IC));
    if (Opts.Follow == T.Threshold)
      Follow = T.featureName();
  }
  if (Opts.Follow && !Follow) {
    ircommon::reportError(M.getContext(),
                          "irtk: the default policy cannot follow "
                          "threshold " +
                              Twine(*Opts.Follow) + ": not a teacher");
    return Stock();
  }
  StringMap<size_t> CallerTeachers;
  if (!Opts.FollowCallersPath.empty()) {
    Expected<StringMap<int>> Map = readCallerTeachers(Opts.FollowCallersPath);
    if (!Map) {
      ircommon::reportError(M.getContext(),
                            "irtk: " + toString(Map.takeError()));
      return Stock();
    }
    for (const auto &[Caller, Threshold] : *Map) {
      auto T = find_if(Opts.Teachers, [&](const InlineTeacher &T) {
        return T.Threshold == Threshold;
      });
      if (T == Opts.Teachers.end()) {
        ircommon::reportError(
            M.getContext(), "irtk: " + Opts.FollowCallersPath + ": threshold " +
                                Twine(Threshold) + " (for '" + Caller +
                                "') is not a teacher (-irtk-inline-teachers)");
        return Stock();
      }
      CallerTeachers[Caller] = T - Opts.Teachers.begin();
    }
  }

  EdgeDecisions Edges;
  if (!Opts.DecisionsPath.empty()) {
    Expected<EdgeDecisions> E = readEdgeDecisions(Opts.DecisionsPath);
    if (!E) {
      ircommon::reportError(M.getContext(), "irtk: " + toString(E.takeError()));
      return Stock();
    }
    Edges = std::move(*E);
  }

  std::string RunnerError;
  auto GetRunner = [&](const std::vector<TensorSpec> &LLVMFeatures)
      -> std::unique_ptr<MLModelRunner> {
    std::vector<TensorSpec> Inputs =
        withOurFeatures(LLVMFeatures, Dim, Opts.Teachers);
    size_t DefaultIndex =
        *findFeature(Inputs, Follow ? StringRef(*Follow) : DefaultDecisionName);
    PolicySpec Spec{"inline", std::move(Inputs), InlineDecisionSpec,
                    DefaultIndex,
                    TensorSpec::createSpec<float>(RewardName, {1})};
    Expected<std::unique_ptr<PolicyRunner>> R =
        PolicyRunner::create(M.getContext(), Spec, std::move(*Policy));
    if (R)
      return std::move(*R);
    // MLInlineAdvisor would report a missing runner as "Could not create
    // model runner": give it one that cannot fail, report our error, and
    // let the stock advisor go on.
    RunnerError = toString(R.takeError());
    return cantFail(
        PolicyRunner::create(M.getContext(), Spec, PolicyOptions()));
  };
  auto *A = new IRTKInlineAdvisor(
      M, *S->MAM, GetRunner, defaultDecision(M, FAM, Params, IC), Embedding,
      Vocab, std::move(TeacherDecisions), Opts.FlipAt,
      std::move(CallerTeachers), std::move(Edges), Opts.TracePath,
      Opts.IncrementalEmbeddings);
  if (RunnerError.empty())
    return A;
  A->dropTrace();
  delete A;
  ircommon::reportError(M.getContext(), "irtk: " + RunnerError);
  return Stock();
}

/// Calls \p Parse with each line of the file at \p Path (\p What it holds,
/// for the error of a missing file) that is neither blank nor a '#'
/// comment, trimmed, and its number from 1; stops at its first error.
static Error
forEachEntry(StringRef Path, StringRef What,
             function_ref<Error(StringRef Line, size_t Number)> Parse) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = support::readFile(Path, What);
  if (!Buf)
    return Buf.takeError();
  SmallVector<StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (auto [I, Line] : enumerate(Lines)) {
    Line = Line.trim();
    if (Line.empty() || Line.starts_with("#"))
      continue;
    if (Error E = Parse(Line, I + 1))
      return E;
  }
  return Error::success();
}

static Error lineError(StringRef Path, size_t Number, const Twine &Message) {
  return createStringError(inconvertibleErrorCode(),
                           Path + ":" + Twine(Number) + ": " + Message);
}

Expected<StringMap<int>> readCallerTeachers(StringRef Path) {
  StringMap<int> Map;
  if (Error E = forEachEntry(
          Path, "caller teachers", [&](StringRef Line, size_t Number) -> Error {
            auto [Threshold, Name] = Line.split(' ');
            Name = Name.trim();
            int T;
            if (Threshold.getAsInteger(10, T) || Name.empty())
              return lineError(Path, Number,
                               "expected '<threshold> <function>', got '" +
                                   Line + "'");
            if (!Map.try_emplace(Name, T).second)
              return lineError(Path, Number, "'" + Name + "' is named twice");
            return Error::success();
          }))
    return std::move(E);
  return Map;
}

std::string edgeKey(StringRef Caller, StringRef Callee) {
  return (Caller + Twine('\0') + Callee).str();
}

Expected<EdgeDecisions> readEdgeDecisions(StringRef Path) {
  EdgeDecisions Map;
  if (Error E = forEachEntry(
          Path, "inlining decisions",
          [&](StringRef Line, size_t Number) -> Error {
            SmallVector<StringRef, 3> Fields;
            Line.split(Fields, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
            if (Fields.size() != 3 || (Fields[0] != "0" && Fields[0] != "1"))
              return lineError(Path, Number,
                               "expected '<0|1> <caller> <callee>', got '" +
                                   Line + "'");
            if (!Map.try_emplace(edgeKey(Fields[1], Fields[2]),
                                 Fields[0] == "1")
                     .second)
              return lineError(Path, Number,
                               "the edge '" + Fields[1] + "' -> '" + Fields[2] +
                                   "' is named twice");
            return Error::success();
          }))
    return std::move(E);
  return Map;
}

void registerInlineAdvisor(
    PassBuilder &PB,
    std::function<std::optional<InlineAdvisorOptions>()> GetOptions) {
  PB.registerAnalysisRegistrationCallback([GetOptions](
                                              ModuleAnalysisManager &MAM) {
    std::optional<InlineAdvisorOptions> Opts = GetOptions();
    if (!Opts)
      return;
    CurrentSession = std::make_unique<Session>();
    CurrentSession->MAM = &MAM;
    CurrentSession->Opts = *Opts;
    // No-ops when the plugin registered them already.
    MAM.registerPass(
        [&] { return ir2vec::VocabAnalysis(CurrentSession->Opts.Vocab); });
    MAM.registerPass([] { return PluginInlineAdvisorAnalysis(createAdvisor); });
  });
}

} // namespace irtk::advisors
