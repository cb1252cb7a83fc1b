// CopyWriter: streams rows into one table with COPY ... FROM STDIN (text format) over its own
// libpq connection, in large chunks, for bulk loading. The rows must already be in COPY text
// format (loader/copy_text.h builds them).
//
// Ownership: owns one database connection for its lifetime. Thread-safety: none; one writer
// per thread. The caller decides when the data is committed: Finish() ends the COPY, which
// commits it (autocommit); destroying a writer that was not finished aborts the COPY.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/util/status.h"

namespace bb::db {

class CopyWriter {
 public:
  // Connects and starts COPY `table` FROM STDIN.
  static Result<std::unique_ptr<CopyWriter>> Open(const std::string& conninfo,
                                                  std::string_view table);
  ~CopyWriter();
  CopyWriter(const CopyWriter&) = delete;
  CopyWriter& operator=(const CopyWriter&) = delete;

  // Sends whole rows (each ending in '\n'). Blocks while the server is behind.
  Status Write(std::string_view rows);

  // Ends the COPY and reports how the server took it (an error names the table and, for bad
  // rows, the line the server stopped at).
  Status Finish();

  int64_t bytes_written() const { return bytes_; }

  struct Impl;

 private:
  explicit CopyWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  int64_t bytes_ = 0;
};

}  // namespace bb::db
