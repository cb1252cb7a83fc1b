// UnitOutput: the rows of one generation unit on their way to a TableSink. One CopyText
// buffer per table the unit writes; a buffer is handed to the sink whenever it is Full() and
// at Finish(). Counts rows for the caller's progress counter, and remembers the sink's first
// error so that generators can stop at the next convenient point.
//
// TimestampText formats dates and timestamps into a fixed buffer (no allocation), caching the
// date part, for the hot loops of DAILY_MARKET and the trade tables.
//
// Ownership and thread-safety: a UnitOutput owns its buffers and borrows the sink and the
// counter; it is used by one thread. TimestampText is a small value, one per thread.
#pragma once

#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <memory>
#include <string_view>

#include "common/util/status.h"
#include "common/workload/calendar.h"
#include "loader/copy_text.h"
#include "loader/tables.h"

namespace bb::loader {

class UnitOutput;

// The rows of one table of a unit: fields go into text(), then EndRow().
class TableWriter {
 public:
  TableWriter(UnitOutput& output, Table table) : output_(output), table_(table) {}
  CopyText& text() { return text_; }
  // Ends the row; flushes the buffer to the sink when it is full.
  void EndRow() {
    text_.EndRow();
    ++rows_;
    if (text_.Full()) Flush();
  }
  void Flush();
  int64_t rows() const { return rows_; }

 private:
  UnitOutput& output_;
  Table table_;
  CopyText text_;
  int64_t rows_ = 0;
  int64_t rows_reported_ = 0;
};

class UnitOutput {
 public:
  UnitOutput(TableSink& sink, std::atomic<int64_t>* rows_done)
      : sink_(sink), rows_done_(rows_done) {}
  UnitOutput(const UnitOutput&) = delete;
  UnitOutput& operator=(const UnitOutput&) = delete;

  // The writer of a table, created on first use; the reference stays valid.
  TableWriter& Writer(Table table);
  // False once the sink has failed; generators check it now and then and return early.
  bool ok() const { return status_.ok(); }
  // Flushes every buffer; the sink's first error, or Ok.
  Status Finish();

 private:
  friend class TableWriter;
  void Append(Table table, std::string_view rows, int64_t row_count);

  TableSink& sink_;
  std::atomic<int64_t>* rows_done_;
  Status status_;
  std::array<std::unique_ptr<TableWriter>, kTableCount> writers_;
};

class TimestampText {
 public:
  // 'YYYY-MM-DD HH:MM:SS.mmm' (milliseconds; generated times carry no finer part).
  std::string_view Format(workload::Timestamp t);
  // 'YYYY-MM-DD'.
  std::string_view FormatDate(workload::Date d);

 private:
  void SetDay(int32_t day);

  int32_t day_ = INT32_MIN;
  char buffer_[24] = {};
};

// Maps work time (ms since the start of initial trading) to calendar time like
// workload::WorkTimeToTimestamp, caching the start of the current business day.
class WorkClock {
 public:
  workload::Timestamp ToTimestamp(int64_t work_ms);

 private:
  int64_t work_day_ = -1;
  int64_t day_start_micros_ = 0;
};

}  // namespace bb::loader
