#include "api/abi_types.hpp"

namespace mlacheck::api {

std::optional<DType> storage_dtype(std::int32_t abi_code) {
  switch (abi_code) {
    case MLACHECK_DTYPE_F32: return DType::f32;
    case MLACHECK_DTYPE_BF16: return DType::bf16;
    case MLACHECK_DTYPE_F16: return DType::f16;
    case MLACHECK_DTYPE_FP8_E4M3FN: return DType::fp8_e4m3fn;
    case MLACHECK_DTYPE_FP8_E4M3FNUZ: return DType::fp8_e4m3fnuz;
    default: return std::nullopt;
  }
}

std::string abi_dtype_name(std::int32_t abi_code) {
  if (abi_code == MLACHECK_DTYPE_INT32) return "int32";
  if (const auto t = storage_dtype(abi_code)) return std::string(to_string(*t));
  return "dtype code " + std::to_string(abi_code);
}

}  // namespace mlacheck::api
