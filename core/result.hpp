#pragma once
// Result states of one case, and their one mapping to JUnit.
#include <cstdint>
#include <optional>
#include <string_view>

namespace mlacheck {

enum class ResultState : std::uint8_t {
  passed,      // compared and within tolerance
  failed,      // wrong numbers: mismatches, NaN/Inf where the reference is finite, unwritten
               // outputs, broken guard canaries
  errored,     // API or kernel error, crash, timeout
  skipped,     // not supported on this device or build (never counted as passed)
  mistrusted,  // the check could not have failed (zero-norm inputs or reference, constant output)
  known_bug,   // matches a scoped known-bug entry
};

enum class JUnitKind : std::uint8_t { pass, failure, error, skipped };

std::string_view to_string(ResultState s);  // "PASSED", "FAILED", ...
std::optional<ResultState> parse_result_state(std::string_view name);
// The only place states meet JUnit: FAILED -> failure, ERRORED -> error, SKIPPED, MISTRUSTED and
// KNOWN_BUG -> skipped (with their reason), PASSED -> pass.
JUnitKind junit_kind(ResultState s);
// A run's exit status is non-zero when any case is in one of these states.
bool is_failure(ResultState s);

}  // namespace mlacheck
