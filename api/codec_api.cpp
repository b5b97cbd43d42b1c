// Codes, poison and guards for callers that stage tensors themselves: the values come from the
// code the harness uses for its own buffers (core/dtype.hpp, core/poison_codes.hpp,
// device/staging/tensor_codec.hpp, device/platform/guard_bytes.hpp), so Python never re-implements a codec or a pattern.
#include <algorithm>
#include <cstring>

#include "api/abi_types.hpp"
#include "api/api_call.hpp"
#include "core/poison_codes.hpp"
#include "device/staging/tensor_codec.hpp"
#include "device/platform/guard_bytes.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

namespace {

mlacheck::DType storage(int32_t dtype) {
  if (const auto t = mlacheck::storage_dtype_from_abi(dtype)) return *t;
  throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                 mlacheck::api::abi_dtype_name(dtype) + " is not a storage dtype (f32, bf16, f16, fp8_e4m3fn, fp8_e4m3fnuz)");
}

}  // namespace

extern "C" {

mlacheck_status mlacheck_dtype_bytes(int32_t dtype, uint32_t* bytes) {
  return api_call("mlacheck_dtype_bytes", [&] {
    require(bytes, "bytes");
    *bytes = dtype == MLACHECK_DTYPE_INT32 ? 4u : static_cast<uint32_t>(mlacheck::storage_bytes(storage(dtype)));
  });
}

mlacheck_status mlacheck_poison_word(int32_t dtype, uint32_t* word) {
  return api_call("mlacheck_poison_word", [&] { *require(word, "word") = mlacheck::poison_word(storage(dtype)); });
}

mlacheck_status mlacheck_guard_bytes(uint64_t* bytes) {
  return api_call("mlacheck_guard_bytes", [&] { *require(bytes, "bytes") = mlacheck::kGuardBytes; });
}

mlacheck_status mlacheck_guard_pattern(uint8_t* out, uint64_t size) {
  return api_call("mlacheck_guard_pattern", [&] {
    require(out, "out");
    if (size != mlacheck::kGuardBytes) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "size " + std::to_string(size) + ", the guard has " +
                                                          std::to_string(mlacheck::kGuardBytes) + " bytes");
    }
    std::memcpy(out, mlacheck::guard_pattern().data(), mlacheck::kGuardBytes);
  });
}

mlacheck_status mlacheck_decode(int32_t dtype, const void* codes, uint64_t count, float* values) {
  return api_call("mlacheck_decode", [&] {
    const mlacheck::DType t = storage(dtype);
    if (count == 0) return;
    const auto* bytes = static_cast<const std::byte*>(require(codes, "codes"));
    require(values, "values");
    const mlacheck::DecodedTensor decoded =
        mlacheck::decode_tensor(t, std::span(bytes, static_cast<std::size_t>(count) * mlacheck::storage_bytes(t)));
    std::copy(decoded.values.begin(), decoded.values.end(), values);
  });
}

mlacheck_status mlacheck_encode(int32_t dtype, const float* values, uint64_t count, void* codes) {
  return api_call("mlacheck_encode", [&] {
    const mlacheck::DType t = storage(dtype);
    if (count == 0) return;
    require(values, "values");
    auto* bytes = static_cast<std::byte*>(require(codes, "codes"));
    const std::vector<std::byte> encoded =
        mlacheck::encode_tensor(t, std::span(values, static_cast<std::size_t>(count)));
    std::copy(encoded.begin(), encoded.end(), bytes);
  });
}

}  // extern "C"
