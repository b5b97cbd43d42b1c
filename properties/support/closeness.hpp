#pragma once
// The closeness measure of the oracle properties.
#include <span>

namespace mlacheck {

// max |actual - expected| / max(max |expected|, floor): a max-norm relative error, so elements
// near zero (an output that averages values of both signs) are judged against the tensor's scale
// rather than their own. `floor` sets the scale below which errors count absolutely. NaN anywhere,
// an Inf not matched by the same Inf (an empty row's LSE is -inf on both sides), or a size
// mismatch gives +inf, so it can never pass a bound.
double max_norm_relative_error(std::span<const double> actual, std::span<const double> expected, double floor = 0.0);

}  // namespace mlacheck
