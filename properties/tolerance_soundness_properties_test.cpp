// The tight rule's soundness on the problems the GPU properties draw, without a GPU: the kernel
// arithmetic model (reference/kernel_arithmetic_model.hpp: a correct fp32-accumulating kernel with P
// rounded where the hip backend declares it, to_mma_input) must pass the tight O and LSE bounds on
// every device-shape problem of the property generator, profiles, exact fills, tiny scales and
// padded rows included. The H100 sitting of 2026-11-25 found four false alarms on such problems
// that the narrower draw of harness/tests/kernel_arithmetic_model_test.cpp never made.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <string>

#include "core/compare.hpp"
#include "core/mla_inputs.hpp"
#include "core/tolerance.hpp"
#include "generators/mla_problem_gen.hpp"
#include "reference/kernel_arithmetic_model.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {
namespace {

// Elements of `actual` outside |a - e| <= abs + rel |e|; equal values (the -inf LSE of an empty
// row) are within.
int outside(const std::vector<double>& expected, const std::vector<float>& actual, const Tolerance& t) {
  int n = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double a = actual[i];
    if (a == expected[i]) continue;
    if (!(std::abs(a - expected[i]) <= t.abs + t.rel * std::abs(expected[i]))) ++n;
  }
  return n;
}

RC_GTEST_PROP(TightToleranceSoundness, TheKernelModelPassesEveryDeviceShapeProblem, ()) {
  MlaGenLimits limits;
  limits.device_shapes_only = true;
  limits.max_oracle_flops = 2e7;  // the model costs about what the oracle does
  const MlaDecodeProblem p = *gen_mla_decode_problem(limits);
  const MlaDecodeInputs in = make_inputs(p);
  MlaErrorScales scales;
  const MlaDecodeOutputs<double> exact = mla_decode_reference(p, in, PRoundingPoint::kept_f32, &scales);
  const MlaTolerances tol = mla_decode_tolerance(p, scales, PRoundingPoint::to_mma_input);
  const MlaDecodeOutputs<double> expected = faithful_oracle(p, tol, exact);
  const MlaDecodeOutputs<float> actual = kernel_arithmetic_model(p, in);
  const CompareStats o = compare(expected.o, actual.o, tol.o);
  RC_LOG() << "O rms " << o.rms_rel_err << " bound " << tol.o.rms << "; " << tol.o.rule << "\n";
  RC_ASSERT(o.nonfinite == 0u);
  RC_ASSERT(o.mismatches == 0u);
  RC_ASSERT(o.rms_rel_err <= tol.o.rms);
  RC_ASSERT(outside(expected.lse, actual.lse, tol.lse) == 0);
}

}  // namespace
}  // namespace mlacheck
