// Tools for tests of servers under hostile or careless peers (issue 16): raw loopback sockets
// that send bytes and never read, the process's resident memory and CPU time, a log sink that
// counts lines, and a server run in a forked child with its own descriptor limit; and the
// checks the Brokerage House and the market emulator share (bh_server_hostile_test,
// mee_hostile_test), each written once and given the server it checks.
//
// Thread-safety: none, except CountingLog's count (any thread).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <sys/types.h>

#include "common/protocol/codec.h"
#include "common/protocol/frame.h"

namespace bb::testing {

// A blocking TCP socket connected to 127.0.0.1:port (reads and sends time out after 10 s), or -1.
int ConnectLoopback(uint16_t port);
// Sends all of `bytes` (blocking); false when the peer closed, reset or stopped reading.
bool SendAll(int fd, std::span<const uint8_t> bytes);
// Reads one frame (blocking, up to 10 s); an error at the end of the stream or on a bad frame.
Result<protocol::Frame> ReadFrame(int fd, std::vector<uint8_t>& buffer);
// Whether the peer has closed: a read sees the end of the stream (or a reset) within 5 s,
// after the frames still buffered, which are skipped.
bool PeerClosed(int fd);
// The encoded frame of `message`.
std::vector<uint8_t> FrameOf(const protocol::Message& message, uint64_t request_id);
// A valid frame header alone: `type`, request id 3, `body_length`.
std::array<uint8_t, protocol::kFrameHeaderBytes> HeaderOnly(protocol::MessageType type,
                                                            uint32_t body_length);

struct Flood {
  int64_t sent = 0;             // bytes the peer took (the last frame may be partly sent)
  int64_t resident_growth = 0;  // the most this process's VmRSS grew meanwhile
};
// Sends `frame` over and over on `fd` without ever reading, until `limit` bytes are sent, 30 s
// have passed, or the peer has taken nothing for 2 s.
Flood FloodWithoutReading(int fd, std::span<const uint8_t> frame, int64_t limit);

struct Drained {
  int64_t frames = 0;  // the flood's frames, the last one completed
  int64_t errors = 0;  // ErrorReplies read before the reply to the request
  Result<protocol::Frame> reply = Status::IoError("not read");  // the reply to the request
};
// After a flood of `frame`: completes its last frame and sends `request` (request id
// `request_id`) from a thread of its own, since the peer reads on only as its replies are
// read, and meanwhile reads every reply up to the one to `request_id`.
Drained DrainFlood(int fd, std::span<const uint8_t> frame, const Flood& flood,
                   std::span<const uint8_t> request, uint64_t request_id);

// VmRSS of this process, in bytes.
int64_t ResidentBytes();
// User plus system CPU time of process `pid` so far, in seconds.
double CpuSeconds(pid_t pid);

// Makes spdlog's default logger count the lines logged (keeping the first few) while it lives.
class CountingLog {
 public:
  CountingLog();
  ~CountingLog();
  int64_t lines() const;
  std::string first_lines() const;

 private:
  class Sink;
  std::shared_ptr<Sink> sink_;
  std::shared_ptr<spdlog::logger> previous_;
};

// A server run by `serve` in a forked child whose descriptor limit is `max_files` (this
// process's limit is not touched). The child logs to `log_path`; `serve` writes the bound port
// to the file it is given and returns its exit code once stopped (SIGTERM). The destructor
// stops the child by its pid if it still runs.
class ForkedServer {
 public:
  ForkedServer(std::function<int(const std::string& port_file)> serve, int max_files,
               const std::string& log_path);
  ~ForkedServer();
  pid_t pid() const { return pid_; }
  uint16_t port() const { return port_; }
  // Sends SIGTERM and waits up to 15 s; the exit code, or -1 if it had to be killed.
  int Stop();

 private:
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string port_file_;
};

// The number of lines in a file.
int64_t CountLines(const std::string& path);

// ---- The checks every server of the kit passes (gtest expectations) ------------------------

// A server under test, as the shared checks reach it: its port and the frames that differ
// between servers.
struct HostileTarget {
  uint16_t port = 0;
  std::vector<uint8_t> hello;            // a hello it accepts (request id 1)
  std::vector<uint8_t> refused_hello;    // one it refuses (request id 1)
  std::string refusal;                   // what the refusal's reason names, e.g. "customers 2000"
  protocol::MessageType request_type{};  // a request it serves; with no body, a bad frame
  std::vector<uint8_t> request;          // a good one, request id 99
  protocol::MessageType reply_type{};    // the type of its answer
};

// 5 000 refused hellos in one write: one HelloReply that refuses naming `refusal`, then the
// connection closes; at most three log lines, one of them "hello refused".
void ExpectRefusedHelloAnsweredThenClosed(const HostileTarget& target);

// A peer that floods bad frames and never reads its error replies is not read either (its
// resident memory grows under 64 MiB, it takes less than 150 MiB); once the peer reads, every
// bad frame is answered, then its good request; at most three log lines for the connection.
void ExpectNeverReadingPeerIsNotRead(const HostileTarget& target);

// `serve` (as ForkedServer's) with its descriptor limit lowered to 64 and 100 idle peers: once
// accept has failed, the server spends under 10 % of a core over 5 s (a measurement window,
// not a wait), and says so once; once the peers close, it says once that it accepts again.
// Under 100 lines in its log at `log_path`.
void ExpectAcceptBacksOffOutOfDescriptors(std::function<int(const std::string& port_file)> serve,
                                          const std::string& log_path);

}  // namespace bb::testing
