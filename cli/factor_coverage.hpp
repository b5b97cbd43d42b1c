#pragma once
// The production factor coverage (plan/coverage_cases.hpp) of a run's rows, as the HTML report's
// factor-coverage section draws it.
#include <span>

#include "harness/case_result.hpp"
#include "plan/data_files.hpp"
#include "reports/factor_coverage_grid.hpp"

namespace mlacheck::cli {

// Coverage of the rows' mla_decode cases (rows whose repro is no case of this version count as
// none) against the tables' allowed `strength`-way combinations.
FactorCoverageGrid factor_coverage_grid(const FactorTableFiles& files, int strength, std::span<const CaseResult> rows);

}  // namespace mlacheck::cli
