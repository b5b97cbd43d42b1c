// The benchmark entry points of a build without a GPU backend: `mlacheck bench` checks
// probe_devices() first and never gets here, but a caller that does learns why.
#include <stdexcept>

#include "device/benchmark.hpp"
#include "device/platform/device_info.hpp"

namespace mlacheck {

DecodeTiming time_mla_decode(const MlaDecodeProblem&, const MlaDecodeInputs&, int, int, int) {
  throw std::runtime_error("cannot time on a GPU: " + probe_devices().reason);
}

double copy_bandwidth_gbps(int, std::size_t, int) {
  throw std::runtime_error("cannot time on a GPU: " + probe_devices().reason);
}

}  // namespace mlacheck
