#pragma once
// The device the hip pipeline's host-side tests prepare for: an H100's compute units, warp size and
// memory, so split counts and workspace sizes come out as on the GPU host without one.
#include <cstddef>

#include "device/platform/device_info.hpp"

namespace mlacheck {

inline DeviceInfo h100_like() {
  DeviceInfo info;
  info.name = "test device";
  info.compute_units = 132;
  info.warp_size = 32;
  info.global_memory_bytes = std::size_t{80} << 30;
  return info;
}

}  // namespace mlacheck
