#include "loader/copy_sink.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace bb::loader {

namespace fs = std::filesystem;

// One table of a DatabaseSink: the generator pushes chunks, the sender thread writes them to
// COPY. A failed COPY is remembered; later pushes are dropped and Finish reports it.
class DatabaseSink::TableStream {
 public:
  static constexpr std::size_t kMaxQueued = 4;  // chunks of about 256 KiB

  TableStream(std::string conninfo, Table table)
      : conninfo_(std::move(conninfo)), table_(table), sender_([this] { Send(); }) {}

  ~TableStream() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
  }  // sender_ (a jthread) joins here, after draining the queue

  Status Push(std::string_view rows) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < kMaxQueued || !status_.ok(); });
    if (!status_.ok()) return status_;
    std::string chunk;
    if (!spare_.empty()) {
      chunk = std::move(spare_.back());
      spare_.pop_back();
    }
    chunk.assign(rows);
    queue_.push_back(std::move(chunk));
    changed_.notify_all();
    return Status::Ok();
  }

  // Waits until everything queued is sent, then ends the COPY.
  Status Finish() {
    std::unique_lock lock(mutex_);
    closing_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return finished_; });
    return status_;
  }

 private:
  void Send() {
    std::unique_ptr<db::CopyWriter> writer;
    for (;;) {
      std::string chunk;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return !queue_.empty() || closing_; });
        if (queue_.empty()) break;  // closing and drained
        chunk = std::move(queue_.front());
        queue_.pop_front();
        changed_.notify_all();
      }
      Status s = Status::Ok();
      if (writer == nullptr) {
        auto opened = db::CopyWriter::Open(conninfo_, TableName(table_));
        if (opened.ok()) {
          writer = std::move(opened).value();
        } else {
          s = opened.status();
        }
      }
      if (s.ok()) s = writer->Write(chunk);
      std::lock_guard lock(mutex_);
      if (!s.ok() && status_.ok()) status_ = s;
      if (spare_.size() < kMaxQueued) spare_.push_back(std::move(chunk));
      if (!status_.ok()) break;
    }
    Status end = writer != nullptr && status_.ok() ? writer->Finish() : Status::Ok();
    writer.reset();  // aborts a COPY that failed
    std::lock_guard lock(mutex_);
    if (!end.ok() && status_.ok()) status_ = end;
    finished_ = true;
    changed_.notify_all();
  }

  const std::string conninfo_;
  const Table table_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> queue_;
  std::vector<std::string> spare_;  // emptied chunks, reused to avoid allocating
  bool closing_ = false;
  bool finished_ = false;
  Status status_;
  std::jthread sender_;  // last: starts after the members above exist
};

DatabaseSink::DatabaseSink(std::string conninfo) : conninfo_(std::move(conninfo)) {}
DatabaseSink::~DatabaseSink() = default;

Status DatabaseSink::Append(Table table, std::string_view rows) {
  const auto t = static_cast<std::size_t>(table);
  auto& stream = streams_[t][chunks_[t]++ % kStreamsPerTable];
  if (stream == nullptr) stream = std::make_unique<TableStream>(conninfo_, table);
  bytes_ += static_cast<int64_t>(rows.size());
  return stream->Push(rows);
}

Status DatabaseSink::Finish() {
  Status first = Status::Ok();
  for (auto& table_streams : streams_) {
    for (auto& stream : table_streams) {
      if (stream == nullptr) continue;
      Status s = stream->Finish();
      if (!s.ok() && first.ok()) first = s;
      stream.reset();
    }
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
