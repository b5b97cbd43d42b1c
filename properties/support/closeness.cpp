#include "properties/support/closeness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mlacheck {

double max_norm_relative_error(std::span<const double> actual, std::span<const double> expected, double floor) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  if (actual.size() != expected.size()) return kNever;
  double diff = 0.0;
  double scale = floor;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (!std::isfinite(actual[i]) || !std::isfinite(expected[i])) {
      if (actual[i] == expected[i]) continue;  // the same infinity: an empty row's LSE -inf on both sides
      return kNever;
    }
    diff = std::max(diff, std::abs(actual[i] - expected[i]));
    scale = std::max(scale, std::abs(expected[i]));
  }
  if (diff == 0.0) return 0.0;
  return scale > 0.0 ? diff / scale : kNever;
}

}  // namespace mlacheck
