#pragma once
// The device under test, as the harness sees it. One implementation today: "hip" (the same
// sources on AMD through HIP and on NVIDIA through the CUDA mapping). Everything a backend does is
// driven by the problem descriptor; inputs come from core's make_inputs.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/gather_inputs.hpp"
#include "core/gather_problem.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/rounding_points.hpp"
#include "device/benchmark.hpp"  // DecodeTiming
#include "device/faults.hpp"
#include "device/staging/run_result.hpp"  // BrokenCanary, RunDiagnostics, MlaDecodeRun

namespace mlacheck {

struct KvGatherRun {
  KvGatherOutputs<float> out;
  std::vector<std::uint8_t> k_unwritten;
  std::vector<std::uint8_t> v_unwritten;
  RunDiagnostics diag;
};

// A decode sequence on a backend (core/mla_sequence.hpp): what the backend keeps across the steps
// of one sequence -- under CUDA-graph replay its buffers and its persistent plan.
class MlaSequenceSession {
 public:
  virtual ~MlaSequenceSession() = default;
  // Runs the sequence's next step. `step` is sequence_step(seq, k) for k = 0, 1, ... in order, `in`
  // its inputs (MlaSequenceInputs::inputs()), `written_slots` the pool slots the step wrote
  // (MlaSequenceInputs::written_slots()). Same error contract as Backend::run; a step out of order
  // throws std::invalid_argument.
  virtual MlaDecodeRun run_step(const MlaDecodeProblem& step, const MlaDecodeInputs& in,
                                std::span<const std::int64_t> written_slots) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;         // "hip"
  virtual std::string device_name() const = 0;  // e.g. "NVIDIA H100 80GB HBM3 (sm_90)"
  // Free text for reports (a plugin's version string); "" when the backend has none.
  virtual std::string version() const { return ""; }
  // nullopt when the shape is supported; otherwise why not (the case is SKIPPED, never passed).
  virtual std::optional<std::string> supports(const MlaDecodeProblem& p) const = 0;
  virtual std::optional<std::string> supports(const KvGatherProblem& p) const = 0;
  // nullopt when the machine has the memory to stage and run a supported p now; otherwise why not.
  // Such a case is SKIPPED whatever its origin: a missing resource, not a refusal of the shape (a
  // cache pool past 4 GiB on a GPU without the room, UPSTREAM R4). For a decode sequence: what its
  // busiest step needs (sequence_capacity: every slot at its final length, the sequence's pool).
  virtual std::optional<std::string> lacks_memory(const MlaDecodeProblem&) const { return std::nullopt; }
  virtual std::optional<std::string> lacks_memory(const KvGatherProblem&) const { return std::nullopt; }
  // Throws GpuError on a runtime or kernel fault (the case is ERRORED) and InvalidProblem for a
  // problem that fails validate(); a shape supports() refuses throws std::invalid_argument, and so
  // does a decode sequence (is_sequence(p): refuse_sequence_run below), which runs step by step
  // through begin_sequence.
  virtual MlaDecodeRun run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& faults) = 0;
  // A session for the decode sequence `seq` (steps > 1, validated by the caller), its steps run with
  // `faults`. The default is stateless: every step runs through this->run(step, in, faults), staged
  // afresh -- what plugins get, since the C ABI has no notion of sequences. The hip backend keeps its
  // staged buffers, intermediates and persistent plan across the steps, as a replayed CUDA graph
  // does. The session refers to this backend, which must outlive it.
  virtual std::unique_ptr<MlaSequenceSession> begin_sequence(const MlaDecodeProblem& seq, const FaultSet& faults);
  virtual KvGatherRun run(const KvGatherProblem& p, const KvGatherInputs& in, const FaultSet& faults) = 0;
  // `mlacheck bench`: `runs` timed runs of p on `in` (no faults) after `warmup` untimed ones, and
  // their median. The default times run() with a steady clock on this thread (staging and
  // collecting included, nothing evicted), with path name(); the hip backend and device plugins
  // time the decode alone on one staging with device events, the L2 evicted before each run.
  // Throws as run() does, std::invalid_argument for runs < 1, and std::runtime_error when a run
  // broke a guard.
  virtual DecodeTiming time_decode(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int warmup, int runs);
  // Where the kernel rounds P (core/rounding_points.hpp), which picks the oracle and tolerance
  // that judge it (harness/mla_judge). A backend that declares nothing gets the generic model.
  virtual PRoundingPoint p_rounding() const { return PRoundingPoint::undeclared; }
  // Which GPU the rows came from, for reports of multi-GPU runs: its index in this process's
  // runtime and its PCI bus id ("0000:18:00.0"); -1 and "" for a backend that runs on none.
  virtual int device_index() const { return -1; }
  virtual std::string device_pci_bus_id() const { return ""; }
};

// Backend::run's refusal of a decode sequence: throws std::invalid_argument "<backend> backend
// cannot run <name>: it is a decode sequence of N steps: run it through begin_sequence" when
// is_sequence(p); returns otherwise. Every Backend::run for mla_decode calls it after validate().
void refuse_sequence_run(const MlaDecodeProblem& p, std::string_view backend);

// A session's check of the step it is given: std::invalid_argument naming `backend` unless `step`
// is sequence_step(seq, next) -- past the last step, or a step skipped or repeated. Every
// MlaSequenceSession calls it before running a step.
void expect_next_step(const MlaDecodeProblem& seq, int next, const MlaDecodeProblem& step, std::string_view backend);

struct BackendOrReason {
  std::unique_ptr<Backend> backend;  // null when no device can run it
  std::string reason;                // why not, for SKIPPED rows
};

// The HIP backend on GPU `device_index`; never throws for a missing GPU or a build without one.
BackendOrReason make_hip_backend(int device_index = 0);

}  // namespace mlacheck
