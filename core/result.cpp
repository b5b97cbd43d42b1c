#include "core/result.hpp"

namespace mlacheck {

namespace {
constexpr ResultState kAll[] = {ResultState::passed,  ResultState::failed,     ResultState::errored,
                                ResultState::skipped, ResultState::mistrusted, ResultState::known_bug};
}

std::string_view to_string(ResultState s) {
  switch (s) {
    case ResultState::passed: return "PASSED";
    case ResultState::failed: return "FAILED";
    case ResultState::errored: return "ERRORED";
    case ResultState::skipped: return "SKIPPED";
    case ResultState::mistrusted: return "MISTRUSTED";
    case ResultState::known_bug: return "KNOWN_BUG";
  }
  return "?";
}

std::optional<ResultState> parse_result_state(std::string_view name) {
  for (ResultState s : kAll) {
    if (to_string(s) == name) return s;
  }
  return std::nullopt;
}

JUnitKind junit_kind(ResultState s) {
  switch (s) {
    case ResultState::passed: return JUnitKind::pass;
    case ResultState::failed: return JUnitKind::failure;
    case ResultState::errored: return JUnitKind::error;
    case ResultState::skipped:
    case ResultState::mistrusted:
    case ResultState::known_bug: return JUnitKind::skipped;
  }
  return JUnitKind::error;
}

bool is_failure(ResultState s) { return s == ResultState::failed || s == ResultState::errored; }

}  // namespace mlacheck
