// Determinism: the same case run twice gives the same bits. Split merges, persistent reduces and
// atomics whose order varied between runs would show here before they showed as flaky accuracy.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "core/mla_inputs.hpp"
#include "properties/gpu/case_assertions.hpp"
#include "properties/gpu/case_limits.hpp"
#include "properties/gpu/coverage.hpp"
#include "properties/gpu/gpu_devices.hpp"
#include "properties/gpu/output_comparison.hpp"
#include "properties/gpu/property_check.hpp"

namespace mlacheck {
namespace {

TEST(MlaDecodeOnGpu, RepeatedRunsAreBitwiseEqual) {
  if (const auto why = gpu_unavailable()) GTEST_SKIP() << *why;
  const std::string property = current_property();
  Backend* backend = gpu_backends().front();
  const bool held = check_property([&] {
    const MlaDecodeProblem p = *on_stream(gen_mla_decode_problem(kDeviceOnlyCaseLimits), 2);
    const std::vector<std::string> buckets = mla_buckets(p, true);
    discard_if_refused(property, buckets, backend->supports(p));
    const MlaDecodeInputs in = make_inputs(p);
    const MlaDecodeRun first = backend->run(p, in, {});
    const MlaDecodeRun second = backend->run(p, in, {});
    require_clean_run(first, "first run");
    require_clean_run(second, "second run");
    RC_ASSERT(first.diag.path == second.diag.path);
    RC_ASSERT(bitwise_equal(first.out.o, second.out.o));
    RC_ASSERT(bitwise_equal(first.out.lse, second.out.lse));
    coverage().passed(property, buckets);
    tag_mla_case(p);
  });
  if (held) coverage().expect(property, all_mla_buckets(true));
}

}  // namespace
}  // namespace mlacheck
