//===- Layout.cpp - The machine-IR vocabulary layout of a target ----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Layout.h"

#include "llvm-c/Core.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>

#if __has_include(<link.h>)
#include <link.h>
#define IRTK_HAVE_DL_ITERATE_PHDR 1
#endif

using namespace llvm;

namespace irtk::mir2vec {

static bool isBaseChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_';
}

StringRef baseOpcodeName(StringRef InstrName) {
  // The first match of ([a-zA-Z_]+), as upstream's regex finds it.
  size_t Begin = 0;
  while (Begin < InstrName.size() && !isBaseChar(InstrName[Begin]))
    ++Begin;
  if (Begin == InstrName.size())
    return InstrName;
  size_t End = Begin;
  while (End < InstrName.size() && isBaseChar(InstrName[End]))
    ++End;
  return InstrName.slice(Begin, End).rtrim('_');
}

namespace {
/// Bumped whenever irtk makes a layout from a target's names differently
/// (baseOpcodeName, the sections' order): older tables are then not used.
constexpr StringLiteral LayoutRules = "irtk MIR layout rules 1";

/// The target's names that make its layout, in id order: they are the
/// target's static tables (TableGen's), valid for as long as LLVM is
/// loaded, so a deferred layout may keep them.
struct TargetNames {
  std::vector<StringRef> Opcodes, RegisterClasses;
  uint64_t Fingerprint = 0;

  TargetNames(const TargetInstrInfo &TII, const TargetRegisterInfo &TRI,
              StringRef Description) {
    unsigned NumOpcodes = TII.getNumOpcodes();
    unsigned NumClasses = TRI.getNumRegClasses();
    Opcodes.reserve(NumOpcodes);
    RegisterClasses.reserve(NumClasses);
    for (unsigned Opc = 0; Opc < NumOpcodes; ++Opc)
      Opcodes.push_back(TII.getName(Opc));
    for (unsigned RC = 0; RC < NumClasses; ++RC)
      RegisterClasses.push_back(TRI.getRegClassName(TRI.getRegClass(RC)));
    std::vector<StringRef> Registers;
    Registers.reserve(TRI.getNumRegs());
    for (unsigned Reg = 0; Reg < TRI.getNumRegs(); ++Reg)
      Registers.push_back(TRI.getName(Reg));
    // Every name, NUL-terminated, list by list, after irtk's own rules (the
    // version of how a layout is made from them, and the common operand
    // names): a target, an LLVM or an irtk that would make another layout
    // has another fingerprint. Copied into one buffer and hashed once:
    // this runs in every llc process.
    std::vector<StringRef> Rules{LayoutRules};
    Rules.insert(Rules.end(), std::begin(CommonOperandNames),
                 std::end(CommonOperandNames));
    const ArrayRef<StringRef> Lists[] = {Rules, Opcodes, RegisterClasses,
                                         Registers};
    size_t Bytes = Description.size() + 1;
    for (ArrayRef<StringRef> List : Lists) {
      for (StringRef N : List)
        Bytes += N.size() + 1;
      ++Bytes; // the list's end
    }
    std::vector<char> All(Bytes);
    char *Out = All.data();
    auto Add = [&](StringRef Name) {
      std::memcpy(Out, Name.data(), Name.size());
      Out += Name.size() + 1; // the NUL: All starts zeroed
    };
    Add(Description);
    for (ArrayRef<StringRef> List : Lists) {
      for (StringRef N : List)
        Add(N);
      *Out++ = '\1';
    }
    assert(Out == All.data() + All.size() && "miscounted the names");
    Fingerprint = xxh3_64bits(ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(All.data()), All.size()));
  }
};

