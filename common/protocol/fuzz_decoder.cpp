// libFuzzer entry point for the frame decoder (built only with Clang; see CMakeLists.txt):
//   build/common/protocol/protocol_fuzz_decoder -max_total_time=60
// Any input must either decode to a message whose re-encoding is the input itself, or fail.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/protocol/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bb::protocol;
  const std::span<const uint8_t> input(data, size);
  bb::Result<Frame> frame = DecodeFrame(input);
  if (frame.ok()) {
    std::vector<uint8_t> again;
    Writer w(again);
    if (!EncodeFrame(frame->message, frame->header.request_id, w).ok()) __builtin_trap();
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) __builtin_trap();
  }
  // Also treat the input as a bare body of the type its first two bytes name.
  if (size >= 2) {
    const auto type = static_cast<MessageType>(data[0] | (data[1] << 8));
    Message message;
    (void)DecodeMessage(type, input.subspan(2), message);
  }
  return 0;
}
