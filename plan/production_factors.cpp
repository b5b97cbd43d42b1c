#include "plan/production_factors.hpp"

#include <algorithm>

#include "core/dtype.hpp"
#include "core/mla_sequence.hpp"
#include "scenarios/csv_table_impl.hpp"

namespace mlacheck {

namespace {

using scenarios::CellError;
using scenarios::CellReader;
using scenarios::CsvTable;

constexpr std::array<std::string_view, 6> kFactorColumns = {"factor", "value", "model", "tp", "source", "max_strength"};
constexpr std::array<std::string_view, 2> kImpossibleColumns = {"when", "reason"};

int factor_index(std::string_view name) {
  const auto it = std::find(kFactorNames.begin(), kFactorNames.end(), name);
  return it == kFactorNames.end() ? -1 : static_cast<int>(it - kFactorNames.begin());
}

std::string factor_list() {
  std::string out;
  for (std::string_view n : kFactorNames) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// The values a factor can take, for checking the table; heads takes any count 1..4096.
bool valid_value(std::string_view factor, std::string_view v) {
  const auto one_of = [&](std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), v) != names.end();
  };
  if (factor == "heads") {
    try {
      scenarios::parse_int_cell(v, 1, 4096);
      return true;
    } catch (const CellError&) {
      return false;
    }
  }
  if (factor == "q_dtype" || factor == "kv_dtype") return parse_dtype(v).has_value() && v != "f32";
  if (factor == "o_dtype") return one_of({"bf16", "f16"});
  if (factor == "q_len") return one_of({"1", "2-4", "5-8", ">8", "mixed"});
  if (factor == "block_size") return one_of({"1", "16", "64", "other"});
  if (factor == "latent") {
    const auto slash = v.find('/');
    if (slash == std::string_view::npos) return false;
    try {
      const auto lv = scenarios::parse_int_cell(v.substr(0, slash), 16, 512);
      scenarios::parse_int_cell(v.substr(slash + 1), 0, 64);
      return lv % 16 == 0;
    } catch (const CellError&) {
      return false;
    }
  }
  if (factor == "path") return one_of({"auto", "split_kv", "persistent"});
  return one_of({"no", "yes"});  // padded_rows, past_4gib, sequence
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<FactorTerm> parse_terms(const FactorTable& table, std::string_view text) {
  std::vector<FactorTerm> terms;
  while (true) {
    const auto amp = text.find('&');
    const std::string_view term = trimmed(text.substr(0, amp));
    const auto eq = term.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw CellError("term '" + std::string(term) + "' is not factor=value or factor!=value");
    }
    FactorTerm t;
    t.negated = term[eq - 1] == '!';
    const std::string_view name = trimmed(term.substr(0, t.negated ? eq - 1 : eq));
    const std::string_view value = trimmed(term.substr(eq + 1));
    t.factor = factor_index(name);
    if (t.factor < 0) throw CellError("'" + std::string(name) + "' is not a factor (" + factor_list() + ")");
    t.value = table.value_index(t.factor, value);
    if (t.value < 0) {
      throw CellError("'" + std::string(value) + "' is no value of " + std::string(name) +
                      " in the factor table");
    }
    terms.push_back(t);
    if (amp == std::string_view::npos) break;
    text.remove_prefix(amp + 1);
  }
  return terms;
}

bool term_holds(const FactorTerm& t, int value) { return (value == t.value) != t.negated; }

}  // namespace

int FactorTable::value_index(int factor, std::string_view value) const {
  const auto& values = factors[static_cast<std::size_t>(factor)].values;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].value == value) return static_cast<int>(i);
  }
  return -1;
}

const ImpossibleCombination* FactorTable::excluded_by(const std::vector<int>& values) const {
  for (const ImpossibleCombination& c : impossible) {
    const bool matches = std::all_of(c.terms.begin(), c.terms.end(), [&](const FactorTerm& t) {
      const int v = values[static_cast<std::size_t>(t.factor)];
      return v >= 0 && term_holds(t, v);
    });
    if (matches) return &c;
  }
  return nullptr;
}

