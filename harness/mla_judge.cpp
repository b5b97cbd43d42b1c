#include "harness/mla_judge.hpp"

#include <string>
#include <vector>

#include "core/element_names.hpp"
#include "core/tolerance.hpp"
#include "harness/device_outcome.hpp"
#include "harness/mla_case.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {

namespace {

void check_size(const char* tensor, std::size_t got, std::size_t want) {
  if (got != want) {
    throw std::invalid_argument(std::string(tensor) + ": " + std::to_string(got) + " elements, the problem has " +
                                std::to_string(want));
  }
}

}  // namespace

void judge_mla_outputs(CaseResult& row, const MlaDecodeProblem& p, const MlaDecodeOutputs<double>& expected,
                       const MlaErrorScales& scales, PRoundingPoint p_rounding, const MlaActualOutputs& actual,
                       const RunDiagnostics& diag) {
  check_size("O", actual.o.size(), expected.o.size());
  if (actual.has_lse) check_size("LSE", actual.lse.size(), expected.lse.size());
  const MlaTolerances tol = mla_decode_tolerance(p, scales, p_rounding);
  std::vector<ComparedTensor> tensors;
  if (tol.oracle_o_rounded) {
    const std::vector<double> faithful_o = faithful_oracle(p, tol, {expected.o, {}}).o;
    tensors.push_back({"O", compare(faithful_o, actual.o, tol.o, actual.o_unwritten), tol.o});
  } else {
    tensors.push_back({"O", compare(expected.o, actual.o, tol.o, actual.o_unwritten), tol.o});
  }
  if (actual.has_lse) {
    tensors.push_back({"LSE", compare(expected.lse, actual.lse, tol.lse, actual.lse_unwritten), tol.lse});
    name_elements(tensors.back(), mla_lse_element_names(p));
  }
  name_elements(tensors.front(), mla_o_element_names(p));
  settle_row(row, diag, std::move(tensors));
}

}  // namespace mlacheck
