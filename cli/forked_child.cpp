#include "cli/forked_child.hpp"

#include <utility>

#include "cli/forked_pool.hpp"

namespace mlacheck::cli {

// One job is the pool's one-child case: the same fork, pipe, watchdog and reading of how it ended.
ChildOutcome run_forked(const std::function<std::string()>& job, double timeout_s) {
  ChildOutcome outcome;
  run_forked_pool({ForkedJob{job, timeout_s}}, 1, [&](std::size_t, ChildOutcome done) { outcome = std::move(done); });
  return outcome;
}

}  // namespace mlacheck::cli
