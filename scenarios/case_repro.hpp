#pragma once
// A case as the scenario and known-bug tables write it: a repro string in the grammar of
// core/repro_format.hpp whose prefix names the operation ("mla_decode:..." or "kv_gather:...").
#include <string>
#include <string_view>

#include "scenarios/scenario.hpp"

namespace mlacheck::scenarios {

// The text before the first ':' of a repro string; the whole text when it has none.
std::string_view repro_op(std::string_view repro);
// Whether the tables know the operation: mla_decode or kv_gather.
bool is_case_op(std::string_view op);
// Parses and validates a repro string of either operation (keys in any order, omitted keys take
// the descriptor's defaults). Throws ReproParseError (an unknown operation included) or
// InvalidProblem.
ScenarioProblem parse_case(std::string_view repro);
std::string to_repro(const ScenarioProblem& problem);

}  // namespace mlacheck::scenarios
