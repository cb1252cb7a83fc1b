// Sinks for generated rows (TableSink, loader/tables.h).
//
// DatabaseSink streams each table's rows into COPY over a connection of its own, opened when
// the table's first rows arrive, so that the server parses one chunk while the generator
// builds the next. FlatFileSink writes each table's rows of one unit to a part file;
// JoinFlatFiles then concatenates the parts of every unit, in unit order, into one
// <table>.tsv per table, so the files do not depend on how the work was split.
//
// Ownership: each sink owns its connections or files. Thread-safety: none; one sink per unit
// of work, used by one thread.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "common/db/copy_writer.h"
#include "loader/tables.h"

namespace bb::loader {

class DatabaseSink : public TableSink {
 public:
  explicit DatabaseSink(std::string conninfo) : conninfo_(std::move(conninfo)) {}
  Status Append(Table table, std::string_view rows) override;
  // Ends every COPY; the first error, if any.
  Status Finish();
  int64_t bytes() const { return bytes_; }

 private:
  std::string conninfo_;
  std::array<std::unique_ptr<db::CopyWriter>, kTableCount> writers_;
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
