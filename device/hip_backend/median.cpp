#include <algorithm>

#include "device/benchmark.hpp"

namespace mlacheck {

double median_of(std::vector<double> runs) {
  if (runs.empty()) return 0.0;
  std::sort(runs.begin(), runs.end());
  const std::size_t n = runs.size();
  return n % 2 == 1 ? runs[n / 2] : 0.5 * (runs[n / 2 - 1] + runs[n / 2]);
}

}  // namespace mlacheck
