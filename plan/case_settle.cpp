#include "plan/case_settle.hpp"

#include "plan/data_files.hpp"

namespace mlacheck {

namespace {

// Admission left the row SKIPPED: the backend refused it (supports()) or none was made.
void settle_refusal(CaseResult& row, const SettleContext& context) {
  if (row.state != ResultState::skipped || row.skipped_for_memory) return;
  if (row.backend.empty()) {
    if (!context.backend_expected) return;
    row.state = ResultState::errored;
    row.reason = "the backend could not start on a GPU this machine has: " + row.reason;
  } else if (context.origin == CaseOrigin::curated && context.backend_kind == BackendKind::built_in) {
    row.state = ResultState::failed;
    row.reason = "the backend refuses a curated case (only generated cases may be skipped): " + row.reason;
  }
}

}  // namespace

void settle_case(CaseResult& row, const SettleContext& context) {
  settle_refusal(row, context);
  if (context.known_bugs != nullptr && row.faults.empty()) scenarios::apply_known_bugs(*context.known_bugs, row);
}

std::vector<scenarios::KnownBug> load_known_bug_table(const std::optional<std::string>& option) {
  if (option && option->empty()) return {};
  return scenarios::load_known_bugs(known_bug_table_path(option.value_or("")));
}

}  // namespace mlacheck
