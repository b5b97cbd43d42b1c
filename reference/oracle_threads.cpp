#include "reference/oracle_threads.hpp"

#include <algorithm>

namespace mlacheck {

int oracle_threads_for_queue(std::size_t cases_in_flight, unsigned hardware_threads) {
  const std::size_t share = std::max<std::size_t>(1, hardware_threads) / std::max<std::size_t>(1, cases_in_flight);
  return static_cast<int>(std::clamp<std::size_t>(share, 1, 1024));
}

}  // namespace mlacheck
