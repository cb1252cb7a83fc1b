// EndOfRunRecord: an emulator's totals at its end (postprocess/MIXLOG.md, "The end-of-run
// record"), for the programs that account for its requests (the post-processor's
// reconciliation, the controller, bench ce). They read this file, never the emulator's log
// lines: a log is worded for people and may change; the record is versioned by its first line.
//
//   # brokerbench end-of-run record v1
//   program=bb-customer-emulator
//   stop=duration
//   sent=12345
//   ...
//
// One "key=value" per line in the order added: a key is lower case letters, digits and '_';
// a value is one line (a line break in a text value becomes a space). The file is written
// whole to PATH.part and renamed to PATH, so it exists only once the emulator has reached its
// end, complete: a killed emulator leaves none (or a stale .part), and a reader tells "it
// stopped with these totals" from "it never got there".
//
// Ownership: a plain value that holds its text. Thread-safety: none (build it on one thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/util/status.h"

namespace bb {

class EndOfRunRecord {
 public:
  static constexpr std::string_view kHeader = "# brokerbench end-of-run record v1";

  // The record beside a mix log: "DIR/mix-ce-42.csv" -> "DIR/mix-ce-42.end" (a name without
  // ".csv" gets ".end" added).
  static std::string PathFor(std::string_view mix_log);

  void Add(std::string_view key, int64_t value);
  // Written with 3 decimals (seconds to the millisecond).
  void Add(std::string_view key, double value);
  void Add(std::string_view key, std::string_view value);
  void Add(std::string_view key, const char* value) { Add(key, std::string_view(value)); }

  // The whole file: the version line, then the lines added.
  std::string Text() const;
  // Writes Text() to PATH.part, then renames it to PATH. An IoError "end-of-run record 'PATH':
  // REASON" when a step fails (the .part is removed).
  Status Write(const std::string& path) const;

 private:
  void Line(std::string_view key, std::string_view value);

  std::string lines_;
};

}  // namespace bb
