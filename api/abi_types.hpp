#pragma once
// backend_abi.h's dtype codes as the C API reads them back from callers (the problem record both
// ABIs hand out is device/staging/abi_problem.hpp's AbiMlaProblem).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"
#include "device/staging/abi_problem.hpp"
#include "mlacheck/backend_abi.h"

namespace mlacheck::api {

// "bf16", ..., "int32", or "dtype code N" for an unknown code (for messages).
std::string abi_dtype_name(std::int32_t abi_code);

}  // namespace mlacheck::api