/// The GNU build id of the loaded object whose segments hold \p Address;
/// empty when there is none (or no way to find it).
std::string buildIdOf(const void *Address) {
  std::string Id;
#ifdef IRTK_HAVE_DL_ITERATE_PHDR
  struct Search {
    uintptr_t Address;
    std::string *Id;
  } S{reinterpret_cast<uintptr_t>(Address), &Id};
  dl_iterate_phdr(
      [](dl_phdr_info *Info, size_t, void *Data) -> int {
        auto &S = *static_cast<Search *>(Data);
        bool Holds = false;
        for (unsigned I = 0; I < Info->dlpi_phnum && !Holds; ++I) {
          const auto &P = Info->dlpi_phdr[I];
          uintptr_t Begin = Info->dlpi_addr + P.p_vaddr;
          Holds = P.p_type == PT_LOAD && S.Address >= Begin &&
                  S.Address - Begin < P.p_memsz;
        }
        if (!Holds)
          return 0;
        for (unsigned I = 0; I < Info->dlpi_phnum; ++I) {
          const auto &P = Info->dlpi_phdr[I];
          if (P.p_type != PT_NOTE)
            continue;
          const char *N =
              reinterpret_cast<const char *>(Info->dlpi_addr + P.p_vaddr);
          const char *End = N + P.p_memsz;
          while (End - N >= 12) {
            uint32_t NameSize, DescSize, Type;
            std::memcpy(&NameSize, N, 4);
            std::memcpy(&DescSize, N + 4, 4);
            std::memcpy(&Type, N + 8, 4);
            size_t NameAt = 12, DescAt = NameAt + ((NameSize + 3) & ~3u);
            size_t Next = DescAt + ((DescSize + 3) & ~size_t(3));
            if (Next > size_t(End - N))
              break;
            if (Type == NT_GNU_BUILD_ID && NameSize == 4 &&
                std::memcmp(N + NameAt, "GNU", 4) == 0 && DescSize) {
              S.Id->assign(N + DescAt, DescSize);
              return 1;
            }
            N += Next;
          }
        }
        return 1; // The object holds the address, without a build id.
      },
      &S);
#else
  (void)Address;
#endif
  return Id;
}

/// An identity of the running LLVM and target that costs nothing to
/// compute: irtk's layout rules, the layout's description, LLVM's version,
/// the build id of the object that holds the target's opcode names (its
/// TableGen'd tables: any other name, opcode or order is another build of
/// it), and the target's opcode, register class and register counts. 0
/// when that object has no build id: then only the names can tell.
uint64_t runningIdentity(const TargetInstrInfo &TII,
                         const TargetRegisterInfo &TRI, StringRef Description) {
  if (TII.getNumOpcodes() == 0)
    return 0;
  std::string BuildId = buildIdOf(TII.getName(0).data());
  if (BuildId.empty())
    return 0;
  unsigned Version[3] = {0, 0, 0};
  LLVMGetVersion(&Version[0], &Version[1], &Version[2]);
  std::string All;
  raw_string_ostream OS(All);
  OS << LayoutRules << '\0';
  for (StringRef N : CommonOperandNames)
    OS << N << '\0';
  OS << Description << '\0' << Version[0] << '.' << Version[1] << '.'
     << Version[2] << '\0' << BuildId << '\0' << TII.getNumOpcodes() << ' '
     << TRI.getNumRegClasses() << ' ' << TRI.getNumRegs();
  return xxh3_64bits(StringRef(All));
}

/// The register class names, in id order.
std::vector<StringRef> registerClassNames(const TargetRegisterInfo &TRI) {
  std::vector<StringRef> Names;
  Names.reserve(TRI.getNumRegClasses());
  for (unsigned RC = 0; RC < TRI.getNumRegClasses(); ++RC)
    Names.push_back(TRI.getRegClassName(TRI.getRegClass(RC)));
  return Names;
}

/// The common operand and register sections, after the opcodes'.
void addOperandSections(vocab::Layout &L, ArrayRef<StringRef> Classes) {
  L.addGroup(1, "common operands");
  for (StringRef N : CommonOperandNames)
    L.addEntity(N);
  // Register classes by id: the entity of class C is Base + C.
  L.addGroup(2, "physical register classes");
  for (StringRef Name : Classes)
    L.addEntity(Name, ("PhyReg_" + Name).str());
  L.addGroup(3, "virtual register classes");
  for (StringRef Name : Classes)
    L.addEntity(Name, ("VirtReg_" + Name).str());
}

