// The --port-file of a server that listens on a system-chosen port (--listen HOST:0): the
// controller and the tests wait for this file to learn the port, so a file that cannot be
// written must stop the program at once, not leave them waiting.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/util/status.h"

namespace bb {

// Writes "PORT\n" to `path` (created or truncated) and closes it. An IoError naming `option`
// (--port-file, --metrics-port-file), the file and the system's reason (no such directory, no
// space left...) if any step fails.
Status WritePortFile(const std::string& path, uint16_t port,
                     std::string_view option = "--port-file");

}  // namespace bb
