#include "common/net/hello.h"

#include <fmt/format.h>

#include "common/protocol/codec.h"

namespace bb::net {

namespace pr = protocol;

pr::Hello HelloOf(const Identity& us) {
  return pr::Hello{pr::kProtocolVersion, us.component, us.customers_total, us.scale_factor,
                   us.initial_trade_days};
}

pr::HelloReply AnswerHello(const pr::Hello& hello, const Identity& us) {
  pr::HelloReply reply;
  reply.component = us.component;
  if (hello.protocol_version != pr::kProtocolVersion) {
    reply.reason = fmt::format("protocol version differs: {} speaks {}; {} speaks {}",
                               hello.component, hello.protocol_version, us.component,
                               pr::kProtocolVersion);
  } else if (hello.customers_total != us.customers_total ||
             hello.scale_factor != us.scale_factor ||
             hello.initial_trade_days != us.initial_trade_days) {
    reply.reason = fmt::format(
        "sizing differs: {} has customers {}, scale factor {}, initial trade days {}; {} has "
        "customers {}, scale factor {}, initial trade days {}",
        hello.component, hello.customers_total, hello.scale_factor, hello.initial_trade_days,
        us.component, us.customers_total, us.scale_factor, us.initial_trade_days);
  } else {
    reply.accepted = true;
  }
  if (reply.reason.size() > pr::width::kReason) reply.reason.resize(pr::width::kReason);
  return reply;
}

Status ReadHelloAnswer(const pr::FrameHeader& header, std::span<const uint8_t> body,
                       pr::HelloReply& reply) {
  if (header.type == pr::MessageType::kErrorReply) {
    pr::ErrorReply error;
    Status s = pr::Decode(body, error);
    return Status::InvalidArgument(fmt::format("the hello was answered with an error: {}",
                                               s.ok() ? error.text : s.message()));
  }
  if (header.type != pr::MessageType::kHelloReply) {
    return Status::InvalidArgument(
        fmt::format("a {} instead of the hello reply", pr::MessageTypeName(header.type)));
  }
  if (Status s = pr::Decode(body, reply); !s.ok()) return s.WithContext("hello reply");
  if (!reply.accepted) {
    return Status::InvalidArgument(
        fmt::format("{} refused the hello: {}", reply.component, reply.reason));
  }
  return Status::Ok();
}

}  // namespace bb::net
