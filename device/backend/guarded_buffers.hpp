#pragma once
// The buffers of one backend run, kept together so that every one of them is canary-checked
// after the launch and every output is poisoned before it.
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "device/backend.hpp"
#include "device/platform/device_buffer.hpp"

namespace mlacheck {

class GuardedBuffers {
 public:
  // An input: a copy of `bytes` on the device.
  template <class T>
  DeviceBuffer& input(std::string name, std::span<const T> host) {
    return buffers_.emplace_back(DeviceBuffer::from_host(std::move(name), host));
  }
  // An output (or intermediate) of `count` elements of `t`, poisoned with t's poison word so that
  // an element no kernel wrote is caught.
  DeviceBuffer& output(std::string name, DType t, std::size_t count);
  // An int32 intermediate, poisoned with 0x7FFFFFFF: an index nobody wrote is far out of range.
  DeviceBuffer& indices(std::string name, std::size_t count);
  // Every buffer whose guards a kernel overwrote.
  std::vector<BrokenCanary> broken_canaries() const;

 private:
  std::deque<DeviceBuffer> buffers_;  // deque: references stay valid as buffers are added
};

}  // namespace mlacheck
