#include "common/util/end_of_run_record.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

namespace bb {

namespace {

bool IsKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

Status RecordError(const std::string& path, int error) {
  return Status::IoError(fmt::format("end-of-run record '{}': {}", path, std::strerror(error)));
}

}  // namespace

std::string EndOfRunRecord::PathFor(std::string_view mix_log) {
  constexpr std::string_view kCsv = ".csv";
  if (mix_log.size() > kCsv.size() && mix_log.substr(mix_log.size() - kCsv.size()) == kCsv) {
    mix_log.remove_suffix(kCsv.size());
  }
  return fmt::format("{}.end", mix_log);
}

void EndOfRunRecord::Add(std::string_view key, int64_t value) {
  Line(key, fmt::format("{}", value));
}

void EndOfRunRecord::Add(std::string_view key, double value) {
  Line(key, fmt::format("{:.3f}", value));
}

void EndOfRunRecord::Add(std::string_view key, std::string_view value) {
  std::string one_line(value);
  for (char& c : one_line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  Line(key, one_line);
}

// Keys are the program's own constants: a bad one is a programming error, made visible in the
// file (and by the unit test) rather than silently dropped.
void EndOfRunRecord::Line(std::string_view key, std::string_view value) {
  fmt::format_to(std::back_inserter(lines_), "{}={}\n", IsKey(key) ? key : "bad_key", value);
}

std::string EndOfRunRecord::Text() const { return fmt::format("{}\n{}", kHeader, lines_); }

Status EndOfRunRecord::Write(const std::string& path) const {
  const std::string part = path + ".part";
  const std::string text = Text();
  std::FILE* f = std::fopen(part.c_str(), "w");
  if (f == nullptr) return RecordError(path, errno);
  int error = 0;
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) error = errno;
  // stdio holds the text until fclose: a full disk shows only there.
  if (std::fclose(f) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(part.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    std::remove(part.c_str());
    return RecordError(path, error);
  }
  return Status::Ok();
}

}  // namespace bb
