#pragma once
// Prepares a plan's cases ahead of a caller that runs its own backend (the Python runner): on
// threads of this library, each case is opened, its inputs made and encoded and its oracle run,
// so the caller's thread only runs the backend and the verdict (`mlacheck run --lookahead` does
// the same for the built-in backend, run/case_prefetch.hpp). Cases are handed out in list
// order; at most `lookahead` prepared cases wait to be taken, so memory stays bounded.
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/api_objects.hpp"

namespace mlacheck::api {

class CasePrefetcher {
 public:
  // `cases` are copies of the plan's entries and `known_bugs` a share of its known-bug table (each
  // case is settled with it, as one the plan opens): the prefetcher never reads the plan again, so
  // a plan freed before the prefetcher cannot be read after its end.
  CasePrefetcher(std::vector<RunCase> cases, KnownBugTable known_bugs, std::size_t lookahead, std::size_t threads);
  // Cancels: no case is claimed any more, the preparations under way finish (an oracle is not
  // interruptible) and the threads are joined; cases not taken are freed.
  ~CasePrefetcher();
  CasePrefetcher(const CasePrefetcher&) = delete;
  CasePrefetcher& operator=(const CasePrefetcher&) = delete;

  // The next case in list order, once prepared (blocks until then). `error` is empty, or what
  // its preparation threw: the case is then as mlacheck_case_open left it (or null when even the
  // opening failed), and making its inputs again raises the same error. Throws std::out_of_range
  // past the last case. One thread takes.
  struct Taken {
    std::unique_ptr<mlacheck_case> c;
    std::string error;
  };
  Taken next();

  std::size_t size() const { return cases_.size(); }
  // How many cases next() has handed out (the caller's thread is the only one that takes).
  std::size_t taken() const { return next_take_; }

 private:
  struct Slot {
    bool ready = false;
    Taken taken;
  };
  void work();
  Taken prepare(std::size_t i) const;

  std::vector<RunCase> cases_;
  std::vector<double> work_;  // each case's work (case_work), for its oracle's share of the threads
  KnownBugTable known_bugs_;
  std::size_t lookahead_;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t next_claim_ = 0;  // the first case no thread has claimed
  std::size_t next_take_ = 0;   // the case next() hands out next
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mlacheck::api

// The handle of harness_api.h's mlacheck_prefetch_* functions.
struct mlacheck_prefetch {
  mlacheck_prefetch(std::vector<mlacheck::RunCase> cases, KnownBugTable known_bugs, std::size_t lookahead,
                    std::size_t threads)
      : prefetcher(std::move(cases), std::move(known_bugs), lookahead, threads) {}
  mlacheck::api::CasePrefetcher prefetcher;
  std::string last_error;  // the error next() handed out last, kept alive for the caller
};
