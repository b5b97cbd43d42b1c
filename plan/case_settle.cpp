#include "plan/case_settle.hpp"

#include "plan/data_files.hpp"

namespace mlacheck {

namespace {

// Admission left the row SKIPPED: the backend refused it (supports()) or none was made. Read from
// the typed skip reason only; a memory or policy skip stays as it is.
void settle_refusal(CaseResult& row, const SettleContext& context) {
  if (row.state != ResultState::skipped) return;
  if (row.skip_reason == SkipReason::no_device) {
    if (!context.backend_expected) return;
    row.skip_reason = SkipReason::none;
    set_errored(row, ErrorKind::backend_not_started, "the backend could not start on a GPU this machine has: " + row.reason);
  } else if (row.skip_reason == SkipReason::unsupported && context.origin == CaseOrigin::curated &&
             context.backend_kind == BackendKind::built_in) {
    row.state = ResultState::failed;
    row.skip_reason = SkipReason::none;
    row.fail_kind = FailKind::refused_curated;
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
