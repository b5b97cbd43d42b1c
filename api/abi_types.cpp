#include "api/abi_types.hpp"

namespace mlacheck::api {

std::string abi_dtype_name(std::int32_t abi_code) {
  if (abi_code == MLACHECK_DTYPE_INT32) return "int32";
  if (const auto t = storage_dtype_from_abi(abi_code)) return std::string(to_string(*t));
  return "dtype code " + std::to_string(abi_code);
}

}  // namespace mlacheck::api
