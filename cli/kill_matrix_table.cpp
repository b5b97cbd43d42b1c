#include "cli/kill_matrix_table.hpp"

#include <algorithm>
#include <string>

namespace mlacheck::cli {

namespace {

std::string_view short_state(ResultState s) {
  switch (s) {
    case ResultState::passed: return "pass";
    case ResultState::failed: return "FAIL";
    case ResultState::errored: return "ERR";
    case ResultState::skipped: return "skip";
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
  constexpr int kCell = 8;

  if (m.faults.empty()) {
    std::fprintf(out, "kill matrix: clean runs only (no fault columns: faults exist in mlacheck's own pipeline)\n");
  } else {
    std::fprintf(out, "kill matrix: scenario x fault; [x] = the scenario's own fault, which must be FAIL or ERR\n");
  }
  std::fprintf(out, "%-*s %-*s", w, "scenario", kCell, "clean");
  for (std::size_t i = 0; i < m.faults.size(); ++i) std::fprintf(out, "%-*s", kCell, column_name(i).c_str());
  std::fprintf(out, "\n");
  std::vector<int> caught_by(m.faults.size(), 0);
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    const auto& row = m.rows[r];
    std::fprintf(out, "%-*s %-*s", w, row.scenario.c_str(), kCell, std::string(short_state(row.clean.state)).c_str());
    for (std::size_t i = 0; i < m.faults.size(); ++i) {
      const ResultState s = row.with_fault[i].state;
      if (scenarios::caught(s)) ++caught_by[i];
      std::string cell(short_state(s));
      if (m.faults[i] == row.intended) cell = "[" + cell + "]";
      std::fprintf(out, "%-*s", kCell, cell.c_str());
    }
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "%-*s %-*s", w, "caught by", kCell, "");
  for (int n : caught_by) std::fprintf(out, "%-*d", kCell, n);
  std::fprintf(out, "\n");
  for (std::size_t i = 0; i < m.faults.size(); ++i) {
    const auto name = to_string(m.faults[i]);
    std::fprintf(out, "  %s %.*s\n", column_name(i).c_str(), static_cast<int>(name.size()), name.data());
  }
}

}  // namespace mlacheck::cli
