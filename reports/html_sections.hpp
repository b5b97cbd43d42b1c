#pragma once
// The pieces html_report.cpp assembles, shared with html_plots.cpp. Internal to reports/.
#include <span>
#include <string>
#include <string_view>

#include "core/support_space.hpp"
#include "harness/case_result.hpp"
#include "reports/case_facets.hpp"

namespace mlacheck::html {

// A row with its facets, parsed once per report.
struct Case {
  const CaseResult* row;
  CaseFacets facets;
};

std::string section(std::string_view id, std::string_view heading, const std::string& body);
std::string state_badge(ResultState s);
// "3.2e-04" style for errors in tables; "-" when there is nothing to show.
std::string error_text(double v);

// The error-vs-kv-len, error-histogram, bound-used and coverage sections.
std::string plot_sections(std::span<const Case> cases);

// The backend's declared space and the part of the sweep's problem space it excludes.
std::string space_section(const SupportSpace& space);

}  // namespace mlacheck::html
