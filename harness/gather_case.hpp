#pragma once
// The generic driver for one kv_gather case: fill -> host twin -> backend -> bitwise compare.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/gather_inputs.hpp"
#include "core/gather_problem.hpp"
#include "device/backend.hpp"
#include "harness/case_facets.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

// Same contract as run_mla_case: never throws for device-side failures.
CaseResult run_gather_case(const KvGatherProblem& p, Backend* backend, std::string_view unavailable_reason,
                           const FaultSet& faults = {});

// The two halves, as for mla_decode (mla_case.hpp).
struct PreparedGatherCase {
  KvGatherProblem problem;
  CaseResult row;
  KvGatherInputs inputs;
  KvGatherOutputs<float> expected;
  bool ready_for_device = false;
};
PreparedGatherCase prepare_gather_case(const KvGatherProblem& p, const Backend* backend,
                                       std::string_view unavailable_reason, const FaultSet& faults = {});
CaseResult finish_gather_case(const PreparedGatherCase& prepared, Backend* backend, const FaultSet& faults = {});

// kv_gather's hooks in the operation registry (harness/op_registry.hpp).
struct KvGatherOp {
  using Problem = KvGatherProblem;
  using Prepared = PreparedGatherCase;
  static constexpr std::string_view name = "kv_gather";
  static Problem parse(std::string_view repro) { return parse_kv_gather(repro); }
  // The gather's host twin is a copy: one thread whatever the queue.
  static Prepared prepare(const Problem& p, const Backend* backend, std::string_view unavailable_reason,
                          const FaultSet& faults, int /*oracle_threads*/) {
    return prepare_gather_case(p, backend, unavailable_reason, faults);
  }
  static CaseResult finish(const Prepared& prepared, Backend* backend, const FaultSet& faults) {
    return finish_gather_case(prepared, backend, faults);
  }
  // A copy: its watchdog limit is the base alone.
  static double work(const Problem&) { return 0.0; }
  // What reports group and the known-bug table match by (harness/gather_case_facets.cpp).
  static CaseFacets facets(const Problem& p);
  static const std::vector<std::string>& coverage_buckets();
  static constexpr bool has_queries = false;
  // report.csv's column groups of its tensors (reports/report_columns.hpp).
  static constexpr std::array<std::string_view, 2> report_groups = {"K", "V"};
  // Its case kind in the harness C API (include/mlacheck/harness_api.h: MLACHECK_CASE_KV_GATHER,
  // mlacheck's own kernels, which a caller's backend does not run); api/case_kind.cpp checks the
  // value against the enum.
  static constexpr int abi_case_kind = 1;
};

}  // namespace mlacheck
