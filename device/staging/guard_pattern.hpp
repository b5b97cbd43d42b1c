#pragma once
// The guard bytes of host-staged buffers: DeviceBuffer's pattern (device_buffer.hip), varying with
// the position so that a kernel writing one repeated value (zero, a fill, poison) over a guard
// cannot leave it looking intact, and the scan that turns changed guard bytes into breaches.
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "device/platform/canary_report.hpp"
#include "device/staging/guarded_buffer.hpp"

namespace mlacheck {

using GuardBytes = std::array<std::byte, GuardedBuffer::kGuardBytes>;

inline constexpr GuardBytes kGuardPattern = [] {
  GuardBytes pattern{};
  for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<std::byte>((0xA5 + 0x3B * i) & 0xFF);
  return pattern;
}();

// Breaches of buffer `name` given its guards as read back (front ends at the buffer's first byte,
// back starts after its last); the same report DeviceBuffer::check_guards gives.
std::vector<CanaryBreach> guard_breaches(const std::string& name, std::span<const std::byte> front,
                                         std::span<const std::byte> back);

}  // namespace mlacheck
