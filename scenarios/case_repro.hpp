#pragma once
// A case as the scenario and known-bug tables write it: a repro string in the grammar of
// core/repro_format.hpp whose prefix names the operation ("mla_decode:..." or "kv_gather:...").
// Parsing and writing one are the operation registry's (harness/op_registry.hpp: parse_case,
// to_repro); the tables only read the prefix first, to name a cell whose op is unknown.
#include <string_view>

#include "harness/op_registry.hpp"

namespace mlacheck::scenarios {

// The text before the first ':' of a repro string; the whole text when it has none.
std::string_view repro_op(std::string_view repro);
// Whether the registry knows the operation (mla_decode, kv_gather).
bool is_case_op(std::string_view op);

}  // namespace mlacheck::scenarios
