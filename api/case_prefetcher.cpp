#include "api/case_prefetcher.hpp"

#include <stdexcept>

#include "api/api_call.hpp"
#include "api/case_inputs.hpp"
#include "api/case_kind.hpp"
#include "core/mla_sequence.hpp"
#include "harness/op_registry.hpp"

namespace mlacheck::api {

namespace {

// Each case's work (case_work), for its oracle's share of the threads.
std::vector<double> works_of(const std::vector<RunCase>& cases) {
  std::vector<double> works;
  works.reserve(cases.size());
  for (const RunCase& c : cases) {
    double w = 0.0;
    try {
      if (c.kind == RunCase::Kind::device) w = case_work(parse_case(c.repro));
    } catch (const std::invalid_argument&) {
      // Not a case this version reads: opening it reports that, with no oracle to share for.
    }
    works.push_back(w);
  }
  return works;
}

}  // namespace

CasePrefetcher::CasePrefetcher(std::vector<RunCase> cases, KnownBugTable known_bugs, std::size_t lookahead,
                               std::size_t threads)
    : cases_(std::move(cases)),
      known_bugs_(std::move(known_bugs)),
      queue_(works_of(cases_), lookahead == 0 ? throw std::invalid_argument("lookahead must be at least 1") : lookahead,
             threads, [this](std::size_t i, int oracle_threads) {
               try {
                 return prepare(i, oracle_threads);
               } catch (const std::exception& e) {  // the case carries what its preparation threw
                 Taken failed;
                 failed.error = e.what();
                 return failed;
               }
             }) {}

CasePrefetcher::Taken CasePrefetcher::prepare(std::size_t i, int threads) const {
  const RunCase& run_case = cases_[i];
  Taken out;
  // One case of one entry: mlacheck_case_open is the one place a plan entry becomes a case.
  mlacheck_plan single;
  single.cases.push_back(run_case);
  single.known_bugs = known_bugs_;  // settled with the plan's table, as a case the plan opens
  mlacheck_case* opened = nullptr;
  if (mlacheck_case_open(&single, 0, &opened) != MLACHECK_OK) {
    out.error = mlacheck_last_error();
    return out;
  }
  out.c.reset(opened);
  mlacheck_case* c = out.c.get();
  // Only what a backend under test gets: kv_gather cases have no inputs here, a decode sequence's
  // are its steps' (each opened when the caller reaches it: mlacheck_sequence_step_open), and an
  // oracle self-check's work is its verdict.
  if (c->kind != MLACHECK_CASE_MLA_DECODE || !c->unsupported_reason.empty() || mlacheck::is_sequence(c->prepared.problem))
    return out;
  // Named as the call that makes the inputs when the caller asks (the Python package asks by block
  // for a pool that starts at a first_block), so an error reads the same with or without prefetch.
  const char* asked_by = c->prepared.problem.first_block == 0 ? "mlacheck_case_inputs" : "mlacheck_case_inputs_by_block";
  const mlacheck_status status = api_call(asked_by, [c, threads] {
    encode_inputs(c, threads);
    ensure_oracle(c, threads);  // an oracle that refuses leaves the row ERRORED, which the verdict reports
  });
  if (status != MLACHECK_OK) out.error = mlacheck_last_error();
  return out;
}

}  // namespace mlacheck::api
