// Status and Result<T>: the error types every fallible podbench call returns.
//
// A Status is OK or carries a code and a message. Messages that concern an
// input name it as "FILE:LINE: what is wrong", so a user can go straight to
// the place. Library code reports errors through these types and never exits.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace podbench {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,  // a request that makes no sense (bad flag, bad value)
    kNotFound,         // a named thing (file, run, workload) does not exist
    kCorruption,       // input that cannot be parsed (a broken log or rule file)
    kIOError,          // the OS refused (permissions, full disk, ...)
    kFailedPrecondition,  // a valid request the current state cannot serve
    kUnimplemented,
    kInternal,         // a podbench bug
  };

  Status() = default;  // OK

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status FailedPrecondition(std::string msg) { return Status(Code::kFailedPrecondition, std::move(msg)); }
  static Status Unimplemented(std::string msg) { return Status(Code::kUnimplemented, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "Corruption: runs.log:12: unterminated string", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is prefixed by `context` + ": ".
  Status WithContext(std::string_view context) const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(v_).ok() && "Result built from an OK status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: !ok() for status() to carry an error; OK otherwise.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

  // REQUIRES: ok().
  T& value() & { assert(ok()); return std::get<T>(v_); }
  const T& value() const& { assert(ok()); return std::get<T>(v_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace podbench

// Returns early from the enclosing function when `expr` yields a non-OK Status.
#define PODBENCH_RETURN_IF_ERROR(expr)          \
  do {                                          \
    ::podbench::Status _st = (expr);            \
    if (!_st.ok()) return _st;                  \
  } while (0)

#define PODBENCH_CONCAT_INNER(a, b) a##b
#define PODBENCH_CONCAT(a, b) PODBENCH_CONCAT_INNER(a, b)
// Evaluates a Result<T> expression; on error returns its Status, else moves the value into `lhs`.
#define PODBENCH_ASSIGN_OR_RETURN(lhs, expr) \
  PODBENCH_ASSIGN_OR_RETURN_IMPL(PODBENCH_CONCAT(_res_, __LINE__), lhs, expr)
#define PODBENCH_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()
