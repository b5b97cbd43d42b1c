#pragma once
// The mla_decode pipeline of the hip backend, as upstream's ROCm path runs it:
//   head padding (q to padded_heads) -> page-index expansion (block table to per-token slots)
//   -> the decode path (decode_path.hpp chooses):
//        split-KV: stage 1 partials, stage 2 log-sum-exp merge; or
//        persistent: host plan (build_metadata) uploaded as six guarded buffers, persistent
//        kernel over the resident block slots, log-sum-exp reduce of split tiles
//   -> un-padding of O and LSE.
#include <optional>
#include <string>

#include "device/backend.hpp"
#include "device/platform/device_info.hpp"

namespace mlacheck {

// Why the problem's buffers would not fit the device's memory, or nullopt.
std::optional<std::string> mla_decode_memory_shortfall(const MlaDecodeProblem& p, const DeviceInfo& info);

MlaDecodeRun run_mla_decode_pipeline(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const DeviceInfo& info,
                                     const FaultSet& faults);

}  // namespace mlacheck
