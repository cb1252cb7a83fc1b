// Logger set-up: one named spdlog logger per program (docs/STYLE.md, "Logging and measurement").
// The level comes from a flag, else from SPDLOG_LEVEL, else info.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "common/util/status.h"

namespace bb {

// Creates the program's logger writing to stderr, and to `file` too when it is not empty,
// and makes it spdlog's default. The file is flushed on every warning and error and at least
// once a second, so a killed program's file ends within a second of its last line. `level` is one
// of trace, debug, info, warn, error, off, or empty to use SPDLOG_LEVEL.
Result<std::shared_ptr<spdlog::logger>> SetUpLogging(const std::string& program,
                                                     std::string_view level,
                                                     const std::string& file = "");

}  // namespace bb
