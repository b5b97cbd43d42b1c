// The one property that draws shapes the backend refuses (f32 tensors, rope past 64): each must
// come back SKIPPED with supports()'s reason naming the field, never run and never PASSED. Every
// other property draws only device shapes (case_limits.hpp), so their budget goes to cases that run.
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "harness/mla_case.hpp"
#include "properties/gpu/case_limits.hpp"
#include "properties/gpu/case_assertions.hpp"
#include "properties/gpu/gpu_devices.hpp"
#include "properties/gpu/property_check.hpp"

namespace mlacheck {
namespace {

bool names_a_refused_field(const std::string& reason) {
  for (const char* field : {"q_dtype=", "kv_dtype=", "o_dtype=", "rope=", "lv="}) {
    if (reason.rfind(field, 0) == 0) return true;
  }
  return false;
}

TEST(MlaDecodeOnGpu, RefusalsAreSkippedNotPassed) {
  if (const auto why = gpu_unavailable()) GTEST_SKIP() << *why;
  Backend* backend = gpu_backends().front();
  const auto outside = rc::gen::suchThat(gen_mla_decode_problem(kRefusalCaseLimits),
                                         [](const MlaDecodeProblem& p) { return !device_shape(p); });
  check_property([&] {
    const MlaDecodeProblem p = *on_stream(outside, 5);
    const CaseResult row = run_mla_case(p, backend, "");
    if (row.state != ResultState::skipped) RC_FAIL("a shape outside the kernels' domain was not refused\n" + describe_row(row));
    RC_ASSERT(row.tensors.empty());
    if (!names_a_refused_field(row.reason)) RC_FAIL("the refusal does not name the field: " + row.reason);
  });
}

}  // namespace
}  // namespace mlacheck
