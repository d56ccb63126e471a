#include "base/status.h"

namespace podbench {

namespace {
const char* CodeName(Status::Code c) {
  switch (c) {
    case Status::Code::kOk: return "OK";
    case Status::Code::kInvalidArgument: return "Invalid argument";
    case Status::Code::kNotFound: return "Not found";
    case Status::Code::kCorruption: return "Corruption";
    case Status::Code::kIOError: return "I/O error";
    case Status::Code::kFailedPrecondition: return "Failed precondition";
    case Status::Code::kUnimplemented: return "Unimplemented";
    case Status::Code::kInternal: return "Internal error";
  }
  return "Unknown";
}
}  // namespace

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(code_)) + ": " + message_;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, std::string(context) + ": " + message_);
}

}  // namespace podbench
