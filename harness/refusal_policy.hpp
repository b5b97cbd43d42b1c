#pragma once
// When a device case that did not run is a skip and when it is a failure. SKIPPED must never hide
// one: a shape the plan chose on purpose (a scenario, the default sweep, a --case repro) that the
// backend refuses means the backend cannot run what it is meant to run, and a backend that cannot
// start on a GPU the machine has is broken, not absent. Only the property generators' draws may
// wander outside what a backend takes, so only their refusals stay SKIPPED; and with no GPU at all
// every device case stays SKIPPED (the run then says that nothing was checked on a device).
#include <cstdint>
#include <optional>
#include <string_view>

#include "harness/case_result.hpp"

namespace mlacheck {

enum class CaseOrigin : std::uint8_t {
  curated,    // chosen by hand: scenarios, the default sweep, a --case repro
  generated,  // drawn by the property generators
};

std::string_view to_string(CaseOrigin o);  // "curated", "generated"
std::optional<CaseOrigin> parse_case_origin(std::string_view text);

// Settles a row that admission (admit_case) left SKIPPED; rows in any other state, and rows skipped
// for lack of memory (a resource the machine lacks, not a refusal), are untouched.
//   backend_present: a backend was made, so SKIPPED means supports() refused the case: a curated
//                    case becomes FAILED, a generated one stays SKIPPED;
//   otherwise, gpus_present: the machine has a GPU the backend could not start on: ERRORED;
//   otherwise (no GPU at all): stays SKIPPED.
void settle_unrun_case(CaseResult& row, CaseOrigin origin, bool backend_present, bool gpus_present);

}  // namespace mlacheck
