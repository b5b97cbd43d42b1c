#include "scenarios/known_bugs.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "harness/op_registry.hpp"
#include "scenarios/cell_parse.hpp"
#include "scenarios/csv_table_impl.hpp"
#include "scenarios/table_error.hpp"

namespace mlacheck::scenarios {

namespace {

// The paths a row can record as taken (CaseResult::path): the two mla_decode paths of the built-in
// backend, its kv_gather pipeline, and "plugin" for a backend plugin's rows. A path cell outside
// these would never match, so a typo is refused when the table is read.
constexpr std::string_view kTakenPaths[] = {"split_kv", "persistent", "gather", "plugin"};

std::string taken_paths_text() {
  std::string out;
  for (std::string_view p : kTakenPaths) out += (out.empty() ? "" : ", ") + std::string(p);
  return out;
}

std::optional<int> optional_int(const CellReader& row, std::string_view column) {
  if (row.empty(column)) return std::nullopt;
  return static_cast<int>(
      row.parse(column, [](std::string_view t) { return parse_int_cell(t, 1, std::numeric_limits<int>::max()); }));
}

KnownBug to_known_bug(const CsvTable& table, const CsvRow& csv) {
  const CellReader row(table, csv);
  for (std::string_view c : {"id", "case"}) {
    if (row.empty(c)) row.fail(c, "required");
  }
  KnownBug bug;
  bug.id = std::string(row.text("id"));
  bug.reference = std::string(row.text("reference"));
  bug.pattern = row.parse("case", [](std::string_view t) {
    try {
      return parse_repro_pattern(t);
    } catch (const std::invalid_argument& e) {
      throw CellError(e.what());
    }
  });
  bug.path = std::string(row.text("path"));
  if (!bug.path.empty() && std::find(std::begin(kTakenPaths), std::end(kTakenPaths), bug.path) == std::end(kTakenPaths)) {
    row.fail("path", "'" + bug.path + "' is not a path a case takes (" + taken_paths_text() + "); leave it empty for any path");
  }
  bug.backend = std::string(row.text("backend"));
  bug.platform = std::string(row.text("platform"));
  bug.rank_heads = optional_int(row, "rank_heads");
  bug.q_len = optional_int(row, "q_len");
  for (std::string_view c : {"rank_heads", "q_len"}) {
    if (!row.empty(c) && !op_has_queries(bug.pattern.op)) {
      row.fail(c, "op " + bug.pattern.op + " has no such field (no query heads or rows); leave the cell empty");
    }
  }
  bug.note = std::string(row.text("note"));
  bug.source = table.file + ":" + std::to_string(csv.line);
  return bug;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The two facts of a case with queries that no one repro key states, read through the op's facets.
bool query_facts_match(const KnownBug& bug, const std::string& repro) {
  if (!bug.rank_heads && !bug.q_len) return true;
  try {
    const CaseFacets f = case_facets(parse_case(repro));
    if (f.q_lens.empty()) return false;  // an op without queries has neither fact
    if (bug.rank_heads && *bug.rank_heads != f.heads) return false;
    return !bug.q_len || std::find(f.q_lens.begin(), f.q_lens.end(), *bug.q_len) != f.q_lens.end();
  } catch (const std::invalid_argument&) {
    return false;
  }
}

}  // namespace

std::vector<KnownBug> load_known_bugs(const std::string& path) {
  const CsvTable table = read_csv_table(path, kKnownBugColumns);
  std::vector<KnownBug> out;
  std::map<std::string, int, std::less<>> first_line;
  for (const CsvRow& csv : table.rows) {
    KnownBug bug = to_known_bug(table, csv);
    const auto [it, fresh] = first_line.emplace(bug.id, csv.line);
    if (!fresh) {
      throw TableError(path, csv.line, "id", "'" + bug.id + "' repeats the id of line " + std::to_string(it->second));
    }
    out.push_back(std::move(bug));
  }
  return out;
}

bool matches(const KnownBug& bug, const CaseResult& row) {
  if (!bug.path.empty() && bug.path != row.path) return false;
  if (!contains(row.backend, bug.backend) || !contains(row.device, bug.platform)) return false;
  return matches(bug.pattern, row.repro) && query_facts_match(bug, row.repro);
}

const KnownBug* find_known_bug(const std::vector<KnownBug>& bugs, const CaseResult& row) {
  if (!is_failure(row.state)) return nullptr;
  for (const KnownBug& bug : bugs) {
    if (matches(bug, row)) return &bug;
  }
  return nullptr;
}

bool apply_known_bugs(const std::vector<KnownBug>& bugs, CaseResult& row) {
  const KnownBug* bug = find_known_bug(bugs, row);
  if (bug == nullptr) return false;
  row.state = ResultState::known_bug;
  row.reason = "known bug " + bug->id + (bug->reference.empty() ? "" : " (" + bug->reference + ")") + ": " + row.reason;
  return true;
}

}  // namespace mlacheck::scenarios
