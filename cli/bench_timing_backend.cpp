#include "cli/bench_timing_backend.hpp"

namespace mlacheck::cli {

MlaDecodeRun BenchTimingBackend::run(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const FaultSet& faults) {
  MlaDecodeRun checked = timed_.run(p, in, faults);
  Timed& t = timings_[p.name];
  try {
    t.timing = timed_.time_decode(p, in, warmup_, runs_);
  } catch (...) {
    // Not the checked run's failure: bench reports it as its own error, after the row.
    t.error = std::current_exception();
  }
  return checked;
}

std::optional<DecodeTiming> BenchTimingBackend::take_timing(const std::string& name) {
  const auto it = timings_.find(name);
  if (it == timings_.end()) return std::nullopt;
  Timed t = std::move(it->second);
  timings_.erase(it);
  if (t.error) std::rethrow_exception(t.error);
  return t.timing;
}

}  // namespace mlacheck::cli
