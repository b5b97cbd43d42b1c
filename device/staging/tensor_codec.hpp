#pragma once
// Host-side encoding of tensors into the bytes a kernel reads, and decoding of what it wrote.
// Both go through core's bit-exact codecs (dtype_convert.hpp), the same code the kernels run.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/dtype.hpp"
#include "core/poison_codes.hpp"  // poison_word(t): the fill pattern of output buffers of t

namespace mlacheck {

// Values (already values of t, or NaN) -> storage bytes of t.
std::vector<std::byte> encode_tensor(DType t, std::span<const float> values);

struct DecodedTensor {
  std::vector<float> values;
  std::vector<std::uint8_t> unwritten;  // 1 where the element still holds the poison pattern
};
DecodedTensor decode_tensor(DType t, std::span<const std::byte> bytes);

}  // namespace mlacheck
