// MixLog: the mix log of a customer or market emulator (docs/ARCHITECTURE.md, "Logs and the results
// directory"): one CSV row per transaction, plus START and STOP markers, written by a background
// thread so that a user never waits on the disk. The format is versioned by its first line and
// documented in postprocess/MIXLOG.md; the post-processor reads nothing else.
//
// The writer wakes every 100 ms, writes what is queued and flushes it: a killed program loses
// at most the last 100 ms of rows, and a write error (a full disk) is seen there, not at the
// end of the run. The first error goes to the owner's `on_error` at once, so that it can stop
// the run; the rows are checked per flush, never per row.
//
// Ownership: owns its file and writer thread. Thread-safety: Append and Mark from any thread;
// Close (or the destructor) once, after the last Append.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/util/status.h"

namespace bb {

// One row. `code` is a transaction's two-letter code (BV ... TC) or a marker (START, STOP).
// A plain value of fixed size: queuing one copies it and allocates nothing.
struct MixRow {
  int64_t start_us = 0;     // wall clock (µs since the Unix epoch) when the request began
  char code[6] = {};        // "TO", "START", ...
  int32_t spec_status = 0;  // the spec's status (0 ok, < 0 invalid, > 0 warning)
  uint8_t outcome = 0;      // protocol::Outcome as a number (ok, rollback, warning, ...)
  int64_t response_us = 0;  // first byte sent to last byte received, monotonic clock
  uint32_t retries = 0;     // serialization-failure/deadlock retries the server spent
  int64_t user = 0;         // emulated user (CE) or delivery connection (MEE)
  int64_t wait_us = 0;      // MEE: due-to-sent delay before delivery; CE: 0
  // CE: the request's input variant (workload::InputVariant: space-separated tokens, never a
  // comma); empty for the MEE's rows and for Data-Maintenance and Trade-Cleanup.
  char inputs[40] = {};
  // Trade-Order (CE, from the reply) and Trade-Result (MEE, from the request): the trade's id
  // (T_ID), the kit's own record of what was acknowledged for the durability recount; 0 (an
  // empty column) when not known, and for every other row.
  int64_t trade_id = 0;

  void SetCode(std::string_view c) { CopyTruncated(c, code); }
  void SetInputs(std::string_view text) { CopyTruncated(text, inputs); }

 private:
  template <std::size_t N>
  static void CopyTruncated(std::string_view from, char (&to)[N]) {
    const std::size_t n = from.size() < N - 1 ? from.size() : N - 1;
    for (std::size_t i = 0; i < N; ++i) to[i] = i < n ? from[i] : '\0';
  }
};

class MixLog {
 public:
  static constexpr std::string_view kHeader = "# brokerbench mix log v3";
  static constexpr std::string_view kColumns =
      "start_us,code,spec_status,outcome,response_us,retries,user,wait_us,inputs,trade_id";

  // Called on the writer thread, once, with the first write error ("mix log 'PATH': REASON");
  // it must not block (post to the owner's own thread).
  using ErrorHandler = std::function<void(const Status&)>;

  // Creates (truncates) the file and queues the header; starts the writer thread.
  static Result<std::unique_ptr<MixLog>> Open(const std::string& path, ErrorHandler on_error = {});
  ~MixLog();
  MixLog(const MixLog&) = delete;
  MixLog& operator=(const MixLog&) = delete;

  // Queues a row; never blocks on the disk.
  void Append(const MixRow& row);
  // Queues a START or STOP marker stamped now (wall clock).
  void Mark(std::string_view marker);
  // Writes everything queued, flushes and closes; the first write error, if any.
  Status Close();

  int64_t rows_written() const;

  // "outcome" names in the file (protocol::OutcomeName order).
  static std::string_view OutcomeName(uint8_t outcome);

 private:
  MixLog(std::FILE* file, std::string path, ErrorHandler on_error);
  void Write();
  // Writes and flushes; the error if this call met the log's first one, else Ok.
  Status WriteBatch(const std::vector<MixRow>& batch, std::string& text);

  // Written to by the writer thread alone (and by Close once it has joined it); Close sets it to
  // null under mutex_, which is how a second Close knows.
  std::FILE* file_;
  const std::string path_;
  const ErrorHandler on_error_;
  // Guards pending_, closing_, written_ and status_ (and file_'s null-ness); wake_ waits on it.
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<MixRow> pending_;  // filled by Append, swapped out by the writer
  bool closing_ = false;         // set by Close: the writer's next look is its last
  int64_t written_ = 0;          // rows and markers the writer has handed to stdio
  Status status_;                // the first write error
  std::thread writer_;           // started by Open, joined by Close
};

}  // namespace bb
