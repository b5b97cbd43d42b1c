#pragma once
// How the cases prepared at once (run/case_prefetch.hpp) share the host's threads for their
// oracles: in proportion to each case's work (case_work) within the cases in flight beside it.
// A fixed equal share gave a heavy case (a DeepSeek-V3 MTP verify, kv 8192) one thread while the
// light cases around it finished at once and left their cores idle, so the heavy case's oracle
// held back every row after it. Outputs are bit-identical for every count, so the share changes
// only how fast a row comes, never what it says.
#include <cstddef>
#include <span>

namespace mlacheck {

// The threads of the first case of `window` (its own work first, then the works of the cases that
// will be prepared beside it): ceil(host_threads * own / sum), at least 1, at most host_threads.
// A window of no work (copies only) gives 1. host_threads 0 (unknown) counts as 1.
int oracle_threads_for_share(std::span<const double> window, unsigned host_threads);

// The threads of case `i` of a queue whose cases have `works`, prepared with up to `lookahead`
// cases in flight: its share of this host's threads within works[i, i + lookahead).
int oracle_threads_in_queue(std::span<const double> works, std::size_t i, std::size_t lookahead);

// The default number of cases prepared ahead of the device: one per host thread, at least 4, at
// most 32 (each holds its inputs and oracle in host memory until its row is written).
std::size_t default_lookahead();

}  // namespace mlacheck
