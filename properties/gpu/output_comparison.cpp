#include "properties/gpu/output_comparison.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

namespace mlacheck {

bool bitwise_equal(std::span<const float> a, std::span<const float> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](float x, float y) {
    return std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y);
  });
}

Tolerance between_outputs(const Tolerance& tol) {
  // 2 bound / (1 - r), and no bound at all where r >= 1 (LSE's rms bound is infinite).
  const auto doubled = [](double bound, double r) {
    return r < 1.0 ? 2.0 * bound / (1.0 - r) : std::numeric_limits<double>::infinity();
  };
  Tolerance out;
  out.abs = doubled(tol.abs, tol.rel);
  out.rel = doubled(tol.rel, tol.rel);
  out.rms = doubled(tol.rms, tol.rms);
  out.rule = "two outputs each within [" + tol.rule + "]: abs 2abs/(1-rel), rel 2rel/(1-rel), rms 2rms/(1-rms)";
  return out;
}

}  // namespace mlacheck
