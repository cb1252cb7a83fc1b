#include "common/util/mix_log.h"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "common/util/clock.h"

namespace bb {

namespace {
constexpr std::array<std::string_view, 8> kOutcomes = {
    "ok", "rollback", "warning", "invalid", "retry_exhausted", "db_error", "net_error", "timeout"};
}  // namespace

std::string_view MixLog::OutcomeName(uint8_t outcome) {
  return outcome < kOutcomes.size() ? kOutcomes[outcome] : "unknown";
}

Result<std::unique_ptr<MixLog>> MixLog::Open(const std::string& path, ErrorHandler on_error) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return Status::IoError(fmt::format("mix log '{}': {}", path, std::strerror(errno)));
  }
  fmt::print(f, "{}\n{}\n", kHeader, kColumns);
  return std::unique_ptr<MixLog>(new MixLog(f, path, std::move(on_error)));
}

MixLog::MixLog(std::FILE* file, std::string path, ErrorHandler on_error)
    : file_(file),
      path_(std::move(path)),
      on_error_(std::move(on_error)),
      writer_([this] { Write(); }) {}

MixLog::~MixLog() { (void)Close(); }

void MixLog::Append(const MixRow& row) {
  std::lock_guard lock(mutex_);
  pending_.push_back(row);
}

void MixLog::Mark(std::string_view marker) {
  MixRow row;
  row.start_us = WallMicros();
  row.SetCode(marker);
  Append(row);
  wake_.notify_one();
}

int64_t MixLog::rows_written() const {
  std::lock_guard lock(mutex_);
  return written_;
}

Status MixLog::WriteBatch(const std::vector<MixRow>& batch, std::string& text) {
  text.clear();
  for (const MixRow& r : batch) {
    const bool marker = std::strlen(r.code) > 2;  // START, STOP; codes have two letters
    if (marker) {
      fmt::format_to(std::back_inserter(text), "{},{},,,,,,,,\n", r.start_us, r.code);
    } else {
      fmt::format_to(std::back_inserter(text), "{},{},{},{},{},{},{},{},{},", r.start_us, r.code,
                     r.spec_status, OutcomeName(r.outcome), r.response_us, r.retries, r.user,
                     r.wait_us, r.inputs);
      if (r.trade_id != 0) fmt::format_to(std::back_inserter(text), "{}", r.trade_id);
      text.push_back('\n');
    }
  }
  // The flush costs nothing when stdio holds nothing, else one write(2) per wake-up.
  const bool failed =
      (!text.empty() && std::fwrite(text.data(), 1, text.size(), file_) != text.size()) ||
      std::fflush(file_) != 0;
  const int error = errno;
  std::lock_guard lock(mutex_);
  written_ += static_cast<int64_t>(batch.size());
  if (!failed || !status_.ok()) return Status::Ok();
  status_ = Status::IoError(fmt::format("mix log '{}': {}", path_, std::strerror(error)));
  return status_;
}

// Every 100 ms (or at close) takes what is queued and formats it into the file, outside the
// lock, so Append costs a push_back; tells the owner of the first write error.
void MixLog::Write() {
  std::vector<MixRow> batch;
  std::string text;
  for (;;) {
    bool last;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, std::chrono::milliseconds(100), [&] { return closing_; });
      batch.swap(pending_);
      last = closing_;
    }
    if (Status failed = WriteBatch(batch, text); !failed.ok() && on_error_) on_error_(failed);
    batch.clear();
    if (last) return;
  }
}

Status MixLog::Close() {
  {
    std::lock_guard lock(mutex_);
    if (file_ == nullptr) return status_;
    closing_ = true;
  }
  wake_.notify_one();
  if (writer_.joinable()) writer_.join();
  // Rows appended after the writer's last look (there should be none) are written here.
  std::vector<MixRow> rest;
  {
    std::lock_guard lock(mutex_);
    rest.swap(pending_);
  }
  std::string text;
  (void)WriteBatch(rest, text);  // an error is kept in status_, returned below
  std::lock_guard lock(mutex_);
  if (std::fclose(file_) != 0 && status_.ok()) {
    status_ = Status::IoError(fmt::format("mix log '{}': {}", path_, std::strerror(errno)));
  }
  file_ = nullptr;
  return status_;
}

}  // namespace bb
