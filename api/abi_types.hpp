#pragma once
// backend_abi.h's values and records from mlacheck's own types: dtype codes, path hints, and the
// mlacheck_mla_problem of a descriptor (the one record both ABIs hand out).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"
#include "mlacheck/backend_abi.h"

namespace mlacheck::api {

std::int32_t abi_dtype(DType t);
// The storage dtype of an ABI code; nullopt for MLACHECK_DTYPE_INT32 and unknown codes.
std::optional<DType> storage_dtype(std::int32_t abi_code);
// "bf16", ..., "int32", or "dtype code N" for an unknown code (for messages).
std::string abi_dtype_name(std::int32_t abi_code);

// An mlacheck_mla_problem with the storage its pointers point into.
struct AbiProblem {
  std::string name, repro;
  std::vector<std::int32_t> kv_lens, q_lens;
  mlacheck_mla_problem record{};
};
// Fills `out` from `p` (which must be valid). `out` must not move afterwards: record points into it.
void fill_abi_problem(const MlaDecodeProblem& p, AbiProblem& out);

}  // namespace mlacheck::api
