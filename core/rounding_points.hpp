#pragma once
// Where a kernel rounds, as its backend declares it: the point that decides which oracle and which
// tolerance judge its output (docs/tolerance.md, "Declared rounding points"). A backend that
// declares nothing is judged by the generic model, which allows for any of these.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

// How the kernel feeds the softmax probabilities P to its P.V product. Every declared point also
// states that the row sum l is accumulated in fp32 from P before any rounding, and that O is
// rounded once, from fp32, to o_dtype.
enum class PRoundingPoint : std::int8_t {
  undeclared,  // nothing known: the generic model (P may be rounded to q_dtype, l may sum it)
  kept_f32,    // P stays fp32
  to_bf16,     // P rounded to bf16 for every problem
  to_f16,      // P rounded to f16 for every problem
  to_q_dtype,  // P rounded to the problem's q_dtype
  // P goes to the MMA input type S: kv_dtype when that is a 16-bit float, bf16 for fp8 queries
  // (their codes and the fp8 cache's widen to bf16 exactly), else q_dtype. When S is q_dtype or q
  // is fp8, P is rounded to it; when it is not (bf16 q with f16 kv or the reverse), P is split
  // into hi = round_S(P) and lo = round_S(P - hi), both multiplied: what is left is round_S's
  // error on P - hi, at most u_S^2 * P. The hip backend's kernels do this.
  to_mma_input,
};

std::string_view to_string(PRoundingPoint p);
// Accepts the names to_string writes; nullopt for anything else.
std::optional<PRoundingPoint> parse_p_rounding_point(std::string_view name);

// A declaration resolved for one problem.
struct ResolvedPRounding {
  bool declared = false;
  bool rounded = true;  // P loses precision before P.V (undeclared counts as rounded to q_dtype)
  bool split = false;   // hi + lo in `dtype`
  DType dtype = DType::f32;
  double u = 0.0;        // bound on P's relative rounding error: u_dtype, u_dtype^2 when split, 0 when kept
  std::string describe;  // "P->bf16", "P=hi+lo(f16)", "P fp32", "P undeclared(q_dtype bf16)"
};
ResolvedPRounding resolve_p_rounding(const MlaDecodeProblem& p, PRoundingPoint point);

}  // namespace mlacheck