void addSections(vocab::Layout &L) {
  L.addSection("Opcodes");
  L.addSection("CommonOperands");
  L.addSection("PhysicalRegisters");
  L.addSection("VirtualRegisters");
}

constexpr char TablesMagic[8] = {'I', 'R', 'T', 'K', 'M', 'I', 'R', 'L'};
constexpr uint32_t TablesVersion = 3;
constexpr size_t TablesHeader = 64;
} // namespace

std::shared_ptr<const TargetLayout>
TargetLayout::create(const TargetInstrInfo &TII, const TargetRegisterInfo &TRI,
                     StringRef Description) {
  auto T = std::shared_ptr<TargetLayout>(new TargetLayout());
  TargetNames Names(TII, TRI, Description);
  T->Fingerprint = Names.Fingerprint;
  T->Identity = runningIdentity(TII, TRI, Description);
  auto L = std::make_shared<vocab::Layout>(Description.str());
  addSections(*L);

  // Opcodes: unique base names in bytewise order (as upstream's
  // std::set<std::string> orders them). The bases are slices of the
  // target's own names, told apart by a DenseMap of StringRefs (no copies),
  // and the unique ones are sorted by their first 8 bytes as a big-endian
  // integer, the full names only breaking ties.
  unsigned NumOpcodes = Names.Opcodes.size();
  std::vector<unsigned> BaseOf(NumOpcodes);
  DenseMap<StringRef, unsigned> BaseIndex;
  struct UniqueBase {
    uint64_t Prefix;
    StringRef Name;
    unsigned Index;
  };
  std::vector<UniqueBase> Unique;
  for (unsigned Opc = 0; Opc < NumOpcodes; ++Opc) {
    StringRef Base = baseOpcodeName(Names.Opcodes[Opc]);
    auto [It, New] = BaseIndex.try_emplace(Base, Unique.size());
    if (New) {
      uint64_t Prefix = 0;
      for (size_t I = 0; I < 8; ++I)
        Prefix = Prefix << 8 |
                 (I < Base.size() ? static_cast<unsigned char>(Base[I]) : 0);
      Unique.push_back({Prefix, Base, It->second});
    }
    BaseOf[Opc] = It->second;
  }
  llvm::sort(Unique, [](const UniqueBase &A, const UniqueBase &B) {
    if (A.Prefix != B.Prefix)
      return A.Prefix < B.Prefix;
    return A.Name < B.Name;
  });
  L->addGroup(0, "opcodes");
  std::vector<EntityId> EntityOfBase(Unique.size());
  for (const UniqueBase &U : Unique)
    EntityOfBase[U.Index] = L->addEntity(U.Name);
  T->OpcodeEntity.resize(NumOpcodes);
  for (unsigned Opc = 0; Opc < NumOpcodes; ++Opc)
    T->OpcodeEntity[Opc] = EntityOfBase[BaseOf[Opc]];

  T->CommonOperandBase = L->size();
  T->PhysicalRegisterBase = T->CommonOperandBase + NumCommonOperands;
  T->VirtualRegisterBase = T->PhysicalRegisterBase +
                           static_cast<unsigned>(Names.RegisterClasses.size());
  addOperandSections(*L, Names.RegisterClasses);
  // The smallest class of each physical register: searching every class
  // per operand would dominate the embedding's cost.
  T->PhysicalRegisterClass.assign(TRI.getNumRegs(), -1);
  for (unsigned Reg = 1; Reg < TRI.getNumRegs(); ++Reg)
    if (const TargetRegisterClass *RC =
            TRI.getMinimalPhysRegClass(MCRegister(Reg)))
      T->PhysicalRegisterClass[Reg] = static_cast<int>(RC->getID());
  T->L = std::move(L);
  return T;
}

