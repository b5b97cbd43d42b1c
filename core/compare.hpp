#pragma once
// Comparison of a device output against the double-precision reference, and the verdict.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace mlacheck {

// An element passes when |actual - expected| <= abs + rel * |expected|; the tensor also needs
// ||actual - expected||_2 / ||expected||_2 <= rms. `rule` records how the numbers were derived.
struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
  double rms = 0.0;
  std::string rule;
};

struct CompareStats {
  std::size_t total = 0;
  std::size_t mismatches = 0;   // finite elements outside the elementwise bound
  std::size_t nonfinite = 0;    // NaN or Inf where the reference is finite
  std::size_t unwritten = 0;    // still holding the poison pattern after the launch
  double max_abs_err = 0.0;
  double max_rel_err = 0.0;     // |a - e| / |e| over elements with e != 0
  double rms_rel_err = 0.0;     // ||a - e|| / ||e|| (0 when both are zero)
  double cosine = 1.0;          // <a, e> / (||a|| ||e||); 1 when both are zero
  double expected_norm = 0.0;
  double actual_norm = 0.0;
  std::size_t worst_index = 0;  // element with the largest |a - e| / (abs + rel |e|)
  bool expected_constant = false;  // every reference element equal (over more than one element)
};

// `unwritten`, when not empty, has one flag per element (1: the device never wrote it); such
// elements count as unwritten and are left out of the error norms.
CompareStats compare(std::span<const double> expected, std::span<const float> actual, const Tolerance& tol,
                     std::span<const std::uint8_t> unwritten = {});
// The same for a double-precision actual (one oracle checked against another).
CompareStats compare(std::span<const double> expected, std::span<const double> actual, const Tolerance& tol,
                     std::span<const std::uint8_t> unwritten = {});

bool within(const CompareStats& s, const Tolerance& tol);
// ||v|| / sqrt(elements) over the finite elements (0 for none): the size an absolute floor of a
// normwise bound is set against (with_subnormal_rms_floor).
double root_mean_square(std::span<const double> v);

// One compared tensor of a case.
struct ComparedTensor {
  std::string name;  // "O", "LSE", "K", "V"
  CompareStats stats;
  Tolerance tol;
};

struct Verdict {
  ResultState state = ResultState::passed;
  std::string reason;  // empty when passed; otherwise the first thing that decided the state
};

// PASSED when every tensor is within its tolerance; FAILED naming the first tensor and what
// broke (mismatches, non-finite, unwritten, rms); MISTRUSTED when nothing failed but a reference
// had zero norm or was constant, so the comparison could not have failed.
Verdict judge(std::span<const ComparedTensor> tensors);

}  // namespace mlacheck
