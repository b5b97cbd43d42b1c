#include "device/staging/tensor_codec.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/dtype_convert.hpp"
#include "core/parallel_for.hpp"

namespace mlacheck {

namespace {

// Below this many elements a tensor is coded on the calling thread; above it, in slices of at
// least this size on the host's threads. Staging runs in the device half of a case, on the one
// thread that feeds the GPU, so a large cache coded element by element there bounds a run.
constexpr std::size_t kSliceElements = std::size_t{1} << 18;

// Calls body(begin, end) over [0, n) in slices, on the calling thread and up to the host's other
// threads. Every element is coded alone, so the bytes are the same for every split.
template <class Body>
void for_slices(std::size_t n, const Body& body) {
  const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t slices = std::clamp<std::size_t>(n / kSliceElements, 1, threads);
  const std::size_t per = (n + slices - 1) / slices;
  parallel_for(static_cast<int>(slices), static_cast<int>(slices), [&](int s, int) {
    const std::size_t begin = static_cast<std::size_t>(s) * per;
    body(begin, std::min(n, begin + per));
  });
}

template <class Code, class Encode>
void encode_as(std::span<const float> values, std::byte* out, Encode encode_one) {
  for_slices(values.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      // Little-endian hosts and GPUs: the low bytes of the code are the element.
      const auto code = static_cast<Code>(encode_one(values[i]));
      std::memcpy(out + i * sizeof(Code), &code, sizeof(Code));
    }
  });
}

}  // namespace

std::vector<std::byte> encode_tensor(DType t, std::span<const float> values) {
  std::vector<std::byte> out(values.size() * storage_bytes(t));
  std::byte* o = out.data();
  // One loop per dtype, so the codec inlines instead of dispatching on the dtype per element.
  switch (t) {
    case DType::f32: encode_as<std::uint32_t>(values, o, [](float v) { return float_bits(v); }); break;
    case DType::bf16: encode_as<std::uint16_t>(values, o, [](float v) { return encode_float<Bf16Format>(v); }); break;
    case DType::f16: encode_as<std::uint16_t>(values, o, [](float v) { return encode_float<F16Format>(v); }); break;
    case DType::fp8_e4m3fn:
      encode_as<std::uint8_t>(values, o, [](float v) { return encode_float<Fp8E4M3FnFormat>(v); });
      break;
    case DType::fp8_e4m3fnuz:
      encode_as<std::uint8_t>(values, o, [](float v) { return encode_float<Fp8E4M3FnuzFormat>(v); });
      break;
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
  for_slices(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      std::uint32_t code = 0;
      std::memcpy(&code, bytes.data() + i * width, width);
      out.values[i] = decode(t, code);
      out.unwritten[i] = code == poison ? 1 : 0;
    }
  });
  return out;
}

}  // namespace mlacheck
