#include "plan/fp8_twins.hpp"

namespace mlacheck {

std::optional<MlaDecodeProblem> e4m3fn_twin(const MlaDecodeProblem& p) {
  if (p.kv_dtype != DType::fp8_e4m3fnuz && p.q_dtype != DType::fp8_e4m3fnuz) return std::nullopt;
  MlaDecodeProblem twin = p;
  twin.name += kFp8TwinSuffix;
  if (twin.kv_dtype == DType::fp8_e4m3fnuz) twin.kv_dtype = DType::fp8_e4m3fn;
  if (twin.q_dtype == DType::fp8_e4m3fnuz) twin.q_dtype = DType::fp8_e4m3fn;
  validate(twin);
  return twin;
}

std::vector<MlaDecodeProblem> with_e4m3fn_twins(const std::vector<MlaDecodeProblem>& cases) {
  std::vector<MlaDecodeProblem> out;
  out.reserve(cases.size());
  for (const MlaDecodeProblem& p : cases) {
    out.push_back(p);
    if (std::optional<MlaDecodeProblem> twin = e4m3fn_twin(p)) out.push_back(std::move(*twin));
  }
  return out;
}

}  // namespace mlacheck
