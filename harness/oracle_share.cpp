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

int oracle_threads_in_queue(std::span<const double> works, std::size_t i, std::size_t lookahead) {
  const std::size_t window = i < works.size() ? std::min(lookahead, works.size() - i) : 0;
  return oracle_threads_for_share(works.subspan(std::min(i, works.size()), window), std::thread::hardware_concurrency());
}

std::size_t default_lookahead() {
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 4, 32);
}

}  // namespace mlacheck
