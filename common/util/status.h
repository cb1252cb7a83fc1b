// Status and Result: how errors cross a boundary (a frame on the wire, an option, a config
// file, a database call) in brokerbench. A failed Status carries a code and a message that
// names the field and the value at fault, so the caller can print or reply with it as is.
//
// Thread-safety: values; copy freely.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace bb {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input from a user, a file or a peer
  kNotFound,
  kIoError,      // files, sockets
  kDbError,      // the database refused or failed
  kUnavailable,  // a peer or the database cannot be reached
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(StatusCode::kInvalidArgument, std::move(msg));
  }
  static Status NotFound(std::string msg) { return Status(StatusCode::kNotFound, std::move(msg)); }
  static Status IoError(std::string msg) { return Status(StatusCode::kIoError, std::move(msg)); }
  static Status DbError(std::string msg) { return Status(StatusCode::kDbError, std::move(msg)); }
  static Status Unavailable(std::string msg) {
    return Status(StatusCode::kUnavailable, std::move(msg));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  // The same failure with context in front: "trades of load unit 3: 23505: ...".
  Status WithContext(std::string_view context) const {
    if (ok()) return *this;
    return Status(code_, std::string(context) + ": " + message_);
  }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}

  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Either a value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "a Result without a value needs a failed Status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace bb
