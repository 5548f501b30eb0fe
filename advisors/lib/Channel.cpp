//===- Channel.cpp - The interactive policy's two named pipes -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Channel.h"

#include "llvm/Analysis/Utils/TrainingLogger.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace irtk::advisors {

using Clock = std::chrono::steady_clock;

static Error channelError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(), Message);
}

/// Milliseconds left until \p Deadline, for poll (0 once it has passed).
static int millisecondsLeft(Clock::time_point Deadline) {
  auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
      Deadline - Clock::now());
  // A timeout of weeks would overflow poll's int.
  return static_cast<int>(
      std::clamp<int64_t>(Left.count(), 0, std::numeric_limits<int>::max()));
}

/// write(2) with SIGPIPE held back: a host that closed its end gives EPIPE
/// here instead of killing the compiler. A SIGPIPE the write raised is
/// taken off the thread; one that was pending before is left alone.
static ssize_t writeWithoutSigpipe(int FD, const char *Data, size_t Size) {
  sigset_t Pipe, Old, Pending;
  sigemptyset(&Pipe);
  sigaddset(&Pipe, SIGPIPE);
  sigpending(&Pending);
  bool WasPending = sigismember(&Pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &Pipe, &Old);
  ssize_t N = ::write(FD, Data, Size);
  int Saved = errno;
  if (N < 0 && Saved == EPIPE && !WasPending) {
    timespec Zero = {0, 0};
    while (sigtimedwait(&Pipe, nullptr, &Zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  errno = Saved;
  return N;
}

/// The stream the logger writes the protocol to: <base>.out, non-blocking,
/// with every wait for room bounded by the timeout. The first failure is
/// kept and everything after it dropped.
class ChannelStream : public raw_ostream {
public:
  ChannelStream(std::string Path, int FD, unsigned TimeoutSeconds,
                std::string TimeoutNote)
      : Path(std::move(Path)), FD(FD), TimeoutSeconds(TimeoutSeconds),
        TimeoutNote(std::move(TimeoutNote)) {}
  ~ChannelStream() override {
    flush();
    ::close(FD);
  }

  /// The first write failure, or success.
  Error takeError() {
    if (Failure.empty())
      return Error::success();
    return channelError(Path + ": " + Failure);
  }
  bool failed() const { return !Failure.empty(); }

private:
  void write_impl(const char *Ptr, size_t Size) override {
    Clock::time_point Deadline =
        Clock::now() + std::chrono::seconds(TimeoutSeconds);
    while (Size && Failure.empty()) {
      ssize_t N = writeWithoutSigpipe(FD, Ptr, Size);
      if (N > 0) {
        Ptr += N;
        Size -= N;
        Written += N;
        continue;
      }
      if (N < 0 && errno == EINTR)
        continue;
      if (N < 0 && errno == EPIPE) {
        Failure = "the interactive host closed the channel";
      } else if (N < 0 && errno == EAGAIN) {
        pollfd P = {FD, POLLOUT, 0};
        int R = ::poll(&P, 1, millisecondsLeft(Deadline));
        if (R == 0)
          Failure = "the interactive host read nothing for " +
                    std::to_string(TimeoutSeconds) + TimeoutNote;
        else if (R < 0 && errno != EINTR)
          Failure =
              std::string("cannot wait for the host: ") + std::strerror(errno);
      } else {
        Failure = std::string("cannot write: ") + std::strerror(errno);
      }
    }
  }
  uint64_t current_pos() const override { return Written; }

  std::string Path;
  int FD;
  unsigned TimeoutSeconds;
  std::string TimeoutNote;
  uint64_t Written = 0;
  std::string Failure;
};

/// Refuses what is not a named pipe: with regular files or directories
/// LLVM's protocol would spin or wait forever.
static Error checkPipe(StringRef Path) {
  struct stat S;
  if (::stat(Path.str().c_str(), &S) != 0) {
    if (errno == ENOENT)
      return channelError(Path +
                          ": cannot open the interactive channel: no such "
                          "file (the host must create <base>.in and "
                          "<base>.out, e.g. with mkfifo)");
    return channelError(Path + ": cannot open the interactive channel: " +
                        std::strerror(errno));
  }
  if (!S_ISFIFO(S.st_mode))
    return channelError(Path + ": not a named pipe (the interactive "
                               "channel's <base>.in and <base>.out must be "
                               "FIFOs the host makes, e.g. with mkfifo)");
  return Error::success();
}

InteractiveChannel::InteractiveChannel(std::string InPath, int InFD,
                                       unsigned TimeoutSeconds,
                                       StringRef TimeoutFlag)
    : InPath(std::move(InPath)), InFD(InFD), TimeoutSeconds(TimeoutSeconds),
      TimeoutNote((" s (" + TimeoutFlag + ")").str()) {}

InteractiveChannel::~InteractiveChannel() {
  Log.reset();
  ::close(InFD);
}

Expected<std::unique_ptr<InteractiveChannel>>
InteractiveChannel::open(StringRef Base, const std::vector<TensorSpec> &Inputs,
                         const TensorSpec &Advice, unsigned TimeoutSeconds,
                         StringRef TimeoutFlag) {
  std::string In = (Base + ".in").str(), Out = (Base + ".out").str();
  for (const std::string &P : {In, Out})
    if (Error E = checkPipe(P))
      return E;

  // Neither open blocks: the read end opens at once, and the write end is
  // retried until a host reads it. So the host may open the pipes in either
  // order (LLVM's runner wants <base>.in first).
  int InFD = ::open(In.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (InFD < 0)
    return channelError(In + ": cannot open: " + std::strerror(errno));
  std::unique_ptr<InteractiveChannel> C(
      new InteractiveChannel(In, InFD, TimeoutSeconds, TimeoutFlag));
  Clock::time_point Deadline =
      Clock::now() + std::chrono::seconds(TimeoutSeconds);
  int OutFD;
  while ((OutFD = ::open(Out.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
    if (errno == EINTR)
      continue;
    if (errno != ENXIO)
      return channelError(Out + ": cannot open: " + std::strerror(errno));
    if (Clock::now() >= Deadline)
      return channelError(Out +
                          ": no interactive host opened the channel "
                          "within " +
                          Twine(TimeoutSeconds) + C->TimeoutNote);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  auto Stream = std::make_unique<ChannelStream>(Out, OutFD, TimeoutSeconds,
                                                C->TimeoutNote);
  C->Out = Stream.get();
  C->AdviceSize = Advice.getTotalTensorBufferSize();
  // The header, as llvm::InteractiveModelRunner writes it.
  C->Log = std::make_unique<Logger>(std::move(Stream), Inputs, Advice,
                                    /*IncludeReward=*/false, Advice);
  C->Log->flush();
  if (Error E = C->sent())
    return E;
  return C;
}

Error InteractiveChannel::sent() { return Out->takeError(); }

Error InteractiveChannel::switchContext(StringRef Name) {
  Log->switchContext(Name);
  Log->flush();
  return sent();
}

Expected<int64_t> InteractiveChannel::ask(ArrayRef<const void *> Buffers) {
  Log->startObservation();
  for (size_t I = 0; I < Buffers.size(); ++I)
    Log->logTensorValue(I, static_cast<const char *>(Buffers[I]));
  Log->endObservation();
  Log->flush();
  if (Error E = sent())
    return E;

  char Answer[sizeof(int64_t)] = {};
  size_t Want = std::min(AdviceSize, sizeof(Answer)), Got = 0;
  Clock::time_point Deadline =
      Clock::now() + std::chrono::seconds(TimeoutSeconds);
  while (Got < Want) {
    pollfd P = {InFD, POLLIN, 0};
    int R = ::poll(&P, 1, millisecondsLeft(Deadline));
    if (R < 0 && errno == EINTR)
      continue;
    if (R < 0)
      return channelError(InPath + ": cannot wait for the host's answer: " +
                          std::strerror(errno));
    if (R == 0)
      return channelError(InPath +
                          ": the interactive host did not answer "
                          "within " +
                          Twine(TimeoutSeconds) + TimeoutNote);
    ssize_t N = ::read(InFD, Answer + Got, Want - Got);
    if (N < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (N < 0)
      return channelError(
          InPath + ": cannot read the host's answer: " + std::strerror(errno));
    if (N == 0)
      return channelError(InPath +
                          ": the interactive host closed the "
                          "channel after " +
                          Twine(Got) + " of the answer's " + Twine(Want) +
                          " bytes");
    Got += N;
  }
  int64_t Decision;
  std::memcpy(&Decision, Answer, sizeof(Decision));
  return Decision;
}

} // namespace irtk::advisors
