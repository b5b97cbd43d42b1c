#pragma once
// Runs the persistent launcher directly on a plan for a chosen number of work lists, with head
// padding and page expansion done on the host (their kernels are tested elsewhere). The backend
// always plans for the device's resident block slots; here a test picks num_cus to reach plans
// the device would not produce: one work list (nothing split), a few long lists (many items per
// block), more lists than tiles.
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "device/planner/metadata.hpp"
#include "device/planner/plan_walk.hpp"
#include "device/tests/direct_launch_support.hpp"

namespace mlacheck::kernels {

// canaries: every buffer, the six plan buffers included.
struct PersistentRun : LaunchOutputs {
  MetadataHeader header{};
  PlanWalk walk;       // the plan read back by the host twin
  bool wgmma = false;  // the launch ran on the Hopper kernel
};

// portable: the portable kernel even where the Hopper one would take the launch.
PersistentRun run_persistent(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int num_cus, bool portable = false);

}  // namespace mlacheck::kernels
