// Status: the result of a host-side check or call, with a message that says what is wrong and
// how to fix it. Every run-time argument check of the library returns one; nothing is launched
// or written when it is not ok().
//
//   if (auto s = op.can_implement(args); !s) { std::cerr << s.message() << "\n"; }
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace tessera {

enum class StatusCode {
  kSuccess = 0,
  kInvalidArgument,    // a size, pointer or leading dimension that cannot be right
  kMisaligned,         // an address or leading dimension not aligned for the chosen vector width
  kNotSupported,       // a valid problem this configuration or device does not handle
  kWorkspaceTooSmall,  // the workspace passed is smaller than workspace_size()
  kDeviceError,        // the CUDA/HIP runtime reported an error
  kInternal,           // a broken invariant of the library itself
};

constexpr std::string_view to_string(StatusCode c) {
  switch (c) {
    case StatusCode::kSuccess: return "success";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kMisaligned: return "misaligned";
    case StatusCode::kNotSupported: return "not supported";
    case StatusCode::kWorkspaceTooSmall: return "workspace too small";
    case StatusCode::kDeviceError: return "device error";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status success() { return {}; }
  static Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status misaligned(std::string m) { return {StatusCode::kMisaligned, std::move(m)}; }
  static Status not_supported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
  static Status workspace_too_small(std::string m) { return {StatusCode::kWorkspaceTooSmall, std::move(m)}; }
  static Status device_error(std::string m) { return {StatusCode::kDeviceError, std::move(m)}; }
  static Status internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kSuccess; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  // "<code>: <message>", or "success".
  std::string message() const {
    if (ok()) return "success";
    return std::string(to_string(code_)) + ": " + message_;
  }
  std::string const& detail() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kSuccess;
  std::string message_;
};

}  // namespace tessera

// Returns from the enclosing function when `expr` yields a failed Status.
#define TESSERA_RETURN_IF_ERROR(expr)        \
  do {                                       \
    ::tessera::Status _tessera_s = (expr);   \
    if (!_tessera_s.ok()) return _tessera_s; \
  } while (0)
