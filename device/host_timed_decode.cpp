// Backend::time_decode's default: run() itself timed on the host, for a backend without a device
// timer of its own (device/backend.hpp).
#include <chrono>
#include <stdexcept>

#include "device/backend.hpp"

namespace mlacheck {

DecodeTiming Backend::time_decode(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int warmup, int runs) {
  if (runs < 1) throw std::invalid_argument("time_decode: runs must be >= 1");
  DecodeTiming t;
  t.path = name();
  for (int i = 0; i < warmup + runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const MlaDecodeRun run = this->run(p, in, {});
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (!run.diag.broken_canaries.empty()) {
      throw std::runtime_error("benchmark of " + p.name + " with backend " + name() + " overwrote the guard of " +
                               run.diag.broken_canaries[0].buffer);
    }
    if (i >= warmup) t.us.push_back(us);
  }
  t.median_us = median_of(t.us);
  return t;
}

}  // namespace mlacheck
