#include "device/layout/argument_checks.hpp"

#include <cstdint>
#include <stdexcept>

namespace mlacheck::layout {

void fail_argument(std::string_view launcher, std::string_view argument, const std::string& reason) {
  throw std::invalid_argument(std::string(launcher) + ": " + std::string(argument) + " " + reason);
}

void require_pointer(std::string_view launcher, std::string_view argument, const void* pointer) {
  if (pointer == nullptr) fail_argument(launcher, argument, "is null");
}

bool is_aligned(const void* pointer, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

void require_aligned(std::string_view launcher, std::string_view argument, const void* pointer, std::size_t bytes) {
  if (!is_aligned(pointer, bytes)) {
    fail_argument(launcher, argument, "is not aligned to its " + std::to_string(bytes) + "-byte elements");
  }
}

}  // namespace mlacheck::layout
