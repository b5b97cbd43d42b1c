#pragma once
// The "hip" backend: the HIP kernels (AMD through ROCm, NVIDIA through the CUDA mapping) behind
// the Backend interface. Each mla_decode run stages the problem in device memory
// (device/staging: guarded, poisoned buffers in the engine layouts of backend_abi.h), runs the
// pipeline on the staged tensors with its intermediates in the same guarded set, and collects:
// canaries checked, outputs decoded with their unwritten flags.
#include "device/backend.hpp"
#include "device/platform/device_info.hpp"

namespace mlacheck {

class HipBackend final : public Backend {
 public:
  explicit HipBackend(int device_index);
  std::string name() const override { return "hip"; }
  std::string device_name() const override;
  std::optional<std::string> supports(const MlaDecodeProblem& p) const override;
  std::optional<std::string> supports(const KvGatherProblem& p) const override;
  // The device's total memory, then the free memory of its GPU now (a sequence: sized by
  // sequence_capacity, its busiest lengths and its pool).
  std::optional<std::string> lacks_memory(const MlaDecodeProblem& p) const override;
  // One problem; a decode sequence throws std::invalid_argument (begin_sequence runs it).
  MlaDecodeRun run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& faults) override;
  // The stateful session of hip_sequence_session.hpp: staging, intermediates and persistent plan
  // kept across the steps. Throws InvalidProblem for an invalid sequence and std::invalid_argument
  // for a shape this backend cannot run.
  std::unique_ptr<MlaSequenceSession> begin_sequence(const MlaDecodeProblem& seq, const FaultSet& faults) override;
  KvGatherRun run(const KvGatherProblem& p, const KvGatherInputs& in, const FaultSet& faults) override;
  // time_mla_decode (device/benchmark.hpp) on this backend's GPU.
  DecodeTiming time_decode(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int warmup, int runs) override;
  // P rounded to the MMA input type, split exactly for mixed 16-bit q/kv
  // (device/kernels/row_group_attention.hpp); l summed from fp32 P.
  PRoundingPoint p_rounding() const override { return PRoundingPoint::to_mma_input; }
  int device_index() const override { return info_.index; }
  std::string device_pci_bus_id() const override { return info_.pci_bus_id; }

 private:
  DeviceInfo info_;
};

}  // namespace mlacheck
