#pragma once
// Several jobs in forked children at once, each under its own watchdog (the many-children form of
// forked_child.hpp, for the sensitivity matrix's one child per seed). The parent forks every child
// from one thread and closes, in each child, the pipes of its siblings, so a child's end of file
// comes when that child ends, and no other thread of the parent holds a lock the child needs. As
// with run_forked, the caller must not have started the GPU runtime itself.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cli/forked_child.hpp"

namespace mlacheck::cli {

struct ForkedJob {
  std::function<std::string()> run;  // runs in the child; its result comes back as output
  double timeout_s = 0.0;
};

// Runs every job, at most `parallel` at a time, in the given order of starting; on_done(index,
// outcome) is called in this thread as each child ends (reported, died or killed by its watchdog:
// ChildOutcome as run_forked fills it).
void run_forked_pool(const std::vector<ForkedJob>& jobs, std::size_t parallel,
                     const std::function<void(std::size_t, ChildOutcome)>& on_done);

}  // namespace mlacheck::cli
