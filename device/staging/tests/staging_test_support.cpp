#include "device/staging/tests/staging_test_support.hpp"

#include <cstring>

namespace mlacheck::staging_test {

void write_device_raw(void* dst, const void* src, std::size_t bytes);  // staging_test_device.hip

void write_raw(GuardedBuffer& b, std::ptrdiff_t offset, std::span<const std::byte> bytes) {
  auto* dst = static_cast<std::byte*>(b.data()) + offset;
  if (b.memory() == StagingMemory::host) {
    std::memcpy(dst, bytes.data(), bytes.size());
  } else {
    write_device_raw(dst, bytes.data(), bytes.size());
  }
}

}  // namespace mlacheck::staging_test
