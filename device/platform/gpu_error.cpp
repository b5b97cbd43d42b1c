#include "device/platform/gpu_error.hpp"

namespace mlacheck {

GpuError::GpuError(const std::string& message, int code, bool device_lost)
    : std::runtime_error(message), code_(code), device_lost_(device_lost) {}

std::string format_gpu_error(std::string_view call, std::string_view error_name, std::string_view error_text,
                             std::string_view file, int line) {
  std::string message;
  message.append(call).append(" failed: ").append(error_name);
  message.append(" (").append(error_text).append(") at ").append(file);
  message.append(":").append(std::to_string(line));
  return message;
}

}  // namespace mlacheck
