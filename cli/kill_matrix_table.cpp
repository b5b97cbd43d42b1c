#include "cli/kill_matrix_table.hpp"

#include <algorithm>
#include <string>

namespace mlacheck::cli {

namespace {

// A cell: how the fault was caught ("cmp", "guard", "refuse", "crash"; two ways joined by '+'),
// or the state when it was not caught.
std::string cell_text(const CaseResult& row) {
  const scenarios::HowCaught how = scenarios::how_caught(row);
  if (how.kinds.empty()) {
    switch (row.state) {
      case ResultState::passed: return "pass";
      case ResultState::failed: return "FAIL?";  // FAILED with nothing to show why
      case ResultState::errored: return "ERR";
      case ResultState::skipped: return "skip";
      case ResultState::mistrusted: return "MIST";
      case ResultState::known_bug: return "KNOWN";
    }
    return "?";
  }
  std::string out;
  for (scenarios::CatchKind k : how.kinds) {
    const char* word = k == scenarios::CatchKind::comparison ? "cmp"
                       : k == scenarios::CatchKind::guard    ? "guard"
                       : k == scenarios::CatchKind::refusal  ? "refuse"
                                                             : "crash";
    out += (out.empty() ? "" : "+") + std::string(word);
  }
  return out;
}

std::string_view clean_text(ResultState s) {
  switch (s) {
    case ResultState::passed: return "pass";
    case ResultState::failed: return "FAIL";
    case ResultState::errored: return "ERR";
    case ResultState::skipped: return "SKIP";
    case ResultState::mistrusted: return "MIST";
    case ResultState::known_bug: return "KNOWN";
  }
  return "?";
}

// Fault columns are numbered f1..f8 so the table stays narrow; the legend names them.
std::string column_name(std::size_t i) { return "f" + std::to_string(i + 1); }

}  // namespace

void print_kill_matrix(std::FILE* out, const scenarios::KillMatrix& m) {
  std::size_t id_width = 8;
  for (const auto& row : m.rows) id_width = std::max(id_width, row.scenario.size());
  const int w = static_cast<int>(id_width);
  constexpr int kCell = 13;

  if (m.faults.empty()) {
    std::fprintf(out, "kill matrix: clean runs only (no fault columns: faults exist in mlacheck's own pipeline)\n");
  } else {
    std::fprintf(out,
                 "kill matrix: scenario x fault, each cell how the fault was caught (cmp: the comparison, guard: "
                 "canaries or unwritten elements, refuse: an API error, crash: a signal, lost device or timeout) or "
                 "the state it left; [x] = the scenario's own fault\n");
  }
  std::fprintf(out, "%-*s %-*s", w, "scenario", 6, "clean");
  for (std::size_t i = 0; i < m.faults.size(); ++i) std::fprintf(out, "%-*s", kCell, column_name(i).c_str());
  std::fprintf(out, "\n");
  std::vector<int> caught_by(m.faults.size(), 0);
  for (const auto& row : m.rows) {
    std::fprintf(out, "%-*s %-*s", w, row.scenario.c_str(), 6, std::string(clean_text(row.clean.state)).c_str());
    for (std::size_t i = 0; i < m.faults.size(); ++i) {
      const CaseResult& cell = row.with_fault[i];
      if (scenarios::caught(cell.state)) ++caught_by[i];
      std::string text = cell_text(cell);
      if (m.faults[i] == row.intended) text = "[" + text + "]";
      std::fprintf(out, "%-*s", kCell, text.c_str());
    }
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "%-*s %-*s", w, "caught in", 6, "");
  for (int n : caught_by) std::fprintf(out, "%-*d", kCell, n);
  std::fprintf(out, "\n");
  for (std::size_t i = 0; i < m.faults.size(); ++i) {
    const auto name = to_string(m.faults[i]);
    std::fprintf(out, "  %s %.*s\n", column_name(i).c_str(), static_cast<int>(name.size()), name.data());
  }
}

}  // namespace mlacheck::cli
