#include "common/util/port_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace bb {

namespace {
Status PortFileError(std::string_view option, const std::string& path, int error) {
  return Status::IoError(fmt::format("{} '{}': {}", option, path, std::strerror(error)));
}
}  // namespace

Status WritePortFile(const std::string& path, uint16_t port, std::string_view option) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return PortFileError(option, path, errno);
  const std::string text = fmt::format("{}\n", port);
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
    const int error = errno;
    std::fclose(f);
    return PortFileError(option, path, error);
  }
  // stdio holds the text until fclose: a full disk shows only there.
  if (std::fclose(f) != 0) return PortFileError(option, path, errno);
  return Status::Ok();
}

}  // namespace bb
