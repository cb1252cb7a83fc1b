#include "common/util/metrics_request.h"

#include <cstddef>

namespace bb {

namespace {

// RFC 9110 5.6.2: tchar.
bool IsTokenChar(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return c != 0 &&
         std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

// A field value's characters: visible ASCII, space, tab and obs-text (RFC 9110 5.5).
bool IsFieldChar(unsigned char c) { return c == ' ' || c == '\t' || (c >= 0x21 && c != 0x7f); }

RequestHead Bad(std::string_view why) {
  RequestHead head;
  head.state = RequestHead::State::kBad;
  head.why = why;
  return head;
}

}  // namespace

RequestHead ParseRequestHead(std::string_view b) {
  const size_t n = b.size();
  size_t i = 0;
  RequestHead incomplete;

  // request-line = method SP request-target SP HTTP-version CRLF
  const size_t method_start = i;
  while (i < n && IsTokenChar(static_cast<unsigned char>(b[i]))) ++i;
  if (i == n) return incomplete;
  if (b[i] != ' ' || i == method_start) return Bad("the request line does not start with a method");
  const std::string_view method = b.substr(method_start, i - method_start);
  ++i;
  const size_t target_start = i;
  if (i == n) return incomplete;
  if (b[i] != '/') return Bad("the request target is not a path (\"/...\")");
  while (i<n&& static_cast<unsigned char>(b[i])> 0x20 && b[i] != 0x7f) ++i;
  if (i == n) return incomplete;
  if (b[i] != ' ') return Bad("the request target holds a control character");
  const std::string_view target = b.substr(target_start, i - target_start);
  ++i;
  constexpr std::string_view kVersion = "HTTP/1.";
  for (char expected : kVersion) {
    if (i == n) return incomplete;
    if (b[i++] != expected) return Bad("the version is not HTTP/1.x");
  }
  if (i == n) return incomplete;
  if (b[i] < '0' || b[i] > '9') return Bad("the version is not HTTP/1.x");
  ++i;
  // CRLF at i: 1 if there, 0 if the bytes end first, -1 if something else is.
  auto crlf = [&]() {
    if (i == n) return 0;
    if (b[i] != '\r') return -1;
    if (++i == n) return 0;
    if (b[i] != '\n') return -1;
    ++i;
    return 1;
  };
  if (int r = crlf(); r <= 0) {
    return r == 0 ? incomplete : Bad("the request line does not end with CRLF");
  }

  // *( field-line CRLF ) CRLF; field-line = field-name ":" OWS field-value OWS
  for (;;) {
    if (i == n) return incomplete;
    if (b[i] == '\r') break;  // the empty line
    const size_t name_start = i;
    while (i < n && IsTokenChar(static_cast<unsigned char>(b[i]))) ++i;
    if (i == n) return incomplete;
    if (b[i] != ':' || i == name_start) return Bad("a header line is not 'name: value'");
    ++i;
    while (i < n && IsFieldChar(static_cast<unsigned char>(b[i]))) ++i;
    if (int r = crlf(); r <= 0) {
      return r == 0 ? incomplete : Bad("a header line holds a control character");
    }
  }
  if (int r = crlf(); r <= 0) return r == 0 ? incomplete : Bad("a line does not end with CRLF");
  RequestHead head;
  head.state = RequestHead::State::kGood;
  head.method = method;
  head.target = target;
  return head;
}

}  // namespace bb
