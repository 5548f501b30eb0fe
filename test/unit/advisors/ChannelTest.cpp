//===- ChannelTest.cpp - The interactive channel against hostile hosts ----===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "../../../advisors/lib/Channel.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace irtk::advisors;

namespace {

/// A fresh directory with <dir>/ch.in and <dir>/ch.out as named pipes.
class ChannelTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("irtk-channel", Dir));
    Base = (Dir + "/ch").str();
    ASSERT_EQ(::mkfifo((Base + ".in").c_str(), 0600), 0);
    ASSERT_EQ(::mkfifo((Base + ".out").c_str(), 0600), 0);
  }
  // sys::fs::remove refuses named pipes: unlink them.
  void TearDown() override {
    ::unlink((Base + ".in").c_str());
    ::unlink((Base + ".out").c_str());
    sys::fs::remove_directories(Dir);
  }

  Expected<std::unique_ptr<InteractiveChannel>> open(unsigned Timeout = 60) {
    return InteractiveChannel::open(
        Base, {TensorSpec::createSpec<int64_t>("x", {1})},
        TensorSpec::createSpec<int64_t>("decision", {1}), Timeout, "-timeout");
  }

  SmallString<128> Dir;
  std::string Base;
};

/// A host that writes \p Stream to <base>.in in chunks of random sizes, then
/// closes it, while it reads and drops whatever the compiler sends.
std::thread serve(const std::string &Base, std::string Stream, unsigned Seed) {
  return std::thread([=] {
    // A compiler gone early makes our writes fail, not kill the test.
    sigset_t Pipe;
    sigemptyset(&Pipe);
    sigaddset(&Pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &Pipe, nullptr);
    int In = ::open((Base + ".in").c_str(), O_WRONLY);
    int Out = ::open((Base + ".out").c_str(), O_RDONLY);
    std::thread Drain([Out] {
      char Buf[4096];
      while (::read(Out, Buf, sizeof(Buf)) > 0) {
      }
      ::close(Out);
    });
    std::mt19937 Rng(Seed);
    for (size_t At = 0; At < Stream.size();) {
      size_t N = std::min<size_t>(1 + Rng() % 11, Stream.size() - At);
      if (::write(In, Stream.data() + At, N) != static_cast<ssize_t>(N))
        break;
      At += N;
      if (Rng() % 4 == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::close(In);
    Drain.join();
  });
}

TEST_F(ChannelTest, EveryCutOfTheAnswersIsAnErrorNeverAHang) {
  // Property: for answers cut after any byte, the channel returns each
  // complete answer and then one error saying how much of the next came.
  std::mt19937 Rng(7);
  for (unsigned Trial = 0; Trial < 40; ++Trial) {
    size_t Answers = 1 + Rng() % 4;
    std::string Stream;
    std::vector<int64_t> Values;
    for (size_t I = 0; I < Answers; ++I) {
      int64_t V = static_cast<int64_t>(Rng()) - (1 << 30);
      Values.push_back(V);
      Stream.append(reinterpret_cast<const char *>(&V), sizeof(V));
    }
    size_t Cut = Rng() % (Stream.size() + 1);
    std::thread Host = serve(Base, Stream.substr(0, Cut), Trial);
    auto C = open();
    // A failed check must not leave the host thread joinable (that ends
    // the process): closing the channel lets it finish; without a channel
    // it waits for one forever, so it is left behind.
    llvm::scope_exit Finish([&] {
      if (C) {
        C->reset();
        Host.join();
      } else {
        Host.detach();
      }
    });
    ASSERT_TRUE(static_cast<bool>(C)) << toString(C.takeError());
    int64_t X = 0;
    const void *Buffers[] = {&X};
    size_t Whole = Cut / 8;
    for (size_t I = 0; I <= Whole && I < Answers; ++I) {
      Expected<int64_t> D = (*C)->ask(Buffers);
      if (I < Whole) {
        ASSERT_TRUE(static_cast<bool>(D)) << toString(D.takeError());
        EXPECT_EQ(*D, Values[I]);
        continue;
      }
      ASSERT_FALSE(static_cast<bool>(D)) << "trial " << Trial;
      std::string Msg = toString(D.takeError());
      EXPECT_NE(Msg.find("the interactive host closed the channel"),
                std::string::npos)
          << Msg;
      if (Cut % 8) {
        EXPECT_NE(Msg.find("after " + std::to_string(Cut % 8) +
                           " of the answer's 8 bytes"),
                  std::string::npos)
            << Msg;
      }
    }
  }
}

TEST_F(ChannelTest, AHostThatClosesAfterTheHeaderIsAnErrorNotSigpipe) {
  std::thread Host([&] {
    int In = ::open((Base + ".in").c_str(), O_WRONLY);
    int Out = ::open((Base + ".out").c_str(), O_RDONLY);
    char C;
    while (::read(Out, &C, 1) == 1 && C != '\n') {
    }
    ::close(Out);
    ::close(In);
  });
  auto Ch = open();
  if (!Ch)
    Host.detach(); // It waits for a channel forever.
  ASSERT_TRUE(static_cast<bool>(Ch)) << toString(Ch.takeError());
  Host.join();
  // The host is gone: the write fails with EPIPE (SIGPIPE would end this
  // test process) or the answer never comes; either is an error.
  int64_t X = 0;
  const void *Buffers[] = {&X};
  Expected<int64_t> D = (*Ch)->ask(Buffers);
  ASSERT_FALSE(static_cast<bool>(D));
  EXPECT_NE(toString(D.takeError()).find("closed the channel"),
            std::string::npos);
}

TEST_F(ChannelTest, NoHostIsAnErrorAfterTheTimeout) {
  auto C = open(/*Timeout=*/1);
  ASSERT_FALSE(static_cast<bool>(C));
  EXPECT_NE(toString(C.takeError())
                .find("ch.out: no interactive host opened the channel "
                      "within 1 s (-timeout)"),
            std::string::npos);
}

TEST_F(ChannelTest, PipesMustBeFifos) {
  ASSERT_EQ(::unlink((Base + ".in").c_str()), 0);
  int FD;
  ASSERT_FALSE(sys::fs::openFileForWrite(Base + ".in", FD));
  ::close(FD);
  auto C = open();
  ASSERT_FALSE(static_cast<bool>(C));
  EXPECT_NE(toString(C.takeError()).find("ch.in: not a named pipe"),
            std::string::npos);
}

} // namespace
