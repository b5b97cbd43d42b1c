#pragma once
// The generic driver for one mla_decode case: fill -> reference -> backend -> compare -> verdict.
// Written once; the CLI, the scenarios and the property tests all go through it. A decode
// sequence (steps > 1) is one case too: its steps run in one backend session
// (harness/mla_sequence_case.hpp).
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "device/backend.hpp"
#include "harness/case_facets.hpp"
#include "harness/case_result.hpp"
#include "harness/mla_sequence_case.hpp"
#include "reference/p_bucket_kinds.hpp"

namespace mlacheck {

// `backend` may be null: the case is then SKIPPED with `unavailable_reason`. Never throws for a
// device-side failure: a GPU fault, a kernel error or an exception from the backend becomes an
// ERRORED row with the message; an unsupported shape a SKIPPED row with supports()'s reason.
CaseResult run_mla_case(const MlaDecodeProblem& p, Backend* backend, std::string_view unavailable_reason,
                        const FaultSet& faults = {});

// The same in two halves, so the CPU half of the next cases can run on other threads while the
// GPU runs this one (run/case_prefetch.hpp). prepare_mla_case is thread-safe: it only reads
// the backend's supports(), which is const and host-only.
struct PreparedMlaCase {
  MlaDecodeProblem problem;
  CaseResult row;                     // already final when SKIPPED (no backend, unsupported shape)
  MlaDecodeInputs inputs;             // empty when the row is final
  MlaDecodeOutputs<double> expected;  // the exact oracle (PRoundingPoint::kept_f32)
  MlaErrorScales scales;              // what the oracle measured, for the tight tolerance
  // A decode sequence (steps > 1): each step's inputs and oracle, in place of the four above.
  std::vector<PreparedSequenceStep> steps;
  bool ready_for_device = false;
};
// oracle_threads: the oracle's threads for this case (harness/oracle_share.hpp).
PreparedMlaCase prepare_mla_case(const MlaDecodeProblem& p, const Backend* backend, std::string_view unavailable_reason,
                                 const FaultSet& faults = {}, int oracle_threads = 1);
CaseResult finish_mla_case(const PreparedMlaCase& prepared, Backend* backend, const FaultSet& faults = {});

// The steps prepare_mla_case is made of, for callers that admit a case themselves (the harness C
// API, whose backend is Python code). new_mla_row: the row before anything ran (id, op, repro,
// faults). prepare_mla_oracle: inputs (kept when already made) and the oracle's outputs; the
// case is then ready for the device, or its row ERRORED when the oracle refuses the problem.
// `buckets`: the P rounding buckets measured, both where the judged rounding point is not known yet.
CaseResult new_mla_row(const MlaDecodeProblem& p, const FaultSet& faults = {});
void prepare_mla_oracle(PreparedMlaCase& c, PBucketKinds buckets = {}, int oracle_threads = 1);

// Largest |dequantised q| and largest |dequantised cache value| a request reads, for the tolerance.
struct MlaInputMagnitudes {
  double max_abs_q = 0.0;
  double max_abs_kv = 0.0;
};
MlaInputMagnitudes input_magnitudes(const MlaDecodeProblem& p, const MlaDecodeInputs& in);

// mla_decode's hooks in the operation registry (harness/op_registry.hpp).
struct MlaDecodeOp {
  using Problem = MlaDecodeProblem;
  using Prepared = PreparedMlaCase;
  static constexpr std::string_view name = "mla_decode";
  static Problem parse(std::string_view repro) { return parse_mla_decode(repro); }
  static Prepared prepare(const Problem& p, const Backend* backend, std::string_view unavailable_reason,
                          const FaultSet& faults, int oracle_threads) {
    return prepare_mla_case(p, backend, unavailable_reason, faults, oracle_threads);
  }
  static CaseResult finish(const Prepared& prepared, Backend* backend, const FaultSet& faults) {
    return finish_mla_case(prepared, backend, faults);
  }
  // kv tokens x query rows over every step (a sequence runs and checks each), x heads x Lk.
  static double work(const Problem& p);
  // What reports group and the known-bug table match by (harness/mla_case_facets.cpp).
  static CaseFacets facets(const Problem& p);
  static const std::vector<std::string>& coverage_buckets();
  static constexpr bool has_queries = true;  // query heads and rows: a known bug may name rank_heads, q_len
  // report.csv's column groups of its tensors (reports/report_columns.hpp).
  static constexpr std::array<std::string_view, 2> report_groups = {"O", "LSE"};
  // Its case kind in the harness C API (include/mlacheck/harness_api.h: MLACHECK_CASE_MLA_DECODE,
  // a case the caller's backend runs); api/case_kind.cpp checks the value against the enum.
  static constexpr int abi_case_kind = 0;
};

}  // namespace mlacheck
