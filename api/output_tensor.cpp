#include "api/output_tensor.hpp"

#include <cstring>

#include "api/abi_types.hpp"
#include "api/api_call.hpp"
#include "device/staging/tensor_codec.hpp"

namespace mlacheck::api {

namespace {

std::string shape_text(const std::int64_t* extents, std::size_t n) {
  std::string out = "[";
  for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(extents[i]);
  return out + "]";
}

std::string needed_text(const ExpectedShape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.extents.size(); ++i) {
    out += (i ? ", " : "") + s.names[i] + "=" + std::to_string(s.extents[i]);
  }
  return out + "]";
}

[[noreturn]] void refuse(const char* tensor, const std::string& what) {
  throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, std::string(tensor) + ": " + what);
}

}  // namespace

ReadOutput read_output(const char* tensor, const mlacheck_tensor& t, DType dtype, const ExpectedShape& shape,
                       const std::uint8_t* extra_unwritten) {
  if (t.dtype != abi_dtype(dtype)) {
    refuse(tensor, "dtype " + abi_dtype_name(t.dtype) + ", the problem needs " + std::string(to_string(dtype)));
  }
  const std::size_t rank = shape.extents.size();
  const bool rank_ok = t.ndim == static_cast<std::int32_t>(rank);
  bool shape_ok = rank_ok;
  for (std::size_t i = 0; shape_ok && i < rank; ++i) shape_ok = t.shape[i] == shape.extents[i];
  if (!shape_ok) {
    const std::size_t given = t.ndim >= 0 && t.ndim <= 4 ? static_cast<std::size_t>(t.ndim) : 0;
    refuse(tensor, "shape " + (t.ndim >= 0 && t.ndim <= 4 ? shape_text(t.shape, given)
                                                          : "of " + std::to_string(t.ndim) + " dimensions") +
                       ", the problem needs " + needed_text(shape));
  }
  std::size_t count = 1;
  for (std::int64_t e : shape.extents) count *= static_cast<std::size_t>(e);
  if (count > 0 && t.data == nullptr) refuse(tensor, "data is NULL");

  // Gather the elements in row-major order, whatever the strides, then decode them all at once.
  const std::size_t width = storage_bytes(dtype);
  std::vector<std::byte> bytes(count * width);
  const auto* base = static_cast<const std::byte*>(t.data);
  std::vector<std::int64_t> index(rank, 0);
  for (std::size_t i = 0; i < count; ++i) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < rank; ++d) offset += index[d] * t.strides[d];
    std::memcpy(bytes.data() + i * width, base + offset * static_cast<std::int64_t>(width), width);
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < shape.extents[d]) break;
      index[d] = 0;
    }
  }
  DecodedTensor decoded = decode_tensor(dtype, bytes);
  if (extra_unwritten != nullptr) {
    for (std::size_t i = 0; i < count; ++i) {
      if (extra_unwritten[i] != 0) decoded.unwritten[i] = 1;
    }
  }
  return {std::move(decoded.values), std::move(decoded.unwritten)};
}

}  // namespace mlacheck::api