FactorTable load_factor_table(const std::string& factors_file, const std::string& impossible_file) {
  FactorTable table;
  for (std::string_view n : kFactorNames) table.factors.push_back({std::string(n), {}});
  const CsvTable csv = scenarios::read_csv_table(factors_file, kFactorColumns);
  for (const scenarios::CsvRow& r : csv.rows) {
    const CellReader row(csv, r);
    for (std::string_view c : {"factor", "value", "source"}) {
      if (row.empty(c)) row.fail(c, "required");
    }
    const int f = factor_index(row.text("factor"));
    if (f < 0) row.fail("factor", "'" + std::string(row.text("factor")) + "' is not a factor (" + factor_list() + ")");
    const std::string_view value = row.text("value");
    if (!valid_value(kFactorNames[static_cast<std::size_t>(f)], value)) {
      row.fail("value", "'" + std::string(value) + "' is no value of " + std::string(kFactorNames[static_cast<std::size_t>(f)]) +
                            " (the table's header comment says what each factor takes)");
    }
    int tp = 1;
    if (f == 0) {
      tp = static_cast<int>(row.parse("tp", [](std::string_view t) { return scenarios::parse_int_cell(t, 1, 256); }));
      if (std::stoi(std::string(value)) * tp > 4096) row.fail("tp", "heads x tp exceeds 4096 model heads");
    } else if (!row.empty("tp")) {
      row.fail("tp", "only heads rows name a TP degree");
    }
    Factor& factor = table.factors[static_cast<std::size_t>(f)];
    if (!row.empty("max_strength")) {
      const int cap = static_cast<int>(row.parse("max_strength", [](std::string_view t) {
        return scenarios::parse_int_cell(t, 1, static_cast<int>(kFactorNames.size()));
      }));
      if (factor.max_strength > 0 && factor.max_strength != cap) {
        row.fail("max_strength", "differs from an earlier row of " + factor.name + " (" + std::to_string(factor.max_strength) + ")");
      }
      factor.max_strength = cap;
    }
    const std::string model(row.text("model"));
    const std::string provenance = (model.empty() || model == "-" ? std::string() : model + (f == 0 ? " TP" + std::to_string(tp) : "") + ": ") +
                                   std::string(row.text("source"));
    const int existing = table.value_index(f, value);
    if (existing >= 0) {
      FactorValue& v = factor.values[static_cast<std::size_t>(existing)];
      if (f != 0) row.fail("value", "'" + std::string(value) + "' is listed twice (first at " + v.source + ")");
      v.provenance.push_back(provenance);
    } else {
      factor.values.push_back({std::string(value), {provenance}, csv.file + ":" + std::to_string(r.line), tp});
    }
  }
  for (const Factor& f : table.factors) {
    if (f.values.empty()) {
      throw scenarios::TableError(factors_file, 0, "factor", "factor '" + f.name + "' has no values");
    }
  }
  const CsvTable impossible = scenarios::read_csv_table(impossible_file, kImpossibleColumns);
  for (const scenarios::CsvRow& r : impossible.rows) {
    const CellReader row(impossible, r);
    for (std::string_view c : kImpossibleColumns) {
      if (row.empty(c)) row.fail(c, "required");
    }
    ImpossibleCombination c;
    c.terms = row.parse("when", [&](std::string_view t) { return parse_terms(table, t); });
    c.text = std::string(row.text("when"));
    c.reason = std::string(row.text("reason"));
    c.source = impossible.file + ":" + std::to_string(r.line);
    table.impossible.push_back(std::move(c));
  }
  return table;
}

std::string factor_value(int factor, const MlaDecodeProblem& p) {
  const std::string_view name = kFactorNames[static_cast<std::size_t>(factor)];
  const auto yes_no = [](bool b) { return std::string(b ? "yes" : "no"); };
  if (name == "heads") return std::to_string(heads(p));
  if (name == "q_dtype") return std::string(to_string(p.q_dtype));
  if (name == "kv_dtype") return std::string(to_string(p.kv_dtype));
  if (name == "o_dtype") return std::string(to_string(p.o_dtype));
  if (name == "q_len") {
    if (std::adjacent_find(p.q_lens.begin(), p.q_lens.end(), std::not_equal_to<>()) != p.q_lens.end()) return "mixed";
    const int q = p.q_lens.front();
    return q == 1 ? "1" : q <= 4 ? "2-4" : q <= 8 ? "5-8" : ">8";
  }
  if (name == "block_size") {
    return p.block_size == 1 || p.block_size == 16 || p.block_size == 64 ? std::to_string(p.block_size) : "other";
  }
  if (name == "latent") return std::to_string(p.kv_lora_rank) + "/" + std::to_string(p.rope_dim);
  if (name == "path") return std::string(to_string(p.path));
  if (name == "padded_rows") {
    bool padded = false;
    for (int r = 0; r < batch(p); ++r) padded |= join_step(p, r) == leave_step(p, r) || (p.steps == 1 && p.kv_lens[static_cast<std::size_t>(r)] == 0);
    return yes_no(padded);
  }
  if (name == "past_4gib") return yes_no(cache_rows_past_4gib(p));
  return yes_no(p.steps > 1);  // sequence
}

std::vector<int> classify(const FactorTable& table, const MlaDecodeProblem& p) {
  std::vector<int> out;
  for (std::size_t f = 0; f < table.factors.size(); ++f) {
    out.push_back(table.value_index(static_cast<int>(f), factor_value(static_cast<int>(f), p)));
  }
  return out;
}

}  // namespace mlacheck
