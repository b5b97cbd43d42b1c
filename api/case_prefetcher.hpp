#pragma once
// Prepares a plan's cases ahead of a caller that runs its own backend (the Python runner): on
// threads of this library, each case is opened, its inputs made and encoded and its oracle run,
// so the caller's thread only runs the backend and the verdict. An adapter over the one prefetch
// loop (run/prefetch_queue.hpp, which `mlacheck run --lookahead` runs the built-in backend's cases
// through too): this file says only how a plan entry is prepared for a C caller.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "api/api_objects.hpp"
#include "run/prefetch_queue.hpp"

namespace mlacheck::api {

class CasePrefetcher {
 public:
  // `cases` are copies of the plan's entries and `known_bugs` a share of its known-bug table (each
  // case is settled with it, as one the plan opens): the prefetcher never reads the plan again, so
  // a plan freed before the prefetcher cannot be read after its end.
  CasePrefetcher(std::vector<RunCase> cases, KnownBugTable known_bugs, std::size_t lookahead, std::size_t threads);
  // Cancels (the queue's end): no case is claimed any more, the preparations under way finish and
  // the threads are joined; cases not taken are freed.
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
  Taken next() { return queue_.next(); }

  std::size_t size() const { return queue_.size(); }
  // How many cases next() has handed out (the caller's thread is the only one that takes).
  std::size_t taken() const { return queue_.taken(); }

 private:
  Taken prepare(std::size_t i, int oracle_threads) const;

  std::vector<RunCase> cases_;
  KnownBugTable known_bugs_;
  PrefetchQueue<Taken> queue_;  // last: its threads read the members above
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
