// The tests' reader of an emulator's end-of-run record (common/util/end_of_run_record.h,
// postprocess/MIXLOG.md): its version line checked, then key -> value. Written apart from the
// writer, as the post-processor reads it, so that a test catches a writer that drifts.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace bb::testing {

struct EndRecordFile {
  bool exists = false;
  std::string header;  // the first line
  std::map<std::string, std::string> values;
  std::string bad_lines;  // lines that are not key=value, for a failure message

  std::string operator[](const std::string& key) const {
    auto it = values.find(key);
    return it == values.end() ? "(none)" : it->second;
  }
};

inline EndRecordFile ReadEndRecordFile(const std::string& path) {
  EndRecordFile r;
  std::ifstream in(path);
  if (!in) return r;
  r.exists = true;
  std::getline(in, r.header);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) {
      r.bad_lines += line + "\n";
      continue;
    }
    r.values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return r;
}

}  // namespace bb::testing
