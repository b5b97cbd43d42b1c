#pragma once
// The hip backend's decode sequence (HipBackend::begin_sequence): what an engine keeps across the
// steps while it replays a captured CUDA graph, kept here across run_step() calls --
//   - one staging for the whole sequence (MlaDecodeStaging::for_sequence), restaged every step:
//     the step's q, table and lengths copied into the same buffers, only the written cache rows
//     copied into the pool, O / LSE poisoned again; collect() checks every canary every step;
//   - the intermediates (kv_indptr / kv_indices expansion, padded q / O / LSE, the split-KV or
//     persistent partials, the six plan buffers) reserved once, before step 0, at the most any step
//     asks for (sequence_intermediate_sizes), and reused: the plan is copied into its buffers;
//   - the path, chosen once for the sequence from its busiest lengths (sequence_capacity), as a
//     graph is captured for one path;
//   - the persistent plan, built for each step's lengths (SequencePlans; fault plan-stale-at-replay
//     keeps the first step's).
// The split-KV split count still follows each step's lengths, as the stateless run's does, so a
// correct session's outputs equal the step run on its own through HipBackend::run bit for bit.
#include <memory>

#include "core/mla_problem.hpp"
#include "device/backend.hpp"
#include "device/hip_backend/retained_intermediates.hpp"
#include "device/platform/device_info.hpp"

namespace mlacheck {

// The intermediates the session reserves: per name the most that the preparation of any step of
// `seq` (sequence_step, launched on `path`) or of its capacity problem asks for, with `faults`.
// Preparation only (plans built on the host, nothing uploaded or launched); the persistent path
// asks the runtime for its block slots.
SizingIntermediates sequence_intermediate_sizes(const MlaDecodeProblem& seq, DecodePath path, const DeviceInfo& info,
                                                const FaultSet& faults);

// A session on the calling thread's choice of GPU `info` (selected before every step). Throws
// InvalidProblem for an invalid `seq`, GpuError when an allocation fails.
std::unique_ptr<MlaSequenceSession> make_hip_sequence_session(const MlaDecodeProblem& seq, const DeviceInfo& info,
                                                              const FaultSet& faults);

}  // namespace mlacheck
