#pragma once
// Runs the persistent launcher directly on a plan for a chosen number of work lists, with head
// padding and page expansion done on the host (their kernels are tested elsewhere). The backend
// always plans for the device's resident block slots; here a test picks num_cus to reach plans
// the device would not produce: one work list (nothing split), a few long lists (many items per
// block), more lists than tiles.
#include <cstddef>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "device/planner/metadata.hpp"
#include "device/planner/plan_walk.hpp"
#include "device/platform/canary_report.hpp"

namespace mlacheck::kernels {

struct PersistentRun {
  std::vector<float> o;    // [tokens, heads, Lv], un-padded, decoded from o_dtype
  std::vector<float> lse;  // [tokens, heads]
  std::size_t o_unwritten = 0;
  std::size_t lse_unwritten = 0;
  CanaryReport canaries;  // every buffer: inputs, the six plan buffers, partials, outputs
  MetadataHeader header{};
  PlanWalk walk;       // the plan read back by the host twin
  bool wgmma = false;  // the launch ran on the Hopper kernel
};

// portable: the portable kernel even where the Hopper one would take the launch.
PersistentRun run_persistent(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int num_cus, bool portable = false);

}  // namespace mlacheck::kernels
