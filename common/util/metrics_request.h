// ParseRequestHead: the head of an HTTP/1.x request (RFC 9112: request line, header fields, the
// empty line), as the metrics server (common/util/metrics_server.h) reads it from a scraper.
// It is given every byte read so far and says kGood (the head is complete and well formed),
// kBad (a byte breaks the grammar: known as soon as it arrives, so garbage is refused at once,
// not after a timeout) or kIncomplete (well formed so far; read more).
//
// Only what the server needs is kept: the method and the request target (origin form, "/..."),
// as views into the bytes given. Header fields are checked for form and otherwise ignored
// (GET has no body; the server closes after its answer). Line ends must be CRLF.
//
// Thread-safety: a pure function.
#pragma once

#include <string_view>

namespace bb {

struct RequestHead {
  enum class State { kIncomplete, kGood, kBad };
  State state = State::kIncomplete;
  std::string_view method;  // with kGood: "GET", ...
  std::string_view target;  // with kGood: "/metrics", "/metrics?x=1", ...
  std::string_view why;     // with kBad: what broke the grammar, for the 400's body
};

RequestHead ParseRequestHead(std::string_view bytes);

}  // namespace bb
