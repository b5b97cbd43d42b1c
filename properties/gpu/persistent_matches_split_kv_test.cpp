// The two decode paths against each other: persistent (planner + persistent kernel + reduce) and
// split-KV see the same case and must agree within the bound of two outputs each within the
// derived tolerance (output_comparison.hpp). No oracle, so the property checks the paths' own
// scheduling (work items, splits, merges) directly.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "core/mla_inputs.hpp"
#include "core/tolerance.hpp"
#include "harness/mla_case.hpp"
#include "properties/gpu/case_assertions.hpp"
#include "properties/gpu/case_limits.hpp"
#include "properties/gpu/coverage.hpp"
#include "properties/gpu/gpu_devices.hpp"
#include "properties/gpu/output_comparison.hpp"
#include "properties/gpu/property_check.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem on_path(MlaDecodeProblem p, DecodePath path) {
  p.path = path;
  return p;
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

TEST(MlaDecodeOnGpu, PersistentMatchesSplitKv) {
  if (const auto why = gpu_unavailable()) GTEST_SKIP() << *why;
  Backend* backend = gpu_backends().front();
  const std::string property = current_property();
  const bool held = check_property([&] {
    const MlaDecodeProblem p = *on_stream(gen_mla_decode_problem(kDeviceOnlyCaseLimits), 1);
    const MlaDecodeProblem persistent = on_path(p, DecodePath::persistent);
    const MlaDecodeProblem split = on_path(p, DecodePath::split_kv);
    const std::vector<std::string> buckets = mla_buckets(p, false);
    discard_if_refused(property, buckets, backend->supports(persistent));
    discard_if_refused(property, buckets, backend->supports(split));

    const MlaDecodeInputs in = make_inputs(p);
    const MlaDecodeRun a = backend->run(persistent, in, {});
    const MlaDecodeRun b = backend->run(split, in, {});
    require_clean_run(a, "persistent run");
    require_clean_run(b, "split-KV run");
    const MlaInputMagnitudes mag = input_magnitudes(p, in);
    const MlaTolerances tol = mla_decode_tolerance(p, mag.max_abs_q, mag.max_abs_kv);
    // The split-KV run's O stands in for the exact O's size in the subnormal floor.
    const Tolerance o_tol =
        between_outputs(with_subnormal_rms_floor(tol.o, p.o_dtype, root_mean_square(widen(b.out.o))));
    const Tolerance lse_tol = between_outputs(tol.lse);
    CaseResult row;
    row.repro = to_repro(persistent);
    row.path = "persistent vs split_kv (" + to_repro(split) + ")";
    row.device = backend->device_name();
    row.canaries = "ok";  // both runs' canaries were checked above
    row.tensors = {
        {"O", compare(widen(b.out.o), a.out.o, o_tol), o_tol},
        {"LSE", compare(widen(b.out.lse), a.out.lse, lse_tol), lse_tol},
    };
    const Verdict v = judge(row.tensors);
    row.state = v.state;
    row.reason = v.reason;
    require_passed(row);
    coverage().passed(property, buckets);
    tag_mla_case(p);
  });
  if (held) coverage().expect(property, all_mla_buckets(false));
}

}  // namespace
}  // namespace mlacheck
