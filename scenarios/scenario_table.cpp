// Rows of a scenario table into Scenarios: the provenance cells as they are, the fault and its
// ways of being caught parsed, and the case parsed as a repro string named by the row's id.
#include <algorithm>
#include <map>
#include <utility>

#include "core/error.hpp"
#include "core/repro_format.hpp"
#include "core/validate_util.hpp"
#include "scenarios/case_repro.hpp"
#include "scenarios/cell_parse.hpp"
#include "scenarios/csv_table_impl.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/table_error.hpp"

namespace mlacheck::scenarios {

namespace {

// The case cell with the row's id as its name, parsed and validated as `mlacheck run --case` does:
// omitted keys take the descriptor's defaults.
ScenarioProblem case_of(const CellReader& row, const std::string& id) {
  if (!valid_name(id)) row.fail("id", "'" + id + "' must be 1-128 characters of [A-Za-z0-9_.-]");
  const std::string_view text = row.text("case");
  const std::string_view op = repro_op(text);
  if (!is_case_op(op)) {
    row.fail("case", "'" + std::string(op) + "' is not one of " + op_names() + " (a case starts with op:)");
  }
  try {
    if (repro::Reader(text, op).remaining().count("name") != 0) {
      row.fail("case", "the id column names the case; leave name= out of the cell");
    }
    return parse_case(std::string(op) + ":name=" + id + ";" + std::string(text.substr(op.size() + 1)));
  } catch (const std::invalid_argument& e) {  // ReproParseError, InvalidProblem: the message names the key
    row.fail("case", e.what());
  }
}

Scenario to_scenario(const CsvTable& table, const CsvRow& csv) {
  const CellReader row(table, csv);
  for (std::string_view c : kScenarioColumns) {
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
  s.problem = case_of(row, s.id);
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
