#pragma once
// Comparison of a device output against the double-precision reference, and the verdict.
#include <cstddef>
#include <cstdint>
#include <functional>
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
  // Written elements outside the elementwise bound, or not matching a non-finite reference's class
  // (a finite value or the wrong Inf where the reference is Inf or NaN); a NaN the kernel wrote is
  // never a mismatch: it counts in nonfinite and nan_written.
  std::size_t mismatches = 0;
  std::size_t nonfinite = 0;    // NaN or Inf written where the reference is finite, NaN where it is Inf
  std::size_t nan_written = 0;  // of nonfinite, the NaNs: the kernel wrote them (the poison is unwritten)
  std::size_t unwritten = 0;    // still holding the poison code after the launch: never written
  std::size_t first_unwritten_index = 0;  // the first of them (when unwritten > 0)
  double max_abs_err = 0.0;
  double max_rel_err = 0.0;     // |a - e| / |e| over elements with e != 0
  double rms_rel_err = 0.0;     // ||a - e|| / ||e|| (0 when both are zero)
  double cosine = 1.0;          // <a, e> / (||a|| ||e||); 1 when both are zero
  double expected_norm = 0.0;
  double actual_norm = 0.0;
  std::size_t worst_index = 0;  // element with the largest |a - e| / (abs + rel |e|)
  bool expected_constant = false;  // every reference element equal (over more than one element)
};

// `unwritten`, when not empty, has one flag per element (1: the element still holds the poison
// code, so the device never wrote it); such elements count as unwritten, never as NaN, and are
// left out of the error norms.
CompareStats compare(std::span<const double> expected, std::span<const float> actual, const Tolerance& tol,
                     std::span<const std::uint8_t> unwritten = {});
// The same for a double-precision actual (one oracle checked against another).
CompareStats compare(std::span<const double> expected, std::span<const double> actual, const Tolerance& tol,
                     std::span<const std::uint8_t> unwritten = {});

bool within(const CompareStats& s, const Tolerance& tol);
// ||v|| / sqrt(elements) over the finite elements (0 for none): the size an absolute floor of a
// normwise bound is set against (with_subnormal_rms_floor).
double root_mean_square(std::span<const double> v);

// Names an element of a tensor by its flat (row-major) index in the tensor's own coordinates,
// e.g. "request 3, query token 0, head 17, channel 130".
using ElementNamer = std::function<std::string(std::size_t)>;

// One compared tensor of a case.
struct ComparedTensor {
  std::string name;  // "O", "LSE", "K", "V"
  CompareStats stats;
  Tolerance tol;
  // Where the worst written element (stats.worst_index) and the first unwritten one are, named by
  // name_elements(); empty when the tensor has no namer (reasons then give the flat index) or there
  // is no such element.
  // (Default-initialised so that {name, stats, tol} stays a complete initialiser.)
  std::string worst_element = {};
  std::string first_unwritten_element = {};
};

// Names `t`'s worst written element and first unwritten one with `namer`.
void name_elements(ComparedTensor& t, const ElementNamer& namer);

struct Verdict {
  ResultState state = ResultState::passed;
  std::string reason;  // empty when passed; otherwise the first thing that decided the state
};

// PASSED when every tensor is within its tolerance; FAILED naming the first tensor and what
// broke (never written, NaN written, Inf, mismatches, rms) and where (the worst element and the
// first unwritten one, named when the tensor has names); MISTRUSTED when nothing failed but a reference
// had zero norm or was constant, so the comparison could not have failed.
Verdict judge(std::span<const ComparedTensor> tensors);

}  // namespace mlacheck
