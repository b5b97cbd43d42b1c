#pragma once
// What the staging tests need beyond the staging API: raw writes at any offset from a buffer's
// start -- past its end included, which the API refuses on purpose -- in host or device memory,
// standing in for a backend's kernel; and a downloaded buffer read back as typed values.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "device/staging/guarded_buffer.hpp"

namespace mlacheck::staging_test {

// Writes `bytes` at data() + offset (offset may be negative or reach past the end).
void write_raw(GuardedBuffer& b, std::ptrdiff_t offset, std::span<const std::byte> bytes);

// A buffer's downloaded bytes as the values of type T they hold.
template <class T>
std::vector<T> as_vector(const std::vector<std::byte>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// Descriptor lengths as the int32 values the ABI stages them in.
inline std::vector<std::int32_t> ints(const std::vector<int>& v) { return {v.begin(), v.end()}; }

}  // namespace mlacheck::staging_test
