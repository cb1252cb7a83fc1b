// A text file compiled into a program by cmake/EmbedText.cmake (e.g. the schema SQL).
#pragma once

#include <string_view>

namespace bb {

struct EmbeddedFile {
  std::string_view name;  // file name without directories
  std::string_view text;  // the whole file
};

}  // namespace bb
