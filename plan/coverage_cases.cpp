#include "plan/coverage_cases.hpp"

#include <stdexcept>

#include "core/dtype.hpp"

namespace mlacheck {

namespace {

RowAllowed allowed_by(const FactorTable& table) {
  return [&table](const std::vector<int>& row) { return table.excluded_by(row) == nullptr; };
}

std::vector<int> domains_of(const FactorTable& table) {
  std::vector<int> d;
  for (const Factor& f : table.factors) d.push_back(static_cast<int>(f.values.size()));
  return d;
}

std::vector<int> strength_caps_of(const FactorTable& table) {
  std::vector<int> caps;
  for (const Factor& f : table.factors) caps.push_back(f.max_strength);
  return caps;
}

const std::string& value_of(const FactorTable& table, const std::vector<int>& row, std::string_view factor) {
  for (std::size_t f = 0; f < kFactorNames.size(); ++f) {
    if (kFactorNames[f] == factor) return table.factors[f].values[static_cast<std::size_t>(row[f])].value;
  }
  throw std::logic_error("no factor " + std::string(factor));
}

// A q_len of the class, varied by row.
int q_len_of(const std::string& cls, int i) {
  if (cls == "1") return 1;
  if (cls == "2-4") return 2 + i % 3;
  if (cls == "5-8") return 5 + i % 4;
  return 9 + (i * 7) % 8;  // >8: 9..16
}

}  // namespace

MlaDecodeProblem cover_case(const FactorTable& table, const std::vector<int>& row, int i, std::uint64_t seed) {
  MlaDecodeProblem p;
  p.name = "cover-" + std::to_string(i);
  const FactorValue& heads_value = table.factors[0].values[static_cast<std::size_t>(row[0])];
  p.tp = heads_value.model_tp;
  p.total_heads = std::stoi(heads_value.value) * p.tp;
  p.tp_rank = p.tp - 1;
  const std::string& latent = value_of(table, row, "latent");
  p.kv_lora_rank = std::stoi(latent.substr(0, latent.find('/')));
  p.rope_dim = std::stoi(latent.substr(latent.find('/') + 1));
  p.q_dtype = *parse_dtype(value_of(table, row, "q_dtype"));
  p.kv_dtype = *parse_dtype(value_of(table, row, "kv_dtype"));
  p.o_dtype = *parse_dtype(value_of(table, row, "o_dtype"));
  if (is_fp8(p.q_dtype)) p.q_scale = 1.7f;  // no power of two: a kernel ignoring it fails
  if (is_fp8(p.kv_dtype)) p.kv_scale = i % 2 == 0 ? 0.03125f : 0.3f;
  // Three requests of a few hundred tokens at most; a q_len class is every request's q_len.
  const std::string& q_class = value_of(table, row, "q_len");
  if (q_class == "mixed") {
    p.q_lens = {1, 3 + i % 6, 2};
  } else {
    const int q = q_len_of(q_class, i);
    p.q_lens = {q, q, q};
  }
  p.kv_lens = {p.q_lens[0] + 150 + (i * 37) % 200, p.q_lens[1] + 63, p.q_lens[2] + i % 17};
  const bool padded = value_of(table, row, "padded_rows") == "yes";
  if (padded) {
    p.kv_lens.push_back(0);
    p.q_lens.push_back(p.q_lens.front());  // a pad row carries the batch's q_len
  }
  const std::string& bs = value_of(table, row, "block_size");
  const int other_sizes[] = {7, 32, 128};
  p.block_size = bs == "other" ? other_sizes[i % 3] : std::stoi(bs);
  const std::string& path = value_of(table, row, "path");
  p.path = path == "auto" ? DecodePath::automatic : path == "persistent" ? DecodePath::persistent : DecodePath::split_kv;
  if (value_of(table, row, "sequence") == "yes") {
    // Three steps: the second request leaves after step 1, a pad slot stays padding throughout.
    p.steps = 3;
    p.joins.assign(p.kv_lens.size(), 0);
    p.leaves = {3, 2, 3};
    if (padded) p.leaves.push_back(0);
  }
  p.seed = seed + 2000 + static_cast<std::uint64_t>(i);
  p = with_defaults(p);
  if (value_of(table, row, "past_4gib") == "yes") {
    p.first_block = first_block_past_4gib(p);
    p.num_blocks = 0;
    p = with_defaults(p);
  }
  validate(p);
  if (classify(table, p) != row) {
    throw std::logic_error("covering array: case " + p.name + " " + to_repro(p) + " does not hold its row");
  }
  return p;
}

std::vector<MlaDecodeProblem> covering_array_cases(const FactorTable& table, int strength, std::uint64_t seed) {
  const CoveringArray array = build_covering_array(domains_of(table), strength, allowed_by(table), strength_caps_of(table));
  std::vector<MlaDecodeProblem> out;
  for (std::size_t i = 0; i < array.rows.size(); ++i) out.push_back(cover_case(table, array.rows[i], static_cast<int>(i), seed));
  return out;
}

CoverageReport measure_coverage(const FactorTable& table, int strength,
                                const std::vector<std::pair<std::string, MlaDecodeProblem>>& cases) {
  std::vector<std::vector<int>> rows;
  for (const auto& c : cases) rows.push_back(classify(table, c.second));
  CoverageReport report;
  report.cases = static_cast<int>(cases.size());
  for (Combination& c : required_combinations(domains_of(table), strength, allowed_by(table), strength_caps_of(table))) {
    const int r = first_row_covering(c, rows);
    if (r < 0) {
      report.uncovered.push_back(std::move(c));
    } else {
      report.covered.push_back({std::move(c), cases[static_cast<std::size_t>(r)].first});
    }
  }
  return report;
}

std::string describe(const FactorTable& table, const Combination& c) {
  std::string out;
  for (std::size_t i = 0; i < c.factors.size(); ++i) {
    const Factor& f = table.factors[static_cast<std::size_t>(c.factors[i])];
    out += (i == 0 ? "" : " ") + f.name + "=" + f.values[static_cast<std::size_t>(c.values[i])].value;
  }
  return out;
}

}  // namespace mlacheck
