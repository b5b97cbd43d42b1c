#include "device/backend/hip_backend.hpp"

#include "core/error.hpp"
#include "device/backend/mla_decode_pipeline.hpp"
#include "device/backend/kv_gather_pipeline.hpp"
#include "device/kernels/split_kv_plan.hpp"

namespace mlacheck {

HipBackend::HipBackend(int device_index) : info_(device_info(device_index)) {}

std::string HipBackend::device_name() const { return info_.name + " (" + info_.arch + ")"; }

std::optional<std::string> HipBackend::supports(const MlaDecodeProblem& p) const {
  // Both paths attend with the same row-group kernels, so they refuse the same shapes.
  if (auto why = kernels::split_kv_unsupported(kernels::split_kv_shape(p, 1))) return why;
  if (auto why = mla_decode_memory_shortfall(p, info_)) return why;
  return std::nullopt;
}

std::optional<std::string> HipBackend::supports(const KvGatherProblem& p) const {
  return kv_gather_memory_shortfall(p, info_);
}

MlaDecodeRun HipBackend::run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& faults) {
  validate(p);
  if (auto why = supports(p)) throw std::invalid_argument("hip backend cannot run " + p.name + ": " + *why);
  select_device(info_.index);  // the device is per thread: a backend may be used from any thread
  return run_mla_decode_pipeline(p, in, info_, faults);
}

KvGatherRun HipBackend::run(const KvGatherProblem& p, const KvGatherInputs& in, const FaultSet& faults) {
  validate(p);
  if (auto why = supports(p)) throw std::invalid_argument("hip backend cannot run " + p.name + ": " + *why);
  select_device(info_.index);
  return run_kv_gather_pipeline(p, in, faults);
}

BackendOrReason make_hip_backend(int device_index) {
  const DeviceAvailability avail = probe_devices();
  if (avail.count == 0) return {nullptr, avail.reason};
  if (device_index < 0 || device_index >= avail.count) {
    return {nullptr, "GPU " + std::to_string(device_index) + " does not exist (" + std::to_string(avail.count) +
                         " visible)"};
  }
  try {
    return {std::make_unique<HipBackend>(device_index), ""};
  } catch (const std::exception& e) {
    return {nullptr, std::string("GPU ") + std::to_string(device_index) + " cannot be used: " + e.what()};
  }
}

}  // namespace mlacheck
