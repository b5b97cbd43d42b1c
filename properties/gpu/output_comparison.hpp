#pragma once
// Comparing two device outputs with each other rather than with the oracle.
#include <span>

#include "core/compare.hpp"

namespace mlacheck {

// Same bits in every element (a NaN equals only the same NaN; -0 differs from +0).
bool bitwise_equal(std::span<const float> a, std::span<const float> b);

// The bound on |a - b| for two outputs a, b that are each within `tol` of the exact result x:
// |a - b| <= 2 abs + 2 rel |x| and |x| <= (|b| + abs) / (1 - rel), so
//   |a - b| <= 2 abs / (1 - rel) + 2 rel / (1 - rel) * |b|;
// normwise ||a - b|| <= 2 rms ||x|| and ||x|| <= ||b|| / (1 - rms), so rms' = 2 rms / (1 - rms).
// The rule records this on top of tol's own.
Tolerance between_outputs(const Tolerance& tol);

}  // namespace mlacheck
