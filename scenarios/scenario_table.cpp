// Rows of a scenario table into Scenarios: each cell parsed for its column, the problem built
// from the cells its op uses (empty cells take the descriptor's defaults) and validated.
#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "core/error.hpp"
#include "scenarios/cell_parse.hpp"
#include "scenarios/csv_table_impl.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/table_error.hpp"

namespace mlacheck::scenarios {

namespace {

constexpr int kIntMax = std::numeric_limits<int>::max();

// Columns only one op has: a value in the other op's row is a mistake in the table.
constexpr std::string_view kMlaOnly[] = {"heads",    "tp",   "lv",          "rope",  "q_lens", "q_dtype",
                                         "kv_scale", "path", "first_block", "steps", "joins",  "leaves"};
constexpr std::string_view kGatherOnly[] = {"layout", "interleaved", "kv_heads", "head_size"};
constexpr std::string_view kRequired[] = {"id", "upstream", "reference", "model", "title",
                                          "op", "fault",    "caught_by", "kv_lens", "note"};

// validate() names fields by their repro keys; the column a key's value came from, or "" for a
// derived field no column sets (scale, num_blocks, strides).
std::string column_of_field(std::string_view field) {
  static constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {
      {"name", "id"},       {"kv", "kv_lens"},           {"q", "q_lens"},
      {"bs", "block_size"}, {"cache_dtype", "kv_dtype"}, {"out_dtype", "o_dtype"},
      {"join", "joins"},    {"leave", "leaves"}};
  for (const auto& [key, column] : kRenamed) {
    if (key == field) return std::string(column);
  }
  const bool is_column = std::find(kScenarioColumns.begin(), kScenarioColumns.end(), field) != kScenarioColumns.end();
  return is_column ? std::string(field) : "";
}

int int_cell(const CellReader& row, std::string_view column, int min) {
  return static_cast<int>(row.parse(column, [&](std::string_view t) { return parse_int_cell(t, min, kIntMax); }));
}

std::vector<int> list_cell(const CellReader& row, std::string_view column) {
  return row.parse(column, [](std::string_view t) { return parse_int_list_cell(t, 0, kIntMax); });
}

DType dtype_cell(const CellReader& row, std::string_view column, DType fallback) {
  return row.empty(column) ? fallback : row.parse(column, parse_dtype_cell);
}

template <class Problem>
Problem validated(const CellReader& row, Problem p) {
  try {
    p = with_defaults(p);
    validate(p);
  } catch (const InvalidProblem& e) {
    row.fail(column_of_field(e.field()), e.what());
  }
  return p;
}

MlaDecodeProblem mla_problem(const CellReader& row) {
  MlaDecodeProblem p;
  p.name = std::string(row.text("id"));
  if (row.empty("heads")) row.fail("heads", "required for op mla_decode");
  p.total_heads = int_cell(row, "heads", 1);
  if (!row.empty("tp")) p.tp = int_cell(row, "tp", 1);
  if (!row.empty("lv")) p.kv_lora_rank = int_cell(row, "lv", 1);
  if (!row.empty("rope")) p.rope_dim = int_cell(row, "rope", 0);
  p.kv_lens = list_cell(row, "kv_lens");
  p.q_lens = row.empty("q_lens") ? std::vector<int>(p.kv_lens.size(), 1) : list_cell(row, "q_lens");
  if (!row.empty("block_size")) p.block_size = int_cell(row, "block_size", 1);
  p.q_dtype = dtype_cell(row, "q_dtype", p.q_dtype);
  p.kv_dtype = dtype_cell(row, "kv_dtype", p.kv_dtype);
  if (!row.empty("kv_scale")) p.kv_scale = row.parse("kv_scale", parse_float_cell);
  p.o_dtype = dtype_cell(row, "o_dtype", p.o_dtype);
  if (!row.empty("path")) {
    p.path = row.parse("path", [](std::string_view t) {
      if (t == "auto") return DecodePath::automatic;
      if (t == "persistent") return DecodePath::persistent;
      if (t == "split_kv") return DecodePath::split_kv;
      throw CellError("'" + std::string(t) + "' is not one of auto, persistent, split_kv");
    });
  }
  if (!row.empty("seed")) p.seed = row.parse("seed", parse_u64_cell);
  if (!row.empty("first_block")) p.first_block = int_cell(row, "first_block", 0);
  // A decode sequence (core/mla_sequence.hpp); joins and leaves take their defaults (every request
  // from the first step to the last) when empty, and make sense only with steps.
  if (!row.empty("steps")) p.steps = int_cell(row, "steps", 1);
  for (std::string_view column : {"joins", "leaves"}) {
    if (row.empty(column)) continue;
    if (p.steps == 1) row.fail(column, "needs steps > 1 (a decode sequence); leave the cell empty");
    (column == "joins" ? p.joins : p.leaves) = list_cell(row, column);
  }
  return validated(row, std::move(p));
}

KvGatherProblem gather_problem(const CellReader& row) {
  KvGatherProblem p;
  p.name = std::string(row.text("id"));
  if (row.empty("layout")) row.fail("layout", "required for op kv_gather");
  p.layout = row.parse("layout", [](std::string_view t) {
    if (t == "nhd") return CacheLayout::nhd;
    if (t == "shuffle") return CacheLayout::shuffle;
    throw CellError("'" + std::string(t) + "' is not one of nhd, shuffle");
  });
  if (!row.empty("interleaved")) p.interleaved = row.parse("interleaved", parse_bool_cell);
  if (!row.empty("kv_heads")) p.num_kv_heads = int_cell(row, "kv_heads", 1);
  if (!row.empty("head_size")) p.head_size = int_cell(row, "head_size", 1);
  if (!row.empty("block_size")) p.block_size = int_cell(row, "block_size", 1);
  p.kv_lens = list_cell(row, "kv_lens");
  p.cache_dtype = dtype_cell(row, "kv_dtype", p.cache_dtype);
  p.out_dtype = dtype_cell(row, "o_dtype", p.cache_dtype);
  if (!row.empty("seed")) p.seed = row.parse("seed", parse_u64_cell);
  return validated(row, std::move(p));
}

template <std::size_t K>
void require_empty(const CellReader& row, const std::string_view (&columns)[K], std::string_view op) {
  for (std::string_view c : columns) {
    if (!row.empty(c)) row.fail(c, "op " + std::string(op) + " has no such field; leave the cell empty");
  }
}

Scenario to_scenario(const CsvTable& table, const CsvRow& csv) {
  const CellReader row(table, csv);
  for (std::string_view c : kRequired) {
    if (row.empty(c)) row.fail(c, "required");
  }
  Scenario s;
  s.id = std::string(row.text("id"));
  s.upstream = std::string(row.text("upstream"));
  s.reference = std::string(row.text("reference"));
  s.model = std::string(row.text("model"));
  s.title = std::string(row.text("title"));
  s.note = std::string(row.text("note"));
  s.source = table.file + ":" + std::to_string(csv.line);
  s.fault = row.parse("fault", [](std::string_view t) {
    // Only the upstream faults have scenarios: a precision fault is measured by --sensitivity.
    const auto f = parse_fault(t);
    if (f && std::find(std::begin(kAllFaults), std::end(kAllFaults), *f) != std::end(kAllFaults)) return *f;
    std::string names;
    for (Fault u : kAllFaults) names += (names.empty() ? "" : ", ") + std::string(to_string(u));
    throw CellError("'" + std::string(t) + "' is not " + (f ? "an upstream fault" : "a fault") + " (" + names + ")");
  });
  s.caught_by = row.parse("caught_by", [](std::string_view t) {
    try {
      return parse_catch_kinds(t);
    } catch (const std::invalid_argument& e) {
      throw CellError(e.what());
    }
  });
  const std::string_view op = row.text("op");
  if (op == "mla_decode") {
    require_empty(row, kGatherOnly, op);
    s.problem = mla_problem(row);
  } else if (op == "kv_gather") {
    require_empty(row, kMlaOnly, op);
    s.problem = gather_problem(row);
  } else {
    row.fail("op", "'" + std::string(op) + "' is not one of mla_decode, kv_gather");
  }
  return s;
}

}  // namespace

std::vector<Scenario> load_scenarios(const std::string& path) {
  const CsvTable table = read_csv_table(path, kScenarioColumns);
  std::vector<Scenario> out;
  std::map<std::string, int, std::less<>> first_line;
  for (const CsvRow& csv : table.rows) {
    Scenario s = to_scenario(table, csv);
    const auto [it, fresh] = first_line.emplace(s.id, csv.line);
    if (!fresh) {
      throw TableError(path, csv.line, "id", "'" + s.id + "' repeats the id of line " + std::to_string(it->second));
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace mlacheck::scenarios
