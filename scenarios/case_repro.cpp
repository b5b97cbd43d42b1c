#include "scenarios/case_repro.hpp"

#include <string>

namespace mlacheck::scenarios {

std::string_view repro_op(std::string_view repro) { return repro.substr(0, repro.find(':')); }

bool is_case_op(std::string_view op) { return !op.empty() && op_of_repro(std::string(op) + ":") == op; }

}  // namespace mlacheck::scenarios
