#include "properties/gpu/coverage.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <span>
#include <string_view>
#include <utility>

#include "core/mla_sequence.hpp"

namespace mlacheck {

namespace {

bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

// The boolean buckets, named once: mla_buckets counts them and tag_mla_case tags them.
struct MlaFlag {
  const char* name;
  bool (*holds)(const MlaDecodeProblem&);
};
constexpr MlaFlag kMlaFlags[] = {
    {"heads<16", [](const MlaDecodeProblem& p) { return heads(p) < 16; }},
    {"heads tile-padded", [](const MlaDecodeProblem& p) { return head_pad_mode(p) == HeadPadMode::tile; }},
    {"q_len not a power of two",
     [](const MlaDecodeProblem& p) {
       return std::any_of(p.q_lens.begin(), p.q_lens.end(), [](int q) { return !is_pow2(q); });
     }},
    {"q_len mixed in a batch",
     [](const MlaDecodeProblem& p) {
       return std::adjacent_find(p.q_lens.begin(), p.q_lens.end(), std::not_equal_to<>()) != p.q_lens.end();
     }},
    {"block_size>1", [](const MlaDecodeProblem& p) { return p.block_size > 1; }},
    {"TP>1", [](const MlaDecodeProblem& p) { return p.tp > 1; }},
    {"padded request (kv_len 0)",
     [](const MlaDecodeProblem& p) { return std::find(p.kv_lens.begin(), p.kv_lens.end(), 0) != p.kv_lens.end(); }},
    {"splits beyond the tokens",
     [](const MlaDecodeProblem& p) {
       return std::any_of(p.kv_lens.begin(), p.kv_lens.end(), [&](int kv) { return kv > 0 && p.num_splits > kv; });
     }},
    // fp8 queries are padded as rows of bytes (device/layout/head_padding.hip), a copy no 16-bit
    // query takes; the q_dtype buckets below count fp8 queries of any head count.
    {"fp8 q, heads padded",
     [](const MlaDecodeProblem& p) { return is_fp8(p.q_dtype) && head_pad_mode(p) != HeadPadMode::none; }},
};

// The rank's head count (with the flag "heads<16" above, exactly one holds) and the longest
// request's cache (exactly one holds), so that a run shows what every count and length received.
constexpr MlaFlag kHeadCounts[] = {
    {"heads 16..63", [](const MlaDecodeProblem& p) { return heads(p) >= 16 && heads(p) < 64; }},
    {"heads>=64", [](const MlaDecodeProblem& p) { return heads(p) >= 64; }},
};
constexpr MlaFlag kLengths[] = {
    {"kv_len<=16", [](const MlaDecodeProblem& p) { return max_kv_len(p) <= 16; }},
    {"kv_len 17..256", [](const MlaDecodeProblem& p) { return max_kv_len(p) > 16 && max_kv_len(p) <= 256; }},
    {"kv_len 257..16382", [](const MlaDecodeProblem& p) { return max_kv_len(p) > 256 && max_kv_len(p) < 16383; }},
    {"kv_len>=16383", [](const MlaDecodeProblem& p) { return max_kv_len(p) >= 16383; }},
};
constexpr FillProfile kProfiles[] = {FillProfile::uniform, FillProfile::sink, FillProfile::extreme};

// Decode sequences (core/mla_sequence.hpp; exactly one holds): one step, steps over a batch that
// changes (a request joins into a slot that was padding or leaves before the end: the state a
// backend keeps across steps must follow it), steps over a fixed batch (every request grows).
bool batch_changes(const MlaDecodeProblem& p) {
  for (int r = 0; r < batch(p); ++r) {
    const int join = join_step(p, r), leave = leave_step(p, r);
    if (join < leave && (join > 0 || leave < p.steps)) return true;
  }
  return false;
}
constexpr MlaFlag kSequences[] = {
    {"sequence: one step", [](const MlaDecodeProblem& p) { return !is_sequence(p); }},
    {"sequence: join or leave", [](const MlaDecodeProblem& p) { return is_sequence(p) && batch_changes(p); }},
    {"sequence: fixed batch", [](const MlaDecodeProblem& p) { return is_sequence(p) && !batch_changes(p); }},
};

// Buckets counted when drawn but expected of no property by all_mla_buckets: the generators draw
// them rarely on purpose (MlaGenLimits::past_4gib_percent: a device pool over 4 GiB per case), and
// MlaDecodeOnGpu.CacheRowsPast4GiBMatchOracle covers them with draws of its own.
constexpr MlaFlag kRareMlaFlags[] = {
    {"cache rows past 4 GiB", [](const MlaDecodeProblem& p) { return cache_rows_past_4gib(p); }},
};

struct GatherFlag {
  const char* name;
  bool (*holds)(const KvGatherProblem&);
};
constexpr GatherFlag kGatherFlags[] = {
    {"interleaved", [](const KvGatherProblem& p) { return p.interleaved; }},
    {"SHUFFLE", [](const KvGatherProblem& p) { return p.layout == CacheLayout::shuffle; }},
    {"dequantised", [](const KvGatherProblem& p) { return dequantises(p); }},
    // Any stride beyond the dense layout's leaves gaps, so the cache needs more elements.
    {"padded strides",
     [](const KvGatherProblem& p) {
       return cache_elements(p) > 2 * std::int64_t{p.num_blocks} * p.block_size * p.num_kv_heads * p.head_size;
     }},
};

// The values gen_mla_decode_problem (device shapes only: the properties that count coverage run
// cases the kernels take) and gen_kv_gather_problem draw; fp8 queries come with a cache of their type.
constexpr DType kQDtypes[] = {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};
constexpr DType kKvDtypes[] = {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};
constexpr DType kODtypes[] = {DType::bf16, DType::f16};
constexpr DecodePath kPaths[] = {DecodePath::automatic, DecodePath::persistent, DecodePath::split_kv};
constexpr DType kGatherCacheDtypes[] = {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};
constexpr CacheLayout kLayouts[] = {CacheLayout::nhd, CacheLayout::shuffle};

std::string named(const char* key, auto value) { return std::string(key) + "=" + std::string(to_string(value)); }

std::string cache_kind(bool interleaved) { return interleaved ? "cache=interleaved" : "cache=contiguous"; }

// Why a bucket's cases were refused: backends name the refused field as "field=value: ...", as the
// buckets are named, so the commonest reason naming the bucket explains it best.
std::string refusal_reason(const std::string& bucket, const std::map<std::string, int>& reasons) {
  const auto more_common = [&bucket](const auto& a, const auto& b) {
    const bool a_names = a.first.find(bucket) != std::string::npos;
    const bool b_names = b.first.find(bucket) != std::string::npos;
    return a_names != b_names ? b_names : a.second < b.second;
  };
  return std::max_element(reasons.begin(), reasons.end(), more_common)->first;
}

}  // namespace

std::vector<std::string> mla_buckets(const MlaDecodeProblem& p, bool with_path) {
  std::vector<std::string> out;
  for (const MlaFlag& flag : kMlaFlags) {
    if (flag.holds(p)) out.emplace_back(flag.name);
  }
  for (const auto& counts : {std::span<const MlaFlag>(kHeadCounts), std::span<const MlaFlag>(kLengths)}) {
    for (const MlaFlag& flag : counts) {
      if (flag.holds(p)) out.emplace_back(flag.name);
    }
  }
  out.push_back(named("profile", p.profile));
  for (const MlaFlag& flag : kSequences) {
    if (flag.holds(p)) out.emplace_back(flag.name);
  }
  for (const MlaFlag& flag : kRareMlaFlags) {
    if (flag.holds(p)) out.emplace_back(flag.name);
  }
  out.push_back(named("q_dtype", p.q_dtype));
  out.push_back(named("kv_dtype", p.kv_dtype));
  out.push_back(named("o_dtype", p.o_dtype));
  if (with_path) out.push_back(named("path", p.path));
  return out;
}

std::vector<std::string> all_mla_buckets(bool with_path, bool with_16k, bool with_sequences) {
  std::vector<std::string> out;
  for (const MlaFlag& flag : kMlaFlags) out.emplace_back(flag.name);
  for (const MlaFlag& flag : kHeadCounts) out.emplace_back(flag.name);
  for (const MlaFlag& flag : kLengths) {
    if (with_16k || std::string_view(flag.name) != "kv_len>=16383") out.emplace_back(flag.name);
  }
  for (FillProfile f : kProfiles) out.push_back(named("profile", f));
  if (with_sequences) {
    for (const MlaFlag& flag : kSequences) out.emplace_back(flag.name);
  }
  for (DType t : kQDtypes) out.push_back(named("q_dtype", t));
  for (DType t : kKvDtypes) out.push_back(named("kv_dtype", t));
  for (DType t : kODtypes) out.push_back(named("o_dtype", t));
  if (with_path) {
    for (DecodePath path : kPaths) out.push_back(named("path", path));
  }
  return out;
}

void tag_mla_case(const MlaDecodeProblem& p) {
  for (const MlaFlag& flag : kMlaFlags) {
    if (flag.holds(p)) RC_TAG(std::string(flag.name));
  }
  if (is_sequence(p)) RC_TAG(std::string("decode sequence"));
  for (const MlaFlag& flag : kRareMlaFlags) {
    if (flag.holds(p)) RC_TAG(std::string(flag.name));
  }
}

std::vector<std::string> gather_buckets(const KvGatherProblem& p) {
  std::vector<std::string> out;
  for (const GatherFlag& flag : kGatherFlags) {
    if (flag.holds(p)) out.emplace_back(flag.name);
  }
  out.push_back(named("layout", p.layout));
  out.push_back(cache_kind(p.interleaved));
  out.push_back(named("cache_dtype", p.cache_dtype));
  return out;
}

std::vector<std::string> all_gather_buckets() {
  std::vector<std::string> out;
  for (const GatherFlag& flag : kGatherFlags) out.emplace_back(flag.name);
  for (CacheLayout layout : kLayouts) out.push_back(named("layout", layout));
  for (bool interleaved : {false, true}) out.push_back(cache_kind(interleaved));
  for (DType t : kGatherCacheDtypes) out.push_back(named("cache_dtype", t));
  return out;
}

void tag_gather_case(const KvGatherProblem& p) {
  for (const GatherFlag& flag : kGatherFlags) {
    if (flag.holds(p)) RC_TAG(std::string(flag.name));
  }
}

void CoverageRegistry::expect(const std::string& property, std::vector<std::string> buckets) {
  properties_[property].expected = std::move(buckets);
}

void CoverageRegistry::passed(const std::string& property, const std::vector<std::string>& buckets) {
  Property& counts = properties_[property];
  ++counts.cases;
  for (const std::string& b : buckets) ++counts.buckets[b].passed;
  ++cases_passed_;
  // A sitting's progress (scripts/gpu-property-sitting.sh sums the shards' files while they run):
  // rewritten whole after every case, tens of microseconds against a case's ~0.1 s of host work.
  if (const char* file = std::getenv("MLACHECK_GPU_PROGRESS_FILE")) {
    if (std::FILE* f = std::fopen(file, "w")) {
      std::fprintf(f, "%ld\n", cases_passed_);
      std::fclose(f);
    }
  }
}

void CoverageRegistry::refused(const std::string& property, const std::vector<std::string>& buckets,
                               const std::string& reason) {
  for (const std::string& b : buckets) {
    Count& c = properties_[property].buckets[b];
    ++c.refused;
    ++c.reasons[reason];
  }
}

void CoverageRegistry::print(std::ostream& os) const {
  for (const auto& [name, property] : properties_) {
    if (property.expected.empty()) continue;
    os << "\nCoverage of " << name << " (cases checked and passed; refused: SKIPPED by the backend)\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %-28s %8s %8s\n", "bucket", "passed", "refused");
    os << line;
    for (const std::string& bucket : property.expected) {
      const auto it = property.buckets.find(bucket);
      const Count c = it == property.buckets.end() ? Count{} : it->second;
      std::snprintf(line, sizeof line, "  %-28s %8d %8d", bucket.c_str(), c.passed, c.refused);
      os << line;
      if (c.passed == 0) {
        os << (c.refused > 0 ? "  HOLE: every case refused: " + refusal_reason(bucket, c.reasons) : "  HOLE: no case");
      }
      os << '\n';
    }
  }
  os << std::flush;
}

