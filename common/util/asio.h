// The one way into Boost.Asio (docs/STYLE.md). Under C++20, Boost 1.74's asio.hpp fails on GCC 12
// unless <utility> comes first; this header makes sure it does. protocol/ and workload/ never
// include it.
#pragma once

#include <utility>

#include <boost/asio.hpp>

namespace bb {
namespace asio = boost::asio;
using error_code = boost::system::error_code;
}  // namespace bb
