#include "scenarios/case_repro.hpp"

#include <variant>

#include "core/error.hpp"

namespace mlacheck::scenarios {

std::string_view repro_op(std::string_view repro) { return repro.substr(0, repro.find(':')); }

bool is_case_op(std::string_view op) { return op == "mla_decode" || op == "kv_gather"; }

ScenarioProblem parse_case(std::string_view repro) {
  const std::string_view op = repro_op(repro);
  if (op == "mla_decode") return parse_mla_decode(repro);
  if (op == "kv_gather") return parse_kv_gather(repro);
  throw ReproParseError("'" + std::string(op) + "' is not one of mla_decode, kv_gather (a case starts with op:)");
}

std::string to_repro(const ScenarioProblem& problem) {
  return std::visit([](const auto& p) { return mlacheck::to_repro(p); }, problem);
}

}  // namespace mlacheck::scenarios
