#include "device/backend/guarded_buffers.hpp"

#include "device/backend/tensor_codec.hpp"
#include "device/platform/poison.hpp"

namespace mlacheck {

DeviceBuffer& GuardedBuffers::output(std::string name, DType t, std::size_t count) {
  DeviceBuffer& b = buffers_.emplace_back(std::move(name), count * storage_bytes(t));
  const std::uint32_t word = poison_word(t);
  switch (storage_bytes(t)) {
    case 1: b.poison(static_cast<std::uint8_t>(word)); break;
    case 2: b.poison(static_cast<std::uint16_t>(word)); break;
    default: b.poison(word); break;
  }
  return b;
}

DeviceBuffer& GuardedBuffers::indices(std::string name, std::size_t count) {
  DeviceBuffer& b = buffers_.emplace_back(std::move(name), count * sizeof(std::int32_t));
  b.poison(kPoison32);
  return b;
}

std::vector<BrokenCanary> GuardedBuffers::broken_canaries() const {
  std::vector<const DeviceBuffer*> all;
  for (const DeviceBuffer& b : buffers_) all.push_back(&b);
  std::vector<BrokenCanary> out;
  for (const CanaryBreach& breach : verify_canaries(std::span<const DeviceBuffer* const>(all)).breaches) {
    out.push_back({breach.buffer, breach.side == GuardSide::front ? "before" : "after"});
  }
  return out;
}

}  // namespace mlacheck
