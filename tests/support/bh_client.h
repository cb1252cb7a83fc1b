// A blocking client of the Brokerage House protocol, for tests and benchmarks: connect, say
// hello, send a request and wait for its reply, or send raw bytes.
//
// Ownership: owns its socket. Thread-safety: none; one client per thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/protocol/codec.h"
#include "common/util/asio.h"
#include "common/util/cli.h"
#include "common/util/status.h"
#include "common/util/stream_socket.h"

namespace bb::testing {

class BhClient {
 public:
  BhClient();
  Status Connect(const std::string& host, uint16_t port);
  Status Connect(const HostPort& address);  // TCP or unix:PATH
  // Sends a hello with this sizing; an error unless it is accepted.
  Status Hello(int64_t customers, int32_t scale_factor, int32_t initial_trade_days);
  // Sends a message and reads the reply frame to the same request id.
  Result<protocol::Message> Call(const protocol::Message& request);
  Status SendRaw(std::span<const uint8_t> bytes);
  // Half-closes: the server sees the end of the stream, and can still reply.
  void ShutdownSend();
  Result<protocol::Frame> ReadFrame();
  void Close();

 private:
  asio::io_context io_;
  StreamSocket socket_;
  uint64_t next_id_ = 1;
  std::vector<uint8_t> buffer_;
};

}  // namespace bb::testing
