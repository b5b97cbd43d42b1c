#pragma once
// Storage codes for the layout tests: host values (floats that are exact values of a dtype)
// encoded to the bytes a device buffer holds, and device bytes read back as one code per element,
// so a kernel is compared bitwise with its host twin. Test code, host only (no GoogleTest: the
// GPU-side runner includes it).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/dtype.hpp"

namespace mlacheck::layout::test {

// The bytes of values encoded to t, little-endian as the devices store them.
std::vector<std::uint8_t> encode_bytes(DType t, std::span<const float> values);
// The codes of values encoded to t.
std::vector<std::uint32_t> encode_codes(DType t, std::span<const float> values);
// One code per element of bytes holding elements of `element_bytes` (1, 2 or 4).
std::vector<std::uint32_t> codes_of(std::span<const std::uint8_t> bytes, std::size_t element_bytes);

}  // namespace mlacheck::layout::test
