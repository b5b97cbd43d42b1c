#include "cli/factor_coverage.hpp"

#include <stdexcept>
#include <utility>
#include <variant>
#include <vector>

#include "harness/op_registry.hpp"
#include "plan/coverage_cases.hpp"

namespace mlacheck::cli {

FactorCoverageGrid factor_coverage_grid(const FactorTableFiles& files, int strength, std::span<const CaseResult> rows) {
  const FactorTable table = load_factor_table(files.factors, files.impossible);
  std::vector<std::pair<std::string, MlaDecodeProblem>> cases;
  for (const CaseResult& r : rows) {
    try {
      const CaseProblem problem = parse_case(r.repro);
      if (const auto* p = std::get_if<MlaDecodeProblem>(&problem)) cases.emplace_back(r.id, *p);
    } catch (const std::invalid_argument&) {
      // A row of another version's report (--resume): no case to classify.
    }
  }
  const CoverageReport report = measure_coverage(table, strength, cases);
  FactorCoverageGrid grid;
  grid.table = files.factors;
  grid.strength = strength;
  grid.combinations = report.covered.size() + report.uncovered.size();
  for (const Combination& c : report.uncovered) grid.uncovered.push_back(describe(table, c));
  std::vector<std::vector<int>> held;
  for (const auto& c : cases) held.push_back(classify(table, c.second));
  for (std::size_t f = 0; f < table.factors.size(); ++f) {
    const Factor& factor = table.factors[f];
    for (std::size_t v = 0; v < factor.values.size(); ++v) {
      int n = 0;
      for (const auto& h : held) n += h[f] == static_cast<int>(v) ? 1 : 0;
      std::string provenance;
      for (const std::string& p : factor.values[v].provenance) provenance += (provenance.empty() ? "" : "; ") + p;
      grid.values.push_back({factor.name, factor.values[v].value, n, provenance});
    }
  }
  return grid;
}

}  // namespace mlacheck::cli
