#include "reports/case_facets.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/dtype.hpp"
#include "harness/op_registry.hpp"
#include "reports/report_columns.hpp"

namespace mlacheck {

namespace {

// The cache dtypes of the design (bf16, fp16, fp8 with a scale); an f32 cache is legal but no
// model ships one, so an empty f32 bucket would only be noise.
constexpr DType kCacheDTypes[] = {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};
constexpr const char* kPaths[] = {"split_kv", "persistent", "gather"};

std::vector<std::string> build_buckets() {
  std::vector<std::string> out = op_coverage_buckets();
  for (DType t : kCacheDTypes) out.push_back("cache " + std::string(to_string(t)));
  for (const char* p : kPaths) out.push_back("path " + std::string(p));
  return out;
}

}  // namespace

std::string device_label(const CaseResult& row) {
  std::string where;
  if (row.device_index >= 0) where = "GPU " + std::to_string(row.device_index);
  if (!row.device_pci_bus_id.empty()) where += (where.empty() ? "" : ", ") + row.device_pci_bus_id;
  if (where.empty()) return row.device;
  return row.device.empty() ? "[" + where + "]" : row.device + " [" + where + "]";
}

CaseFacets facets_of(const CaseResult& row) {
  CaseFacets f;
  try {
    f = case_facets(parse_case(row.repro));
  } catch (const std::invalid_argument&) {
    return CaseFacets{};  // not a repro of this version: the row is still shown, ungrouped
  }
  f.parsed = true;
  f.buckets.push_back("cache " + f.dtype);
  if (std::find(std::begin(kPaths), std::end(kPaths), row.path) != std::end(kPaths)) f.buckets.push_back("path " + row.path);
  return f;
}

const std::vector<std::string>& coverage_buckets() {
  static const std::vector<std::string> buckets = build_buckets();
  return buckets;
}

const ComparedTensor* primary_tensor(const CaseResult& row) {
  const auto groups = tensors_by_group(row);
  return groups[0] != nullptr ? groups[0] : groups[2];  // O, else K
}

BoundUsedHistogram bound_used_histogram(std::span<const CaseResult> rows) {
  BoundUsedHistogram h;
  h.bins = {"0", "<1e-4"};
  constexpr int kHalfDecades = 8;  // 1e-4 .. 1
  for (int i = 0; i < kHalfDecades; ++i) h.bins.push_back((i % 2 == 0 ? "1e-" : "3e-") + std::to_string(4 - i / 2));
  for (const CaseResult& row : rows) {
    if (row.state != ResultState::passed) continue;
    for (const ComparedTensor& t : row.tensors) {
      if (!(t.tol.rms > 0.0) || !std::isfinite(t.tol.rms)) continue;
      const std::string name = t.name + " rms";
      auto it = std::find_if(h.tensors.begin(), h.tensors.end(), [&](const auto& s) { return s.first == name; });
      if (it == h.tensors.end())
        it = h.tensors.insert(h.tensors.end(), {name, std::vector<double>(h.bins.size(), 0.0)});
      const double used = t.stats.rms_rel_err / t.tol.rms;
      std::size_t bin = 0;
      if (used > 0.0) {
        const double half_decades = std::floor(2.0 * std::log10(used)) + 2.0 * 4;  // 0 at [1e-4, 10^-3.5)
        bin = half_decades < 0 ? 1 : 2 + static_cast<std::size_t>(std::min(half_decades, kHalfDecades - 1.0));
      }
      it->second[bin] += 1;
    }
  }
  return h;
}

BoundUsedSummary bound_used_summary(std::span<const CaseResult> rows) {
  std::vector<double> used;
  for (const CaseResult& row : rows) {
    if (row.state == ResultState::passed && !row.tensors.empty()) used.push_back(bound_used(row));
  }
  BoundUsedSummary s;
  s.cases = used.size();
  if (used.empty()) return s;
  std::sort(used.begin(), used.end());
  const auto rank = [&used](double q) {  // nearest rank: the smallest value with q of the cases at or below it
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(used.size())));
    return used[std::max<std::size_t>(k, 1) - 1];
  };
  s.median = rank(0.5);
  s.p90 = rank(0.9);
  s.max = used.back();
  return s;
}

}  // namespace mlacheck
