#include "device/hip_backend/hip_backend.hpp"

#include "core/error.hpp"
#include "core/mla_sequence.hpp"
#include "device/hip_backend/hip_sequence_session.hpp"
#include "device/hip_backend/kv_gather_pipeline.hpp"
#include "device/hip_backend/mla_decode_pipeline.hpp"
#include "device/staging/mla_decode_staging.hpp"

namespace mlacheck {

HipBackend::HipBackend(int device_index) : info_(device_info(device_index)) {}

std::string HipBackend::device_name() const { return info_.name + " (" + info_.arch + ")"; }

std::optional<std::string> HipBackend::supports(const MlaDecodeProblem& p) const {
  return hip_mla_decode_shape_unsupported(p);
}

std::optional<std::string> HipBackend::lacks_memory(const MlaDecodeProblem& p) const {
  // A sequence's buffers live across its steps, sized for the busiest: every slot at its final
  // length over the sequence's pool.
  const MlaDecodeProblem sized = is_sequence(p) ? sequence_capacity(p) : p;
  if (auto why = mla_decode_memory_shortfall(sized, info_)) return why;
  select_device(info_.index);  // admission runs on the harness's prepare threads
  return staging_memory_shortfall(StagingMemory::device, mla_decode_device_bytes(sized, info_));
}

std::optional<std::string> HipBackend::supports(const KvGatherProblem& p) const {
  return kv_gather_memory_shortfall(p, info_);
}

MlaDecodeRun HipBackend::run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& faults) {
  validate(p);
  refuse_sequence_run(p, name());
  if (auto why = hip_mla_decode_unsupported(p, info_)) {
    throw std::invalid_argument("hip backend cannot run " + p.name + ": " + *why);
  }
  select_device(info_.index);  // the device is per thread: a backend may be used from any thread
  // Staged like every other backend's tensors; the pipeline's intermediates join the staging's
  // buffer set, so collect() checks the canaries of all of them.
  MlaDecodeStaging staging(p, in, StagingMemory::device);
  GuardedIntermediates scratch(staging.buffers());
  const HipDecodeResult result = run_hip_decode_on(staging.problem(), staged_tensors(staging), scratch, info_, nullptr,
                                                   faults, DeviceTiming::events);
  MlaDecodeRun run = staging.collect(LseBase::natural);
  run.diag.path = std::string(to_string(result.path.path));
  run.diag.path_reason = result.path.reason;
  run.diag.num_splits = result.work_count;
  run.diag.device_ms = result.device_ms;
  return run;
}

std::unique_ptr<MlaSequenceSession> HipBackend::begin_sequence(const MlaDecodeProblem& seq, const FaultSet& faults) {
  validate(seq);
  if (auto why = hip_mla_decode_unsupported(sequence_capacity(seq), info_)) {
    throw std::invalid_argument("hip backend cannot run " + seq.name + ": " + *why);
  }
  return make_hip_sequence_session(seq, info_, faults);
}

DecodeTiming HipBackend::time_decode(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int warmup, int runs) {
  validate(p);
  refuse_sequence_run(p, name());
  if (auto why = hip_mla_decode_unsupported(p, info_)) {
    throw std::invalid_argument("hip backend cannot time " + p.name + ": " + *why);
  }
  return time_mla_decode(p, in, info_.index, warmup, runs);
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
