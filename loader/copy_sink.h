// Sinks for generated rows (TableSink, loader/tables.h).
//
// DatabaseSink streams each table's rows into COPY over a connection of its own, opened when
// the table's first rows arrive. Each table has up to kStreamsPerTable COPY streams, each with a
// bounded queue of chunks and a sender thread, and chunks go to them in turn: every backend
// keeps parsing while the generator builds the next rows, and no single backend parsing a big
// table becomes the tail of the load. The generator waits only when a queue is full (memory
// stays at a few chunks per stream). FlatFileSink writes
// each table's rows of one unit to a part file; JoinFlatFiles then concatenates the parts of every
// unit, in unit order, into one <table>.tsv per table, so the files do not depend on how the work
// was split.
//
// Ownership: each sink owns its connections or files. Thread-safety: none; one sink per unit
// of work, used by one thread.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "common/db/copy_writer.h"
#include "loader/tables.h"

namespace bb::loader {

class DatabaseSink : public TableSink {
 public:
  explicit DatabaseSink(std::string conninfo);
  ~DatabaseSink() override;
  Status Append(Table table, std::string_view rows) override;
  // Waits for every queue to drain and ends every COPY; the first error, if any.
  Status Finish();
  int64_t bytes() const { return bytes_; }

 private:
  static constexpr int kStreamsPerTable = 2;
  class TableStream;  // a queue, a sender thread and a COPY connection for one table
  std::string conninfo_;
  std::array<std::array<std::unique_ptr<TableStream>, kStreamsPerTable>, kTableCount> streams_;
  std::array<int, kTableCount> chunks_{};  // chunks appended per table, to take turns
  int64_t bytes_ = 0;
};

class FlatFileSink : public TableSink {
 public:
  // Parts go to DIR/.parts/<table>/<unit_index>.tsv (unit_index zero-padded).
  FlatFileSink(std::filesystem::path dir, int unit_index);
  ~FlatFileSink() override;
  Status Append(Table table, std::string_view rows) override;
  Status Finish();

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::filesystem::path dir_;
  int unit_index_;
  std::array<std::unique_ptr<std::FILE, FileCloser>, kTableCount> files_;
};

// Concatenates DIR/.parts/<table>/*.tsv in unit order into DIR/<table>.tsv for every table
// (an empty file for a table without rows) and removes DIR/.parts.
Status JoinFlatFiles(const std::filesystem::path& dir);

}  // namespace bb::loader
