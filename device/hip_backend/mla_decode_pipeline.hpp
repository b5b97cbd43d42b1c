#pragma once
// The mla_decode pipeline of the hip backend, as upstream's ROCm path runs it, on staged
// engine-layout tensors (staged_mla_tensors.hpp):
//   head padding (q to padded_heads) -> page-index expansion (block table to per-token slots)
//   -> the decode path (decode_path.hpp chooses):
//        split-KV: stage 1 partials, stage 2 log-sum-exp merge; or
//        persistent: host plan (build_metadata) uploaded as six buffers, persistent kernel over
//        the resident block slots, log-sum-exp reduce of split tiles
//   -> un-padding of O and LSE into the staged o and lse.
// Its own buffers come from a DecodeIntermediates (decode_intermediates.hpp). The built-in backend
// (hip_backend.cpp) and the hip plugin (examples/hip_plugin) both run it through run_hip_decode_on.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "device/backend.hpp"
#include "device/hip_backend/decode_intermediates.hpp"
#include "device/hip_backend/decode_path.hpp"
#include "device/hip_backend/staged_mla_tensors.hpp"
#include "device/platform/device_info.hpp"
#include "device/platform/stream_handle.hpp"

namespace mlacheck {

class SequencePlans;

// Device bytes one case of p takes: staged tensors (the whole cache pool), intermediates, workspace.
std::size_t mla_decode_device_bytes(const MlaDecodeProblem& p, const DeviceInfo& info);
// Why the problem's buffers would not fit the device's memory, or nullopt.
std::optional<std::string> mla_decode_memory_shortfall(const MlaDecodeProblem& p, const DeviceInfo& info);

// Why the row-group kernels cannot run p's shape, or nullopt: HipBackend::supports.
std::optional<std::string> hip_mla_decode_shape_unsupported(const MlaDecodeProblem& p);
// The shape, then the device's total memory (mla_decode_memory_shortfall): the plugin's supports().
std::optional<std::string> hip_mla_decode_unsupported(const MlaDecodeProblem& p, const DeviceInfo& info);

// One problem's pipeline over staged tensors: the path chosen, the intermediates allocated (and
// poisoned where `scratch` poisons), the path's step prepared (its plan built and uploaded). The
// staged tensors and the intermediates must outlive the session. run_hip_decode_on runs the three
// stages once; the benchmark runs the prologue once and times the decode step alone, repeatedly.
// `plans`: a decode sequence's persistent plans (sequence_plans.hpp), which then must outlive the
// session; null for one problem.
class MlaDecodeSession {
 public:
  MlaDecodeSession(const MlaDecodeProblem& p, const StagedMlaTensors& tensors, DecodeIntermediates& scratch,
                   const DeviceInfo& info, StreamHandle stream, const FaultSet& faults, SequencePlans* plans = nullptr);
  ~MlaDecodeSession();
  MlaDecodeSession(const MlaDecodeSession&) = delete;
  MlaDecodeSession& operator=(const MlaDecodeSession&) = delete;

  void enqueue_prologue();  // head padding (when needed) and page-index expansion
  void enqueue_decode();    // the path's kernels
  void enqueue_epilogue();  // un-padding of O and LSE (when padded)
  const DecodePathChoice& path() const;
  int work_count() const;  // RunDiagnostics::num_splits

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Whether run_hip_decode_on measures device time: with events around the three stages (waits for
// the stop event: the built-in backend), or not at all (a plugin must not synchronise).
enum class DeviceTiming : std::uint8_t { none, events };

struct HipDecodeResult {
  DecodePathChoice path;
  int work_count = 0;
  double device_ms = 0.0;  // 0 under DeviceTiming::none
};

// The hip pipeline on staged tensors, enqueued on `stream`. Throws std::invalid_argument for
// arguments the launchers refuse, GpuError for runtime or kernel faults.
HipDecodeResult run_hip_decode_on(const MlaDecodeProblem& p, const StagedMlaTensors& tensors,
                                  DecodeIntermediates& scratch, const DeviceInfo& info, StreamHandle stream,
                                  const FaultSet& faults, DeviceTiming timing, SequencePlans* plans = nullptr);

// The workspace run_hip_decode_on carves from a WorkspaceIntermediates for p (no faults): what the
// plugin asks the harness for.
std::uint64_t hip_decode_workspace_bytes(const MlaDecodeProblem& p, const DeviceInfo& info);

}  // namespace mlacheck
