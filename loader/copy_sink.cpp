#include "loader/copy_sink.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace bb::loader {

namespace fs = std::filesystem;

Status DatabaseSink::Append(Table table, std::string_view rows) {
  auto& writer = writers_[static_cast<std::size_t>(table)];
  if (writer == nullptr) {
    auto opened = db::CopyWriter::Open(conninfo_, TableName(table));
    if (!opened.ok()) return opened.status();
    writer = std::move(opened).value();
  }
  bytes_ += static_cast<int64_t>(rows.size());
  return writer->Write(rows);
}

Status DatabaseSink::Finish() {
  Status first = Status::Ok();
  for (auto& writer : writers_) {
    if (writer == nullptr) continue;
    Status s = writer->Finish();
    if (!s.ok() && first.ok()) first = s;
    writer.reset();
  }
  return first;
}

FlatFileSink::FlatFileSink(fs::path dir, int unit_index)
    : dir_(std::move(dir)), unit_index_(unit_index) {}

FlatFileSink::~FlatFileSink() = default;

Status FlatFileSink::Append(Table table, std::string_view rows) {
  auto& file = files_[static_cast<std::size_t>(table)];
  if (file == nullptr) {
    fs::path part_dir = dir_ / ".parts" / std::string(TableName(table));
    std::error_code ec;
    fs::create_directories(part_dir, ec);
    if (ec) {
      return Status::IoError(
          fmt::format("--flat-dir: cannot create '{}': {}", part_dir.string(), ec.message()));
    }
    fs::path path = part_dir / fmt::format("{:06}.tsv", unit_index_);
    file.reset(std::fopen(path.c_str(), "wb"));
    if (file == nullptr) {
      return Status::IoError(
          fmt::format("--flat-dir: cannot write '{}': {}", path.string(), std::strerror(errno)));
    }
  }
  if (std::fwrite(rows.data(), 1, rows.size(), file.get()) != rows.size()) {
    return Status::IoError(fmt::format("--flat-dir: writing {} rows failed: {}", TableName(table),
                                       std::strerror(errno)));
  }
  return Status::Ok();
}

Status FlatFileSink::Finish() {
  for (auto& file : files_) {
    if (file != nullptr && std::fflush(file.get()) != 0) {
      return Status::IoError(fmt::format("--flat-dir: {}", std::strerror(errno)));
    }
    file.reset();
  }
  return Status::Ok();
}

Status JoinFlatFiles(const fs::path& dir) {
  std::vector<char> buffer(1 << 20);
  for (Table table : AllTables()) {
    std::string name(TableName(table));
    fs::path out_path = dir / (name + ".tsv");
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(out_path.c_str(), "wb"),
                                                        &std::fclose);
    if (out == nullptr) {
      return Status::IoError(fmt::format("--flat-dir: cannot write '{}': {}", out_path.string(),
                                         std::strerror(errno)));
    }
    fs::path part_dir = dir / ".parts" / name;
    std::vector<fs::path> parts;
    std::error_code ec;
    if (fs::is_directory(part_dir, ec)) {
      for (const auto& entry : fs::directory_iterator(part_dir)) parts.push_back(entry.path());
    }
    std::sort(parts.begin(), parts.end());
    for (const auto& part : parts) {
      std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(part.c_str(), "rb"),
                                                         &std::fclose);
      if (in == nullptr) {
        return Status::IoError(fmt::format("--flat-dir: cannot read '{}'", part.string()));
      }
      std::size_t n;
      while ((n = std::fread(buffer.data(), 1, buffer.size(), in.get())) > 0) {
        if (std::fwrite(buffer.data(), 1, n, out.get()) != n) {
          return Status::IoError(fmt::format("--flat-dir: writing '{}' failed: {}",
                                             out_path.string(), std::strerror(errno)));
        }
      }
    }
  }
  std::error_code ec;
  fs::remove_all(dir / ".parts", ec);
  return Status::Ok();
}

}  // namespace bb::loader