std::string TargetLayout::tables() const {
  using llvm::support::endian::write;
  constexpr auto LE = llvm::endianness::little;
  std::string Out;
  raw_string_ostream OS(Out);
  OS.write(TablesMagic, sizeof(TablesMagic));
  write<uint32_t>(OS, TablesVersion, LE);
  write<uint32_t>(OS, static_cast<uint32_t>(OpcodeEntity.size()), LE);
  write<uint32_t>(OS, numRegisterClasses(), LE);
  write<uint32_t>(OS, static_cast<uint32_t>(PhysicalRegisterClass.size()), LE);
  write<uint32_t>(OS, CommonOperandBase, LE);
  write<uint32_t>(OS, 0, LE);
  write<uint64_t>(OS, Fingerprint, LE);
  write<uint64_t>(OS, Identity, LE);
  write<uint64_t>(OS, L->checksum(), LE);
  std::string Body;
  raw_string_ostream BS(Body);
  for (EntityId E : OpcodeEntity)
    write<uint32_t>(BS, E, LE);
  for (int C : PhysicalRegisterClass)
    write<int32_t>(BS, C, LE);
  write<uint64_t>(OS, xxh3_64bits(StringRef(Body)), LE);
  OS << Body;
  return Out;
}

/// Resizes Out to N and reads N little-endian 32-bit words from P into it.
template <typename Vector>
static void readLittle32(const char *P, uint32_t N, Vector &Out) {
  Out.resize(N);
  if constexpr (llvm::endianness::native == llvm::endianness::little)
    std::memcpy(Out.data(), P, 4 * size_t(N));
  else
    for (uint32_t I = 0; I < N; ++I)
      Out[I] = static_cast<typename Vector::value_type>(
          llvm::support::endian::read32le(P + 4 * size_t(I)));
}

std::shared_ptr<const TargetLayout>
TargetLayout::fromTables(StringRef Tables, const TargetInstrInfo &TII,
                         const TargetRegisterInfo &TRI, StringRef Description) {
  if (Tables.size() < TablesHeader ||
      std::memcmp(Tables.data(), TablesMagic, sizeof(TablesMagic)) != 0)
    return nullptr;
  const char *P = Tables.data() + sizeof(TablesMagic);
  auto Next32 = [&] {
    uint32_t V = llvm::support::endian::read32le(P);
    P += 4;
    return V;
  };
  uint32_t Version = Next32(), NumOpcodes = Next32(), NumClasses = Next32(),
           NumRegs = Next32(), NumBases = Next32();
  (void)Next32();
  uint64_t Fingerprint = llvm::support::endian::read64le(P);
  uint64_t Identity = llvm::support::endian::read64le(P + 8);
  uint64_t Checksum = llvm::support::endian::read64le(P + 16);
  uint64_t BodyHash = llvm::support::endian::read64le(P + 24);
  P += 32;
  // Each opcode entity is a base name's: at most one per opcode.
  if (Version != TablesVersion || NumOpcodes != TII.getNumOpcodes() ||
      NumClasses != TRI.getNumRegClasses() || NumRegs != TRI.getNumRegs() ||
      NumBases == 0 || NumBases > NumOpcodes ||
      Tables.size() != TablesHeader + 4 * (size_t(NumOpcodes) + NumRegs))
    return nullptr;
  // BodyHash is not checked here: the tables are read from a binary form
  // whose checksum, covering them, is checked first (Vocabulary::load).
  (void)BodyHash;
  // The running LLVM and target are the ones the tables were made by, or
  // (a rebuilt LLVM, no build id) their names are the same, in order.
  uint64_t Running = runningIdentity(TII, TRI, Description);
  if ((!Identity || Identity != Running) &&
      TargetNames(TII, TRI, Description).Fingerprint != Fingerprint)
    return nullptr;

  auto T = std::shared_ptr<TargetLayout>(new TargetLayout());
  T->Fingerprint = Fingerprint;
  T->Identity = Running;
  // Copied without zero-filling first (one memcpy on a little-endian
  // host), then checked in one pass.
  readLittle32(P, NumOpcodes, T->OpcodeEntity);
  // Each base name's key is read from one of its opcodes (the last: they
  // share it); every base must have one.
  constexpr uint32_t NoOpcode = UINT32_MAX;
  std::vector<uint32_t> OpcodeOfBase(NumBases, NoOpcode);
  for (uint32_t Opc = 0; Opc < NumOpcodes; ++Opc) {
    EntityId E = T->OpcodeEntity[Opc];
    if (E >= NumBases)
      return nullptr;
    OpcodeOfBase[E] = Opc;
  }
  if (llvm::is_contained(OpcodeOfBase, NoOpcode))
    return nullptr;
  P += 4 * size_t(NumOpcodes);
  readLittle32(P, NumRegs, T->PhysicalRegisterClass);
  for (int C : T->PhysicalRegisterClass)
    if (C < -1 || C >= static_cast<int>(NumClasses))
      return nullptr;
  T->CommonOperandBase = NumBases;
  T->PhysicalRegisterBase = NumBases + NumCommonOperands;
  T->VirtualRegisterBase = T->PhysicalRegisterBase + NumClasses;
  // The keys, made only if something asks for one: each opcode entity is
  // its opcodes' base name, in the order the tables give.
  std::vector<EntityId> SectionEnds{
      T->CommonOperandBase, T->PhysicalRegisterBase, T->VirtualRegisterBase,
      T->VirtualRegisterBase + NumClasses};
  T->L = vocab::Layout::deferred(
      Description.str(), std::move(SectionEnds), Checksum,
      // The names are the target's static tables, which a copy of its
      // MCInstrInfo (pointers to them) reads as long as LLVM is loaded.
      [Instrs =
           std::make_shared<MCInstrInfo>(static_cast<const MCInstrInfo &>(TII)),
       Classes = registerClassNames(TRI),
       OpcodeOfBase = std::move(OpcodeOfBase)](vocab::Layout &L) {
        addSections(L);
        L.addGroup(0, "opcodes");
        for (uint32_t Opc : OpcodeOfBase)
          L.addEntity(baseOpcodeName(Instrs->getName(Opc)));
        addOperandSections(L, Classes);
      });
  return T;
}

