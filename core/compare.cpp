#include "core/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace mlacheck {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A non-finite reference is only matched by the same class: NaN by NaN, +-Inf by the same Inf.
template <class A>
bool same_nonfinite(double expected, A actual) {
  if (std::isnan(expected)) return std::isnan(actual);
  return std::isinf(actual) && std::signbit(actual) == std::signbit(expected);
}

// How far an element is outside its bound, for picking the worst one: 0 for an exact match,
// +inf for any difference under a zero bound or for a non-finite error.
double excess(double err, double bound) {
  if (err == 0.0) return 0.0;
  return bound > 0.0 ? err / bound : kInf;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

template <class A>
CompareStats compare_impl(std::span<const double> expected, std::span<const A> actual, const Tolerance& tol,
                          std::span<const std::uint8_t> unwritten) {
  if (actual.size() != expected.size() || (!unwritten.empty() && unwritten.size() != expected.size())) {
    throw std::invalid_argument("compare: expected, actual and unwritten flags differ in size");
  }
  CompareStats s;
  s.total = expected.size();
  double err2 = 0.0, exp2 = 0.0, act2 = 0.0, dot = 0.0;
  double worst = -1.0;
  for (std::size_t i = 0; i < s.total; ++i) {
    if (!unwritten.empty() && unwritten[i] != 0) {
      if (s.unwritten++ == 0) s.first_unwritten_index = i;
      continue;
    }
    const double e = expected[i];
    const A a = actual[i];
    double score;
    if (!std::isfinite(e)) {
      if (same_nonfinite(e, a)) continue;
      if (std::isnan(a)) {
        ++s.nonfinite;
        ++s.nan_written;
      } else {
        ++s.mismatches;
      }
      score = kInf;
    } else if (!std::isfinite(a)) {
      ++s.nonfinite;
      if (std::isnan(a)) ++s.nan_written;
      score = kInf;
    } else {
      const double ad = static_cast<double>(a);
      const double err = std::abs(ad - e);
      const double bound = tol.abs + tol.rel * std::abs(e);
      if (err > bound) ++s.mismatches;
      s.max_abs_err = std::max(s.max_abs_err, err);
      if (e != 0.0) s.max_rel_err = std::max(s.max_rel_err, err / std::abs(e));
      err2 += err * err;
      exp2 += e * e;
      act2 += ad * ad;
      dot += ad * e;
      score = excess(err, bound);
    }
    if (score > worst) {
      worst = score;
      s.worst_index = i;
    }
  }
  s.expected_norm = std::sqrt(exp2);
  s.actual_norm = std::sqrt(act2);
  const double err_norm = std::sqrt(err2);
  if (s.expected_norm > 0.0) {
    s.rms_rel_err = err_norm / s.expected_norm;
  } else {
    s.rms_rel_err = err_norm > 0.0 ? kInf : 0.0;
  }
  // Both norms past a double's range (double outputs near 1e154) make inf / inf: an error too large
  // to measure is reported as unbounded, never NaN, which no threshold would catch.
  if (std::isnan(s.rms_rel_err)) s.rms_rel_err = kInf;
  if (s.expected_norm > 0.0 && s.actual_norm > 0.0) {
    // Rounding can push the quotient a hair past +-1; 1 - cosine must not go negative in reports.
    s.cosine = std::clamp(dot / (s.expected_norm * s.actual_norm), -1.0, 1.0);
  } else {
    s.cosine = (s.expected_norm == 0.0 && s.actual_norm == 0.0) ? 1.0 : 0.0;
  }
  s.expected_constant =
      s.total > 1 && std::all_of(expected.begin(), expected.end(), [&](double e) { return e == expected[0]; });
  return s;
}

}  // namespace

CompareStats compare(std::span<const double> expected, std::span<const float> actual, const Tolerance& tol,
                     std::span<const std::uint8_t> unwritten) {
  return compare_impl(expected, actual, tol, unwritten);
}

CompareStats compare(std::span<const double> expected, std::span<const double> actual, const Tolerance& tol,
                     std::span<const std::uint8_t> unwritten) {
  return compare_impl(expected, actual, tol, unwritten);
}

double root_mean_square(std::span<const double> v) {
  double sum = 0.0;
  std::size_t n = 0;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    sum += x * x;
    ++n;
  }
  return n == 0 ? 0.0 : std::sqrt(sum / static_cast<double>(n));
}

bool within(const CompareStats& s, const Tolerance& tol) {
  return s.mismatches == 0 && s.nonfinite == 0 && s.unwritten == 0 && s.rms_rel_err <= tol.rms;
}

void name_elements(ComparedTensor& t, const ElementNamer& namer) {
  const CompareStats& s = t.stats;
  t.worst_element = s.total > s.unwritten ? namer(s.worst_index) : "";
  t.first_unwritten_element = s.unwritten > 0 ? namer(s.first_unwritten_index) : "";
}

Verdict judge(std::span<const ComparedTensor> tensors) {
  for (const ComparedTensor& t : tensors) {
    if (within(t.stats, t.tol)) continue;
    const CompareStats& s = t.stats;
    const std::string of = " of " + std::to_string(s.total);
    std::string reason;
    const auto add = [&reason](const std::string& part) { reason += (reason.empty() ? "" : ", ") + part; };
    if (s.unwritten > 0) {
      add(std::to_string(s.unwritten) + of + " elements never written" +
          (t.first_unwritten_element.empty() ? "" : " (first at " + t.first_unwritten_element + ")"));
    }
    if (s.nan_written > 0) add(std::to_string(s.nan_written) + of + " elements are NaN written by the kernel");
    if (const std::size_t inf = s.nonfinite - s.nan_written; inf > 0) {
      add(std::to_string(inf) + of + " elements Inf where the reference is finite");
    }
    if (s.mismatches > 0) {
      add(std::to_string(s.mismatches) + of + " elements outside abs " + format_number(t.tol.abs) + " + rel " +
          format_number(t.tol.rel) + "*|e| (max abs err " + format_number(s.max_abs_err) + ")");
    }
    if (!(s.rms_rel_err <= t.tol.rms)) {
      add("rms rel err " + format_number(s.rms_rel_err) + " > " + format_number(t.tol.rms));
    }
    if (s.mismatches > 0 || s.nonfinite > 0) {
      reason += t.worst_element.empty() ? " (worst element " + std::to_string(s.worst_index) + ")"
                                        : " (worst at " + t.worst_element + ")";
    }
    return {ResultState::failed, t.name + ": " + reason};
  }
  if (tensors.empty()) return {ResultState::mistrusted, "nothing was compared"};
  for (const ComparedTensor& t : tensors) {
    if (t.stats.total == 0) return {ResultState::mistrusted, t.name + ": no elements compared"};
    if (t.stats.expected_norm == 0.0) return {ResultState::mistrusted, t.name + ": reference has zero norm"};
    if (t.stats.expected_constant) {
      return {ResultState::mistrusted, t.name + ": every reference element is equal"};
    }
  }
  return {ResultState::passed, ""};
}

}  // namespace mlacheck
