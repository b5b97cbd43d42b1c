#pragma once
// Where a case of a plan comes from, which decides what a refusal of it means: a shape the plan
// chose on purpose (a scenario, the default sweep, a --case repro) must run; only the property
// generators' draws may wander outside what a backend takes.
#include <cstdint>
#include <optional>
#include <string_view>

namespace mlacheck {

enum class CaseOrigin : std::uint8_t {
  curated,    // chosen by hand: scenarios, the default sweep, a --case repro
  generated,  // drawn by the property generators
};

std::string_view to_string(CaseOrigin o);  // "curated", "generated"
std::optional<CaseOrigin> parse_case_origin(std::string_view text);

// The policy itself (what a refused case becomes, by origin and backend) is plan/case_settle.hpp.

}  // namespace mlacheck
