#pragma once
// An output a caller hands in (a strided host tensor of codes), read into row-major order and
// decoded with core's codecs, each element flagged when it still holds the poison code: the same
// decode the built-in backend applies to what it downloads (device/staging/tensor_codec.hpp).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "mlacheck/backend_abi.h"

namespace mlacheck::api {

struct ExpectedShape {
  std::vector<std::int64_t> extents;
  std::vector<std::string> names;  // "total_q_tokens", ... for messages
};

struct ReadOutput {
  std::vector<float> values;
  std::vector<std::uint8_t> unwritten;
};

// Throws ApiError(MLACHECK_ERROR_INVALID_ARGUMENT) naming `tensor` ("O") and what was given vs
// what the problem needs when the dtype, rank or shape differ, or data is NULL. `extra_unwritten`
// (NULL or one flag per element, row-major) is OR-ed into the poison flags.
ReadOutput read_output(const char* tensor, const mlacheck_tensor& t, DType dtype, const ExpectedShape& shape,
                       const std::uint8_t* extra_unwritten);

}  // namespace mlacheck::api
