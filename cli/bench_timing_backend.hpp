#pragma once
// `mlacheck bench`'s backend: another Backend (the hip backend or a plugin) with everything passed
// through, and each mla_decode run that the harness checks against the oracle followed by the
// timing of the same problem on the same inputs through that backend's time_decode. Bench runs
// its shapes through the harness's one prefetching driver (run/case_prefetch.hpp: the oracle
// of the next shapes on CPU threads while this one is checked and timed) with this backend, and
// takes each shape's timing when its row arrives.
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "device/backend.hpp"

namespace mlacheck::cli {

class BenchTimingBackend final : public Backend {
 public:
  BenchTimingBackend(Backend& timed, int warmup, int runs) : timed_(timed), warmup_(warmup), runs_(runs) {}

  std::string name() const override { return timed_.name(); }
  std::string device_name() const override { return timed_.device_name(); }
  std::string version() const override { return timed_.version(); }
  std::optional<std::string> supports(const MlaDecodeProblem& p) const override { return timed_.supports(p); }
  std::optional<std::string> supports(const KvGatherProblem& p) const override { return timed_.supports(p); }
  std::optional<std::string> lacks_memory(const MlaDecodeProblem& p) const override { return timed_.lacks_memory(p); }
  std::optional<std::string> lacks_memory(const KvGatherProblem& p) const override { return timed_.lacks_memory(p); }
  // The checked run, then the timing (kept for take_timing; a timing that throws keeps the error).
  MlaDecodeRun run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& faults) override;
  std::unique_ptr<MlaSequenceSession> begin_sequence(const MlaDecodeProblem& seq, const FaultSet& faults) override {
    return timed_.begin_sequence(seq, faults);
  }
  KvGatherRun run(const KvGatherProblem& p, const KvGatherInputs& in, const FaultSet& faults) override {
    return timed_.run(p, in, faults);
  }
  DecodeTiming time_decode(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int warmup, int runs) override {
    return timed_.time_decode(p, in, warmup, runs);
  }
  PRoundingPoint p_rounding() const override { return timed_.p_rounding(); }
  int device_index() const override { return timed_.device_index(); }
  std::string device_pci_bus_id() const override { return timed_.device_pci_bus_id(); }

  // The timing of the problem named `name` after its checked run, once; nullopt when it was never
  // run (refused, no oracle) or its run threw. Rethrows what the timing threw.
  std::optional<DecodeTiming> take_timing(const std::string& name);

 private:
  struct Timed {
    DecodeTiming timing;
    std::exception_ptr error;
  };
  Backend& timed_;
  int warmup_;
  int runs_;
  std::map<std::string, Timed> timings_;
};

}  // namespace mlacheck::cli
