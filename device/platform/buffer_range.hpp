#pragma once
// The range check of a partial upload, shared by the device and host guarded buffers so both
// refuse the same ranges with the same words.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace mlacheck {

inline void check_range(const std::string& name, std::size_t offset, std::size_t bytes, std::size_t held) {
  if (offset > held || bytes > held - offset) {
    throw std::invalid_argument("upload to '" + name + "': bytes [" + std::to_string(offset) + ", " +
                                std::to_string(offset) + " + " + std::to_string(bytes) +
                                ") do not lie inside the buffer's " + std::to_string(held));
  }
}

}  // namespace mlacheck
