#include "harness/op_registry.hpp"

#include <utility>

namespace mlacheck {

std::string op_names() { return ShippedOps::names(); }

std::string_view op_name(const CaseProblem& c) { return ShippedOps::name(c); }

std::string_view op_of_repro(std::string_view repro) { return ShippedOps::op_of_repro(repro); }

CaseProblem parse_case(std::string_view repro) { return ShippedOps::parse(repro); }

std::string to_repro(const CaseProblem& c) { return ShippedOps::repro(c); }

const std::string& case_name(const CaseProblem& c) { return ShippedOps::case_name(c); }

void rename_case(CaseProblem& c, std::string name) { ShippedOps::rename(c, std::move(name)); }

double case_work(const CaseProblem& c) { return ShippedOps::work(c); }

CaseFacets case_facets(const CaseProblem& c) { return ShippedOps::facets(c); }

std::vector<std::string> op_coverage_buckets() { return ShippedOps::coverage_buckets(); }

bool op_has_queries(std::string_view op) { return ShippedOps::has_queries(op); }

int op_abi_case_kind(std::string_view op) { return ShippedOps::abi_case_kind(op); }

PreparedCase prepare_case(const CaseProblem& c, const Backend* backend, std::string_view unavailable_reason,
                          const FaultSet& faults, int oracle_threads) {
  return ShippedOps::prepare(c, backend, unavailable_reason, faults, oracle_threads);
}

CaseResult finish_case(const PreparedCase& prepared, Backend* backend, const FaultSet& faults) {
  return ShippedOps::finish(prepared, backend, faults);
}

CaseResult run_case(const CaseProblem& c, Backend* backend, std::string_view unavailable_reason,
                    const FaultSet& faults) {
  return ShippedOps::run(c, backend, unavailable_reason, faults);
}

}  // namespace mlacheck
