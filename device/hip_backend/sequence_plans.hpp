#pragma once
// The persistent plan of a decode sequence, step by step. An engine replaying a captured CUDA graph
// must rebuild the scheduling metadata for every step's lengths and copy it into the buffers the
// captured launch reads; the persistent step (persistent_step.cpp) asks this object for the plan
// its launch reads. Host code, so the rule and its fault are tested without a GPU.
//
// Fault plan-stale-at-replay (UPSTREAM R5: vLLM PR #42444, PR #35175; aiter #5193) puts back the
// mistake: from the sequence's second step on, the launch reads the plan built for its first step
// -- its six buffers and its header. Upstream got there two ways: the metadata shared between
// warm-up and capture, so the planning step was never recorded and replays ran the captured plan;
// or the metadata built afresh each step into newly allocated tensors instead of into the captured
// buffers, which the launch kept reading. Either way the same buffers are in front of the kernel.
// Only the persistent path has a plan; split-KV and one-step problems are unchanged.
#include <functional>
#include <optional>

#include "device/hip_backend/persistent_plan.hpp"
#include "device/faults.hpp"

namespace mlacheck {

class SequencePlans {
 public:
  explicit SequencePlans(const FaultSet& faults) : stale_(faults.has(Fault::plan_stale_at_replay)) {}

  // The plan the next step's launch reads. `build` plans for that step's own lengths; it is called
  // for every step, except under plan-stale-at-replay after the first, whose plan is returned again.
  const PersistentPlan& next(const std::function<PersistentPlan()>& build);
  // Steps planned so far (calls of next()).
  int steps() const noexcept { return steps_; }

 private:
  bool stale_;
  std::optional<PersistentPlan> first_;
  PersistentPlan current_;
  int steps_ = 0;
};

}  // namespace mlacheck
