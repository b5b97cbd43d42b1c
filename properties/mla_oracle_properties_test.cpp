// The Eigen oracle against the plain-loop oracle: two implementations of the same definitions
// (mla_decode_reference.hpp) that share nothing but the inputs, in both rounding modes.
#include <cmath>
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/mla_inputs.hpp"
#include "generators/mla_problem_gen.hpp"
#include "properties/support/closeness.hpp"
#include "reference/mla_decode_plain.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {
namespace {

// Both accumulate in at least double over at most Lk or kv_len terms of inputs bounded by the
// data, so 1e-12 leaves three orders of magnitude above the expected ~1e-15.
constexpr double kOracleAgreement = 1e-12;

RC_GTEST_PROP(MlaOracle, EigenMatchesPlainLoops, (const MlaDecodeProblem& p)) {
  const MlaDecodeInputs in = make_inputs(p);
  const auto eigen = mla_decode_reference(p, in);
  const auto plain = mla_decode_plain(p, in);
  RC_ASSERT(max_norm_relative_error(eigen.o, plain.o) <= kOracleAgreement);
  // LSE is compared absolutely below magnitude 1 (a single score can be close to zero).
  RC_ASSERT(max_norm_relative_error(eigen.lse, plain.lse, 1.0) <= kOracleAgreement);
  RC_CLASSIFY(max_q_len(p) > 1, "multi-token");
  RC_CLASSIFY(is_fp8(p.kv_dtype), "fp8 cache");
  RC_CLASSIFY(batch(p) > 1, "batched");
}

// With P rounded, two oracles agree only if they take the same rounding decisions, so the scores
// must be exact in both: the exact fill (small integers), a power-of-two scale and kv_scale make
// every score and every s - max exact, and exp of those values rounds to the same float from
// double and long double (checked exhaustively over the reachable scores when this was written).
RC_GTEST_PROP(MlaOracle, RoundedPMatchesPlainLoops, (MlaDecodeProblem p)) {
  p.fill = FillMode::exact;
  p.profile = FillProfile::uniform;  // the shaped profiles are random fills
  p.scale = std::ldexp(1.0, -*rc::gen::inRange(2, 7));
  if (is_fp8(p.kv_dtype)) p.kv_scale = std::ldexp(1.0f, *rc::gen::inRange(-3, 2));
  const MlaDecodeInputs in = make_inputs(p);
  const auto eigen = mla_decode_reference(p, in, PRoundingPoint::to_q_dtype);
  const auto plain = mla_decode_plain(p, in, PRoundingPoint::to_q_dtype);
  RC_ASSERT(max_norm_relative_error(eigen.o, plain.o) <= kOracleAgreement);
  RC_ASSERT(max_norm_relative_error(eigen.lse, plain.lse, 1.0) <= kOracleAgreement);

  // One rounding of each P element (to float, then to q_dtype) moves O by at most
  // (u + 2^-24) * max|V|; 2u covers it for every q_dtype including f32.
  const auto exact = mla_decode_reference(p, in);
  const double max_v = 2.0 * p.kv_scale;  // exact fill: |code| <= 2
  RC_ASSERT(max_norm_relative_error(eigen.o, exact.o, max_v) <= 2.0 * unit_roundoff(p.q_dtype));
  RC_ASSERT(eigen.lse == exact.lse);
  RC_CLASSIFY(eigen.o != exact.o, "rounding moved O");
  RC_TAG(std::string(to_string(p.q_dtype)));
}

}  // namespace
}  // namespace mlacheck
