#pragma once
// What the staging tests need beyond the staging API: raw writes at any offset from a buffer's
// start -- past its end included, which the API refuses on purpose -- in host or device memory,
// standing in for a backend's kernel.
#include <cstddef>
#include <span>

#include "device/staging/guarded_buffer.hpp"

namespace mlacheck::staging_test {

// Writes `bytes` at data() + offset (offset may be negative or reach past the end).
void write_raw(GuardedBuffer& b, std::ptrdiff_t offset, std::span<const std::byte> bytes);

}  // namespace mlacheck::staging_test
