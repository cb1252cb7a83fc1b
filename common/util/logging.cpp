#include "common/util/logging.h"

#include <chrono>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace bb {

Result<std::shared_ptr<spdlog::logger>> SetUpLogging(const std::string& program,
                                                     std::string_view level,
                                                     const std::string& file) {
  std::string wanted(level);
  if (wanted.empty()) {
    const char* env = std::getenv("SPDLOG_LEVEL");
    wanted = env != nullptr ? env : "info";
  }
  auto parsed = spdlog::level::from_str(wanted);
  // from_str answers "off" for anything it does not know; only accept "off" when asked.
  if (parsed == spdlog::level::off && wanted != "off") {
    return Status::InvalidArgument(fmt::format(
        "--log-level: '{}' is not one of trace, debug, info, warn, error, off", wanted));
  }
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (!file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(file));
    } catch (const spdlog::spdlog_ex& e) {
      return Status::IoError(fmt::format("log file '{}': {}", file, e.what()));
    }
  }
  auto logger = std::make_shared<spdlog::logger>(program, sinks.begin(), sinks.end());
  logger->set_level(parsed);
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%f %n %l: %v");
  // A log file must hold what was logged when the program is killed or crashes: warnings and
  // errors at once, everything else within a second (spdlog's flusher thread, which flushes
  // every registered logger, the default one included, and is joined at exit).
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  if (!file.empty()) spdlog::flush_every(std::chrono::seconds(1));
  return logger;
}

}  // namespace bb
