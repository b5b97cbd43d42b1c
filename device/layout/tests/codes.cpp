#include "device/layout/tests/codes.hpp"

#include <stdexcept>

namespace mlacheck::layout::test {

std::vector<std::uint32_t> encode_codes(DType t, std::span<const float> values) {
  std::vector<std::uint32_t> codes(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) codes[i] = encode(t, values[i]);
  return codes;
}

std::vector<std::uint8_t> encode_bytes(DType t, std::span<const float> values) {
  const std::size_t width = storage_bytes(t);
  std::vector<std::uint8_t> bytes(values.size() * width);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint32_t code = encode(t, values[i]);
    for (std::size_t b = 0; b < width; ++b) bytes[i * width + b] = static_cast<std::uint8_t>(code >> (8 * b));
  }
  return bytes;
}

std::vector<std::uint32_t> codes_of(std::span<const std::uint8_t> bytes, std::size_t element_bytes) {
  if (element_bytes == 0 || bytes.size() % element_bytes != 0) {
    throw std::invalid_argument("codes_of: " + std::to_string(bytes.size()) + " bytes are not whole elements of " +
                                std::to_string(element_bytes));
  }
  std::vector<std::uint32_t> codes(bytes.size() / element_bytes);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    std::uint32_t code = 0;
    for (std::size_t b = 0; b < element_bytes; ++b) code |= std::uint32_t{bytes[i * element_bytes + b]} << (8 * b);
    codes[i] = code;
  }
  return codes;
}

}  // namespace mlacheck::layout::test
