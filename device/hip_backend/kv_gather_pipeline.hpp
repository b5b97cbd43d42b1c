#pragma once
// The kv_gather pipeline of the hip backend: cu_seq_lens on the device, then the gather.
#include <optional>
#include <string>

#include "device/backend.hpp"
#include "device/platform/device_info.hpp"

namespace mlacheck {

std::optional<std::string> kv_gather_memory_shortfall(const KvGatherProblem& p, const DeviceInfo& info);

KvGatherRun run_kv_gather_pipeline(const KvGatherProblem& p, const KvGatherInputs& in, const FaultSet& faults);

}  // namespace mlacheck
