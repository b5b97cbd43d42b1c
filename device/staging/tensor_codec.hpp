#pragma once
// Host-side encoding of tensors into the bytes a kernel reads, and decoding of what it wrote.
// Both go through core's bit-exact codecs (dtype_convert.hpp), the same code the kernels run.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/dtype.hpp"

namespace mlacheck {

// Values (already values of t, or NaN) -> storage bytes of t.
std::vector<std::byte> encode_tensor(DType t, std::span<const float> values);

// The pattern output buffers of dtype t are poisoned with before a launch: a NaN of t that
// arithmetic does not produce (bf16/fp16 0x7FFF, f32 0x7FFFFFFF, fp8 fn 0x7F7F.., fnuz 0x8080..).
std::uint32_t poison_word(DType t);

struct DecodedTensor {
  std::vector<float> values;
  std::vector<std::uint8_t> unwritten;  // 1 where the element still holds the poison pattern
};
DecodedTensor decode_tensor(DType t, std::span<const std::byte> bytes);

}  // namespace mlacheck
