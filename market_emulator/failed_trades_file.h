// FailedTradesFile: <out>/failed-trades.csv, one line "trade_id,code,reason" per order the
// market emulator lost (emulator.h). Opened at the start, line-buffered so that a killed
// emulator keeps every line it wrote (block buffering lost up to 4 KiB of them on SIGKILL);
// failures are rare, so a write each costs nothing that matters. Closed by its destructor, or
// by Close to see the error.
//
// Ownership: owns its FILE. Thread-safety: none.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/util/status.h"

namespace bb::mee {

class FailedTradesFile {
 public:
  // Creates the file with its header line.
  Status Open(std::string path) {
    path_ = std::move(path);
    file_.reset(std::fopen(path_.c_str(), "w"));
    if (!file_) return Error();
    std::setvbuf(file_.get(), nullptr, _IOLBF, 0);
    return Write("trade_id,code,reason\n");
  }
  // Appends one line; an error (a full disk shows at once) names the file.
  Status Append(int64_t trade_id, std::string_view code, std::string_view reason) {
    ++lines_;
    if (!file_) return Status::Ok();
    fmt::memory_buffer line;
    fmt::format_to(std::back_inserter(line), "{},{},{}\n", trade_id, code, reason);
    return Write(std::string_view(line.data(), line.size()));
  }
  Status Close() {
    if (!file_) return Status::Ok();
    const bool ok = std::fclose(file_.release()) == 0;
    return ok ? Status::Ok() : Error();
  }
  int64_t lines() const { return lines_; }

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  Status Write(std::string_view text) {
    if (std::fwrite(text.data(), 1, text.size(), file_.get()) == text.size()) return Status::Ok();
    return Error();
  }
  Status Error() const {
    return Status::IoError(fmt::format("{}: {}", path_, std::strerror(errno)));
  }

  std::string path_;
  std::unique_ptr<std::FILE, Closer> file_;
  int64_t lines_ = 0;
};

}  // namespace bb::mee
