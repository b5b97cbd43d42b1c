#include "device/staging/tensor_codec.hpp"

#include <cstring>
#include <stdexcept>

namespace mlacheck {

std::vector<std::byte> encode_tensor(DType t, std::span<const float> values) {
  const std::size_t width = storage_bytes(t);
  std::vector<std::byte> out(values.size() * width);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint32_t code = encode(t, values[i]);
    // Little-endian hosts and GPUs: the low bytes of the code are the element.
    std::memcpy(out.data() + i * width, &code, width);
  }
  return out;
}

DecodedTensor decode_tensor(DType t, std::span<const std::byte> bytes) {
  const std::size_t width = storage_bytes(t);
  if (bytes.size() % width != 0) throw std::invalid_argument("decode_tensor: byte count is not a whole number of elements");
  const std::size_t n = bytes.size() / width;
  const std::uint32_t poison = poison_code(t);
  DecodedTensor out;
  out.values.resize(n);
  out.unwritten.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t code = 0;
    std::memcpy(&code, bytes.data() + i * width, width);
    out.values[i] = decode(t, code);
    out.unwritten[i] = code == poison ? 1 : 0;
  }
  return out;
}

}  // namespace mlacheck
