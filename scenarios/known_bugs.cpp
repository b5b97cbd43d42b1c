#include "scenarios/known_bugs.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "scenarios/cell_parse.hpp"
#include "scenarios/csv_table_impl.hpp"
#include "scenarios/table_error.hpp"

namespace mlacheck::scenarios {

namespace {

constexpr std::string_view kMatchColumns[] = {"op",      "path",     "kv_dtype", "heads", "q_len",
                                              "backend", "platform", "repro"};

std::optional<int> optional_int(const CellReader& row, std::string_view column) {
  if (row.empty(column)) return std::nullopt;
  return static_cast<int>(
      row.parse(column, [](std::string_view t) { return parse_int_cell(t, 1, std::numeric_limits<int>::max()); }));
}

KnownBug to_known_bug(const CsvTable& table, const CsvRow& csv) {
  const CellReader row(table, csv);
  if (row.empty("id")) row.fail("id", "required");
  bool any_match = false;
  for (std::string_view c : kMatchColumns) any_match = any_match || !row.empty(c);
  if (!any_match) row.fail("", "no match field is set: the entry would cover every failing case");
  KnownBug bug;
  bug.id = std::string(row.text("id"));
  bug.reference = std::string(row.text("reference"));
  bug.op = std::string(row.text("op"));
  if (!bug.op.empty() && bug.op != "mla_decode" && bug.op != "kv_gather") {
    row.fail("op", "'" + bug.op + "' is not one of mla_decode, kv_gather");
  }
  bug.path = std::string(row.text("path"));
  if (!row.empty("kv_dtype")) bug.kv_dtype = row.parse("kv_dtype", parse_dtype_cell);
  bug.heads = optional_int(row, "heads");
  bug.q_len = optional_int(row, "q_len");
  bug.backend = std::string(row.text("backend"));
  bug.platform = std::string(row.text("platform"));
  bug.repro = std::string(row.text("repro"));
  bug.note = std::string(row.text("note"));
  bug.source = table.file + ":" + std::to_string(csv.line);
  return bug;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The problem-level fields of a row, read back from its canonical repro string.
struct ProblemFacts {
  DType kv_dtype;
  int heads;
  std::vector<int> q_lens;
};

std::optional<ProblemFacts> facts_of(const CaseResult& row) {
  try {
    if (row.op == "mla_decode") {
      const MlaDecodeProblem p = parse_mla_decode(row.repro);
      return ProblemFacts{p.kv_dtype, heads(p), p.q_lens};
    }
    if (row.op == "kv_gather") {
      const KvGatherProblem p = parse_kv_gather(row.repro);
      return ProblemFacts{p.cache_dtype, p.num_kv_heads, {}};
    }
  } catch (const std::invalid_argument&) {
    // A row without a parsable repro (an oracle self-check) has no problem fields to match.
  }
  return std::nullopt;
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
  if (!bug.op.empty() && bug.op != row.op) return false;
  if (!bug.path.empty() && bug.path != row.path) return false;
  if (!contains(row.backend, bug.backend) || !contains(row.device, bug.platform) || !contains(row.repro, bug.repro)) {
    return false;
  }
  if (!bug.kv_dtype && !bug.heads && !bug.q_len) return true;
  const std::optional<ProblemFacts> facts = facts_of(row);
  if (!facts) return false;
  if (bug.kv_dtype && *bug.kv_dtype != facts->kv_dtype) return false;
  if (bug.heads && *bug.heads != facts->heads) return false;
  if (bug.q_len && std::find(facts->q_lens.begin(), facts->q_lens.end(), *bug.q_len) == facts->q_lens.end()) {
    return false;
  }
  return true;
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
