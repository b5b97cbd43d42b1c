#pragma once
// An MlaDecodeProblem as the backend ABI's C struct (include/mlacheck/backend_abi.h), with the
// storage its pointers point into: the name, the repro string, kv_lens and q_lens live exactly as
// long as this object. Neither copyable nor movable, so the pointers cannot dangle.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"
#include "core/rounding_points.hpp"
#include "mlacheck/backend_abi.h"

namespace mlacheck {

class AbiMlaProblem {
 public:
  // Throws InvalidProblem when with_defaults(p) fails validate().
  explicit AbiMlaProblem(const MlaDecodeProblem& p);
  AbiMlaProblem(const AbiMlaProblem&) = delete;
  AbiMlaProblem& operator=(const AbiMlaProblem&) = delete;

  const mlacheck_mla_problem& get() const noexcept { return abi_; }
  const mlacheck_mla_problem* operator->() const noexcept { return &abi_; }
  // The problem it was built from, with_defaults applied.
  const MlaDecodeProblem& problem() const noexcept { return problem_; }

 private:
  MlaDecodeProblem problem_;
  std::string name_;
  std::string repro_;
  std::vector<std::int32_t> kv_lens_;
  std::vector<std::int32_t> q_lens_;
  mlacheck_mla_problem abi_{};
};

// The ABI's dtype code of t, and back (nullopt-free: an unknown code throws std::invalid_argument
// naming `what` and the code). int32 has no DType; the ABI's MLACHECK_DTYPE_INT32 is for indices.
mlacheck_dtype abi_dtype(DType t);
DType dtype_from_abi(std::int32_t code, const char* what);
// The storage dtype of an ABI code; nullopt for MLACHECK_DTYPE_INT32 and unknown codes.
std::optional<DType> storage_dtype_from_abi(std::int32_t code);

// A p_dtype declaration (backend_abi.h: mlacheck_p_rounding or MLACHECK_DTYPE_F32/BF16/F16) as
// the oracle and tolerance read it; nullopt for any other code.
std::optional<PRoundingPoint> p_rounding_from_abi(std::int32_t code);

// The ABI's path hint for p.path.
mlacheck_path_hint abi_path(DecodePath path);

// The descriptor a backend receives, recovered from its repro string (which holds every field,
// the fill mode included) and checked against the struct's other fields: a struct whose fields
// disagree with its repro throws std::invalid_argument naming the first field that differs, and a
// missing or malformed repro names that.
MlaDecodeProblem problem_from_abi(const mlacheck_mla_problem& abi);

}  // namespace mlacheck
