//===- OutputFileTest.cpp - Whole output files or nothing -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/OutputFile.h"

#include "../TestHelpers.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>
#include <vector>

using namespace irtk::support;
using namespace llvm;

namespace {

/// A fresh directory, removed with everything in it at the end.
class TempDir {
public:
  TempDir() {
    EXPECT_FALSE(sys::fs::createUniqueDirectory("irtk-outputfile", Dir));
  }
  ~TempDir() { sys::fs::remove_directories(Dir); }
  std::string path(StringRef Name) const {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return std::string(P);
  }
  /// Number of entries in the directory.
  unsigned entries() const {
    std::error_code EC;
    unsigned N = 0;
    for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      ++N;
    return N;
  }

private:
  SmallString<128> Dir;
};

std::string contents(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  return B ? (*B)->getBuffer().str() : "<missing>";
}

TEST(OutputFileTest, WritesWholeFile) {
  TempDir D;
  std::string P = D.path("out.txt");
  IRTK_EXPECT_SUCCESS(writeOutputFile(P, [](raw_ostream &OS) {
    OS << "hello\n";
    return Error::success();
  }));
  EXPECT_EQ(contents(P), "hello\n");
  EXPECT_EQ(D.entries(), 1u); // No temporary left beside it.
}

TEST(OutputFileTest, FailingCallbackLeavesExistingFileAlone) {
  TempDir D;
  std::string P = D.path("out.txt");
  IRTK_EXPECT_SUCCESS(writeOutputFile(P, [](raw_ostream &OS) {
    OS << "old\n";
    return Error::success();
  }));
  Error E = writeOutputFile(P, [](raw_ostream &OS) {
    OS << "new, half written";
    return createStringError(inconvertibleErrorCode(), "input 3 failed");
  });
  EXPECT_EQ(toString(std::move(E)), "input 3 failed");
  EXPECT_EQ(contents(P), "old\n");
  EXPECT_EQ(D.entries(), 1u);
}

TEST(OutputFileTest, StreamsUntilCommit) {
  TempDir D;
  std::string P = D.path("out.txt");
  Expected<std::unique_ptr<OutputFile>> F = OutputFile::open(P);
  IRTK_ASSERT_OK(F);
  (*F)->os() << "part 1\n";
  (*F)->os().flush();
  EXPECT_FALSE(sys::fs::exists(P)); // Not in place before the commit.
  (*F)->os() << "part 2\n";
  IRTK_EXPECT_SUCCESS((*F)->commit());
  EXPECT_EQ(contents(P), "part 1\npart 2\n");
}

TEST(OutputFileTest, UncommittedFileIsDiscarded) {
  TempDir D;
  std::string P = D.path("out.txt");
  {
    Expected<std::unique_ptr<OutputFile>> F = OutputFile::open(P);
    IRTK_ASSERT_OK(F);
    (*F)->os() << "never committed\n";
  }
  EXPECT_FALSE(sys::fs::exists(P));
  EXPECT_EQ(D.entries(), 0u);
}

TEST(OutputFileTest, FullDeviceIsAnError) {
  if (!sys::fs::exists("/dev/full"))
    GTEST_FAIL() << "/dev/full is needed for this test";
  Error E = writeOutputFile("/dev/full", [](raw_ostream &OS) {
    OS << std::string(1 << 16, 'x');
    return Error::success();
  });
  EXPECT_EQ(toString(std::move(E)),
            "cannot write '/dev/full': No space left on device");
  EXPECT_TRUE(sys::fs::exists("/dev/full")); // Written in place, not replaced.
}

TEST(OutputFileTest, DirectoryIsAnError) {
  TempDir D;
  std::string P = D.path("sub");
  ASSERT_FALSE(sys::fs::create_directory(P));
  Expected<std::unique_ptr<OutputFile>> F = OutputFile::open(P);
  ASSERT_FALSE(static_cast<bool>(F));
  EXPECT_EQ(toString(F.takeError()),
            "cannot write '" + P + "': is a directory");
}

TEST(OutputFileTest, MissingDirectoryIsAnError) {
  TempDir D;
  std::string P = D.path("nodir/out.txt");
  Expected<std::unique_ptr<OutputFile>> F = OutputFile::open(P);
  ASSERT_FALSE(static_cast<bool>(F));
  std::string Msg = toString(F.takeError());
  EXPECT_EQ(StringRef(Msg).take_front(P.size() + 16),
            "cannot write '" + P + "':");
  EXPECT_NE(Msg.find("No such file or directory"), std::string::npos) << Msg;
}

/// Three files written, ready to be committed together.
static std::vector<std::unique_ptr<OutputFile>> openThree(const TempDir &D) {
  std::vector<std::unique_ptr<OutputFile>> Files;
  for (const char *Name : {"a.txt", "b.txt", "c.txt"}) {
    Expected<std::unique_ptr<OutputFile>> F = OutputFile::open(D.path(Name));
    EXPECT_TRUE(static_cast<bool>(F));
    if (!F) {
      consumeError(F.takeError());
      return {};
    }
    (*F)->os() << Name << '\n';
    Files.push_back(std::move(*F));
  }
  return Files;
}

TEST(OutputFileTest, CommitAllWritesEveryFile) {
  TempDir D;
  std::vector<std::unique_ptr<OutputFile>> Files = openThree(D);
  ASSERT_EQ(Files.size(), 3u);
  IRTK_EXPECT_SUCCESS(
      OutputFile::commitAll({Files[0].get(), Files[1].get(), Files[2].get()}));
  EXPECT_EQ(contents(D.path("a.txt")), "a.txt\n");
  EXPECT_EQ(contents(D.path("b.txt")), "b.txt\n");
  EXPECT_EQ(contents(D.path("c.txt")), "c.txt\n");
  EXPECT_EQ(D.entries(), 3u);
}

TEST(OutputFileTest, CommitAllFailingRenameLeavesNone) {
  TempDir D;
  std::vector<std::unique_ptr<OutputFile>> Files = openThree(D);
  ASSERT_EQ(Files.size(), 3u);
  // The last rename fails: a non-empty directory took c.txt's name after
  // it was opened.
  ASSERT_FALSE(sys::fs::create_directory(D.path("c.txt")));
  IRTK_EXPECT_SUCCESS(writeOutputFile(
      D.path("c.txt/keep"), [](raw_ostream &) { return Error::success(); }));
  Error E =
      OutputFile::commitAll({Files[0].get(), Files[1].get(), Files[2].get()});
  std::string Msg = toString(std::move(E));
  EXPECT_TRUE(
      StringRef(Msg).starts_with("cannot write '" + D.path("c.txt") + "': "))
      << Msg;
  EXPECT_FALSE(sys::fs::exists(D.path("a.txt")));
  EXPECT_FALSE(sys::fs::exists(D.path("b.txt")));
  EXPECT_EQ(D.entries(), 1u); // Only the directory; no temporary left.
}

TEST(OutputFileTest, CommitAllWriteErrorLeavesNone) {
  if (!sys::fs::exists("/dev/full"))
    GTEST_FAIL() << "/dev/full is needed for this test";
  TempDir D;
  std::vector<std::unique_ptr<OutputFile>> Files = openThree(D);
  ASSERT_EQ(Files.size(), 3u);
  Expected<std::unique_ptr<OutputFile>> Full = OutputFile::open("/dev/full");
  IRTK_ASSERT_OK(Full);
  (*Full)->os() << std::string(1 << 16, 'x');
  // The two files finished before /dev/full fails are discarded after their
  // streams are closed: the sanitized build (scripts/test.sh --sanitize)
  // caught discard() flushing a freed stream here.
  Error E = OutputFile::commitAll(
      {Files[0].get(), Files[1].get(), Full->get(), Files[2].get()});
  EXPECT_EQ(toString(std::move(E)),
            "cannot write '/dev/full': No space left on device");
  EXPECT_EQ(D.entries(), 0u);
}

TEST(OutputFileTest, OutputThatIsAnInputIsRefused) {
  TempDir D;
  std::string In = D.path("in.txt"), Link = D.path("link.txt");
  IRTK_EXPECT_SUCCESS(writeOutputFile(In, [](raw_ostream &OS) {
    OS << "input\n";
    return Error::success();
  }));
  ASSERT_FALSE(sys::fs::create_link(In, Link));
  // The same file under another name.
  EXPECT_EQ(toString(checkNotAnInput(Link, {"other.txt", In})),
            "cannot write '" + Link + "': it is the input '" + In + "'");
  // A new file, standard output and a device are never inputs.
  IRTK_EXPECT_SUCCESS(checkNotAnInput(D.path("new.txt"), {In}));
  IRTK_EXPECT_SUCCESS(checkNotAnInput("-", {"-", In}));
  IRTK_EXPECT_SUCCESS(checkNotAnInput("/dev/null", {"/dev/null"}));
  EXPECT_EQ(contents(In), "input\n");
}

} // namespace
