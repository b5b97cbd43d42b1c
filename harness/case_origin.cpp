#include "harness/case_origin.hpp"

namespace mlacheck {

std::string_view to_string(CaseOrigin o) { return o == CaseOrigin::curated ? "curated" : "generated"; }

std::optional<CaseOrigin> parse_case_origin(std::string_view text) {
  if (text == "curated") return CaseOrigin::curated;
  if (text == "generated") return CaseOrigin::generated;
  return std::nullopt;
}

}  // namespace mlacheck
