// Tensor parallelism: the ranks of a model, each run as the device runs one rank (its slice of the
// heads, padded to 16 when it has fewer), concatenated in rank order, equal the oracle's output
// for the whole model. A rank that pads, un-pads or plans with the wrong head count, or reads
// another rank's q, lands its heads in the wrong place here.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "core/mla_inputs.hpp"
#include "core/tolerance.hpp"
#include "harness/device_outcome.hpp"
#include "harness/mla_case.hpp"
#include "properties/gpu/case_assertions.hpp"
#include "properties/gpu/case_limits.hpp"
#include "properties/gpu/coverage.hpp"
#include "properties/gpu/gpu_devices.hpp"
#include "properties/gpu/property_check.hpp"
#include "properties/gpu/tensor_parallel_ranks.hpp"
#include "properties/support/mla_case_edits.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {
namespace {

TEST(MlaDecodeOnGpu, TensorParallelRanksConcatenateToModel) {
  if (const auto why = gpu_unavailable()) GTEST_SKIP() << *why;
  const std::string property = current_property();
  const bool held = check_property([&] {
    const MlaDecodeProblem p = *gen_mla_decode_problem(kTensorParallelCaseLimits);
    RC_PRE(p.tp > 1);
    const std::vector<std::string> buckets = mla_buckets(p, true);
    // Every rank has the same shape, so one answer holds for all of them.
    discard_if_refused(property, buckets, gpu_backends().front()->supports(p));

    const MlaDecodeProblem model = unsharded(p);
    const MlaDecodeInputs model_in = make_inputs(model);
    const MlaDecodeOutputs<double> expected = mla_decode_reference(model, model_in);
    const std::vector<MlaDecodeRun> ranks = run_ranks(p, model_in, gpu_backends());
    RunDiagnostics diag;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      require_clean_run(ranks[r], "rank " + std::to_string(r));
      diag.broken_canaries.insert(diag.broken_canaries.end(), ranks[r].diag.broken_canaries.begin(),
                                  ranks[r].diag.broken_canaries.end());
    }
    const JoinedRanks joined = join_ranks(p, ranks);

    // The model's magnitudes bound every rank's (each rank reads a slice of the model's q).
    const MlaInputMagnitudes mag = input_magnitudes(model, model_in);
    MlaTolerances tol = mla_decode_tolerance(model, mag.max_abs_q, mag.max_abs_kv);
    tol.o = with_subnormal_rms_floor(tol.o, model.o_dtype, root_mean_square(expected.o));
    CaseResult row;
    row.repro = to_repro(p);  // one rank: its own case against its own oracle
    row.path = ranks.front().diag.path + ", ranks 0.." + std::to_string(p.tp - 1) + " joined against the oracle of " +
               to_repro(model);
    row.device = gpu_backends().front()->device_name();
    row.tensors = {
        {"O", compare(expected.o, joined.out.o, tol.o, joined.o_unwritten), tol.o},
        {"LSE", compare(expected.lse, joined.out.lse, tol.lse, joined.lse_unwritten), tol.lse},
    };
    const Verdict v = judge(row.tensors);
    row.state = v.state;
    row.reason = v.reason;
    apply_canaries(diag, row);
    require_passed(row);
    coverage().passed(property, buckets);
    tag_mla_case(p);
  });
  // Its limits put a request at the 16k boundary in 1% of cases: too rare to expect in a default run.
  if (held) coverage().expect(property, all_mla_buckets(true, false));
}

}  // namespace
}  // namespace mlacheck
