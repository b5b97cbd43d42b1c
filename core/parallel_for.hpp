#pragma once
// A fork-join loop on a few std::threads: the oracle's independent requests and rows, the
// fills' requests, the staging's slices of a large tensor.
#include <functional>

namespace mlacheck {

// Calls body(index, worker) for every index in [0, count), on min(threads, count) threads: the
// calling thread is worker 0, the others are started here and joined before it returns. Each
// worker takes the next index when it finishes one, so the assignment of indices to workers
// varies; callers make results depend on the index only. The first exception thrown by a body is
// rethrown once every worker has stopped.
void parallel_for(int count, int threads, const std::function<void(int index, int worker)>& body);

}  // namespace mlacheck
