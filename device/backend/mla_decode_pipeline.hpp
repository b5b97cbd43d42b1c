#pragma once
// The mla_decode pipeline of the hip backend, as upstream's ROCm path runs it:
//   head padding (q to padded_heads) -> page-index expansion (block table to per-token slots)
//   -> the decode path (decode_path.hpp chooses):
//        split-KV: stage 1 partials, stage 2 log-sum-exp merge; or
//        persistent: host plan (build_metadata) uploaded as six guarded buffers, persistent
//        kernel over the resident block slots, log-sum-exp reduce of split tiles
//   -> un-padding of O and LSE.
#include <memory>
#include <optional>
#include <string>

#include "device/backend.hpp"
#include "device/backend/decode_path.hpp"
#include "device/platform/device_info.hpp"

namespace mlacheck {

// Why the problem's buffers would not fit the device's memory, or nullopt.
std::optional<std::string> mla_decode_memory_shortfall(const MlaDecodeProblem& p, const DeviceInfo& info);

// One problem's device state: inputs uploaded, every buffer guarded and every written one
// poisoned, the path's step prepared (its plan built and uploaded). The pipeline runs the three
// stages once; the benchmark runs the prologue once and times the decode step alone, repeatedly.
class MlaDecodeSession {
 public:
  MlaDecodeSession(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const DeviceInfo& info,
                   const FaultSet& faults);
  ~MlaDecodeSession();
  MlaDecodeSession(const MlaDecodeSession&) = delete;
  MlaDecodeSession& operator=(const MlaDecodeSession&) = delete;

  void enqueue_prologue();  // head padding (when needed) and page-index expansion
  void enqueue_decode();    // the path's kernels
  void enqueue_epilogue();  // un-padding of O and LSE (when padded)
  // Reads the canaries and downloads and decodes O and LSE (synchronises).
  MlaDecodeRun collect(double device_ms);
  const DecodePathChoice& path() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

MlaDecodeRun run_mla_decode_pipeline(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const DeviceInfo& info,
                                     const FaultSet& faults);

}  // namespace mlacheck
