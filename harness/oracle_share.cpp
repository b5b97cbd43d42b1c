#include "harness/oracle_share.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

namespace mlacheck {

int oracle_threads_for_share(std::span<const double> window, unsigned host_threads) {
  const double host = std::max(1u, host_threads);
  if (window.empty()) return 1;
  const double total = std::accumulate(window.begin(), window.end(), 0.0);
  if (!(total > 0.0) || !(window.front() > 0.0)) return 1;
  const double share = std::ceil(host * window.front() / total);
  return static_cast<int>(std::clamp(share, 1.0, host));
}

std::size_t default_lookahead() {
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 4, 32);
}

}  // namespace mlacheck
