#include "core/rounding_points.hpp"

#include <array>
#include <utility>

namespace mlacheck {

namespace {

constexpr std::array<std::pair<PRoundingPoint, std::string_view>, 6> kNames{{
    {PRoundingPoint::undeclared, "undeclared"},
    {PRoundingPoint::kept_f32, "f32"},
    {PRoundingPoint::to_bf16, "bf16"},
    {PRoundingPoint::to_f16, "f16"},
    {PRoundingPoint::to_q_dtype, "q_dtype"},
    {PRoundingPoint::to_mma_input, "mma_input"},
}};

bool is_16bit_float(DType t) { return t == DType::bf16 || t == DType::f16; }

ResolvedPRounding rounded_to(DType t, bool declared) {
  ResolvedPRounding r;
  r.declared = declared;
  r.dtype = t;
  r.u = t == DType::f32 ? 0.0 : unit_roundoff(t);
  r.rounded = r.u > 0.0;
  r.describe = r.rounded ? "P->" + std::string(to_string(t)) : std::string("P fp32");
  return r;
}

}  // namespace

std::string_view to_string(PRoundingPoint p) {
  for (const auto& [point, name] : kNames) {
    if (point == p) return name;
  }
  return "?";
}

std::optional<PRoundingPoint> parse_p_rounding_point(std::string_view name) {
  for (const auto& [point, text] : kNames) {
    if (text == name) return point;
  }
  return std::nullopt;
}

ResolvedPRounding resolve_p_rounding(const MlaDecodeProblem& p, PRoundingPoint point) {
  switch (point) {
    case PRoundingPoint::undeclared: {
      ResolvedPRounding r = rounded_to(p.q_dtype, false);
      r.describe = "P undeclared(as " + std::string(to_string(p.q_dtype)) + ")";
      return r;
    }
    case PRoundingPoint::kept_f32:
      return rounded_to(DType::f32, true);
    case PRoundingPoint::to_bf16:
      return rounded_to(DType::bf16, true);
    case PRoundingPoint::to_f16:
      return rounded_to(DType::f16, true);
    case PRoundingPoint::to_q_dtype:
      return rounded_to(p.q_dtype, true);
    case PRoundingPoint::to_mma_input: {
      // fp8 queries and their fp8 cache widen exactly to bf16 codes, the MMA type P is rounded to.
      if (is_fp8(p.q_dtype)) return rounded_to(DType::bf16, true);
      const DType s = is_16bit_float(p.kv_dtype) ? p.kv_dtype : p.q_dtype;
      if (s == p.q_dtype) return rounded_to(s, true);
      ResolvedPRounding r = rounded_to(s, true);
      r.split = true;
      r.u = unit_roundoff(s) * unit_roundoff(s);
      r.describe = "P=hi+lo(" + std::string(to_string(s)) + ")";
      return r;
    }
  }
  return rounded_to(p.q_dtype, false);
}

}  // namespace mlacheck