void CoverageRegistry::write(std::ostream& os) const {
  for (const auto& [name, property] : properties_) {
    os << "cases\t" << name << '\t' << property.cases << '\n';
    std::map<std::string, Count> rows = property.buckets;
    for (const std::string& bucket : property.expected) rows.try_emplace(bucket);
    for (const auto& [bucket, c] : rows) {
      const bool expected =
          std::find(property.expected.begin(), property.expected.end(), bucket) != property.expected.end();
      os << "bucket\t" << name << '\t' << bucket << '\t' << c.passed << '\t' << c.refused << '\t' << expected << '\n';
    }
  }
}

std::vector<std::string> CoverageRegistry::holes() const {
  std::vector<std::string> out;
  for (const auto& [name, property] : properties_) {
    for (const std::string& bucket : property.expected) {
      const auto it = property.buckets.find(bucket);
      if (it == property.buckets.end() || it->second.passed == 0) {
        const bool refused = it != property.buckets.end() && it->second.refused > 0;
        out.push_back(name + ": " + bucket +
                      (refused ? " (every case refused: " + refusal_reason(bucket, it->second.reasons) + ")" : ""));
      }
    }
  }
  return out;
}

CoverageRegistry& coverage() {
  static CoverageRegistry registry;
  return registry;
}

void CoverageCheck::TearDown() {
  coverage().print(std::cout);
  if (const char* file = std::getenv("MLACHECK_GPU_COVERAGE_FILE")) {
    std::ofstream out(file);
    coverage().write(out);
    out.close();
    if (!out) ADD_FAILURE() << "MLACHECK_GPU_COVERAGE_FILE=" << file << ": cannot write the coverage counts";
    std::cout << "Coverage counts written to " << file << "; holes are checked over every shard's counts\n";
    return;
  }
  for (const std::string& hole : coverage().holes()) {
    ADD_FAILURE() << "coverage hole: " << hole << " has no case checked and passed";
  }
}

}  // namespace mlacheck
