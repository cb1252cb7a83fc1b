// The hello exchange (PROTOCOL.md), one rule for every link. The connecting side says Hello with
// its protocol version and the run's sizing; the accepting side answers with AnswerHello: it
// accepts when both are its own, and otherwise refuses with a reason that names the field and
// both sides' values. The connecting side reads the answer with ReadHelloAnswer, which shows the
// refusal's reason. A refused hello is the last reply on its connection.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/protocol/frame.h"
#include "common/protocol/transactions.h"
#include "common/util/status.h"

namespace bb::net {

// Who a program is, and the sizing of the run it belongs to (checked in the hello).
struct Identity {
  std::string component;  // e.g. "bb-brokerage-house 0.1.0"
  int64_t customers_total = 0;
  int32_t scale_factor = 0;
  int32_t initial_trade_days = 0;
};

protocol::Hello HelloOf(const Identity& us);

// The answer to a peer's hello: accepted when its protocol version and sizing are ours.
protocol::HelloReply AnswerHello(const protocol::Hello& hello, const Identity& us);

// Reads the answer to our hello: OK with `reply` accepted; otherwise an error saying why: the
// refusal ("X refused the hello: <reason>", kInvalidArgument, as retrying cannot help), an
// ErrorReply's text, or a frame that is no HelloReply.
Status ReadHelloAnswer(const protocol::FrameHeader& header, std::span<const uint8_t> body,
                       protocol::HelloReply& reply);

}  // namespace bb::net
