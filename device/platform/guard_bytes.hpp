// The guard bytes around a guarded allocation, and how a breach is found in them. Host code over
// host memory: DeviceBuffer (device_buffer.hip) copies its guards back and checks them here, and
// buffers a Python backend's caller staged itself (api/, through the harness C API) are checked
// by the same scan, so a write outside a buffer is reported the same way wherever it was staged.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "device/platform/canary_report.hpp"

namespace mlacheck {

inline constexpr std::size_t kGuardBytes = 256;

// kGuardBytes bytes that vary with the position, so a kernel that writes one repeated value
// (zero, a fill, poison) over a guard cannot leave it looking intact. Both guards hold it.
std::span<const std::byte, kGuardBytes> guard_pattern();

// Compares the guards that sat before and after `buffer` (kGuardBytes each) with the pattern:
// none, one or two breaches, with the changed byte count and the gap to the buffer's edge.
std::vector<CanaryBreach> find_guard_breaches(const std::string& buffer, std::span<const std::byte, kGuardBytes> front,
                                              std::span<const std::byte, kGuardBytes> back);

}  // namespace mlacheck
