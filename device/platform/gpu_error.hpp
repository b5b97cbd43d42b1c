// The exception every failed GPU runtime call becomes (see GPU_CHECK in gpu_check.hpp). Host-only:
// the harness catches it and records the case as ERRORED with this message.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace mlacheck {

class GpuError : public std::runtime_error {
 public:
  // device_lost: the error is sticky (illegal address, kernel trap, ...). Every later call in
  // this process fails with it, so the harness must not run further device cases.
  GpuError(const std::string& message, int code, bool device_lost);

  int code() const noexcept { return code_; }
  bool device_lost() const noexcept { return device_lost_; }

 private:
  int code_;
  bool device_lost_;
};

// "<call> failed: <error name> (<error text>) at <file>:<line>"
std::string format_gpu_error(std::string_view call, std::string_view error_name, std::string_view error_text,
                             std::string_view file, int line);

}  // namespace mlacheck
