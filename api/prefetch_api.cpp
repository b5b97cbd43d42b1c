// mlacheck_prefetch_*: a plan's cases prepared ahead of the caller on threads of this library
// (api/case_prefetcher.hpp), for callers that run their backend themselves.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>

#include "harness/oracle_share.hpp"
#include "api/api_call.hpp"
#include "api/case_prefetcher.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

extern "C" {

mlacheck_status mlacheck_prefetch_open(const mlacheck_plan* plan, const int64_t* indices, int64_t count,
                                       int32_t lookahead, int32_t threads, mlacheck_prefetch** out) {
  return api_call("mlacheck_prefetch_open", [&] {
    require(out, "out");
    *out = nullptr;
    require(plan, "plan");
    if (count < 0) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "count " + std::to_string(count) + " is negative");
    if (count > 0) require(indices, "indices");
    if (lookahead < 0) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "lookahead " + std::to_string(lookahead) + " must be >= 0 (0: the library's default)");
    }
    if (lookahead == 0) lookahead = static_cast<int32_t>(mlacheck::default_lookahead());
    if (threads < 0) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "threads " + std::to_string(threads) + " must be >= 0 (0: one per core, at most lookahead)");
    }
    const auto size = static_cast<int64_t>(plan->cases.size());
    std::vector<mlacheck::RunCase> cases;
    cases.reserve(static_cast<std::size_t>(count));
    for (int64_t k = 0; k < count; ++k) {
      if (indices[k] < 0 || indices[k] >= size) {
        throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "indices[" + std::to_string(k) + "] = " +
                                                            std::to_string(indices[k]) + " is outside the plan's [0, " +
                                                            std::to_string(size) + ")");
      }
      cases.push_back(plan->cases[static_cast<std::size_t>(indices[k])]);
    }
    const auto cores = static_cast<int32_t>(std::max(1u, std::thread::hardware_concurrency()));
    const int32_t workers = std::min(threads == 0 ? cores : threads, lookahead);
    *out = std::make_unique<mlacheck_prefetch>(std::move(cases), plan->known_bugs, static_cast<std::size_t>(lookahead),
                                               static_cast<std::size_t>(workers))
               .release();
  });
}

mlacheck_status mlacheck_prefetch_next(mlacheck_prefetch* prefetch, mlacheck_case** out, const char** error) {
  return api_call("mlacheck_prefetch_next", [&] {
    require(out, "out");
    require(error, "error");
    *out = nullptr;
    *error = nullptr;
    require(prefetch, "prefetch");
    if (prefetch->prefetcher.taken() >= prefetch->prefetcher.size()) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                     "all " + std::to_string(prefetch->prefetcher.size()) + " cases of the prefetch were taken");
    }
    mlacheck::api::CasePrefetcher::Taken taken = prefetch->prefetcher.next();
    prefetch->last_error = std::move(taken.error);
    if (!prefetch->last_error.empty()) *error = prefetch->last_error.c_str();
    *out = taken.c.release();
  });
}

void mlacheck_prefetch_free(mlacheck_prefetch* prefetch) { delete prefetch; }

}  // extern "C"
