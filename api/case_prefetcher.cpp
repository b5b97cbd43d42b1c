#include "api/case_prefetcher.hpp"

#include <stdexcept>

#include "api/api_call.hpp"
#include "api/case_inputs.hpp"
#include "api/case_kind.hpp"
#include "core/mla_sequence.hpp"
#include "harness/op_registry.hpp"
#include "harness/oracle_share.hpp"

namespace mlacheck::api {

CasePrefetcher::CasePrefetcher(std::vector<RunCase> cases, KnownBugTable known_bugs, std::size_t lookahead,
                               std::size_t threads)
    : cases_(std::move(cases)), known_bugs_(std::move(known_bugs)), lookahead_(lookahead), slots_(cases_.size()) {
  if (lookahead_ == 0) throw std::invalid_argument("lookahead must be at least 1");
  if (threads == 0) throw std::invalid_argument("threads must be at least 1");
  work_.reserve(cases_.size());
  for (const RunCase& c : cases_) {
    double w = 0.0;
    try {
      if (c.kind == RunCase::Kind::device) w = case_work(parse_case(c.repro));
    } catch (const std::invalid_argument&) {
      // Not a case this version reads: opening it reports that, with no oracle to share for.
    }
    work_.push_back(w);
  }
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

CasePrefetcher::~CasePrefetcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

CasePrefetcher::Taken CasePrefetcher::prepare(std::size_t i) const {
  const RunCase& run_case = cases_[i];
  // The case and those prepared beside it share the host's threads by their work, as `mlacheck
  // run`'s do (harness/case_prefetch.cpp): a heavy case among light ones gets most of them.
  const int threads = oracle_threads_in_queue(work_, i, lookahead_);
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

void CasePrefetcher::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] {
      return stopping_ || (next_claim_ < cases_.size() && next_claim_ < next_take_ + lookahead_);
    });
    if (stopping_) return;
    const std::size_t i = next_claim_++;
    lock.unlock();
    Taken taken;
    try {
      taken = prepare(i);
    } catch (const std::exception& e) {  // nothing may escape a thread: the case carries it
      taken.error = e.what();
    }
    lock.lock();
    slots_[i].taken = std::move(taken);
    slots_[i].ready = true;
    changed_.notify_all();
  }
}

CasePrefetcher::Taken CasePrefetcher::next() {
  std::unique_lock lock(mutex_);
  if (next_take_ >= cases_.size()) {
    throw std::out_of_range("all " + std::to_string(cases_.size()) + " cases were taken");
  }
  const std::size_t i = next_take_;
  changed_.wait(lock, [&] { return slots_[i].ready; });
  Taken taken = std::move(slots_[i].taken);
  ++next_take_;
  lock.unlock();
  changed_.notify_all();  // a slot of the lookahead came free
  return taken;
}

}  // namespace mlacheck::api
