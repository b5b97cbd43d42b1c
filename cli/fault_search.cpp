#include "cli/fault_search.hpp"

#include <rapidcheck.h>

#include <algorithm>

namespace mlacheck::cli {

namespace {

bool is_gather_fault(Fault f) {
  return f == Fault::gather_ignores_strides || f == Fault::shuffle_gather_ignores_strides;
}

bool caught(ResultState s) { return s == ResultState::failed || s == ResultState::errored; }

// Counts accepted shrink steps; rapidcheck's own listener would print to the terminal.
class ShrinkCounter : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override { shrinks += accepted ? 1 : 0; }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
  int shrinks = 0;
};

// The property the fault must break: with the fault on, the case is not caught. A case the
// device does not run (SKIPPED: f32 q or O, a shape past the kernels) is discarded, and so is one
// the correct pipeline does not PASS, which says nothing about the fault (a clean FAILED or
// ERRORED is recorded: it is a real bug).
void fault_goes_unnoticed(const CaseProblem& c, const CaseRunner& run, Fault fault, FaultSearchResult& result) {
  const CaseResult faulted = run(c, {fault});
  if (faulted.state == ResultState::skipped) RC_DISCARD(faulted.reason);
  if (!caught(faulted.state)) return;
  const CaseResult clean = run(c, {});
  if (clean.state != ResultState::passed) {
    auto& seen = result.clean_failures;
    if (is_failure(clean.state) && std::find(seen.begin(), seen.end(), clean.repro) == seen.end()) {
      seen.push_back(clean.repro);
    }
    RC_DISCARD("the correct pipeline does not pass this case");
  }
  RC_FAIL(std::string(to_string(faulted.state)) + ": " + faulted.reason);
}

}  // namespace

MlaGenLimits fault_mla_limits(Fault fault, MlaGenLimits base) {
  if (fault == Fault::plan_stale_at_replay) {
    // Every draw a sequence: a shrink to one step no longer shows the fault, so counterexamples
    // keep two steps or more.
    base.sequence_percent = 100;
    base.path = DecodePath::persistent;
  }
  return base;
}

FaultSearchResult search_fault(Fault fault, const CaseRunner& run, const FaultSearchOptions& options) {
  FaultSearchResult result;
  result.fault = fault;
  rc::detail::TestParams params;
  params.seed = options.seed;
  params.maxSuccess = options.max_cases;
  // Cases the device does not run (f32 q or O, a path not in the build) are discarded; the
  // generators make many of them, so allow more discards than rapidcheck's default.
  params.maxDiscardRatio = 50;
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(to_string(fault));
  metadata.description = metadata.id;
  ShrinkCounter listener;
  const MlaGenLimits mla_limits = fault_mla_limits(fault, options.mla_limits);
  const auto property = [&] {
    if (is_gather_fault(fault)) {
      fault_goes_unnoticed(CaseProblem(*gen_kv_gather_problem(options.gather_limits)), run, fault, result);
    } else {
      fault_goes_unnoticed(CaseProblem(*gen_mla_decode_problem(mla_limits)), run, fault, result);
    }
  };
  const rc::detail::TestResult outcome =
      rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params, listener);

  rc::detail::FailureResult failure;
  rc::detail::SuccessResult success;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (outcome.match(failure)) {
    result.caught = true;
    result.cases = failure.numSuccess + 1;
    result.shrinks = listener.shrinks;
    // rapidcheck prefixes the RC_FAIL message with its source location and expression.
    const std::size_t message = failure.description.rfind("\n\n");
    result.caught_as =
        message == std::string::npos ? failure.description : failure.description.substr(message + 2);
    // The counterexample holds the generated problem as showValue printed it: its repro string.
    for (const auto& [type, value] : failure.counterExample) result.repro += value;
  } else if (outcome.match(success)) {
    result.cases = success.numSuccess;
  } else if (outcome.match(gave_up)) {
    result.cases = gave_up.numSuccess;
    result.error = "gave up: " + gave_up.description;
  } else if (outcome.match(error)) {
    result.error = error.description;
  }
  return result;
}

}  // namespace mlacheck::cli
