#include "reports/case_facets.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "reports/report_columns.hpp"

namespace mlacheck {

namespace {

// The cache dtypes of the design (bf16, fp16, fp8 with a scale); an f32 cache is legal but no
// model ships one, so an empty f32 bucket would only be noise.
constexpr DType kCacheDTypes[] = {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};
constexpr const char* kPaths[] = {"split_kv", "persistent", "gather"};

std::vector<std::string> build_buckets() {
  std::vector<std::string> out = {"heads < 16",         "head padding: repeat-interleave", "head padding: tile",
                                  "q_len > 1",          "q_len not a power of two",        "mixed q_len in a batch",
                                  "block_size 1",       "block_size > 1, not 16 or 64",    "TP > 1",
                                  "NHD layout",         "SHUFFLE layout",                  "interleaved K/V cache",
                                  "fp8 dequantisation"};
  for (DType t : kCacheDTypes) out.push_back("cache " + std::string(to_string(t)));
  for (const char* p : kPaths) out.push_back("path " + std::string(p));
  return out;
}

void add_block_size_buckets(int block_size, std::vector<std::string>& b) {
  if (block_size == 1) b.push_back("block_size 1");
  if (block_size > 1 && block_size != 16 && block_size != 64) b.push_back("block_size > 1, not 16 or 64");
}

void mla_facets(const MlaDecodeProblem& p, CaseFacets& f) {
  f.dtype = std::string(to_string(p.kv_dtype));
  f.kv_len = max_kv_len(p);
  f.heads = heads(p);
  f.q_len = max_q_len(p);
  f.tp = p.tp;
  f.block_size = p.block_size;
  auto& b = f.buckets;
  if (f.heads < 16) b.push_back("heads < 16");
  if (head_pad_mode(p) == HeadPadMode::repeat_interleave) b.push_back("head padding: repeat-interleave");
  if (head_pad_mode(p) == HeadPadMode::tile) b.push_back("head padding: tile");
  if (f.q_len > 1) b.push_back("q_len > 1");
  if (std::any_of(p.q_lens.begin(), p.q_lens.end(), [](int q) { return !std::has_single_bit(static_cast<unsigned>(q)); })) {
    b.push_back("q_len not a power of two");
  }
  if (std::adjacent_find(p.q_lens.begin(), p.q_lens.end(), std::not_equal_to<>()) != p.q_lens.end()) {
    b.push_back("mixed q_len in a batch");
  }
  add_block_size_buckets(p.block_size, b);
  if (p.tp > 1) b.push_back("TP > 1");
  if (is_fp8(p.kv_dtype)) b.push_back("fp8 dequantisation");
}

void gather_facets(const KvGatherProblem& p, CaseFacets& f) {
  f.dtype = std::string(to_string(p.cache_dtype));
  f.kv_len = *std::max_element(p.kv_lens.begin(), p.kv_lens.end());
  f.heads = p.num_kv_heads;
  f.block_size = p.block_size;
  auto& b = f.buckets;
  add_block_size_buckets(p.block_size, b);
  b.push_back(p.layout == CacheLayout::nhd ? "NHD layout" : "SHUFFLE layout");
  if (p.interleaved) b.push_back("interleaved K/V cache");
  if (dequantises(p)) b.push_back("fp8 dequantisation");
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
    if (row.repro.starts_with("mla_decode:")) {
      mla_facets(parse_mla_decode(row.repro), f);
    } else if (row.repro.starts_with("kv_gather:")) {
      gather_facets(parse_kv_gather(row.repro), f);
    } else {
      return f;
    }
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
