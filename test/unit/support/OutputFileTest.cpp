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

} // namespace
