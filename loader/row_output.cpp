#include "loader/row_output.h"

#include <fmt/format.h>

namespace bb::loader {

namespace {

void PutDigits(char* out, int64_t value, int width) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

}  // namespace

void TableWriter::Flush() {
  if (text_.empty()) return;
  output_.Append(table_, text_.view(), rows_ - rows_reported_);
  rows_reported_ = rows_;
  text_.Clear();
}

TableWriter& UnitOutput::Writer(Table table) {
  auto& slot = writers_[static_cast<size_t>(table)];
  if (!slot) slot = std::make_unique<TableWriter>(*this, table);
  return *slot;
}

void UnitOutput::Append(Table table, std::string_view rows, int64_t row_count) {
  if (!status_.ok()) return;  // after a failure, drop the rest: the unit is failing anyway
  Status s = sink_.Append(table, rows);
  if (!s.ok()) {
    status_ = s.WithContext(fmt::format("writing {}", TableName(table)));
    return;
  }
  if (rows_done_ != nullptr) rows_done_->fetch_add(row_count, std::memory_order_relaxed);
}

Status UnitOutput::Finish() {
  for (auto& writer : writers_) {
    if (writer) writer->Flush();
  }
  return status_;
}

void TimestampText::SetDay(int32_t day) {
  day_ = day;
  const workload::CivilDate c = workload::ToCivil(workload::Date{day});
  PutDigits(buffer_, c.year, 4);
  buffer_[4] = '-';
  PutDigits(buffer_ + 5, c.month, 2);
  buffer_[7] = '-';
  PutDigits(buffer_ + 8, c.day, 2);
  buffer_[10] = ' ';
  buffer_[13] = ':';
  buffer_[16] = ':';
  buffer_[19] = '.';
}

std::string_view TimestampText::Format(workload::Timestamp t) {
  const workload::Date d = workload::DateOf(t);
  if (d.days != day_) SetDay(d.days);
  const int64_t in_day_ms = (t.micros - workload::StartOfDay(d).micros) / 1000;
  const int64_t seconds = in_day_ms / 1000;
  PutDigits(buffer_ + 11, seconds / 3600, 2);
  PutDigits(buffer_ + 14, seconds / 60 % 60, 2);
  PutDigits(buffer_ + 17, seconds % 60, 2);
  PutDigits(buffer_ + 20, in_day_ms % 1000, 3);
  return std::string_view(buffer_, 23);
}

std::string_view TimestampText::FormatDate(workload::Date d) {
  if (d.days != day_) SetDay(d.days);
  return std::string_view(buffer_, 10);
}

workload::Timestamp WorkClock::ToTimestamp(int64_t work_ms) {
  const int64_t day = work_ms / workload::kMillisPerBusinessDay;
  if (day != work_day_) {
    work_day_ = day;
    day_start_micros_ = workload::WorkTimeToTimestamp(day * workload::kMillisPerBusinessDay).micros;
  }
  return workload::Timestamp{day_start_micros_ +
                             (work_ms - day * workload::kMillisPerBusinessDay) * 1000};
}

}  // namespace bb::loader