Error checkOpcodesOfTarget(const vocab::Vocabulary &V, StringRef Name) {
  const vocab::Layout &L = V.layout();
  // The Opcodes section is the first: its entities are ids [0, End). Its
  // end is found by bisection on entitySection (which a deferred layout
  // answers without being filled), not asked of every id.
  vocab::EntityId End = *llvm::partition_point(
      llvm::seq<vocab::EntityId>(0, L.size()),
      [&](vocab::EntityId Id) { return L.entitySection(Id) == 0; });
  size_t Resolved = 0, Unresolved = 0;
  for (vocab::EntityId Id = 0; Id < End; ++Id)
    Resolved += V.isPresent(Id);
  for (const std::string &K : V.unknownKeys())
    Unresolved += StringRef(K).starts_with("Opcodes.");
  if (Resolved >= Unresolved)
    return Error::success();
  return createStringError(
      inconvertibleErrorCode(),
      "%s: %zu of its %zu machine opcodes name no instruction of the %s "
      "layout: a vocabulary of another target",
      Name.str().c_str(), Unresolved, Resolved + Unresolved,
      L.description().str().c_str());
}

Expected<vocab::Vocabulary>
loadVocabulary(StringRef Path, const TargetLayout &L, const Weights &W) {
  Expected<vocab::Vocabulary> V =
      vocab::Vocabulary::load(Path, L.layout(), W.sections());
  if (!V)
    return V.takeError();
  if (Error E = checkOpcodesOfTarget(*V, Path))
    return std::move(E);
  return V;
}

Expected<TargetVocabulary> loadTargetVocabulary(StringRef Path,
                                                const TargetInstrInfo &TII,
                                                const TargetRegisterInfo &TRI,
                                                StringRef Description,
                                                const Weights &W) {
  std::shared_ptr<const TargetLayout> T;
  Expected<vocab::Vocabulary> V = vocab::Vocabulary::load(
      Path,
      [&](StringRef Tables) {
        if (!Tables.empty())
          T = TargetLayout::fromTables(Tables, TII, TRI, Description);
        if (!T)
          T = TargetLayout::create(TII, TRI, Description);
        return T->layout();
      },
      W.sections());
  if (!V)
    return V.takeError();
  if (Error E = checkOpcodesOfTarget(*V, Path))
    return std::move(E);
  return TargetVocabulary{std::move(T), std::move(*V)};
}

} // namespace irtk::mir2vec
