//===- ReadFileTest.cpp - Inputs are regular files, read to their size ----===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/ReadFile.h"

#include "../TestHelpers.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>
#include <sys/stat.h>

using namespace irtk::support;
using namespace llvm;

namespace {

class ReadFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("irtk-readfile", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }
  std::string path(StringRef Name) const {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return std::string(P);
  }
  SmallString<128> Dir;
};

std::string errorOf(Expected<std::unique_ptr<MemoryBuffer>> B) {
  if (B)
    return "";
  return toString(B.takeError());
}

TEST_F(ReadFileTest, ReadsARegularFileWhole) {
  std::string P = path("m.json");
  {
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    ASSERT_FALSE(EC);
    OS << "{\"a\": 1}";
  }
  Expected<std::unique_ptr<MemoryBuffer>> B = readFile(P, "model");
  IRTK_ASSERT_OK(B);
  EXPECT_EQ((*B)->getBuffer(), "{\"a\": 1}");
}

TEST_F(ReadFileTest, AFifoIsRefusedWithoutBlocking) {
  // Opening a FIFO that no writer opens blocks: the test would hang.
  std::string P = path("fifo");
  ASSERT_EQ(::mkfifo(P.c_str(), 0600), 0);
  EXPECT_EQ(errorOf(readFile(P, "model")),
            P + ": cannot read model: not a regular file");
  std::string E = toString(checkReadable(P, "vocabulary"));
  EXPECT_EQ(E, P + ": cannot read vocabulary: not a regular file");
}

TEST_F(ReadFileTest, ADeviceIsRefusedNotReadUntilMemoryRunsOut) {
  EXPECT_EQ(errorOf(readFile("/dev/zero", "vocabulary")),
            "/dev/zero: cannot read vocabulary: not a regular file");
  EXPECT_EQ(errorOf(readFile("/dev/null", "")),
            "/dev/null: cannot read: not a regular file");
}

TEST_F(ReadFileTest, ADirectoryIsRefused) {
  EXPECT_EQ(errorOf(readFile(Dir, "log")),
            (Dir + ": cannot read log: Is a directory").str());
  EXPECT_EQ(toString(checkReadable(Dir, "log")),
            (Dir + ": cannot read log: Is a directory").str());
}

TEST_F(ReadFileTest, AMissingFileNamesTheReason) {
  std::string P = path("missing");
  EXPECT_EQ(errorOf(readFile(P, "model")),
            P + ": cannot read model: No such file or directory");
}

TEST_F(ReadFileTest, DashIsAFileNameWhereStdinIsNotAllowed) {
  ReadOptions O;
  O.AllowStdin = false;
  // No file "-" in the working directory of a test: the name is tried.
  SmallString<128> Cwd;
  ASSERT_FALSE(sys::fs::current_path(Cwd));
  ASSERT_FALSE(sys::fs::set_current_path(Dir));
  std::string E = errorOf(readFile("-", "index", O));
  ASSERT_FALSE(sys::fs::set_current_path(Cwd));
  EXPECT_EQ(E, "-: cannot read index: No such file or directory");
}

TEST_F(ReadFileTest, APrefixIsReadWithTheSameChecks) {
  std::string P = path("v.json.bin");
  {
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    OS << "IRTKVOCB and more";
  }
  Expected<std::string> Head = readFilePrefix(P, "header", 8);
  IRTK_ASSERT_OK(Head);
  EXPECT_EQ(*Head, "IRTKVOCB");
  Expected<std::string> All = readFilePrefix(P, "header", 100);
  IRTK_ASSERT_OK(All);
  EXPECT_EQ(*All, "IRTKVOCB and more");
  // A FIFO would block the open: refused before it.
  std::string F = path("fifo");
  ASSERT_EQ(::mkfifo(F.c_str(), 0600), 0);
  Expected<std::string> Fifo = readFilePrefix(F, "header", 16);
  ASSERT_FALSE(Fifo);
  EXPECT_EQ(toString(Fifo.takeError()),
            F + ": cannot read header: not a regular file");
}

TEST_F(ReadFileTest, ALinkToARegularFileIsRead) {
  std::string P = path("target"), L = path("link");
  {
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    OS << "x";
  }
  ASSERT_FALSE(sys::fs::create_link(P, L));
  Expected<std::unique_ptr<MemoryBuffer>> B = readFile(L, "model");
  IRTK_ASSERT_OK(B);
  EXPECT_EQ((*B)->getBuffer(), "x");
}

} // namespace
